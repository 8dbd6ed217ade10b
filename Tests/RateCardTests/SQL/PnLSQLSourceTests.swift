import Foundation
import Testing

@testable import RateCard

/// `margin pnl --sql` over URIs, CSV and Parquet, typed tables and bound parameters: what
/// each dialect's query reads and how, and every usage it refuses. The queries are run on
/// the real engines against `margin pnl` by `scripts/sql-forms` (called by `.ci/run`).
@Suite(.serialized) struct PnLSQLSourceTests {
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

    /// A URI is written as given, read by the engine's reader for the named format.
    @Test(arguments: [
        ("duckdb", "s3://bkt/e/*.parquet", "parquet", "read_parquet('s3://bkt/e/*.parquet')"),
        ("duckdb", "gs://bkt/e.jsonl", "jsonl", "read_ndjson('gs://bkt/e.jsonl', columns = {"),
        ("duckdb", "abfss://c@a.dfs.core.windows.net/e.csv", "csv", "read_csv('abfss://c@a"),
        ("clickhouse", "s3://bkt/e/*.parquet", "parquet", "s3('s3://bkt/e/*.parquet', 'Parquet', "),
        (
            "clickhouse", "https://h/bkt/e.jsonl", "jsonl",
            "s3('https://h/bkt/e.jsonl', 'JSONEachRow'"
        ),
        (
            "clickhouse", "https://h/e.csv?sig=1", "csv",
            "url('https://h/e.csv?sig=1', 'CSVWithNames'"
        ),
        ("clickhouse", "hdfs://nn/e/*.jsonl", "jsonl", "hdfs('hdfs://nn/e/*.jsonl', 'JSONEachRow'"),
        ("spark", "s3a://bkt/e/", "parquet", "FROM parquet.`s3a://bkt/e/`"),
        ("spark", "hdfs://nn/e/*.jsonl", "jsonl", "FROM text.`hdfs://nn/e/*.jsonl`"),
        ("spark", "gs://bkt/e.csv", "csv", "csv.`gs://bkt/e.csv` WITH ('header' = 'true'"),
    ])
    func aURIIsReadWhereTheEngineRuns(
        dialect: String, uri: String, format: String, fragment: String
    ) throws {
        let r = try run(["--sql", dialect, "--input-format", format, uri])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(fragment), "\(r.stdout.prefix(3000))")
        #expect(r.stderr.isEmpty)
    }

    @Test(arguments: [
        (
            ["s3://bkt/e.jsonl", "--sql", "duckdb"],
            "say it with --input-format jsonl, csv or parquet"
        ),
        (
            ["s3://bkt/e.jsonl", "--sql", "duckdb", "--input-format", "parqet"],
            "did you mean 'parquet'"
        ),
        (
            ["s3://bkt/e.jsonl", "--sql", "postgres", "--input-format", "jsonl"],
            "give --table NAME"
        ),
        (
            ["hdfs://nn/e.jsonl", "--sql", "duckdb", "--input-format", "jsonl"],
            "DuckDB has no HDFS reader"
        ),
        (
            ["https://h/e.jsonl", "--sql", "spark", "--input-format", "jsonl"],
            "Spark's file sources do not read HTTP"
        ),
        (
            ["abfss://c@a/e.jsonl", "--sql", "clickhouse", "--input-format", "jsonl"],
            "azureBlobStorage"
        ),
        (
            ["ftp://h/e.jsonl", "--sql", "duckdb", "--input-format", "jsonl"],
            "unknown URI scheme 'ftp://'"
        ),
        (
            ["FILE", "--sql", "duckdb", "--sql-columns", "typed"],
            "--sql-columns typed applies to a table or Parquet"
        ),
        (["FILE", "--sql", "duckdb", "--sql-columns", "typd"], "did you mean 'typed'"),
        (["--table", "t", "--sql", "duckdb", "--input-format", "csv"], "not of --table"),
        (["FILE", "--sql-columns", "typed"], "--sql-columns applies only with --sql"),
        (["FILE", "--sql", "duckdb", "--sql-params"], "--sql-params binds the window's bounds"),
        (["FILE", "--sql-params"], "--sql-params applies only with --sql"),
    ])
    func badUsageExitsTwo(arguments: [String], fragment: String) throws {
        let r = try run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr.contains(fragment), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func fixedCostsCannotBeBound() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(
            "costs.json",
            "{\"kind\": \"costs\", \"currency\": \"CNY\", \"since\": \"2026-11-01\", \"until\": \"2026-12-01\", \"costs\": [{\"feature\": \"llm\", \"amount\": \"1.50\"}]}"
        )
        let r = try run([
            "FILE", "--sql", "duckdb", "--sql-params", "--window", "7d", "--now",
            "2026-11-30T00:00:00Z", "--costs", dir.path + "/costs.json",
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--sql-params cannot take --costs"), "\(r.stderr)")
    }

    /// A local CSV is read by name (its header), its `quantity.<dim>` cells made one JSON
    /// object; a dimension the card lacks is read too, so the query sees it as margin does.
    @Test(arguments: ["duckdb", "clickhouse", "spark"])
    func aLocalCSVIsReadByItsHeader(dialect: String) throws {
        let csv =
            "id,at,kind,amount,feature,quantity.second,quantity.images\nc1,2026-11-13T09:00:00Z,charge,-26,asr,76,\n"
        let r = try run(["FILE", "--sql", dialect], name: "export.csv", text: csv)
        #expect(r.status == 0, "\(r.stderr)")
        let q = r.stdout
        switch dialect {
        case "duckdb":
            #expect(q.contains("UNION ALL BY NAME SELECT * FROM read_csv("))
            #expect(q.contains("header = true, all_varchar = true"))
        case "clickhouse": #expect(q.contains("'CSVWithNames'"))
        default:
            #expect(q.contains("WITH ('header' = 'true', 'multiLine' = 'true')"))
            // Spark names only the header's columns: the rest are NULL.
            #expect(!q.contains("`refundOf` AS `refund_of`"))
        }
        #expect(q.contains("quantity.images"), "a dimension of the header, not of the card")
    }

    @Test func aLocalParquetFileIsDetected() throws {
        let r = try run(["FILE", "--sql", "duckdb"], name: "e.parquet", text: "PAR1\u{0}\u{0}PAR1")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("read_parquet('"))
        let wrong = try run(
            ["FILE", "--sql", "duckdb", "--input-format", "csv"], name: "e.parquet",
            text: "PAR1\u{0}\u{0}PAR1")
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("is Parquet, not CSV"), "\(wrong.stderr)")
    }

    /// Typed columns are turned into the checked text with functions that name UTC, never
    /// the session's time zone.
    @Test(arguments: [
        ("duckdb", "strftime(make_timestamp(epoch_us(\"at\")), '%Y-%m-%dT%H:%M:%S.%fZ')"),
        ("postgres", "to_char(\"at\" AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"),
        ("clickhouse", "concat(toString(`at`, 'UTC'), 'Z')"),
        ("spark", "date_from_unix_date(CAST(m_day AS INT))"),
    ])
    func aTypedTableIsConvertedInTheQuery(dialect: String, fragment: String) throws {
        let r = try run(["--table", "ledger", "--sql-columns", "typed", "--sql", dialect])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(fragment), "\(r.stdout.prefix(2000))")
        for zoned in [
            "date_format", "from_utc_timestamp", "current_timezone", "AT TIME ZONE 'localtime'",
        ] {
            #expect(!r.stdout.contains(zoned))
        }
        let schema = try runMargin([
            "pnl", "--sql-schema", dialect, "--table", "ledger", "--sql-columns", "typed",
        ])
        #expect(schema.status == 0)
        let at = SQLSchema.typedType(try #require(SQLDialect(rawValue: dialect)), "at")
        #expect(schema.stdout.contains(at) && schema.stdout.contains("--sql-columns typed"))
    }

    /// `--sql-params`: the bounds as each engine's parameters, no constant bound left.
    @Test(arguments: [
        ("duckdb", "secs >= (CAST($now AS BIGINT) - 2592000) AND secs < CAST($now AS BIGINT)"),
        ("clickhouse", "secs >= ({now:Int64} - 2592000) AND secs < {now:Int64}"),
        ("spark", "secs >= (CAST(:now AS BIGINT) - 2592000) AND secs < CAST(:now AS BIGINT)"),
        ("postgres", "secs >= (CAST($1 AS BIGINT) - 2592000) AND secs < CAST($1 AS BIGINT)"),
    ])
    func parametersBindTheWindow(dialect: String, fragment: String) throws {
        let source = dialect == "postgres" ? ["--table", "ledger"] : ["FILE"]
        let r = try run(
            source + [
                "--sql", dialect, "--sql-params", "--window", "30d", "--now",
                "2026-12-01T00:00:00Z",
            ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(fragment), "\(r.stdout.prefix(3000))")
        // 2026-12-01T00:00:00Z is 1764547200: neither it nor the window's start is a constant.
        #expect(!r.stdout.contains("secs > 1764547200") && !r.stdout.contains("1761955200"))
        #expect(r.stdout.contains("-- parameters: \(dialect == "postgres" ? "$1 = now" : "now")"))
        let pair = try run(
            source + [
                "--sql", dialect, "--sql-params", "--since", "2026-11-01T00:00:00Z", "--until",
                "2026-11-20T00:00:00Z",
            ])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains(dialect == "postgres" ? "$2 = until" : "since, until"))
    }

    /// The result says how many rows were rejected (last column), in every dialect but
    /// Spark counted from the pass that groups the valid rows (`e0`), so that the checks of
    /// `p` are not run a second time for the count (engines that inline a CTE would).
    @Test(arguments: SQLDialect.allCases.filter { $0 != .spark })
    func theResultCountsRejectedRows(dialect: SQLDialect) throws {
        let r = try run(
            dialect == .postgres
                ? ["--table", "t", "--sql", "postgres"] : ["FILE", "--sql", dialect.rawValue])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains(
                "rj AS (\n    SELECT COALESCE(SUM(copies), 0) AS rejected FROM e0 WHERE NOT valid"))
        #expect(r.stdout.contains("e AS (\n    SELECT * FROM e0 WHERE valid\n)"))
        #expect(r.stdout.contains("rj.rejected AS rejected"))
        // `p` is read by `e0` alone: once in the one grouping, twice in DuckDB's two branches.
        let reads = r.stdout.components(separatedBy: "FROM p WHERE").count - 1
        #expect(reads == (dialect == .duckdb ? 2 : 0), "\(reads) reads of p")
        #expect(!r.stdout.contains("FROM p WHERE NOT valid"))
    }

    /// Spark counts the rejected rows from the checked rows `p`: with the grouped count, a
    /// window read in two passes let a query over conflicting copies run to its end
    /// (scripts/sql-equality, "conflicts (window: two passes)", 2026-12-03).
    @Test func sparkCountsRejectedRowsFromTheCheckedRows() throws {
        let r = try run(["FILE", "--sql", "spark"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("SELECT COUNT(*) AS rejected FROM p WHERE NOT valid"))
        #expect(!r.stdout.contains("e0 AS ("))
        #expect(r.stdout.contains("rj.rejected AS rejected"))
    }
}
