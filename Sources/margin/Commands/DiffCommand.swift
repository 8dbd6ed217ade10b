import RateCard

/// `margin diff OLD NEW`: what changed between two card versions and what it does to the
/// worst-case margin of every pack.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary =
        "What changed between two card versions: prices, features, packs, and every pack's worst-case margin before and after."
    static let usage =
        "margin diff OLD NEW [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE] [--usage FILE… [--max-credit-change PCT] [--max-margin-drop POINTS] [--memory SIZE]]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
        .init(
            "usage", value: "FILE", repeatable: true,
            help:
                "Also replay this ledger export under NEW against OLD (docs/replay.md), as a section. Repeatable."
        ),
        .init(
            "max-credit-change", value: "PCT",
            help: "With --usage: exit 1 when a feature's credits move by more than PCT%."),
        .init(
            "max-margin-drop", value: "POINTS",
            help: "With --usage: exit 1 when the overall margin falls by more than POINTS."),
        .init(
            "memory", value: "SIZE",
            help:
                "With --usage: cap the memory of the entries kept, as margin replay --memory (partitioned by device past it; the same section)."
        ),
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let format = try args.choice("format", default: OutputFormat.table)
        let request = DiffRequest(
            cards: Common.selection(args), fxOverrides: try args.fxOverrides(),
            commissionRates: try args.commissionRates())
        let usage = args.all("usage")
        let memory = try ReplayRequest.memoryLimit(args, inputs: usage, requires: "usage")
        guard !usage.isEmpty else { return io.show(try request.run(), format: format) }
        guard format != .csv else {
            throw UsageError("--usage has no CSV form (one table per document): use json")
        }
        let diff = try request.run()
        let replay = try ReplayRun.run(
            ReplayRequest(
                inputs: usage.map { TakingsInput(path: $0) }, cards: [request.cards.directory],
                new: request.cards.operands[1], against: request.cards.operands[0],
                fxOverrides: request.fxOverrides, rates: request.commissionRates,
                memoryLimit: memory))
        io.report(replay.warnings)
        io.out(
            replay.appended(
                toDiff: diff.render(format, bold: io.colour), format: format, bold: io.colour))
        guard args.value("max-credit-change") != nil || args.value("max-margin-drop") != nil
        else { return 0 }
        let findings = ReplayGate.findings(
            replay,
            limits: try ReplayLimits(
                maxCreditChange: args.value("max-credit-change"),
                maxMarginDrop: args.value("max-margin-drop")))
        io.report(findings)
        return findings.isEmpty ? 0 : 1
    }
}
