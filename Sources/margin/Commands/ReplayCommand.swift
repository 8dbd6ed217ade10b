import Foundation
import RateCard

/// `margin replay FILE… --card NEW [--against OLD]`: the ledger's real usage priced under a
/// candidate card. Options become a `ReplayRequest`; `ReplayRun` computes the report; the
/// chosen format renders it.
enum ReplayCommand: Command {
    static let name = "replay"
    static let summary =
        "Replay exported ledger entries under a candidate card: credits, declines, cost and margin per feature before and after."
    static let usage =
        "margin replay FILE… --card NEW [--against OLD] [--cards DIR] [--costs-at TIME] [--credit-value MONEY] [--currency CUR] [--memory SIZE] [--strict] [--format table|json|csv|markdown] [--sql duckdb|clickhouse|spark|postgres [--table NAME] [--sql-columns text|typed]]"
    static let parser = ArgumentParser([
        Common.cardsOption,
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
        Common.commissionOption, Common.fxOption, Common.formatOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        if let query = try sqlQuery(args) {
            io.out(query)
            return 0
        }
        let format = try args.choice("format", default: OutputFormat.table)
        PnLCommand.installCleanup()
        let report = try ReplayRun.run(try request(args))
        let status = io.show(report, format: format)
        return args.flag("strict") && report.hasFindings ? 1 : status
    }

    /// The query `--sql DIALECT` asks for, or nil without it. Its source is read as
    /// `margin pnl --sql` reads one (`SQLSource(arguments:)`).
    static func sqlQuery(_ args: ParsedArguments) throws -> String? {
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
            try request(inputs, sql: true), dialect: dialect, sourceArguments: args)
    }

    /// The options as a request; bad values are usage errors.
    static func request(_ args: ParsedArguments, sql: Bool = false) throws -> ReplayRequest {
        guard !args.positionals.isEmpty else {
            throw UsageError("give at least one export file (or - for standard input)")
        }
        guard let new = args.value("card") else {
            throw UsageError("give the candidate card with --card NEW (a file or id@version)")
        }
        var inputFormat: TakingsFormat?
        if !sql, let f = args.value("input-format") {
            guard let v = TakingsFormat(rawValue: f) else {
                throw UsageError(
                    "unknown input format '\(f)' (one of: \(TakingsFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            inputFormat = v
        }
        var request = ReplayRequest(
            inputs: args.positionals.map { TakingsInput(path: $0, format: inputFormat) },
            cards: [Common.cardsDirectory(args)], new: new, against: args.value("against"),
            fxOverrides: try Common.fxOverrides(args),
            currency: try args.value("currency", as: Currency.self),
            creditValue: try args.value("credit-value", as: Money.self),
            costsAt: try args.value("costs-at", as: Timestamp.self),
            rates: try Common.commissionRates(args))
        if !sql { try request.readMemory(args) }
        return request
    }
}
