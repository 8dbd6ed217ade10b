import RateCard

/// `margin diff OLD NEW`: what changed between two card versions and what it does to the
/// worst-case margin of every pack.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary =
        "What changed between two card versions: prices, features, packs, and every pack's worst-case margin before and after."
    static let usage =
        "margin diff OLD NEW [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE] [--usage FILE… [--max-credit-change PCT] [--max-margin-drop POINTS]]"
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
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let format = try args.choice("format", default: OutputFormat.table)
        let fxOverrides = try Common.fxOverrides(args)
        let rates = try Common.commissionRates(args)
        guard args.positionals.count == 2 else {
            throw UsageError(
                "expected two cards, OLD and NEW (card files or id@version), found \(args.positionals.count)"
            )
        }
        // OLD and NEW are card files or references (`osg@10`) into the folder.
        let dir = Common.cardsDirectory(args)
        let repo = try Common.loadRepository([dir])
        let old = try repo.card(operand: args.positionals[0])
        let new = try repo.card(operand: args.positionals[1])
        let diff: CardDiff
        do {
            diff = try CardDiff(
                old: old, new: new, repository: repo, fx: repo.fx.overriding(with: fxOverrides),
                rates: rates)
        } catch {
            throw CommandFailure("cannot price \(old.reference) against \(new.reference): \(error)")
        }
        let usage = args.all("usage")
        guard !usage.isEmpty else {
            io.out(diff.render(format: format, bold: io.colour))
            return 0
        }
        guard format != .csv else {
            throw UsageError("--usage has no CSV form (one table per document): use json")
        }
        let replay = try ReplayRun.run(
            ReplayRequest(
                inputs: usage.map { TakingsInput(path: $0) }, cards: [dir],
                new: args.positionals[1], against: args.positionals[0], fxOverrides: fxOverrides,
                rates: rates))
        io.out(
            replay.appended(
                toDiff: diff.render(format: format, bold: io.colour), format: format,
                bold: io.colour))
        io.report(replay.warnings)
        guard args.value("max-credit-change") != nil || args.value("max-margin-drop") != nil
        else { return 0 }
        let findings = ReplayGate.findings(
            replay, card: new,
            limits: try ReplayLimits(
                maxCreditChange: args.value("max-credit-change"),
                maxMarginDrop: args.value("max-margin-drop")))
        io.report(findings)
        return findings.isEmpty ? 0 : 1
    }
}
