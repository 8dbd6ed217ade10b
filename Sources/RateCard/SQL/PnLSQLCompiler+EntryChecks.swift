/// The checks every query starts with, stage by stage: the source (`src`), each field read
/// (`p1`), the time's parts and the numbers (`p2`), the date, time and quantity checks
/// (`p3`), the instant in seconds (`p4`), the rules of a kind (`p5`), whether the row is
/// valid (`p`), and the entries once by id (`e`). Each stage is one CTE, its own function.
extension PnLSQLCompiler {
    /// The CTEs every query starts with: the source, the checked fields, the entries once by id.
    ///
    /// `relevant` (the table, not the audit) reads in full only the lines that can change
    /// the table (`relevantSource`): the rest are not checked, converted or hashed at all.
    ///
    /// `origin` (the audit) carries each row's `src_file` and `src_row` (`SQLSource`).
    ///
    /// `carry` (replay's query): more columns of each entry into `e`, each an expression
    /// over a checked row and its name (the copies of an id that is no conflict agree).
    func entryCTEs(
        relevant: Bool = false, origin: Bool = false, carry: [(name: String, value: String)] = []
    ) -> [(String, String)] {
        var ctes: [(String, String)] =
            relevant ? relevantSource() : [("src", source(origin: origin))]
        // `dup`: the id's copies are compared. In the two passes, the id has more than one
        // line (pass 1 counted them); in DuckDB's one read, its lines are written
        // differently (`vid`). Without either, every row is compared.
        let hasDup = ctes.contains { $0.0 == "keep" || $0.0 == "vid" }
        // Grouped by id before the checks (DuckDB): a row without `dup` is its id's only
        // row, so only the rows with `dup` are grouped again.
        let grouped = ctes.contains { $0.0 == "vid" }
        // The quantity's members, read in one parse of the object where the engine can.
        let members = d.jsonMembers(d.quoted("quantity"), request.dimensions)
        var from = "src"
        if let list = members.list {
            ctes.append(("p0", "SELECT src.*, \(list) AS q_list FROM src"))
            from = "p0"
        }
        ctes.append(
            (
                "p1",
                fieldsRead(
                    from: from, members: members.items, hasDup: hasDup, grouped: grouped,
                    origin: origin)
            ))
        ctes.append(("p2", timePartsAndNumbers()))
        ctes.append(("p3", timeAndQuantityChecks()))
        ctes.append(("p4", instant()))
        ctes.append(("p5", kindRules()))
        ctes.append(
            (
                "p",
                """
                SELECT p5.*, \(d.isTrue("present AND id <> '' AND time_ok AND range_ok AND kind_ok AND amt IS NOT NULL AND sign_ok AND needs_ok AND quantity_ok AND balance_ok AND (feature IS NULL OR feature <> '') AND (refund_of IS NULL OR refund_of <> '')")) AS valid
                FROM p5
                """
            ))
        ctes += entriesByID(
            relevant: relevant, origin: origin, carry: carry, hasDup: hasDup, grouped: grouped)
        return ctes
    }

    /// Spark's optimizer runs out of memory on the staged form (measured: 1 GB of heap and
    /// 4 minutes planning one query, against 56 s for the inline one), so Spark gets each
    /// check written out where it is used; the other engines compute the time's length and
    /// offset and each quantity member's pattern once, in a column.
    var stagesChecks: Bool { d != .spark }

    /// A field of the time, whose digits the pattern `at_ok` checks: engines with a
    /// non-raising cast take it as it is (the checks that follow all need `at_ok`),
    /// PostgreSQL only where the pattern holds.
    func timeField(_ e: String) -> String {
        d.castNeverRaises && d != .spark
            ? d.bigint(e) : "CASE WHEN at_ok THEN \(d.bigint(e)) END"
    }

    /// Whether the quantity is absent or a JSON object.
    var quantityIsObject: String {
        d.isTrue("\(d.quoted("quantity")) IS NULL OR \(d.isJSONObject(d.quoted("quantity")))")
    }

