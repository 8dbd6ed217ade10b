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

    /// Whether the run writes a query (`--sql` or `--sql-audit`) rather than running.
    static func isSQL(_ args: ParsedArguments) -> Bool {
        args.value("sql") != nil || args.value("sql-audit") != nil
    }

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
        io.out(
            SQLSchema.createTable(
                d, name: args.value("table") ?? "ledger_entries",
                columns: try args.choice("sql-columns", default: SQLColumns.text)))
        return 0
    }

    /// The query `--sql` or `--sql-audit` asks for, or nil when neither is given. The card
    /// family, window, currency, value of a credit and fixed costs come from the same plan
    /// `margin pnl` runs by (`PnLRun.plan`).
    static func sqlQuery(_ args: ParsedArguments, _ pnl: PnLRequest) throws -> String? {
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
        let d = try dialect(main ?? audit ?? "", option: main != nil ? "sql" : "sql-audit")
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
        let source = try sqlSource(args)
        let plan = try PnLRun.plan(pnl)
        let request = PnLSQLRequest(
            dialect: d, source: source, family: plan.family, repository: plan.repository,
            window: plan.window,
            currency: plan.currency, perCredit: plan.credit.perCredit,
            fixedCosts: try plan.fixedCostsOverWindow(),
            series: pnl.series,
            periodFixedCosts: try pnl.series.map { try plan.fixedCostsByPeriod($0) } ?? [],
            parameters: args.flag("sql-params"))
        let compiler = try PnLSQLCompiler(request)
        return main != nil ? compiler.query() : compiler.audit()
    }

    /// Where a query reads the entries: `--table` (text or typed columns), or FILE… and
    /// URI… in their `--input-format` (shared with `margin replay --sql`).
    static func sqlSource(_ args: ParsedArguments) throws -> SQLSource {
        let columns = try args.choice("sql-columns", default: SQLColumns.text)
        let format =
            args.value("input-format") == nil
            ? nil : try args.choice("input-format", default: SQLInputFormat.jsonl)
        let source: SQLSource
        if let table = args.value("table") {
            guard args.positionals.isEmpty else {
                throw UsageError("give either FILE… or --table, not both")
            }
            guard format == nil else {
                throw UsageError("--input-format names the format of FILE… or URI…, not of --table")
            }
            source = columns == .typed ? .typedTable(table) : .table(table)
        } else {
            source = try SQLSource.inputs(args.positionals, format: format, columns: columns)
            if columns == .typed,
                case .files(let inputs) = source, inputs.contains(where: { $0.format != .parquet })
            {
                throw UsageError(
                    "--sql-columns typed applies to a table or Parquet; JSON Lines and CSV hold text"
                )
            }
        }
        return source
    }
}
