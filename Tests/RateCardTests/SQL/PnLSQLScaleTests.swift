import Foundation
import Testing

@testable import RateCard

/// `margin pnl --sql` beyond the per-feature table: each period's share of the fixed costs
/// with `--by`, the two-pass source that reads in full only the lines that can change the
/// table, DuckDB's one read grouped by id before the checks, the audit's origin columns and margin's `wrong-type` patterns. The engines run
/// these queries in `scripts/sql-equality`.
@Suite struct PnLSQLScaleTests {
    static let costs =
        #"{"kind": "costs", "currency": "CNY", "since": "2026-11-01", "until": "2026-12-01", "costs": [{"feature": "llm", "amount": "1.50"}, {"feature": "asr", "amount": "0.07"}]}"#

    func query(_ extra: [String]) throws -> String {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("e.jsonl", PnLSQLTests.export)
        try dir.write("costs.json", Self.costs)
        let r = try runMargin(
            [
                "pnl", "e.jsonl", "--cards", repositoryCards, "--card", "osg", "--costs",
                "costs.json",
            ]
                + extra, in: dir.path)
        try #require(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    /// The common denominator the query's header states.
    func denominator(_ q: String) throws -> Int128 {
        let line = try #require(q.split(separator: "\n").first { $0.hasPrefix("-- money columns") })
        let words = line.split(separator: " ")
        let i = try #require(words.firstIndex(of: "over"))
        return try #require(
            Int128(String(words[i + 1]).trimmingCharacters(in: .punctuationCharacters)))
    }

