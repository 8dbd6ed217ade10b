/// `margin pnl … --sql DIALECT` (or `--sql-audit`): the P&L of a `PnLRequest` as one SQL
/// query for the engine where the data lives (docs/sql.md). The card family, window,
/// currency, value of a credit and fixed costs come from the plan `margin pnl` runs by
/// (`PnLRun.plan`), so the two never choose differently.
public struct PnLQueryRequest: Sendable {
    /// The P&L the query computes.
    var pnl: PnLRequest
    var dialect: SQLDialect
    /// The audit query (every entry `margin pnl` would reject or warn about) instead.
    var audit: Bool
    var source: SQLSource
    /// `--sql-params`: the window's bounds as query parameters.
    var parameters: Bool

    /// The options of the SQL forms (`SQLSchemaRequest` reads `--sql-schema`).
    public static let options: [ArgumentParser.Option] = [
        .init(
            "sql", value: "DIALECT",
            help:
                "Print the P&L as one SQL query instead of running it: duckdb, clickhouse, spark or postgres (docs/sql.md)."
        ),
        .init(
            "sql-audit", value: "DIALECT",
            help:
                "Print a query listing every entry margin pnl would reject or warn about, with its reason."
        ),
        .init(
            "table", value: "NAME",
            help:
                "With --sql or --sql-audit: read the entries from this table instead of FILE… (the form for postgres)."
        ),
        .init(
            "sql-schema", value: "DIALECT",
            help: "Print the CREATE TABLE of the table --table reads."),
        .init(
            "sql-columns", value: "LAYOUT",
            help:
                "With --table, --sql-schema or Parquet input: text (default: every field as text) or typed (timestamps, integers, a quantity map)."
        ),
        .init(
            "sql-params",
            help:
                "Write the window's bounds as query parameters (now, or since/until: seconds since the epoch) to bind at run time."
        ),
    ]

    /// The query the command line asks for, or nil when it asks for neither `--sql` nor
    /// `--sql-audit` (then the SQL-only options are bad usage).
    public init?(arguments args: ParsedArguments, pnl: PnLRequest) throws {
        let main = args.value("sql")
        let audit = args.value("sql-audit")
        guard main != nil || audit != nil else {
            for option in ["table", "sql-columns", "sql-params"]
            where args.value(option) != nil || args.flag(option) {
                throw UsageError("--\(option) applies only with --sql or --sql-audit")
            }
            return nil
        }
        guard main == nil || audit == nil else {
            throw UsageError("give either --sql or --sql-audit, not both")
        }
        let dialect = try SQLDialect.parse(
            option: main != nil ? "sql" : "sql-audit", main ?? audit ?? "")
        if args.flag("strict") {
            throw UsageError(
                "--strict does not apply to --sql: a query has no exit status; the audit (--sql-audit) is the strict mode (docs/sql.md)"
            )
        }
        // Refused as --strict is, not ignored (issue 24 case 16).
        for (option, why) in [
            ("format", "the query is SQL text; the engine formats its result"),
            ("memory", "the engine, not margin, holds the entries"),
        ] where args.value(option) != nil {
            throw UsageError(
                "--\(option) does not apply to --sql or --sql-audit: \(why) (docs/sql.md)")
        }
        self.init(
            pnl: pnl, dialect: dialect, audit: main == nil, source: try SQLSource(arguments: args),
            parameters: args.flag("sql-params"))
    }

    init(
        pnl: PnLRequest, dialect: SQLDialect, audit: Bool, source: SQLSource, parameters: Bool
    ) {
        self.pnl = pnl
        self.dialect = dialect
        self.audit = audit
        self.source = source
        self.parameters = parameters
    }

    /// What `margin pnl --sql` prints: the query (or the audit) on stdout.
    public func output(bold: Bool) throws -> CommandOutput {
        CommandOutput([.data(try run())])
    }

    /// The one call: the plan, compiled into the query (or the audit) text.
    func run() throws -> String {
        let plan = try PnLRun.plan(pnl)
        let compiler = try PnLSQLCompiler(
            PnLSQLRequest(
                dialect: dialect, source: source, family: plan.family,
                repository: plan.repository, window: plan.window, currency: plan.currency,
                perCredit: plan.credit.perCredit, fixedCosts: try plan.fixedCostsOverWindow(),
                series: pnl.series,
                periodFixedCosts: try pnl.series.map { try plan.fixedCostsByPeriod($0) } ?? [],
                parameters: parameters))
        return audit ? compiler.audit() : compiler.query()
    }
}
