import RateCard

/// `margin plans [CARD…]`: worst-case margin of every subscription plan by subscription
/// year, introductory offers and the free tier; with `--price-points`, from Apple's own
/// proceeds in each territory too.
enum PlansCommand: Command {
    static let name = "plans"
    static let summary =
        "Worst-case margin of every subscription plan in year one and after, offers' payback, and the free tier's cost."
    static let usage =
        "margin plans [CARD…] [--cards DIR] [--format table|json|csv|markdown] [--fx BASE/QUOTE=RATE] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program standard|small-business]"
    static let parser = ArgumentParser(
        [Common.cardsOption, Common.formatOption, Common.fxOption] + Common.storefrontOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let format = try args.choice("format", default: OutputFormat.table)
        let fxOverrides = try Common.fxOverrides(args)
        let options = try Common.storefrontArguments(args)
        let (repo, cards) = try Common.loadCards(args)
        let lists = try Common.priceLists(
            options, known: Set(cards.flatMap(\.subscriptions).map(\.productId)),
            what: "subscription", cards: cards)
        let fx = repo.fx.overriding(with: fxOverrides)
        var all: [PlanMargins] = []
        for card in cards {
            do {
                all.append(
                    try PlanMargins(
                        card: card, repository: repo, fx: fx, priceLists: lists, date: options.date,
                        program: options.program))
            } catch {
                throw Common.worstCaseFailure(error, card: card)
            }
        }
        io.report(Array(Set(all.flatMap(\.warnings))))
        io.out(PlanMargins.render(all, format: format, bold: io.colour))
        return 0
    }
}
