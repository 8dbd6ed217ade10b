import Foundation
import Testing

@testable import RateCard

/// `margin pnl --sql`: the compiler's arithmetic against the Swift engine's pricing, and
/// the command's usage. The queries are run on the real engines by `scripts/sql-equality`
/// (called by `.ci/run`; docs/sql.md).
@Suite(.serialized) struct PnLSQLTests {
    static let export = PnLCommandTests.osgExport

    func request(
        _ dialect: SQLDialect = .duckdb, repository: CardRepository? = nil, family: String = "osg",
        currency: String = "CNY",
        perCredit: String = "0.005"
    ) throws -> PnLSQLRequest {
        let repo = try repository ?? CardRepository.load(paths: [repositoryCards])
        let c = try #require(Currency(code: currency))
        return PnLSQLRequest(
            dialect: dialect, source: .table("ledger"), family: family, repository: repo,
            window: .all,
            currency: c, perCredit: Money(exact(perCredit), c))
    }

    /// A second OSG version whose ASR provider bills started 15-second increments with a
    /// 30-second minimum, to pin the increment arithmetic.
    static func twoVersions() throws -> CardRepository {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        var v11 = try String(contentsOfFile: cards + "/osg-v10.json", encoding: .utf8)
        v11 = v11.replacingOccurrences(of: "\"version\": 10", with: "\"version\": 11")
            .replacingOccurrences(
                of: "2026-08-18T00:00:00+08:00", with: "2026-11-20T00:00:00+08:00"
            )
            .replacingOccurrences(
                of: "\"provider\": \"doubao-seedasr-2-streaming\"",
                with: "\"provider\": \"test-asr\"")
        try v11.write(toFile: cards + "/osg-v11.json", atomically: true, encoding: .utf8)
        try dir.write(
            "RateCards/providers/test-asr.json",
            """
            {"kind": "provider", "id": "test-asr", "name": "Test ASR", "currency": "CNY", "reviewed": "2026-11-20",
             "source": "https://example.invalid", "meters": [{"key": "audio", "unit": "second", "per": "3600", "price": "4.8", "increment": "15", "minimum": "30"}]}
            """)
        return try CardRepository.load(paths: [cards])
    }