    /// The time's length, from `p1`'s column where the checks are staged.
    var atLength: String { stagesChecks ? "at_len" : "length(at_text)" }

    /// DuckDB reads the instant of most rows with one cast (`at_us`, microseconds since
    /// 1970) instead of the time's fields one by one: its `substring` counts characters,
    /// walking the text from its start for each of nine fields (7% of the query's
    /// instructions; docs/sql.md, Scale). The cast is taken only where `quick` holds: the
    /// strict pattern (`strictTimestampPattern`, so `24:00` or an offset of `+99:99`, which
    /// DuckDB reads, never get there), a date DuckDB reads (the same calendar as the `DATE`
    /// cast of the field form) and at most 6 digits of fraction (DuckDB keeps microseconds
    /// and drops the rest). The offset is always written (`Z` or `±HH:MM`), so the session's
    /// time zone plays no part. A leap second (`:60`, which DuckDB refuses), 7 or more
    /// digits of fraction, `t` or `z` (which DuckDB refuses too) take the fields. The cast
    /// runs on every row and never raises: `TRY_CAST` gives NULL for text it cannot read,
    /// `epoch_us` NULL for `infinity` (measured, DuckDB 2.0.1).
    var castsInstant: Bool { d == .duckdb }

    /// The rows whose instant is `at_us` (`castsInstant`), as a condition over `p1`: at
    /// most 27 characters ending in `Z`, 32 with an offset (6 digits of fraction), written
    /// without a `CASE` (DuckDB runs a `CASE` on every row; docs/sql.md, Scale).
    static let quickInstant =
        "(at_ok AND at_us IS NOT NULL AND (at_len <= 27 OR (at_len <= 32 AND NOT at_z)))"

    /// Whether the time ends in `Z` (or `z`), from `p1`'s column where the checks are staged.
    var atIsZulu: String {
        let lastT = d.substring("at_text", atLength, "1")
        return stagesChecks ? "at_z" : "(\(lastT) = 'Z' OR \(lastT) = 'z')"
    }

    /// `p1`: the fields as read, the quantity's members (`q_0`…), and whether the time and
    /// the amount have their patterns.
    func fieldsRead(
        from: String, members: [String], hasDup: Bool, grouped: Bool, origin: Bool
    ) -> String {
        let at = d.quoted("at")
        let q = members.enumerated().map { "\($0.element) AS q_\($0.offset)" }
        let last = d.substring(at, "length(\(at))", "1")
        // DuckDB: `suffix` compares bytes, where `substring` walks the text.
        let zulu =
            castsInstant ? "suffix(\(at), 'Z') OR suffix(\(at), 'z')" : "\(last) IN ('Z', 'z')"
        let instant =
            castsInstant ? ", epoch_us(TRY_CAST(\(at) AS TIMESTAMPTZ)) AS at_us" : ""
        let firstColumns =
            stagesChecks
            ? ",\n       length(\(at)) AS at_len, \(d.isTrue(zulu)) AS at_z, \(quantityIsObject) AS q_obj\(instant)"
            : ""
        let pattern = castsInstant ? Self.strictTimestampPattern : Self.timestampPattern
        return """
            SELECT id, \(at) AS at_text, kind, amount, feature, refund_of, reason, \(d.quoted("quantity")) AS quantity, device, note, card, balance_after, payment_ref, price\(hasDup ? ", dup" : "")\(grouped ? ", lines" : "")\(origin ? ", src_file, src_row" : "")\(q.isEmpty ? "" : ", " + q.joined(separator: ", ")),
                   \(d.isTrue(notNullAnd(at, d.matches(at, pattern)))) AS at_ok,
                   \(castsInstant ? "\(d.bigint("amount")) AS amt0, \(d.bigint("balance_after")) AS bal0" : "\(d.isTrue(notNullAnd("amount", d.matches("amount", Self.wholePattern)))) AS amount_ok")\(firstColumns)
            FROM \(from)
            """
    }

