/// `margin replay`'s options and how they become a `ReplayRequest` (or, with `--sql`, the
/// query), so that the command only parses, calls and renders.
extension ReplayRequest {
    /// The options of `margin replay`, in help order.
    public static let options: [ArgumentParser.Option] = [
        .cards,
        .init(
            "card", value: "NEW",
            help: "The candidate card: a card file, or id@version in the rate-card folder."),
        .init(
            "against", value: "OLD",
            help:
                "Re-price the before side with this card too (default: the ledger's own charges)."),
        .init(
            "costs-at", value: "TIME",
            help:
                "Cost NEW's side as if every request ran at this RFC 3339 time (default: at its own time)."
        ),
        .init(
            "credit-value", value: "MONEY",
            help:
                "Value one credit at this, e.g. 'CNY 0.005' (default: the lowest per-credit proceeds of NEW's packs, after the highest commission)."
        ),
        .init(
            "currency", value: "CUR",
            help: "Reporting currency for value and cost (default: NEW's providers' currency)."),
        .init(
            "input-format", value: "FORMAT",
            help: "Force the input format: jsonl, ledger or csv (default: detected)."),
        .init(
            "memory", value: "SIZE",
            help:
                "Cap the memory of the entries kept, e.g. 256M or 2G; past it the run is partitioned by device into temporary files, with the same report (default: half of the machine's memory)."
        ),
        .init(
            "threads", value: "N",
            help:
                "Replay the devices on N threads (default 2, as margin pnl reads); the report is the same for any N."
        ),
        .init("strict", help: "Exit 1 when any charge is not re-priced or any line is rejected."),
        .init(
            "sql", value: "DIALECT",
            help:
                "Print the per-feature re-pricing as one SQL query instead of running it: duckdb, clickhouse, spark or postgres (docs/replay.md; no balances or packs)."
        ),
        .init(
            "table", value: "NAME",
            help: "With --sql: read the entries from this table instead of FILE…"),
        .init(
            "sql-columns", value: "LAYOUT",
            help:
                "With --table or Parquet input: text (default: every field as text) or typed (timestamps, integers, a quantity map)."
        ),
        .commission, .fx, .format,
    ]

    /// The request the command line makes; bad values are usage errors. With `sql`, the
    /// inputs are the query's source and `--input-format` is read by `SQLSource` instead.
    public init(arguments args: ParsedArguments, sql: Bool = false) throws {
        let format = try sql ? .table : args.choice("format", default: OutputFormat.table)
        guard !args.positionals.isEmpty else {
            throw UsageError("give at least one export file (or - for standard input)")
        }
        guard let new = args.value("card") else {
            throw UsageError("give the candidate card with --card NEW (a file or id@version)")
        }
        let inputFormat = sql ? nil : try args.inputFormat()
        self.init(
            inputs: args.positionals.map { TakingsInput(path: $0, format: inputFormat) },
            cards: [args.value("cards") ?? "RateCards"], new: new, against: args.value("against"),
            fxOverrides: try args.fxOverrides(),
            currency: try args.value("currency", as: Currency.self),
            creditValue: try args.value("credit-value", as: Money.self),
            costsAt: try args.value("costs-at", as: Timestamp.self),
            rates: try args.value("commission", as: CommissionRates.self)?.rates)
        if !sql { try readMemory(args) }
        if let n = try args.value("threads", as: ThreadCount.self) { threads = n.count }
        self.format = format
        strict = args.flag("strict")
    }

    /// What `margin replay` prints: the report in the request's format; under `strict`,
    /// exit 1 on any finding.
    public func output(bold: Bool) throws -> CommandOutput {
        let report = try ReplayRun.run(self)
        let output = report.output(format, bold: bold)
        return CommandOutput(
            output.parts, exitCode: strict && report.hasFindings ? 1 : output.exitCode)
    }

    /// The query `--sql DIALECT` asks for, or nil without it. Its source is read as
    /// `margin pnl --sql` reads one (`SQLSource(arguments:)`).
    public static func query(arguments args: ParsedArguments) throws -> String? {
        guard let text = args.value("sql") else {
            for option in ["table", "sql-columns"] where args.value(option) != nil {
                throw UsageError("--\(option) applies only with --sql")
            }
            return nil
        }
        let dialect = try SQLDialect.parse(option: "sql", text)
        for (option, why) in [
            ("format", "the query is SQL text; the engine formats its result"),
            ("strict", "a query has no exit status"),
        ] where args.value(option) != nil || args.flag(option) {
            throw UsageError("--\(option) does not apply to --sql: \(why) (docs/replay.md)")
        }
        var inputs = args
        if args.value("table") != nil { inputs.positionals = ["-"] }
        return try ReplayRun.sql(
            try ReplayRequest(arguments: inputs, sql: true), dialect: dialect,
            source: try SQLSource(arguments: args))
    }
}