    /// Every term's integer constants, summed as the query sums them, give the cost the
    /// Swift engine computes for the same charge, at peak and off-peak, in both versions.
    @Test(arguments: [
        ("asr", ["second": "76"]), ("asr", ["second": "1"]), ("asr", ["second": "15"]),
        ("asr", ["second": "30.000001"]),
        ("asr", ["second": "0"]), ("llm", ["inputTokens": "1200", "outputTokens": "300"]),
        ("llm", ["inputTokens": "0.5"]),
        ("llm", ["outputTokens": "999999.999999"]),
    ])
    func planReproducesTheEnginesCost(feature: String, quantity: [String: String]) throws {
        let repo = try Self.twoVersions()
        let request = try request(repository: repo, currency: "USD", perCredit: "0.0007")
        let plan = try SQLCostPlan(request)
        let pricing = CardTakingsPricing(
            family: "osg", repository: repo, currency: try #require(Currency(code: "USD")))
        let q = quantity.mapValues { exact($0) }
        // A Monday at 10:00 and 20:00 at +08:00, before and after V11.
        for at in [
            "2026-11-16T10:00:00+08:00", "2026-11-16T20:00:00+08:00", "2026-11-23T10:00:00+08:00",
            "2026-11-23T20:00:00+08:00",
        ] {
            let t = try Timestamp(rfc3339: at)
            let version = plan.effective.lastIndex { $0 <= t } ?? 0
            var numerator: Int128 = 0
            for p in plan.priced where p.version == version && p.feature == feature {
                for term in p.terms {
                    guard let value = q[term.dimension], value.isPositive else { continue }
                    let qi = try #require(
                        try value.multiplied(by: Exact(integer: 1_000_000)).integerValue)
                    let period = term.schedule.map { plan.schedules[$0].period(at: t) }
                    let rate = try #require(term.rates.first { $0.period == period }?.rate)
                    var cost =
                        rate.hasIncrement
                        ? (qi * rate.stepNumerator + rate.stepDenominator - 1)
                            / rate.stepDenominator * rate.step
                        : qi * rate.linear
                    cost = max(cost, rate.minimum)
                    numerator += cost
                }
            }
            let expected = try pricing.cost(feature: feature, quantity: q, at: t)?.amount ?? .zero
            #expect(
                try Exact(numerator, over: plan.denominator) == expected,
                "\(feature) \(quantity) at \(at)")
        }
    }

    @Test func scaleIsExactWhenTheDenominatorDividesAPowerOfTen() throws {
        let exactPlan = try SQLCostPlan(request(perCredit: "0.005"))
        #expect(exactPlan.exact)
        #expect(Int128(tenTo: exactPlan.scale) % exactPlan.denominator == 0)
        // The default value of a credit on V10 (USD 2.99 × 0.7 / 3,000 × 7.10) has a 3 in its
        // denominator, as a third has.
        let third = try SQLCostPlan(
            PnLSQLRequest(
                dialect: .duckdb, source: .table("t"), family: "osg",
                repository: try CardRepository.load(paths: [repositoryCards]),
                window: .all, currency: try #require(Currency(code: "CNY")),
                perCredit: Money(try Exact(1, over: 3), try #require(Currency(code: "CNY")))))
        #expect(!third.exact)
        #expect(third.scale == Exact.nonTerminatingPlaces)
        let query = try PnLSQLCompiler(
            PnLSQLRequest(
                dialect: .duckdb, source: .table("t"), family: "osg",
                repository: try CardRepository.load(paths: [repositoryCards]),
                window: .all, currency: try #require(Currency(code: "CNY")),
                perCredit: Money(try Exact(1, over: 3), try #require(Currency(code: "CNY"))))
        ).query()
        #expect(query.contains("rounded half-even to 12 places"))
    }

    /// Each dialect's query reads its source with the engine's own reader and ends in the
    /// documented columns.
    @Test(arguments: [
        (SQLDialect.duckdb, "read_ndjson('/data/e.jsonl'"),
        (.clickhouse, "file('/data/e.jsonl', 'JSONEachRow'"),
        (.spark, "FROM text.`/data/e.jsonl`"),
    ])
    func readsFilesWithTheEnginesReader(dialect: SQLDialect, fragment: String) throws {
        let base = try request(dialect)
        let r = PnLSQLRequest(
            dialect: dialect, source: .files(["/data/e.jsonl"]), family: "osg",
            repository: base.repository, window: .all,
            currency: base.currency, perCredit: base.perCredit)
        let q = try PnLSQLCompiler(r).query()
        #expect(q.contains(fragment))
        for column in [
            "feature", "charges", "charged", "declines", "given_back", "left_credits",
            "metered_cost", "value", "profit",
        ] {
            #expect(
                q.contains(" AS \(column)")
                    || q.contains(
                        "SELECT feature, charges, charged, declines, given_back, left_credits"),
                "\(column)")
        }
        let code = q.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
        #expect(
            code.components(separatedBy: ";").count == 2 && code.hasSuffix(";"), "one statement")
    }

    @Test func postgresReadsATableOnly() throws {
        let base = try request(.postgres)
        let r = PnLSQLRequest(
            dialect: .postgres, source: .files(["e.jsonl"]), family: "osg",
            repository: base.repository, window: .all,
            currency: base.currency, perCredit: base.perCredit)
        #expect(throws: SQLCompileError.self) { try PnLSQLCompiler(r) }
        let q = try PnLSQLCompiler(base).query()
        #expect(q.contains("FROM ledger"))
        #expect(q.contains("COLLATE \"C\""))
    }

    @Test func aRateBeyond128BitsCannotBeExpressed() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        for (name, per) in [
            ("deepseek-v4-flash", "999999999999999989"),
            ("doubao-seedasr-2-streaming", "999999999999999877"),
        ] {
            let path = cards + "/providers/\(name).json"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\"per\": \"1000000\"", with: "\"per\": \"\(per)\"")
                .replacingOccurrences(of: "\"per\": \"3600\"", with: "\"per\": \"\(per)\"").write(
                    toFile: path, atomically: true, encoding: .utf8)
        }
        try dir.write("e.jsonl", Self.export)
        let r = try runMargin(
            ["pnl", "e.jsonl", "--cards", cards, "--card", "osg", "--sql", "duckdb"], in: dir.path)
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot express"), "\(r.stderr)")
        #expect(
            r.stderr.contains("osg@10 feature llm, dimension inputTokens")
                && r.stderr.contains("128-bit"), "\(r.stderr)")
    }

    // MARK: Through the binary

    func run(_ extra: [String], name: String = "export.jsonl", text: String = PnLSQLTests.export)
        throws -> CLIResult
    {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(name, text)
        return try runMargin(
            ["pnl"] + extra.map { $0 == "FILE" ? dir.path + "/" + name : $0 } + [
                "--cards", repositoryCards, "--card", "osg",
            ])
    }

    @Test(arguments: SQLDialect.allCases)
    func printsOneQueryAndRunsNothing(dialect: SQLDialect) throws {
        let r = try run(
            dialect == .postgres
                ? ["--table", "ledger", "--sql", "postgres"]
                : [
                    "FILE", "--sql", dialect.rawValue, "--window", "30d", "--now",
                    "2026-12-01T00:00:00Z",
                ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("-- the per-feature P&L of margin pnl, for \(dialect.rawValue)"))
        #expect(r.stdout.contains("-- money columns: DECIMAL(38, "))
        #expect(r.stderr.isEmpty)
        let audit = try run(
            dialect == .postgres
                ? ["--table", "ledger", "--sql-audit", "postgres"]
                : ["FILE", "--sql-audit", dialect.rawValue])
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(
            audit.stdout.contains("'refund-of-unknown-charge'")
                && audit.stdout.contains("'conflicting-duplicate'"))
    }

    /// With `--by`, the rows are per period and feature, the period's label first.
    @Test(arguments: ["day", "week", "month"])
    func aSeriesAddsThePeriodColumn(by: String) throws {
        let r = try run(["FILE", "--sql", "spark", "--by", by, "--tz", "+08:00"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains(
                "SELECT period, feature, charges, charged, declines, given_back, left_credits"))
        #expect(r.stdout.contains("ORDER BY period, feature"))
        #expect(r.stdout.contains("(secs + 28800)"), "periods drawn at +08:00")
        #expect(r.stdout.contains("'-W'") == (by == "week"))
    }

    @Test(arguments: SQLDialect.allCases)
    func printsTheSchema(dialect: SQLDialect) throws {
        let r = try runMargin(["pnl", "--sql-schema", dialect.rawValue, "--table", "entries"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("CREATE TABLE entries ("))
        for c in SQLSchema.columns { #expect(r.stdout.contains(dialect.quoted(c.name))) }
    }

    @Test(arguments: [
        (
            ["FILE", "--sql", "oracle"],
            "--sql oracle: unknown SQL dialect (one of: duckdb, clickhouse, spark, postgres)"
        ),
        (["--sql-schema", "mysql"], "unknown SQL dialect"),
        (["FILE", "--sql", "postgres"], "PostgreSQL reads no JSON Lines files"),
        (["FILE", "--sql", "duckdb", "--strict"], "--strict does not apply to --sql"),
        (
            ["FILE", "--sql", "duckdb", "--input-format", "csv"],
            "is JSON Lines, not CSV (--input-format)"
        ),
        // Issue 24 case 16: options a query cannot honour are refused, not ignored.
        (["FILE", "--sql", "duckdb", "--format", "csv"], "--format does not apply to --sql"),
        (["FILE", "--sql-audit", "duckdb", "--format", "json"], "--format does not apply"),
        (["FILE", "--sql", "duckdb", "--memory", "256M"], "--memory does not apply to --sql"),
        (["FILE", "--sql-audit", "clickhouse", "--memory", "1G"], "--memory does not apply"),
        (["FILE", "--sql", "duckdb", "--sql-audit", "duckdb"], "not both"),
        (["FILE", "--table", "t", "--sql", "duckdb"], "either FILE… or --table"),
        (["--table", "t"], "--table applies only with --sql"),
        (["--table", "t; DROP TABLE x", "--sql", "duckdb"], "expected a table name"),
        (["-", "--sql", "duckdb"], "not standard input"),
    ])
    func badUsageExitsTwo(arguments: [String], fragment: String) throws {
        let r = try run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr.contains(fragment), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test(arguments: [
        (
            "credit-ledger.json",
            "{\"device\": \"a\", \"entries\": [{\"id\": \"1\", \"at\": \"2026-11-13T09:00:00Z\", \"kind\": \"grant\", \"amount\": 100}]}\n",
            "is a device ledger document: --sql reads JSON Lines, CSV or Parquet"
        ),
        (
            "rollup.jsonl",
            "{\"rollup\": {\"period\": \"2026-11\", \"feature\": \"asr\", \"charges\": 1, \"charged\": \"26\"}}\n",
            "is a roll-up in JSON Lines: --sql reads"
        ),
    ])
    func otherFormatsAreRefused(name: String, text: String, fragment: String) throws {
        let r = try run(["FILE", "--sql", "duckdb"], name: name, text: text)
        #expect(r.status == 2)
        #expect(r.stderr.contains(name) && r.stderr.contains(fragment), "\(r.stderr)")
    }
}