    /// `e IS NOT NULL AND m` for a match `m` of `e`; on DuckDB `m` alone, whose match of
    /// NULL is NULL, which `isTrue` makes FALSE (one test less on every row).
    func notNullAnd(_ e: String, _ m: String) -> String {
        d == .duckdb ? m : "\(e) IS NOT NULL AND \(m)"
    }

    /// `p2`: the time's fields as numbers, the amount and the balance as numbers, and each
    /// quantity member's pattern and point (or, on Spark, its value).
    func timePartsAndNumbers() -> String {
        let t = "at_text"
        let atLen = atLength
        let atZ = atIsZulu
        let scale = SQLCostPlan.quantityScale
        // margin's one definition of a member (docs/takings.md): digits without a leading
        // zero and an optional fraction, or a negative zero (`-0`, `-0.0`), which is 0.
        let decimalPattern = Self.memberPattern
        // Each quantity member: one pattern (digits without a leading zero, an optional
        // fraction), and where its point is, for the places it has (more than the query
        // reads stops it); the exponent pattern (`qe_`, read twice in `p3`) only for a
        // member that is there and not a decimal (the exponent needs an `e`, which no
        // decimal has). Spark: three patterns, written out.
        let qk = request.dimensions.indices.map { i in
            stagesChecks
                ? "\(d.isTrue(d.matches("q_\(i)", decimalPattern))) AS qk_\(i), \(d.position("q_\(i)", ".")) AS qp_\(i), \(d.isTrue("CASE WHEN q_\(i) IS NOT NULL AND NOT \(d.isTrue(d.matches("q_\(i)", decimalPattern))) THEN \(d.matches("q_\(i)", Self.exponentPattern)) END")) AS qe_\(i)"
                : "CASE WHEN \(d.isTrue(d.matches("q_\(i)", "^(-0([.]0{1,\(scale)})?|(0|[1-9][0-9]*)([.][0-9]{1,\(scale)})?)$"))) THEN \(d.decimal("q_\(i)", scale: scale)) END AS qv_\(i)"
        }
        let members = qk.isEmpty ? "" : ",\n       " + qk.joined(separator: ", ")
        // DuckDB: which rows' instant is `at_us` (`quick`); the other rows' fields are read
        // in `p3` and `p4`, each inside the one `CASE` that needs it (`SlowInstant`). The
        // amount and the balance are whole numbers by the text of their cast (`p1`'s
        // `amt0`, `bal0`: `wholeByCast`); the amount's value is taken in `p3`.
        if castsInstant {
            return """
                SELECT p1.*, \(Self.quickInstant) AS quick,
                       \(d.isTrue(Self.wholeByCast("amt0", "amount"))) AS amount_ok,
                       CASE WHEN \(Self.wholeByCast("bal0", "balance_after")) THEN bal0 END AS balance\(members)
                FROM p1
                """
        }
        let amount = "CASE WHEN amount_ok THEN \(d.bigint("amount")) END AS amt"
        let balance =
            "CASE WHEN \(d.isTrue(notNullAnd("balance_after", d.matches("balance_after", Self.wholePattern)))) THEN \(d.bigint("balance_after")) END AS balance\(members)"
        // The date: the others take its fields and check them in `p3`. The fraction: its
        // first 9 digits, padded to 9 digits.
        let fraction = d.substring(
            t, "21", "least(9, \(atLen) - 20 - CASE WHEN \(atZ) THEN 1 ELSE 6 END)")
        let nanos = d.bigint(d.rightPad(fraction, 9, "0"))
        return """
            SELECT p1.*,
                   \(timeField(d.substring(t, "1", "4"))) AS y, \(timeField(d.substring(t, "6", "2"))) AS mo, \(timeField(d.substring(t, "9", "2"))) AS dd,
                   \(timeField(d.substring(t, "12", "2"))) AS hh, \(timeField(d.substring(t, "15", "2"))) AS mi, \(timeField(d.substring(t, "18", "2"))) AS ss,
                   CASE WHEN at_ok AND NOT \(atZ) THEN \(d.bigint(d.substring(t, "\(atLen) - 4", "2"))) ELSE 0 END AS oh,
                   CASE WHEN at_ok AND NOT \(atZ) THEN \(d.bigint(d.substring(t, "\(atLen) - 1", "2"))) ELSE 0 END AS om,
                   CASE WHEN at_ok AND NOT \(atZ) AND \(d.substring(t, "\(atLen) - 5", "1")) = '-' THEN -1 ELSE 1 END AS osign,
                   CASE WHEN at_ok AND \(d.substring(t, "20", "1")) = '.' THEN \(nanos)
                        WHEN at_ok THEN 0 END AS nanos,
                   \(amount),
                   \(balance)
            FROM p1
            """
    }

