import RateCard

/// `margin diff OLD NEW`: what changed between two card versions and what it does to the
/// worst-case margin of every pack.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary =
        "What changed between two card versions: prices, features, packs, and every pack's worst-case margin before and after."
    static let usage =
        "margin diff OLD NEW [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
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
        io.out(diff.render(format: format, bold: io.colour))
        return 0
    }
}
