import RateCard

/// `margin pnl … --sql DIALECT`: the same table as an SQL query for the engine where the
/// data lives (docs/sql.md). Parses the SQL options and prints; the library compiles.
extension PnLCommand {
    static let sqlOptions: [ArgumentParser.Option] = [
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
    ]

    static func dialect(_ text: String, option: String) throws -> SQLDialect {
        guard let d = SQLDialect(rawValue: text) else {
            throw UsageError(
                "--\(option) \(text): unknown SQL dialect (one of: \(SQLDialect.names))")
        }
        return d
    }

    /// `--sql-schema DIALECT [--table NAME]`.
    static func schema(_ text: String, _ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let d = try dialect(text, option: "sql-schema")
        guard args.positionals.isEmpty else {
            throw UsageError("--sql-schema prints a CREATE TABLE and reads no FILE")
        }
        io.out(SQLSchema.createTable(d, name: args.value("table") ?? "ledger_entries"))
        return 0
    }

    /// The query `--sql` or `--sql-audit` asks for, or nil when neither is given. The card
    /// family, window, currency, value of a credit and fixed costs come from the same plan
    /// `margin pnl` runs by (`PnLRun.plan`).
    static func sqlQuery(_ args: ParsedArguments, _ pnl: PnLRequest) throws -> String? {
        let main = args.value("sql")
        let audit = args.value("sql-audit")
        guard main != nil || audit != nil else {
            if args.value("table") != nil {
                throw UsageError("--table applies only with --sql or --sql-audit")
            }
            return nil
        }
        guard main == nil || audit == nil else {
            throw UsageError("give either --sql or --sql-audit, not both")
        }
        let d = try dialect(main ?? audit ?? "", option: main != nil ? "sql" : "sql-audit")
        for (option, why) in [
            ("strict", "a query has no exit status (the audit is the strict mode)"),
            ("input-format", "a query reads JSON Lines or a table"),
            ("format", "the query is SQL text; the engine formats its result"),
            ("memory", "the engine, not margin, holds the entries"),
        ] where args.value(option) != nil || args.flag(option) {
            throw UsageError(
                "--\(option) does not apply to --sql or --sql-audit: \(why) (docs/sql.md)")
        }
        let source: SQLSource
        if let table = args.value("table") {
            guard args.positionals.isEmpty else {
                throw UsageError("give either FILE… or --table, not both")
            }
            source = .table(table)
        } else {
            source = try SQLSource.jsonLinesFiles(args.positionals)
        }
        let plan = try PnLRun.plan(pnl)
        let request = PnLSQLRequest(
            dialect: d, source: source, family: plan.family, repository: plan.repository,
            window: plan.window,
            currency: plan.currency, perCredit: plan.credit.perCredit,
            fixedCosts: try plan.fixedCostsOverWindow(),
            series: pnl.series,
            periodFixedCosts: try pnl.series.map { try plan.fixedCostsByPeriod($0) } ?? [])
        let compiler = try PnLSQLCompiler(request)
        return main != nil ? compiler.query() : compiler.audit()
    }
}