    /// DuckDB: whether `text` is a whole number as margin reads one (`wholePattern`), by
    /// `value`, its `TRY_CAST` to `BIGINT` (which the query needs anyway): the cast's own
    /// text is `text` and has at most 18 digits, or `text` is `-0` (whose cast's text is
    /// `0`). A text is the text of an integer's cast exactly when it is that integer
    /// written without a `+`, a leading zero, spaces or a fraction, so this accepts the
    /// texts the pattern accepts, and costs a third of the match (docs/sql.md, Scale;
    /// `PnLSQLScaleTests.aWholeNumberByItsCastIsAWholeNumberByThePattern`).
    static func wholeByCast(_ value: String, _ text: String) -> String {
        "((CAST(\(value) AS VARCHAR) = \(text) AND \(value) BETWEEN -999999999999999999 AND 999999999999999999) OR \(text) = '-0')"
    }

    /// DuckDB: the time's fields of a row whose instant is not `at_us` (a leap second, `t`
    /// or `z`, 7 or more digits of fraction: `castsInstant`), as expressions over `p1`'s
    /// columns. They are written only inside the `CASE` branch of such rows (`time_ok` and
    /// `nanos` in `p3`, `secs` in `p4`), where `at_ok` holds, so that the rows of `at_us`
    /// evaluate none of them: as columns of their own, each under a `CASE` of its own, they
    /// cost every row seven conditions (docs/sql.md, Scale).
    struct SlowInstant {
        let d: SQLDialect
        let t = "at_text"
        /// Days since 1970 (NULL for a day its month does not have, leap years as the
        /// proleptic Gregorian calendar has them, as margin's).
        var days: String { "(TRY_CAST(\(d.substring(t, "1", "10")) AS DATE) - DATE '1970-01-01')" }
        var hh: String { d.bigint(d.substring(t, "12", "2")) }
        var mi: String { d.bigint(d.substring(t, "15", "2")) }
        var ss: String { d.bigint(d.substring(t, "18", "2")) }
        var oh: String { d.bigint(d.substring(t, "at_len - 4", "2")) }
        var om: String { d.bigint(d.substring(t, "at_len - 1", "2")) }
        var osign: String {
            "CASE WHEN \(d.substring(t, "at_len - 5", "1")) = '-' THEN -1 ELSE 1 END"
        }
        /// The fraction's first 9 digits, scaled by a power of ten from a list.
        var nanos: String {
            let places = "least(9, at_len - 20 - CASE WHEN at_z THEN 1 ELSE 6 END)"
            let powers = (0..<9).map { "1" + String(repeating: "0", count: 8 - $0) }
            return
                "\(d.bigint(d.substring(t, "21", places))) * [\(powers.joined(separator: ", "))][\(places)]"
        }
        /// Whether the fields are a real instant (the date by the cast, the rest by range).
        var valid: String {
            "\(d.isTrue("\(days) IS NOT NULL AND \(hh) <= 23 AND \(mi) <= 59 AND \(ss) <= 60 AND (at_z OR (\(oh) <= 23 AND \(om) <= 59))"))"
        }
        /// Seconds since 1970, less the offset.
        var seconds: String {
            "\(days) * 86400 + \(hh) * 3600 + \(mi) * 60 + \(ss) - CASE WHEN at_z THEN 0 ELSE \(osign) * (\(oh) * 60 + \(om)) * 60 END"
        }
    }

