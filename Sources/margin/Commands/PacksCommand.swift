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

    static func run(_ args: ParsedArguments, _ io: Terminal) -> Int32 {
        let format: String
        let fxOverrides: [FXRate]
        let rates: [Exact]?
        let taxes: [Currency: Exact]
        do {
            taxes = try Common.taxRates(args)
            format = try OutputFormat.parse(args.value("format"))
            fxOverrides = try Common.fxOverrides(args)
            rates = try Common.commissionRates(args)
        } catch {
            io.error(error.message)
            return 2
        }
        guard let (repo, cards) = Common.loadCards(args, io) else { return 2 }
        let fx = repo.fx.overriding(with: fxOverrides)
        var all: [PackMargins] = []
        for card in cards {
            do {
                all.append(
                    try PackMargins(
                        card: card, repository: repo, fx: fx, rates: rates, taxRates: taxes))
            } catch {
                return Common.reportWorstCaseFailure(error, card: card, io)
            }
        }
        io.out(PackMargins.render(all, format: format, bold: io.colour))
        return 0
    }
}
