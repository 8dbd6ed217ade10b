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
        let request = DiffRequest(
            cards: Common.selection(args), fxOverrides: try Common.fxOverrides(args),
            commissionRates: try Common.commissionRates(args))
        return io.show(try request.run(), format: format)
    }
}