    /// `p3`: whether the date and time are a real instant, whether the quantity is well
    /// formed, whether a member has more places than the query reads (`too_fine`), and each
    /// member's value.
    func timeAndQuantityChecks() -> String {
        let dims = request.dimensions
        let staged = stagesChecks
        let qObject = quantityIsObject
        let scale = SQLCostPlan.quantityScale
        let decimalPattern = Self.memberPattern
        // A member written with a negative exponent: DuckDB's reader writes a JSON number
        // that small so (`1e-7`), other engines keep it as written. It has more places than
        // the query reads, so such a row stops the query (`too_fine`).
        let exponentPattern = Self.exponentPattern
        let leap = "((y % 4 = 0 AND y % 100 <> 0) OR y % 400 = 0)"
        let monthDays =
            "CASE WHEN mo = 2 THEN (CASE WHEN \(leap) THEN 29 ELSE 28 END) WHEN mo IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
        let qv =
            staged
            ? dims.indices.map { i in
                "CASE WHEN qk_\(i) AND (qp_\(i) = 0 OR length(q_\(i)) - qp_\(i) <= \(scale)) THEN \(d.decimal("q_\(i)", scale: scale)) END AS qv_\(i)"
            } : ["\(qObject) AS q_obj"]
        let qOK = dims.indices.map {
            staged
                ? "(q_\($0) IS NULL OR qk_\($0) OR qe_\($0))"
                : "(q_\($0) IS NULL OR \(d.isTrue(d.matches("q_\($0)", decimalPattern))) OR \(d.isTrue(d.matches("q_\($0)", exponentPattern))))"
        }
        let qFine = dims.indices.map {
            staged
                ? "((qk_\($0) AND qp_\($0) > 0 AND length(q_\($0)) - qp_\($0) > \(scale)) OR qe_\($0))"
                : "(\(d.isTrue(d.matches("q_\($0)", "^(0|[1-9][0-9]*)[.][0-9]{\(scale + 1),}$"))) OR \(d.isTrue(d.matches("q_\($0)", exponentPattern))))"
        }
        let time: String
        if castsInstant {
            // DuckDB: the rows of `at_us` are a real instant; the others' fields are read
            // and checked here, and their fraction read (`SlowInstant`).
            let slow = SlowInstant(d: d)
            time = """
                CASE WHEN amount_ok THEN amt0 END AS amt,
                       CASE WHEN quick THEN TRUE WHEN at_ok THEN \(slow.valid) ELSE FALSE END AS time_ok,
                       CASE WHEN quick THEN \(Self.microsOfSecond) * 1000 WHEN at_ok AND \(d.substring("at_text", "20", "1")) = '.' THEN \(slow.nanos)
                            WHEN at_ok THEN 0 END AS nanos
                """
        } else {
            let civil =
                " y - CASE WHEN mo <= 2 THEN 1 ELSE 0 END AS yy, CASE WHEN mo > 2 THEN mo - 3 ELSE mo + 9 END AS mp,"
            let dateOK = "at_ok AND mo BETWEEN 1 AND 12 AND dd >= 1 AND dd <= (\(monthDays))"
            time =
                "\(civil)\n       \(d.isTrue("(\(dateOK) AND hh <= 23 AND mi <= 59 AND ss <= 60 AND oh <= 23 AND om <= 59)")) AS time_ok"
        }
        return """
            SELECT p2.*,\(castsInstant ? "\n       " : "")\(time),
                   \(d.isTrue(([staged ? "q_obj" : qObject] + qOK).joined(separator: " AND "))) AS quantity_ok,
                   CASE WHEN \(qFine.isEmpty ? "FALSE" : d.isTrue(qFine.joined(separator: " OR "))) THEN 1 ELSE 0 END AS too_fine\(qv.isEmpty ? "" : ",\n       " + qv.joined(separator: ", "))
            FROM p2
            """
    }

