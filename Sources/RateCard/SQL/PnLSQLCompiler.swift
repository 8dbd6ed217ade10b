/// Compiles `margin pnl` into one SQL query per engine: the per-feature table, and the
/// audit of every row the Swift engine rejects or warns about.
///
/// The query is a chain of common table expressions, the same for every dialect and
/// source; only spellings differ (`SQLDialect`):
///
/// 1. `src`: the schema's columns, from files or a table (`SQLSource`);
/// 2. `p1`…`p4`: each row's fields checked as `margin pnl` checks them (a whole amount of
///    at most 18 digits with the sign of its kind, an RFC 3339 time with an offset and a
///    possible date, a charge's feature, a refund's charge, quantities as decimals that are
///    not negative), its instant as seconds and nanoseconds since the epoch by integer
///    arithmetic, and a hash of its content (compared canonically: numbers by value, the
///    time as an instant);
/// 3. `e`: every valid entry once by id; an id whose copies differ is a conflict, which
///    stops the query with an error (input order, which `margin pnl` uses to keep the
///    first copy, is not something a table has). DuckDB groups the lines by id before the
///    checks instead (`groupedSource`), so only an id written differently is grouped here;
/// 4. `w`, `r`: charges and refunds in the half-open window; a refund counts only when
///    the charge it names exists, is a charge, and is of the same feature;
/// 5. each charge's metered cost from its quantities, the card version in force at its
///    time and the schedule period then in the provider's offset, as an integer numerator
///    over the plan's common denominator (`SQLCostPlan`); value, profit;
/// 6. the money numerators divided once, at the end, into `DECIMAL(38, scale)`.
struct PnLSQLCompiler: Sendable {
    let request: PnLSQLRequest
    let plan: SQLCostPlan
    let d: SQLDialect
    /// The window's bounds as parameters (`--sql-params`), or nil for constants.
    let params: SQLParameters?

    init(_ request: PnLSQLRequest) throws(SQLCompileError) {
        try request.source.check(request.dialect)
        guard !request.versions.isEmpty else {
            throw .usage("no version of card '\(request.family)'")
        }
        self.request = request
        plan = try SQLCostPlan(request)
        d = request.dialect
        params = request.parameters ? try SQLParameters(request) : nil
    }

    /// The source's `SELECT` (`SQLSource.select`), reading the card's quantity dimensions.
    func source(only: [String]? = nil, origin: Bool = false) -> String {
        request.source.select(d, only: only, origin: origin, dimensions: request.dimensions)
    }

    // MARK: The table

    /// The query of the per-feature table: `feature, charges, charged, declines,
    /// given_back, left_credits, metered_cost, value, profit, fixed_cost`.
    func query() -> String {
        var ctes = entryCTEs(relevant: true)
        ctes.append(
            (
                "g",
                """
                SELECT COALESCE(SUM(CASE WHEN conflict THEN 1 ELSE 0 END), 0) AS conflicts, COALESCE(SUM(too_fine), 0) AS too_fine,
                       COALESCE(SUM(odd_dims), 0) AS odd_dims FROM e
                """
            ))
        // The rows the query checked and rejected: said in every row of the result, so a
        // source whose every row fails the checks (a view printing `+00` offsets) never
        // looks like a quiet ledger.
        ctes.append(
            (
                "rj",
                usesLeanForms
                    ? "SELECT COALESCE(SUM(copies), 0) AS rejected FROM e0 WHERE NOT valid"
                    : "SELECT COUNT(*) AS rejected FROM p WHERE NOT valid"
            ))
        ctes += windowCTEs()
        ctes += featureTableCTEs()
        let by = request.series != nil
        let message =
            "'margin: ' || \(d.text("g.conflicts")) || ' ids with conflicting duplicates and ' || \(d.text("g.too_fine")) || ' entries with a quantity finer than \(SQLCostPlan.quantityScale) places and ' || \(d.text("g.odd_dims")) || ' metered charges with a dimension their feature does not have and ' || \(d.text("rt.ties")) || ' charges refunded twice at one instant with different amounts: run margin pnl --sql-audit \(d.rawValue) to list them'"
        let select = """
            SELECT \(by ? "period, " : "")feature, charges, charged, declines, given_back, left_credits,
                   \(moneyResult("metered_num")) AS metered_cost, \(moneyResult("value_num")) AS value,
                   \(moneyResult("profit_num")) AS profit, \(moneyResult("fixed_num")) AS fixed_cost, rj.rejected AS rejected
            FROM m4 CROSS JOIN g CROSS JOIN rt CROSS JOIN rj
            WHERE \(d.check("g.conflicts = 0 AND g.too_fine = 0 AND g.odd_dims = 0 AND rt.ties = 0", message: message,
                            constant: "margin: ids with conflicting duplicates, a quantity finer than \(SQLCostPlan.quantityScale) places, a metered charge with a dimension its feature does not have or a charge refunded twice at one instant with different amounts: run margin pnl --sql-audit \(d.rawValue) to list them"))
            ORDER BY \(by ? d.orderByBytes("period") + ", " : "")\(d.orderByBytes("feature"))
            """
        return header(kind: "the per-feature P&L of margin pnl")
            + "-- rejected (the last column): how many rows the query checked and rejected, as margin pnl rejects lines (--sql-audit lists them)\n"
            + with(ctes) + "\n" + select
            + d.settings + ";\n"
    }

