import RateCard

/// `margin packs [CARD…]`: worst-case cost and margin of every pack and grant.
enum PacksCommand: Command {
    static let name = "packs"
    static let summary =
        "Worst-case cost and margin of every pack and grant, per currency and commission rate."
    static let usage =
        "margin packs [CARD…] [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE] [--tax CUR=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
        Common.taxOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let taxes = try Common.taxRates(args)
        let format = try args.choice("format", default: OutputFormat.table)
        let fxOverrides = try Common.fxOverrides(args)
        let rates = try Common.commissionRates(args)
        let (repo, cards) = try Common.loadCards(args)
        let fx = repo.fx.overriding(with: fxOverrides)
        var all: [PackMargins] = []
        for card in cards {
            do {
                all.append(
                    try PackMargins(
                        card: card, repository: repo, fx: fx, rates: rates, taxRates: taxes))
            } catch {
                throw Common.worstCaseFailure(error, card: card)
            }
        }
        io.out(PackMargins.render(all, format: format, bold: io.colour))
        return 0
    }
}