    /// `(period, feature) → numerator` of the query's constant fixed-cost rows.
    func fixedRows(_ q: String) throws -> [String: Int128] {
        var rows: [String: Int128] = [:]
        let pattern =
            /SELECT '([^']*)' AS period, '([^']*)' AS feature, CAST\('?(-?[0-9]+)'? AS HUGEINT\) AS fixed_num/
        for m in q.matches(of: pattern) {
            rows["\(m.1) \(m.2)"] = try #require(Int128(String(m.3)))
        }
        return rows
    }

    /// The periods' shares add up to the window's cost, exactly, feature by feature; every
    /// day of the window has its rows (with takings or not) and the edge days carry only
    /// the part inside the window.
    @Test(arguments: [("day", "+05:30", 15), ("week", "+00:00", 3), ("month", "-05:00", 1)])
    func eachPeriodCarriesItsShareOfTheFixedCosts(by: String, tz: String, periods: Int) throws {
        let window = ["--since", "2026-11-10T03:00:00Z", "--until", "2026-11-24T18:30:00Z"]
        let whole = try query(["--sql", "duckdb"] + window)
        let series = try query(["--sql", "duckdb", "--by", by, "--tz", tz] + window)
        let (dw, ds) = (try denominator(whole), try denominator(series))
        let w = try fixedRows(whole)
        let s = try fixedRows(series)
        #expect(s.count == 2 * periods, "\(s.keys.sorted())")
        for feature in ["asr", "llm"] {
            let total = try #require(w[" \(feature)"])
            let parts = s.filter { $0.key.hasSuffix(" \(feature)") }.values.reduce(0, +)
            // parts / ds == total / dw, in integers.
            #expect(parts * dw == total * ds, "\(feature): \(parts)/\(ds) vs \(total)/\(dw)")
        }
        if by == "day" {
            // 03:00Z is 08:30 at +05:30: the first day carries 15.5 of its 24 hours.
            let first = try #require(s["2026-11-10 llm"])
            let full = try #require(s["2026-11-11 llm"])
            #expect(first * 48 == full * 31)
        }
    }

    /// With a window, the table's query reads `id` and `refund_of` of every line first and
    /// in full only the lines that can change the table; without one, every line. The
    /// audit always reads every line.
    @Test func aWindowReadsOnlyTheLinesThatCanChangeTheTable() throws {
        let windowed = try query([
            "--sql", "clickhouse", "--since", "2026-11-10T03:00:00Z", "--until",
            "2026-11-24T18:30:00Z",
        ])
        #expect(windowed.contains("GROUP BY GROUPING SETS ((id), (refund_of))"))
        #expect(windowed.contains(">= '2026-11-09'") && windowed.contains("<= '2026-11-25'"))
        #expect(windowed.contains("group_by_use_nulls = 1"))
        let audit = try query([
            "--sql-audit", "duckdb", "--since", "2026-11-10T03:00:00Z", "--until",
            "2026-11-24T18:30:00Z",
        ])
        #expect(!audit.contains("GROUPING SETS"))
        #expect(PnLSQLCompiler.utcDate(86_400 * 365) == "1971-01-01")
    }

    /// DuckDB's band compares the whole `at` text, the other engines its first ten
    /// characters; the day after the band's last is `dateBand(after:)`.
    @Test func duckDBsBandComparesTheWholeText() throws {
        let window = ["--since", "2026-11-10T03:00:00Z", "--until", "2026-11-29T18:30:00Z"]
        let duck = try query(["--sql", "duckdb"] + window)
        #expect(duck.contains(#""at" >= '2026-11-09' AND "at" < '2026-11-31'"#))
        #expect(!duck.contains(#"substring("at", 1, 10)"#))
        for dialect in ["clickhouse", "spark"] {
            let q = try query(["--sql", dialect] + window)
            #expect(q.contains(">= '2026-11-09'") && q.contains("<= '2026-11-30'"), "\(dialect)")
        }
        #expect(PnLSQLCompiler.dateBand(after: "2026-11-30") == "2026-11-31")
        #expect(PnLSQLCompiler.dateBand(after: "2026-12-09") == "2026-12-0:")
        #expect(PnLSQLCompiler.dateBand(after: "9999-12-31") == "9999-12-32")
    }

    /// DuckDB's rows of one line keep the fields the checks read, a revoke's `paymentRef`
    /// among them (NULL there, every revoke was counted as rejected: margin keeps it).
    @Test func duckDBsOneLineRowsKeepWhatTheChecksRead() throws {
        let q = try query([
            "--sql", "duckdb", "--since", "2026-11-10T03:00:00Z", "--until", "2026-11-24T18:30:00Z",
        ])
        let single = try #require(
            q.components(separatedBy: "src AS NOT MATERIALIZED (\n").dropFirst().first?
                .components(separatedBy: "FROM s0").first)
        for kept in [
            "at", "kind", "amount", "feature", "refund_of", "quantity", "balance_after",
            "payment_ref",
        ] {
            #expect(
                single.contains(", \"\(kept)\"") && !single.contains("AS \"\(kept)\""), "\(kept)")
        }
        for dropped in ["reason", "device", "note", "card", "price"] {
            #expect(single.contains("CAST(NULL AS VARCHAR) AS \"\(dropped)\""), "\(dropped)")
        }
    }

    /// The band keeps the same rows in both forms: `substring(s, 1, 10)` compared with the
    /// bounds (characters, as DuckDB's `substring` counts them) against `s` compared with
    /// the bound and the raised bound, byte by byte (DuckDB's order of `VARCHAR`), on
    /// generated texts: dates around the bounds, longer and shorter texts, digits and
    /// separators changed, non-ASCII characters in and after the first ten, empty.
    @Test func theWholeTextBandKeepsTheSameRows() {
        var rng = SplitMix64(seed: 29)
        let pieces = [
            "2026-11-09", "2026-11-08", "2026-11-10", "2026-11-30", "2026-11-31", "2026-11-3",
            "2026-11-29", "2026-12-01", "2026-11-3:", "2026-11-2", "2026", "", "T", "Z", "é", "€",
            "😀", "0", "9", ":", " ", "-", "2026-11-30T23:59:59Z", "2026-11-09T00:00:00+14:00",
        ]
        let bounds = [
            ("2026-11-09", "2026-11-30"), ("2026-12-01", "2026-12-09"),
            ("0001-01-02", "9999-12-30"),
        ]
        var checked = 0
        for _ in 0..<20_000 {
            var s = ""
            for _ in 0..<Int(rng.next() % 4) { s += pieces[Int(rng.next() % UInt64(pieces.count))] }
            if !s.isEmpty, rng.next() % 3 == 0 {
                var chars = Array(s)
                chars[Int(rng.next() % UInt64(chars.count))] = Character(
                    ["0", "1", "9", ":", "/", "ü", "\u{7f}"][Int(rng.next() % 7)])
                s = String(chars)
            }
            for (low, high) in bounds {
                let prefix = String(s.prefix(10))
                let bySubstring = bytes(prefix) >= bytes(low) && bytes(prefix) <= bytes(high)
                let byWhole =
                    bytes(s) >= bytes(low)
                    && bytes(s) < bytes(PnLSQLCompiler.dateBand(after: high))
                #expect(bySubstring == byWhole, "\(s) in [\(low), \(high)]")
                checked += 1
            }
        }
        #expect(checked == 60_000)
    }

    /// DuckDB reads most instants with one cast (`at_us`), where the strict pattern holds
    /// and the fraction has at most 6 digits (`quickInstant`); the other rows take the
    /// time's fields. Both forms are in the query, the cast only in DuckDB's.
    @Test func duckDBsInstantIsOneCastWhereItIsExact() throws {
        let window = ["--since", "2026-11-10T03:00:00Z", "--until", "2026-11-29T18:30:00Z"]
        let duck = try query(["--sql", "duckdb"] + window)
        #expect(duck.contains(#"epoch_us(TRY_CAST("at" AS TIMESTAMPTZ)) AS at_us"#))
        #expect(duck.contains(PnLSQLCompiler.quickInstant + " AS quick"))
        #expect(duck.contains("WHEN quick THEN (at_us - " + PnLSQLCompiler.microsOfSecond))
        // The other rows' fields only inside the branch that needs them, never a column.
        #expect(
            duck.contains(
                "CASE WHEN quick THEN TRUE WHEN at_ok THEN COALESCE((TRY_CAST(substring(at_text, 1, 10) AS DATE)"
            ))
        #expect(
            duck.contains(
                "WHEN time_ok THEN (TRY_CAST(substring(at_text, 1, 10) AS DATE) - DATE '1970-01-01') * 86400"
            ))
        for field in ["days", "hh", "mi", "ss", "oh", "om", "osign"] {
            #expect(!duck.contains(" AS \(field),") && !duck.contains(" AS \(field)\n"), "\(field)")
        }
        #expect(!duck.contains(#"substring("at""#) && !duck.contains(#"substring("quantity""#))
        for dialect in ["clickhouse", "spark"] {
            let q = try query(["--sql", dialect] + window)
            #expect(!q.contains("at_us") && !q.contains("TIMESTAMPTZ"), "\(dialect)")
        }
    }

    /// DuckDB's kind and sign rules are written as equalities and one comparison of two
    /// booleans (an `IN` of five texts is planned as a join); every kind (absent, each of
    /// the five, another) and amount (absent, negative, zero, positive) gets the same
    /// `kind_ok` and `sign_ok` as the `IN` forms the other engines keep, in SQL's
    /// three-valued logic (NULL is `nil`, and `COALESCE(…, FALSE)` makes it false).
    @Test func duckDBsKindAndSignRulesAgreeWithTheListForms() throws {
        let duck = try query(["--sql", "duckdb"])
        #expect(
            duck.contains(
                "COALESCE(kind = 'grant' OR kind = 'charge' OR kind = 'refund' OR kind = 'topup' OR kind = 'revoke', FALSE) AS kind_ok"
            ))
        #expect(
            duck.contains(
                "COALESCE((amt < 0) = (kind = 'charge' OR kind = 'revoke') AND amt <> 0, FALSE) AS sign_ok"
            ))
        #expect(!duck.contains("kind IN ("))
        let click = try query(["--sql", "clickhouse"])
        #expect(click.contains("kind IN ('grant', 'charge', 'refund', 'topup', 'revoke')"))
        func and(_ a: Bool?, _ b: Bool?) -> Bool? {
            if a == false || b == false { return false }
            return a == nil || b == nil ? nil : true
        }
        func or(_ a: Bool?, _ b: Bool?) -> Bool? {
            if a == true || b == true { return true }
            return a == nil || b == nil ? nil : false
        }
        func not(_ a: Bool?) -> Bool? { a.map { !$0 } }
        func equal<T: Equatable>(_ a: T?, _ b: T?) -> Bool? {
            guard let a, let b else { return nil }
            return a == b
        }
        func compare(_ a: Int?, _ test: (Int) -> Bool) -> Bool? { a.map(test) }
        func inList(_ k: String?, _ list: [String]) -> Bool? { k.map { list.contains($0) } }
        let kinds: [String?] = [nil, "grant", "charge", "refund", "topup", "revoke", "gift"]
        var pairs = 0
        for kind in kinds {
            for amt in [nil, -5, 0, 5] as [Int?] {
                let listKind = inList(kind, ["grant", "charge", "refund", "topup", "revoke"])
                let equalKind = ["grant", "charge", "refund", "topup", "revoke"].reduce(
                    false as Bool?
                ) { or($0, equal(kind, $1)) }
                #expect((listKind ?? false) == (equalKind ?? false), "\(kind ?? "NULL")")
                let negative = inList(kind, ["charge", "revoke"])
                let listSign = or(
                    and(negative, compare(amt, { $0 < 0 })),
                    and(not(negative), compare(amt, { $0 > 0 })))
                let oneSign = and(
                    equal(
                        compare(amt, { $0 < 0 }), or(equal(kind, "charge"), equal(kind, "revoke"))),
                    compare(amt, { $0 != 0 }))
                #expect(
                    (listSign ?? false) == (oneSign ?? false),
                    "\(kind ?? "NULL") \(amt.map(String.init) ?? "NULL")")
                pairs += 1
            }
        }
        #expect(pairs == 28)
    }

    /// The strict pattern accepts exactly the texts that have the pattern and whose hour,
    /// minutes, seconds and offset are in the ranges `p3` checks (so the same rows are
    /// valid), and `quickInstant`'s length test is "at most 6 digits of fraction", on
    /// generated texts: every field at and past its bounds, leap seconds, fractions of 0 to
    /// 12 digits, `T`, `t` and space, `Z`, `z` and offsets, characters changed.
    @Test func theStrictTimePatternKeepsTheSameRows() throws {
        let loose = try Regex(PnLSQLCompiler.timestampPattern)
        let strict = try Regex(PnLSQLCompiler.strictTimestampPattern)
        var rng = SplitMix64(seed: 2912)
        func pick(_ xs: [String]) -> String { xs[Int(rng.next() % UInt64(xs.count))] }
        let two = [
            "00", "09", "19", "20", "23", "24", "29", "30", "59", "60", "61", "99", "5", "x9",
        ]
        var checked = 0
        var accepted = 0
        for _ in 0..<20_000 {
            let digits = Int(rng.next() % 13)
            let fraction =
                rng.next() % 3 == 0
                ? "." + String((0..<digits).map { _ in Character(String(rng.next() % 10)) }) : ""
            let offset = pick([
                "Z", "z", "+\(pick(two)):\(pick(two))", "-\(pick(two)):\(pick(two))", "", "+0530",
            ])
            var text =
                "\(pick(["2026", "0001", "9999", "0000"]))-\(pick(["01", "02", "12", "13"]))-\(pick(["01", "29", "31", "32"]))"
                + "\(pick(["T", "t", " ", "_"]))\(pick(two)):\(pick(two)):\(pick(two))\(fraction)\(offset)"
            if rng.next() % 10 == 0 {
                var chars = Array(text)
                chars[Int(rng.next() % UInt64(chars.count))] = Character(
                    pick(["0", ":", "é", "-"]))
                text = String(chars)
            }
            let bytes = Array(text.utf8)
            func field(_ at: Int) -> Int {
                Int(String(decoding: bytes[at..<at + 2], as: UTF8.self)) ?? 99
            }
            var inRange = false
            if (try? loose.wholeMatch(in: text)) != nil {
                let zulu = bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z")
                let n = bytes.count
                inRange =
                    field(11) <= 23 && field(14) <= 59 && field(17) <= 60
                    && (zulu || (field(n - 5) <= 23 && field(n - 2) <= 59))
            }
            let isStrict = (try? strict.wholeMatch(in: text)) != nil
            #expect(isStrict == inRange, "\(text)")
            if isStrict {
                accepted += 1
                let zulu = bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z")
                // The fraction's digits, read from the text (a changed character included).
                let places =
                    bytes.firstIndex(of: UInt8(ascii: ".")).map { dot in
                        bytes[(dot + 1)...].prefix {
                            $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
                        }.count
                    } ?? 0
                #expect((bytes.count <= (zulu ? 27 : 32)) == (places <= 6), "\(text)")
            }
            checked += 1
        }
        #expect(checked == 20_000)
        #expect(accepted > 500, "the generator reaches the strict pattern")
    }

    private func bytes(_ s: String) -> ByteOrder { ByteOrder(Array(s.utf8)) }

    /// Texts in the order of their UTF-8 bytes (memcmp, a shorter prefix first).
    private struct ByteOrder: Comparable {
        let b: [UInt8]
        init(_ b: [UInt8]) { self.b = b }
        static func < (l: ByteOrder, r: ByteOrder) -> Bool { l.b.lexicographicallyPrecedes(r.b) }
    }

    /// With a window, both passes read the source (files or a table); only the rows of an
    /// id with more than one line are hashed (the audit, which reads every line in one pass,
    /// hashes every row). DuckDB groups instead (below).
    @Test(arguments: [SQLDialect.clickhouse, .spark])
    func aWindowedQueryHashesOnlyIdsWithCopies(dialect: SQLDialect) throws {
        let window = ["--since", "2026-11-10T03:00:00Z", "--until", "2026-11-24T18:30:00Z"]
        let q = try query(["--sql", dialect.rawValue] + window)
        #expect(q.components(separatedBy: "e.jsonl").count == 3, "two reads of the file")
        #expect(q.contains("AS dup FROM s2"))
        #expect(q.contains("CASE WHEN dup THEN "))
        let audit = try query(["--sql-audit", dialect.rawValue] + window)
        #expect(!audit.contains("AS dup"), "the audit reads and hashes every row")
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let table = try runMargin(
            [
                "pnl", "--sql", dialect.rawValue, "--table", "ledger", "--cards", repositoryCards,
                "--card", "osg",
            ]
                + window, in: dir.path)
        try #require(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.components(separatedBy: "FROM ledger").count == 3)
        #expect(table.stdout.contains("CASE WHEN dup THEN "))
    }

    /// DuckDB reads the source once, keeps it in memory, and makes every id's lines one
    /// row before any check, exactly: only the ids whose hash more than one line has
    /// (`n1`: the ids with copies, and any that share a hash) are grouped on every field
    /// (so an id's lines written alike become one row, compared by value, not by a hash),
    /// an id with more than one distinct line (`vid`) has each of them checked and grouped
    /// again after the checks, where copies are compared field by field. With or without a
    /// window, from files or a table; the audit still reads and checks every line, and
    /// compares copies the same way.
    @Test(arguments: [[], ["--since", "2026-11-10T03:00:00Z", "--until", "2026-11-24T18:30:00Z"]])
    func duckDBGroupsEveryLineByIdBeforeTheChecks(window: [String]) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("e.jsonl", PnLSQLTests.export)
        let fields = SQLSchema.columns.map(\.name).filter { $0 != "id" }.map { "\"\($0)\"" }
            .joined(separator: ", ")
        // An empty optional text is an absent one (issue 24): those are compared as NULLIF.
        let canonical =
            ["kind", "amt", "secs", "nanos", "feature", "refund_of", "balance"]
            + ["reason", "device", "note", "card", "payment_ref", "price"].map {
                "NULLIF(\($0), '')"
            }
        for (source, read) in [
            (["e.jsonl"], "read_ndjson("), (["--table", "ledger"], "FROM ledger"),
        ] {
            let r = try runMargin(
                ["pnl", "--sql", "duckdb", "--cards", repositoryCards, "--card", "osg"] + source
                    + window, in: dir.path)
            try #require(r.status == 0, "\(r.stderr)")
            let q = r.stdout
            #expect(q.components(separatedBy: read).count == 2, "one read")
            #expect(q.contains("s0 AS MATERIALIZED (\n    SELECT "))
            #expect(q.contains("src AS NOT MATERIALIZED (\n    SELECT "))
            #expect(!q.contains("GROUPING SETS") && !q.contains("s2 AS"))
            // The id's hash only picks the ids to group exactly; no content is hashed.
            #expect(!q.replacingOccurrences(of: "hash(id)", with: "").contains("hash("))
            #expect(
                q.contains(
                    "SELECT hash(id) AS h FROM s0 WHERE id IS NOT NULL GROUP BY h HAVING COUNT(*) > 1"
                ))
            let many = "COALESCE(id IS NOT NULL AND hash(id) IN (SELECT h FROM n1), FALSE)"
            #expect(
                q.contains(
                    "SELECT id, \(fields), COUNT(*) AS lines FROM s0 WHERE \(many) GROUP BY id, \(fields)"
                ))
            #expect(q.contains("SELECT id FROM m GROUP BY id HAVING COUNT(*) > 1"))
            #expect(q.contains("NOT \(many)"))
            #expect(
                q.contains("SELECT m.*, COALESCE(id IN (SELECT id FROM vid), FALSE) AS dup FROM m"))
            // Both branches keep the rejected rows (`e0`), counted once for `rejected`; the
            // grouped branch groups an id's valid copies apart from its rejected ones.
            #expect(q.contains("FROM p WHERE NOT dup\n") && q.contains("FROM p WHERE dup) v"))
            #expect(q.contains("GROUP BY id, valid\n)"))
            // `rejected` counts every line: a row of `m` stands for `lines` lines written
            // alike, each of which margin rejects (or keeps) on its own.
            #expect(q.contains("1 AS lines, FALSE AS dup FROM s0"))
            #expect(q.contains("FALSE AS conflict, lines AS copies"))
            #expect(q.contains("CAST(SUM(lines) AS BIGINT) AS copies"))
            for f in canonical {
                #expect(
                    q.contains(
                        "MIN(\(f)) IS DISTINCT FROM MAX(\(f)) OR COUNT(\(f)) NOT IN (0, COUNT(*))"),
                    "\(f)")
            }
            #expect(
                window.isEmpty
                    != q.contains(
                        "OR id IN (SELECT r FROM rf)"))
            #expect(
                window.isEmpty
                    != q.contains(
                        "rf AS MATERIALIZED (\n    SELECT DISTINCT refund_of AS r FROM s0 WHERE refund_of IS NOT NULL\n)"
                    ))
            #expect(q.contains("TRY_CAST(substring(at_text, 1, 10) AS DATE) - DATE '1970-01-01'"))
            #expect(q.contains("[100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1]"))
        }
        let audit = try query(["--sql-audit", "duckdb"] + window)
        #expect(
            !audit.contains("MATERIALIZED") && !audit.contains("AS dup") && !audit.contains("hash(")
        )
        #expect(
            audit.contains(
                "MIN(NULLIF(note, '')) IS DISTINCT FROM MAX(NULLIF(note, '')) OR COUNT(NULLIF(note, '')) NOT IN (0, COUNT(*))"
            ))
        #expect(audit.components(separatedBy: "read_ndjson(").count == 2)
    }

    /// ClickHouse, Spark and PostgreSQL compare a hash of one text of the canonical fields:
    /// each field is tagged with its position and its length, so that the text is one to
    /// one (untagged, note `a|9:b` without a card read as note `a` with card `b|-`).
    @Test(arguments: [SQLDialect.clickhouse, .spark, .postgres])
    func theContentTextTagsEachFieldWithItsLength(dialect: SQLDialect) throws {
        let (row, differs) = dialect.contentTest(["note", "card", "amt"], numeric: ["amt"])
        let text = try #require(row)
        #expect(differs == "MIN(h) <> MAX(h)")
        for (i, f) in ["note", "card"].enumerated() {
            #expect(
                text.contains(
                    "COALESCE('\(i):' || \(dialect.text("length(\(f))")) || ':' || \(f), '-')"),
                "\(f)")
        }
        let amt = dialect.text("amt")
        #expect(
            text.contains(
                "COALESCE('2:' || \(dialect.text("length(\(amt))")) || ':' || \(amt), '-')"))
        #expect(SQLDialect.duckdb.contentTest(["note"], numeric: []).row == nil)
    }

    /// The audit names where a row came from as far as each engine's reader tells.
    @Test(arguments: [
        (SQLDialect.duckdb, "filename = true"), (.clickhouse, "_row_number"),
        (.spark, "input_file_name()"),
    ])
    func theAuditSaysWhereARowCameFrom(dialect: SQLDialect, reader: String) throws {
        let audit = try query(["--sql-audit", dialect.rawValue])
        #expect(audit.contains(reader))
        #expect(audit.contains("AS source_file") && audit.contains("AS source_row"))
        let table = try query(["--sql", dialect.rawValue])
        #expect(!table.contains(reader), "the table's query does not read the origin")
    }

    /// DuckDB tells a whole number by the text of its cast to `BIGINT` (`wholeByCast`): a
    /// text is accepted when it is the text of the integer it is read as (so written
    /// without a `+`, a leading zero, spaces, a fraction, an exponent or `_`) with at most
    /// 18 digits, or is `-0`. On generated texts (digits of 0 to 20, signs, leading zeros,
    /// spaces, points, exponents, `_`, `0x`, other characters) that accepts exactly what
    /// `wholePattern` accepts; the integer's text is Swift's, as DuckDB writes it (an
    /// optional `-`, digits, no leading zero).
    @Test func aWholeNumberByItsCastIsAWholeNumberByThePattern() throws {
        let duck = try query(["--sql", "duckdb"])
        #expect(duck.contains("TRY_CAST(amount AS BIGINT) AS amt0"))
        #expect(duck.contains(PnLSQLCompiler.wholeByCast("amt0", "amount")))
        #expect(duck.contains(PnLSQLCompiler.wholeByCast("bal0", "balance_after")))
        #expect(!duck.contains("regexp_full_match(amount"))
        let pattern = try Regex(PnLSQLCompiler.wholePattern)
        var rng = SplitMix64(seed: 2913)
        func pick(_ xs: [String]) -> String { xs[Int(rng.next() % UInt64(xs.count))] }
        var accepted = 0
        let fixed = [
            "-0", "0", "-00", "00", "+0", "+5", " 5", "5 ", "1_000", "0x1F", "1e3", "1.0", "-",
            "", "999999999999999999", "-999999999999999999", "1000000000000000000",
            "-1000000000000000000", "9223372036854775807", "9223372036854775808", "٣",
        ]
        var texts = fixed
        for _ in 0..<20_000 {
            let digits = Int(rng.next() % 21)
            var body = String((0..<digits).map { _ in Character(String(rng.next() % 10)) })
            if rng.next() % 4 == 0 { body = pick(["0", "00", "1", "9"]) + body }
            var text = pick(["", "", "", "-", "+", " ", "--"]) + body
            if rng.next() % 8 == 0 { text += pick([".0", ".5", "e3", "E-2", "_1", " ", "x"]) }
            texts.append(text)
        }
        for text in texts {
            // The cast reads a canonical text as its value; whatever it reads another text
            // as, that value's text is canonical, so it is not the text.
            let value = Int64(text)
            let byCast =
                (value.map { String($0) == text && abs($0) <= 999_999_999_999_999_999 } ?? false)
                || text == "-0"
            let byPattern = text.wholeMatch(of: pattern) != nil
            #expect(byCast == byPattern, "\(text)")
            if byPattern { accepted += 1 }
        }
        #expect(accepted > 2_000, "the generator reaches whole numbers")
    }

    /// margin's whole numbers: no leading zero (`"05"` is its `wrong-type`), at most 18
    /// digits; a quantity member without a leading zero either.
    @Test(arguments: [
        ("0", true), ("-0", true), ("-26", true), ("05", false), ("-05", false), ("1.5", false),
        ("999999999999999999", true), ("1000000000000000000", false), ("", false),
        ("abc", false),
    ])
    func wholeNumbersAreReadAsMarginReadsThem(text: String, accepted: Bool) throws {
        let pattern = try Regex(PnLSQLCompiler.wholePattern)
        #expect((text.wholeMatch(of: pattern) != nil) == accepted)
    }
}