    /// The charges (`w`, each costed) and the refunds margin keeps (`r`) in the window, each
    /// with its period (`''` without a series); `rt` counts the refund ties that stop the query.
    func windowCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        ctes.append(
            (
                "w0",
                """
                SELECT feature, amt, secs, nanos, \(quantityColumns(prefix: "qi_")), \(versionExpression) AS v\(periodColumns)
                FROM e WHERE kind = 'charge' AND \(inWindow("secs", "nanos"))
                """
            ))
        ctes.append(("w1", "SELECT feature, amt, secs, \(costExpression) AS cost_num FROM w0"))
        ctes += refundCTEs()
        ctes.append(("rt", "SELECT COUNT(*) AS ties FROM rk WHERE k_amt <> k_amt_max"))
        ctes.append(
            (
                "r1",
                """
                SELECT k_feature AS feature, k_amt AS amt, k_secs AS secs FROM rk WHERE \(inWindow("k_secs", "k_nanos"))
                """
            ))
        if let series = request.series {
            ctes += periodCTEs(series, from: "w1", into: "w")
            ctes += periodCTEs(series, from: "r1", into: "r")
        } else {
            ctes.append(("w", "SELECT w1.*, '' AS period FROM w1"))
            ctes.append(("r", "SELECT r1.*, '' AS period FROM r1"))
        }
        return ctes
    }

    /// Per period and feature (`t`): charges, credits charged and given back, metered and
    /// fixed cost; then the value and profit and the money figures (`m4`).
    func featureTableCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        ctes.append(
            (
                "c",
                "SELECT period, feature, COUNT(*) AS charges, SUM(\(d.wide("-amt"))) AS charged, SUM(cost_num) AS cost_num FROM w GROUP BY period, feature"
            ))
        ctes.append(
            (
                "dc",
                "SELECT period, feature, COUNT(*) AS declines, SUM(\(d.wide("amt"))) AS given_back FROM r GROUP BY period, feature"
            ))
        let listed =
            request.series != nil
            ? [] : request.listedFeatures.map { "SELECT '' AS period, \(d.literal($0)) AS feature" }
        // The fixed costs, as constant rows: per feature, or with a series per period of
        // the window and feature (every period gets its rows, with takings or not).
        let hasFixed = !plan.fixed.isEmpty
        if hasFixed {
            ctes.append(
                (
                    "fx",
                    plan.fixed.map {
                        "SELECT \(d.literal($0.period)) AS period, \(d.literal($0.feature)) AS feature, \(d.wideLiteral($0.numerator)) AS fixed_num"
                    }.joined(separator: "\n    UNION ALL ")
                ))
        }
        ctes.append(
            (
                "keys",
                (["SELECT period, feature FROM c", "SELECT period, feature FROM dc"]
                    + (hasFixed ? ["SELECT period, feature FROM fx"] : []) + listed)
                    .joined(separator: "\n    UNION DISTINCT ")
            ))
        ctes.append(
            (
                "t",
                """
                SELECT k.period AS period, k.feature AS feature, COALESCE(c.charges, 0) AS charges, COALESCE(c.charged, \(d.wideLiteral(0))) AS charged,
                       COALESCE(dc.declines, 0) AS declines, COALESCE(dc.given_back, \(d.wideLiteral(0))) AS given_back,
                       COALESCE(c.cost_num, \(d.wideLiteral(0))) AS metered_num, \(hasFixed ? "COALESCE(fx.fixed_num, \(d.wideLiteral(0)))" : d.wideLiteral(0)) AS fixed_num
                FROM keys k LEFT JOIN c ON c.period = k.period AND c.feature = k.feature LEFT JOIN dc ON dc.period = k.period AND dc.feature = k.feature\(hasFixed ? "\n    LEFT JOIN fx ON fx.period = k.period AND fx.feature = k.feature" : "")
                """
            ))
        ctes.append(
            (
                "n0",
                """
                SELECT period, feature, charges, charged, declines, given_back, charged - given_back AS left_credits, metered_num, fixed_num,
                       (charged - given_back) * \(d.wideLiteral(plan.valueRate)) AS value_num
                FROM t
                """
            ))
        ctes.append(("n", "SELECT n0.*, value_num - metered_num - fixed_num AS profit_num FROM n0"))
        let money = ["metered", "value", "profit", "fixed"]
        ctes += moneyCTEs(from: "n", columns: money.map { "\($0)_num" })
        return ctes
    }

    // MARK: Shared parts

    /// The refunds `margin pnl` uses, as its refund rules decide them: `rv` holds every
    /// refund of a known charge of the same feature that gives back no more than the charge
    /// charged (the others are rejected); of several refunds of one charge the earliest is
    /// used. `rk` has one row per refunded charge: the earliest instant's refund
    /// (`k_amt`, `k_secs`, `k_nanos`, `kept_id`). margin breaks a tie at one instant by an
    /// id hash that SQL cannot reproduce; tied refunds of equal amounts give the same table
    /// whichever is kept, and tied refunds of different amounts (`k_amt <> k_amt_max`) stop
    /// the query (`rt`), so the choice is never made silently. The charges joined are only
    /// those some refund names, so the join's hash table is built on a few rows, not on
    /// every charge (DuckDB and ClickHouse build on the right side; docs/sql.md, Scale).
    func refundCTEs() -> [(String, String)] {
        [
            (
                "rv",
                """
                SELECT rf.id AS id, rf.refund_of AS refund_of, rf.feature AS feature, rf.amt AS amt, rf.secs AS secs, rf.nanos AS nanos
                FROM e rf JOIN \(usesLeanForms ? "(SELECT id, kind, feature, amt FROM e WHERE kind = 'charge' AND id IN (SELECT refund_of FROM e WHERE kind = 'refund'))" : "e") ch ON ch.id = rf.refund_of
                WHERE rf.kind = 'refund' AND ch.kind = 'charge' AND ch.feature = rf.feature AND \(d.wide("rf.amt")) + \(d.wide("ch.amt")) <= 0
                """
            ),
            ("rs", "SELECT refund_of AS s_ref, MIN(secs) AS s_secs FROM rv GROUP BY refund_of"),
            (
                "rn",
                """
                SELECT rv.refund_of AS n_ref, MIN(rv.secs) AS n_secs, MIN(rv.nanos) AS n_nanos
                FROM rv JOIN rs ON rs.s_ref = rv.refund_of AND rv.secs = rs.s_secs GROUP BY rv.refund_of
                """
            ),
            (
                "rk",
                """
                SELECT rv.refund_of AS k_ref, MIN(rv.feature) AS k_feature, MIN(rv.amt) AS k_amt, MAX(rv.amt) AS k_amt_max,
                       MIN(rv.id) AS kept_id, MIN(rv.secs) AS k_secs, MIN(rv.nanos) AS k_nanos
                FROM rv JOIN rn ON rn.n_ref = rv.refund_of AND rv.secs = rn.n_secs AND rv.nanos = rn.n_nanos
                GROUP BY rv.refund_of
                """
            ),
        ]
    }

    /// How DuckDB is told to keep a CTE of `groupedSource`: its read of the source `s0`,
    /// which three CTEs use, kept in memory rather than parsed again; `src`, which the two
    /// branches of `e` use, computed in each rather than kept (the branch of rows without
    /// `dup` drops the lines of the ids of `vid`, the other every row drawn from `s0`, before
    /// the checks: measured on the 10M benchmark, 1.1 CPU-seconds and 1.2 GB of buffers
    /// saved).
    func materialized(_ name: String, in ctes: [(String, String)]) -> String {
        guard d == .duckdb, ctes.contains(where: { $0.0 == "vid" }) else { return "" }
        switch name {
        case "s0", "rf": return "MATERIALIZED "
        case "src": return "NOT MATERIALIZED "
        default: return ""
        }
    }

    func with(_ ctes: [(String, String)]) -> String {
        "WITH\n"
            + ctes.map {
                "\($0.0) AS \(materialized($0.0, in: ctes))(\n    \($0.1.replacingOccurrences(of: "\n", with: "\n    "))\n)"
            }.joined(separator: ",\n")
    }

    func header(kind: String) -> String {
        let versions = request.versions.map { "\($0.reference) from \($0.effective.rfc3339UTC)" }
            .joined(separator: ", ")
        var lines = [
            "-- \(kind), for \(d.rawValue), written by margin pnl --sql (docs/sql.md).",
            "-- card \(request.family): \(versions)",
            params == nil
                ? "-- window: \(request.window.name) [\(request.window.since?.rfc3339UTC ?? "-infinity"), \(request.window.until?.rfc3339UTC ?? "infinity"))"
                : "-- window: bound when the query runs (below); every row is read in full",
            "-- money in \(request.currency.code); a credit is worth \(request.perCredit.amount.decimalText(maxScale: 38))",
            "-- money columns: DECIMAL(38, \(plan.scale)), "
                + (plan.exact
                    ? "exact (every sum is an integer over \(plan.denominator), which divides 10^\(plan.scale))"
                    : "each an exact integer sum over \(plan.denominator), divided once at the end and rounded half-even to \(plan.scale) places (the denominator has a prime factor other than 2 and 5)"),
            "-- quantities are read with \(SQLCostPlan.quantityScale) places; a finer one stops the query (see --sql-audit)",
        ]
        lines += params?.header ?? []
        if d == .spark {
            lines.append(
                "-- run with spark.sql.ansi.enabled=true (the default from Spark 4.0), so that an overflow is an error, not NULL"
            )
        }
        if d == .clickhouse {
            lines.append(
                "-- ClickHouse Int128 arithmetic wraps on overflow: sums stay exact below 1.7e38 / \(max(plan.valueRate, 1)) credits left per feature"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether the query takes the leaner forms (the rejected rows counted in the pass that
    /// groups the valid ones, `e0`; the refunds joined to only the charges they name; the ids
    /// refunds name read once, `rf`), or, on Spark, the earlier ones. Spark inlines every CTE,
    /// so each further reading of `e` or `e0` copies the chain beneath it down to the file:
    /// the two-pass conflict query reads the file 166 times with the lean forms against 67,
    /// in a physical plan of 2,453 lines against 1,029, planned and run 1.4–3× slower
    /// (docs/sql.md, "Spark keeps the earlier forms", with the CI failures once put down to
    /// these forms, which did not recur here).
    var usesLeanForms: Bool { d != .spark }

    /// The source restricted to the lines that can change the table, in two passes.
    ///
    /// The first reads only `id` and `refund_of` and finds the ids that occur more than
    /// once (their copies are compared, a conflict stops the query: `dup`, and only their
    /// rows are hashed) and every id a refund names (the charge, and every refund of it:
    /// the earliest is the one used). The second keeps those lines and the lines whose
    /// date, as written, is within a day of the window (an offset is less than a day, so
    /// every line of an instant in the window is kept); the lines it drops have an id of
    /// their own that no refund names and a time outside the window, or no valid time at
    /// all: nothing of them reaches the table. Without a window every line is kept.
    ///
    /// Both passes read the source. DuckDB reads it once and keeps it in memory instead
    /// (`groupedSource`), with or without a window: there the saving of the second parse
    /// outweighs the memory (docs/sql.md, Scale).
    func relevantSource() -> [(String, String)] {
        // With parameters the window is not known here: every row is read in full.
        let window = params == nil ? request.window : .all
        var near: [String] = []
        // DuckDB compares the whole text instead of its first ten characters (the same
        // rows: `Self.dateBand`), which saves a scan of every line's characters.
        let whole = d == .duckdb
        let at = whole ? d.quoted("at") : d.substring(d.quoted("at"), "1", "10")
        if let since = window.since, since.seconds - 86_400 > Self.firstSecond {
            near.append("\(at) >= \(d.literal(Self.utcDate(since.seconds - 86_400)))")
        }
        if let until = window.until, until.seconds + 86_400 < Self.lastSecond {
            let last = Self.utcDate(until.seconds + 86_400)
            near.append(
                whole
                    ? "\(at) < \(d.literal(Self.dateBand(after: last)))"
                    : "\(at) <= \(d.literal(last))")
        }
        if d == .duckdb { return groupedSource(near: near) }
        guard !near.isEmpty else { return [("src", source())] }
        return [
            ("s1", source(only: ["id", "refund_of"])),
            ("s2", source()),
            (
                "keep",
                """
                SELECT CASE WHEN id IS NOT NULL THEN id ELSE refund_of END AS k, \(d.isTrue("id IS NOT NULL AND n > 1")) AS dup
                FROM (SELECT id, refund_of, COUNT(*) AS n FROM s1 GROUP BY GROUPING SETS ((id), (refund_of))) ids
                WHERE (id IS NOT NULL AND n > 1) OR refund_of IS NOT NULL
                """
            ),
            (
                "src",
                """
                SELECT s2.*, \(d.isTrue("id IN (SELECT k FROM keep WHERE dup)")) AS dup FROM s2
                WHERE \(d.isTrue(near.joined(separator: " AND "))) OR id IN (SELECT k FROM keep) OR refund_of IN (SELECT k FROM keep)
                """
            ),
        ]
    }

    /// DuckDB: the source read once, kept in memory, and every id's lines made one row
    /// before any check.
    ///
    /// `s0` is the read, materialized, so that it is parsed once and used three times.
    /// `n1` holds the 64-bit hashes (DuckDB's `hash`) that more than one line's id has: the
    /// ids with copies (about 1% of ids in the benchmark's exports), and any id whose hash
    /// another id shares. The hash only picks: the lines of those ids are grouped on every
    /// field (`m`), so that lines written alike become one row, compared as written; an id
    /// there by a shared hash alone has one row, as it would in the other branch. Every
    /// other id's hash is its own, so it has one line. An id of `vid` has lines
    /// written differently: each of them goes through the checks (`dup`), and their
    /// canonical content decides whether they conflict. Every other id has one row, which
    /// stands for all its lines (`dup` false) and is checked once. With a window the rows
    /// are kept as in the two-pass form: near the window by their date as written, a
    /// refund, or an id some line's `refundOf` names; every line of an id of `vid` is kept
    /// wherever it lies, so a conflict anywhere still stops the query. A line whose id is
    /// NULL is in the first branch, never grouped: it is rejected, whatever its copies.
    ///
    /// Grouping every line on every field instead, then the distinct lines by id, took
    /// 20.6 of the query's 42.9 CPU-seconds on the 10M benchmark (profiled); counting the
    /// ids' hashes takes 2.7, for 4.9 spent keeping the read in memory (docs/sql.md).
    func groupedSource(near: [String]) -> [(String, String)] {
        let names = SQLSchema.columns.map(\.name).filter { $0 != "id" }
        // The columns the checks read (a revoke's `payment_ref` among them: it is required);
        // the others only feed the content hash, which only the lines of `vid` need.
        let checked = Set([
            "at", "kind", "amount", "feature", "refund_of", "quantity", "balance_after",
            "payment_ref",
        ])
        let all = names.map { d.quoted($0) }.joined(separator: ", ")
        let text = SQLSchema.types(d).text
        let kept = names.map {
            checked.contains($0) ? d.quoted($0) : "CAST(NULL AS \(text)) AS \(d.quoted($0))"
        }
        let many = d.isTrue("id IS NOT NULL AND hash(id) IN (SELECT h FROM n1)")
        let variants = d.isTrue("id IN (SELECT id FROM vid)")
        var single = "NOT \(many)"
        var multiple = ""
        if !near.isEmpty {
            let keep =
                "\(d.isTrue(near.joined(separator: " AND "))) OR refund_of IS NOT NULL"
                + (usesLeanForms
                    ? " OR id IN (SELECT r FROM rf)"
                    : " OR id IN (SELECT refund_of FROM s0 WHERE refund_of IS NOT NULL)")
            single = "(\(keep)) AND \(single)"
            multiple = "\nWHERE \(keep) OR \(variants)"
        }
        // The ids refunds name, once: both branches of `src` (each computed twice, once per
        // branch of `e`) test them, and reading them from `s0` each time took four more
        // scans of the read (1M lines: about 5% of the query's CPU time).
        let refunded: [(String, String)] =
            near.isEmpty || !usesLeanForms
            ? []
            : [("rf", "SELECT DISTINCT refund_of AS r FROM s0 WHERE refund_of IS NOT NULL")]
        return [
            ("s0", source())
        ] + refunded + [
            (
                "n1",
                "SELECT hash(id) AS h FROM s0 WHERE id IS NOT NULL GROUP BY h HAVING COUNT(*) > 1"
            ),
            ("m", "SELECT id, \(all), COUNT(*) AS lines FROM s0 WHERE \(many) GROUP BY id, \(all)"),
            ("vid", "SELECT id FROM m GROUP BY id HAVING COUNT(*) > 1"),
            (
                "src",
                """
                SELECT id, \(kept.joined(separator: ", ")), 1 AS lines, FALSE AS dup FROM s0
                WHERE \(single)
                UNION ALL
                SELECT m.*, \(variants) AS dup FROM m\(multiple)
                """
            ),
        ]
    }

    /// The text just above every text whose first ten characters are at most `date`
    /// (`YYYY-MM-DD`, ASCII): `date` with its last digit raised by one (`9` becomes `:`).
    ///
    /// For a text `s` compared byte by byte (DuckDB's `VARCHAR`, no collation), and a
    /// date `A` of ten ASCII bytes, `substring(s, 1, 10) >= A` holds exactly when `s >= A`,
    /// and `substring(s, 1, 10) <= A` exactly when `s < dateBand(after: A)`: the first ten
    /// characters of `s` are a prefix of it of at least ten bytes, or all of it, and no
    /// text of ten bytes lies strictly between `A` and the raised date. So the band keeps
    /// the same rows, malformed ones included (`PnLSQLSourceTests` pins both forms).
    static func dateBand(after date: String) -> String {
        var bytes = Array(date.utf8)
        bytes[bytes.count - 1] += 1
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-MM-DD` of an instant in UTC (years 0001–9999).
    static func utcDate(_ seconds: Int64) -> String {
        String(Timestamp(seconds: seconds).rfc3339UTC.prefix(10))
    }

    /// 1 for a charge of a feature metered by the version in force whose quantity names a
    /// dimension that feature does not have: `margin pnl` cannot cost it (a `cost` error,
    /// exit 1), so the query stops too, and the audit lists it.
    var oddDimensions: String {
        var arms: [String] = []
        for p in plan.priced {
            guard let f = request.versions[p.version].feature(p.feature) else { continue }
            arms.append(
                "WHEN v_odd = \(p.version) AND feature = \(d.literal(p.feature)) THEN \(d.hasMemberOutside(d.quoted("quantity"), f.dimensions.map(\.name)))"
            )
        }
        guard !arms.isEmpty else { return "0" }
        let inner = "CASE " + arms.joined(separator: " ") + " ELSE FALSE END"
        return
            "CASE WHEN kind = 'charge' AND \(d.isTrue(inner.replacingOccurrences(of: "v_odd", with: "(\(versionExpression))"))) THEN 1 ELSE 0 END"
    }

    /// A quantity member as margin reads one (docs/takings.md): digits without a leading
    /// zero and an optional fraction, or a negative zero.
    static let memberPattern = "^(-0([.]0+)?|(0|[1-9][0-9]*)([.][0-9]+)?)$"
    /// A member the engine shows with a negative exponent (DuckDB writes a JSON number
    /// below 10^-6 so: `1e-7`), which stops the query as a quantity finer than its places
    /// does. A positive exponent (a string `"1e3"`: margin's `bad-value`; DuckDB writes a
    /// JSON number `1e3` as `1000.0`) is not a member the query reads.
    static let exponentPattern = "^-?[0-9]+([.][0-9]+)?[eE]-[0-9]+$"

    /// A whole number as margin reads one: an optional `-`, at most 18 digits, no leading
    /// zero (`"05"` is margin's `wrong-type`).
    static let wholePattern = "^-?(0|[1-9][0-9]{0,17})$"

    /// `YYYY-MM-DD(T|t| )HH:MM:SS[.frac](Z|z|±HH:MM)`, as `Timestamp(rfc3339:)` reads it.
    static let timestampPattern =
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
    /// `timestampPattern` with the time's fields in margin's ranges (hour and offset hour
    /// at most 23, minutes at most 59, seconds at most 60): the same rows are valid as with
    /// `timestampPattern` and the range checks of `p3`, and a text DuckDB's cast reads
    /// otherwise (`24:00`, `+99:99`) is never taken by the cast (`instantCast`).
    static let strictTimestampPattern =
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in seconds since the epoch.
    static let firstSecond: Int64 = -62_135_596_800
    static let lastSecond: Int64 = 253_402_300_799

    /// The quantity numerators (units × 10^6) of a charge, as wide integers.
    func quantityColumns(prefix: String) -> String {
        let dims = request.dimensions
        if dims.isEmpty { return "\(d.wideLiteral(0)) AS \(prefix)none" }
        return dims.indices.map {
            "COALESCE(\(d.wide("qv_\($0) * 1000000")), \(d.wideLiteral(0))) AS \(prefix)\($0)"
        }.joined(separator: ", ")
    }

    /// Stages that add to `source` its period's label (`2026-11-29`, `2026-W48`,
    /// `2026-11`) as `period`, drawn at the series' offset, by the same integer arithmetic
    /// as `TakingsSeries` (civil dates from day numbers, H. Hinnant's algorithm; every
    /// division here is of values that are not negative or of exact multiples).
    func periodCTEs(_ series: TakingsSeries, from source: String, into name: String) -> [(
        String, String
    )] {
        let q = d.smallQuotient
        let local = "(secs + \(series.offsetMinutes * 60))"
        let sod = "((\(local) % 86400 + 86400) % 86400)"
        let day = q("\(local) - \(sod)", "86400")
        let first: String
        switch series.period {
        case .day, .month: first = "s_day"
        case .week: first = "s_day - ((s_day % 7 + 7 + 3) % 7)"
        }
        let civil = series.period == .week ? "s_first + 3" : "s_first"
        let p = "\(name)_"
        var ctes: [(String, String)] = [
            ("\(p)1", "SELECT \(source).*, \(day) AS s_day FROM \(source)"),
            ("\(p)2", "SELECT \(p)1.*, \(first) AS s_first FROM \(p)1"),
            (
                "\(p)3",
                "SELECT \(p)2.*, \(q("\(civil) + 719468", "146097")) AS s_era, \(civil) + 719468 - \(q("\(civil) + 719468", "146097")) * 146097 AS s_doe FROM \(p)2"
            ),
            (
                "\(p)4",
                "SELECT \(p)3.*, \(q("s_doe - \(q("s_doe", "1460")) + \(q("s_doe", "36524")) - \(q("s_doe", "146096"))", "365")) AS s_yoe FROM \(p)3"
            ),
            (
                "\(p)5",
                "SELECT \(p)4.*, s_yoe + s_era * 400 AS s_y0, s_doe - (365 * s_yoe + \(q("s_yoe", "4")) - \(q("s_yoe", "100"))) AS s_doy FROM \(p)4"
            ),
            ("\(p)6", "SELECT \(p)5.*, \(q("5 * s_doy + 2", "153")) AS s_mp FROM \(p)5"),
            (
                "\(p)7",
                """
                SELECT \(p)6.*, s_doy - \(q("153 * s_mp + 2", "5")) + 1 AS s_dd, CASE WHEN s_mp < 10 THEN s_mp + 3 ELSE s_mp - 9 END AS s_mon,
                       s_y0 + CASE WHEN s_mp >= 10 THEN 1 ELSE 0 END AS s_yr FROM \(p)6
                """
            ),
        ]
        func pad(_ e: String, _ n: Int) -> String { d.leftPad(d.text(e), n, "0") }
        let label: String
        switch series.period {
        case .day:
            label = "\(pad("s_yr", 4)) || '-' || \(pad("s_mon", 2)) || '-' || \(pad("s_dd", 2))"
        case .month: label = "\(pad("s_yr", 4)) || '-' || \(pad("s_mon", 2))"
        case .week:
            // January 1st of the Thursday's year, as a day number (month 1 is mp = 10).
            let y1 = "(s_yr - 1)"
            let era = q(y1, "400")
            let yoe = "(\(y1) - \(era) * 400)"
            let jan1 =
                "(\(era) * 146097 + \(yoe) * 365 + \(q(yoe, "4")) - \(q(yoe, "100")) + 306 - 719468)"
            ctes.append(
                (
                    "\(p)8",
                    "SELECT \(p)7.*, \(q("s_first + 3 - \(jan1)", "7")) + 1 AS s_week FROM \(p)7"
                ))
            label = "\(pad("s_yr", 4)) || '-W' || \(pad("s_week", 2))"
        }
        let last = ctes[ctes.count - 1].0
        ctes.append((name, "SELECT \(last).*, \(label) AS period FROM \(last)"))
        return ctes
    }

    /// `(secs, nanos) >= t`.
    func atOrAfter(_ s: String, _ n: String, _ t: Timestamp) -> String {
        "(\(s) > \(t.seconds) OR (\(s) = \(t.seconds) AND \(n) >= \(t.nanoseconds)))"
    }

    func inWindow(_ s: String, _ n: String) -> String {
        if let params { return params.inWindow(s) }
        var c: [String] = []
        if let since = request.window.since { c.append(atOrAfter(s, n, since)) }
        if let until = request.window.until { c.append("NOT \(atOrAfter(s, n, until))") }
        return c.isEmpty ? "TRUE" : c.joined(separator: " AND ")
    }

    /// The index of the card version in force at a charge's time (the first before any).
    var versionExpression: String {
        let e = plan.effective
        guard e.count > 1 else { return "0" }
        let arms = e.indices.dropFirst().reversed().map {
            "WHEN \(atOrAfter("secs", "nanos", e[$0])) THEN \($0)"
        }
        return "CASE " + arms.joined(separator: " ") + " ELSE 0 END"
    }

    /// One column per provider schedule: the period in force at the charge's time in the
    /// provider's own offset (ISO weekday 1 = Monday, seconds since local midnight).
    var periodColumns: String { periodColumns(at: "secs") }

    /// `periodColumns` at the instant `secs` (seconds since the epoch, an expression).
    func periodColumns(at secs: String) -> String {
        plan.schedules.enumerated().map { k, s in
            let local = "(\(secs) + \(s.offsetMinutes * 60))"
            let sod = "((\(local) % 86400 + 86400) % 86400)"
            // (local − sod) is a whole number of days, so any engine's division is exact.
            let days = d.smallQuotient("\(local) - \(sod)", "86400")
            let weekday = "(((\(days) % 7 + 7) % 7 + 3) % 7 + 1)"
            let arms = s.windows.map { w in
                "WHEN \(weekday) IN (\(w.weekdays.sorted().map(String.init).joined(separator: ", "))) AND \(sod) >= \(w.from) AND \(sod) < \(w.until) THEN \(d.literal(w.period))"
            }
            let body =
                arms.isEmpty
                ? d.literal(s.defaultPeriod)
                : "CASE " + arms.joined(separator: " ") + " ELSE \(d.literal(s.defaultPeriod)) END"
            return ", \(body) AS period_\(k)"
        }.joined()
    }

    /// A charge's metered cost numerator: the terms of its feature in the version in force.
    var costExpression: String {
        let dims = request.dimensions
        var arms: [String] = []
        for p in plan.priced {
            let terms = p.terms.compactMap { t -> String? in
                guard let i = dims.firstIndex(of: t.dimension) else { return nil }
                let q = "qi_\(i)"
                func rate(_ pick: (SQLCostPlan.Rate) -> Int128) -> String {
                    guard let k = t.schedule, t.rates.count > 1 else {
                        return d.wideLiteral(t.rates.first.map { pick($0.rate) } ?? 0)
                    }
                    return "(CASE period_\(k) "
                        + t.rates.map {
                            "WHEN \(d.literal($0.period ?? "")) THEN \(d.wideLiteral(pick($0.rate)))"
                        }.joined(separator: " ")
                        + " ELSE \(d.wideLiteral(0)) END)"
                }
                guard let first = t.rates.first?.rate else { return nil }
                var cost: String
                if first.hasIncrement {
                    let steps = d.quotient(
                        "\(q) * \(d.wideLiteral(first.stepNumerator)) + \(d.wideLiteral(first.stepDenominator - 1))",
                        d.wideLiteral(first.stepDenominator))
                    cost = "\(steps) * \(rate(\.step))"
                } else {
                    cost = "\(q) * \(rate(\.linear))"
                }
                if t.rates.contains(where: { $0.rate.minimum > 0 }) {
                    cost = "greatest(\(cost), \(rate(\.minimum)))"
                }
                return "(CASE WHEN \(q) > 0 THEN \(cost) ELSE \(d.wideLiteral(0)) END)"
            }
            guard !terms.isEmpty else { continue }
            arms.append(
                "WHEN v = \(p.version) AND feature = \(d.literal(p.feature)) THEN \(terms.joined(separator: " + "))"
            )
        }
        return arms.isEmpty
            ? d.wideLiteral(0)
            : "CASE " + arms.joined(separator: "\n        ") + " ELSE \(d.wideLiteral(0)) END"
    }

    /// Stages that turn each integer numerator `x` over D into its rounded quotient `x_q`
    /// and `10^scale` fraction `x_f`, half-even, with its sign `x_neg`.
    func moneyCTEs(from source: String, columns: [String]) -> [(String, String)] {
        let dd = d.wideLiteral(plan.denominator)
        let unit = d.wideLiteral(Int128(tenTo: plan.scale))
        let a = columns.map {
            "\($0) < 0 AS \($0)_neg, CASE WHEN \($0) < 0 THEN -\($0) ELSE \($0) END AS \($0)_abs"
        }
        let b = columns.map {
            "\(d.quotient("\($0)_abs", dd)) AS \($0)_q, \($0)_abs % \(dd) AS \($0)_r"
        }
        let c = columns.map {
            "\(d.quotient("\($0)_r * \(unit)", dd)) AS \($0)_f0, (\($0)_r * \(unit)) % \(dd) AS \($0)_rr"
        }
        let e = columns.map { x in
            "CASE WHEN 2 * \(x)_rr > \(dd) OR (2 * \(x)_rr = \(dd) AND \(x)_f0 % 2 = 1) THEN \(x)_f0 + 1 ELSE \(x)_f0 END AS \(x)_f1"
        }
        let f = columns.map { x in
            "CASE WHEN \(x)_f1 = \(unit) THEN \(x)_q + 1 ELSE \(x)_q END AS \(x)_q1, CASE WHEN \(x)_f1 = \(unit) THEN \(d.wideLiteral(0)) ELSE \(x)_f1 END AS \(x)_f2"
        }
        return [
            ("m0", "SELECT \(source).*, \(a.joined(separator: ", ")) FROM \(source)"),
            ("m1", "SELECT m0.*, \(b.joined(separator: ", ")) FROM m0"),
            ("m2", "SELECT m1.*, \(c.joined(separator: ", ")) FROM m1"),
            ("m3", "SELECT m2.*, \(e.joined(separator: ", ")) FROM m2"),
            ("m4", "SELECT m3.*, \(f.joined(separator: ", ")) FROM m3"),
        ]
    }

    /// The exact decimal of numerator column `x` (after `moneyCTEs`).
    func moneyResult(_ x: String) -> String {
        let sign = "CASE WHEN \(x)_neg THEN '-' ELSE '' END"
        let text =
            plan.scale == 0
            ? "\(sign) || \(d.text("\(x)_q1"))"
            : "\(sign) || \(d.text("\(x)_q1")) || '.' || \(d.leftPad(d.text("\(x)_f2"), plan.scale, "0"))"
        return d.decimalResult(text, scale: plan.scale)
    }
}

extension Int128 {
    /// 10^n for 0 ≤ n ≤ 38.
    init(tenTo n: Int) {
        var p: Int128 = 1
        for _ in 0..<n { p *= 10 }
        self = p
    }
}