    /// `at_us`'s microseconds within its second, 0 to 999999 (before 1970 too: DuckDB's `%`
    /// takes the dividend's sign), so `at_us` less it is whole seconds, divided exactly.
    static let microsOfSecond = "((at_us % 1000000) + 1000000) % 1000000"

    /// `p4`: the instant in seconds since 1970 (days from the civil date outside DuckDB),
    /// less the offset.
    func instant() -> String {
        let era = d.smallQuotient("yy", "400")
        let yoe = "(yy - \(era) * 400)"
        let doy = "(\(d.smallQuotient("153 * mp + 2", "5")) + dd - 1)"
        let doe =
            "(\(yoe) * 365 + \(d.smallQuotient(yoe, "4")) - \(d.smallQuotient(yoe, "100")) + \(doy))"
        let seconds =
            castsInstant
            ? "WHEN quick THEN (at_us - \(Self.microsOfSecond)) // 1000000 WHEN time_ok THEN \(SlowInstant(d: d).seconds)"
            : "WHEN time_ok THEN (\(era) * 146097 + \(doe) - 719468) * 86400 + hh * 3600 + mi * 60 + ss - osign * (oh * 60 + om) * 60"
        return """
            SELECT p3.*, CASE \(seconds) END AS secs
            FROM p3
            """
    }

    /// `p5`: the fields present, the instant in range, and each kind's rules (its sign and
    /// the fields it needs).
    func kindRules() -> String {
        let at = d.quoted("at")
        // A revoke (credits taken back after an Apple refund) is negative and names its
        // paymentRef, as in margin; an empty paymentRef is none.
        // DuckDB plans an `IN` of five texts as a join with a list of constants (a hash
        // probe of every row) and a `NOT IN` beside an `IN` as two tests: it gets the
        // equalities and the sign as one comparison of two booleans (the same value for
        // every row, NULL included: `isTrue` makes either FALSE).
        let kindList = ["grant", "charge", "refund", "topup", "revoke"]
        let kinds =
            d == .duckdb
            ? kindList.map { "kind = '\($0)'" }.joined(separator: " OR ")
            : "kind IN (\(kindList.map { "'\($0)'" }.joined(separator: ", ")))"
        let sign =
            d == .duckdb
            ? "(amt < 0) = (kind = 'charge' OR kind = 'revoke') AND amt <> 0"
            : "((kind IN ('charge', 'revoke') AND amt < 0) OR (kind NOT IN ('charge', 'revoke') AND amt > 0))"
        let needs =
            "(kind <> 'charge' OR feature IS NOT NULL) AND (kind <> 'refund' OR (feature IS NOT NULL AND refund_of IS NOT NULL)) AND (kind <> 'revoke' OR NULLIF(payment_ref, '') IS NOT NULL)"
        let balance = "(balance_after IS NULL OR balance IS NOT NULL)"
        let range = "secs BETWEEN \(Self.firstSecond) AND \(Self.lastSecond)"
        return """
            SELECT p4.*, \(d.isTrue("id IS NOT NULL AND \(at) IS NOT NULL AND kind IS NOT NULL AND amount IS NOT NULL".replacingOccurrences(of: at, with: "at_text"))) AS present,
                   \(d.isTrue(range)) AS range_ok, \(d.isTrue(kinds)) AS kind_ok, \(d.isTrue(sign)) AS sign_ok,
                   \(d.isTrue(needs)) AS needs_ok, \(d.isTrue(balance)) AS balance_ok
            FROM p4
            """
    }

    /// `e` (with `e0` before it where the rejected rows are counted in the same pass): the
    /// valid entries once by id, whether an id's copies conflict, and how many there are.
    func entriesByID(
        relevant: Bool, origin: Bool, carry: [(name: String, value: String)], hasDup: Bool,
        grouped: Bool
    ) -> [(String, String)] {
        let dims = request.dimensions
        // Content, canonically: numbers by value, the time as an instant, NULL as absent.
        // An optional text that is empty is the same as an absent one (margin: a CSV cell
        // that is empty is an absent field, so `"note": ""` and no note are one entry).
        let optional = ["reason", "device", "note", "card", "payment_ref", "price"].map {
            "NULLIF(\($0), '')"
        }
        let fields =
            ["kind", "amt", "secs", "nanos", "feature", "refund_of"] + optional + ["balance"]
            + dims.indices.map { "qv_\($0)" }
        let content = d.contentTest(
            fields, numeric: ["amt", "secs", "nanos", "balance"] + dims.indices.map { "qv_\($0)" })
        let h =
            content.row.map {
                "\(hasDup && !grouped ? "CASE WHEN dup THEN \($0) END" : $0) AS h, "
            } ?? ""
        // Copies of an id that are not a conflict have the same content: any one will do.
        let any = d.anyValue
        let mins = dims.indices.map { "\(any)(qv_\($0)) AS qv_\($0)" }
        // The table's query counts the rejected rows in the same pass that groups the valid
        // ones (`e0`: every checked row, grouped by id and `valid`), so the checks run once:
        // counting them from `p` again made engines that inline a CTE (DuckDB, ClickHouse)
        // run every check twice (DuckDB, 1M lines: 2.35× the hand-written query's CPU time
        // against 1.61×; docs/sql.md, Scale). The audit lists rejected rows from `p` itself.
        // Not on Spark, which counts from `p` as before (`usesLeanForms`).
        let counted = relevant && usesLeanForms
        let validColumn = counted ? ", valid" : ""
        let single =
            grouped
            ? """
            SELECT id, kind, amt, feature, refund_of, secs, nanos\(dims.indices.map { ", qv_\($0)" }.joined()), too_fine, \(oddDimensions) AS odd_dims,
                   FALSE AS conflict, lines AS copies\(carry.map { ", \($0.value) AS \($0.name)" }.joined())\(validColumn)
            FROM p WHERE \(counted ? "" : "valid AND ")NOT dup
            UNION ALL

            """ : ""
        let kept = [grouped ? "dup" : nil, counted ? nil : "valid"].compactMap { $0 }
        var ctes = [
            (
                counted ? "e0" : "e",
                single + """
                    SELECT id, \(any)(kind) AS kind, \(any)(amt) AS amt, \(any)(feature) AS feature, \(any)(refund_of) AS refund_of, \(any)(secs) AS secs,
                           \(any)(nanos) AS nanos\(mins.isEmpty ? "" : ", " + mins.joined(separator: ", ")), MAX(too_fine) AS too_fine,
                           MAX(odd) AS odd_dims, \(d.isTrue(content.differs)) AS conflict, \(grouped ? "CAST(SUM(lines) AS BIGINT)" : "COUNT(*)") AS copies\(origin ? ", MIN(src_file) AS src_file, MIN(src_row) AS src_row" : "")\(carry.map { ", \(any)(\($0.name)) AS \($0.name)" }.joined())\(validColumn)
                    FROM (SELECT p.*, \(h)\(oddDimensions) AS odd\(carry.map { ", \($0.value) AS \($0.name)" }.joined()) FROM p\(kept.isEmpty ? "" : " WHERE " + kept.joined(separator: " AND "))) v
                    GROUP BY id\(validColumn)
                    """
            )
        ]
        if counted {
            ctes.append(("e", "SELECT * FROM e0 WHERE valid"))
        }
        return ctes
    }
}
