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
    static let parser = ArgumentParser(StorefrontInputs.options)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let input = try StorefrontInputs(
            args, products: { $0.subscriptions.map(\.productId) }, what: "subscription")
        var all: [PlanMargins] = []
        for card in input.cards {
            do {
                all.append(
                    try PlanMargins(
                        card: card, repository: input.repository, fx: input.fx,
                        priceLists: input.priceLists, date: input.arguments.date,
                        program: input.arguments.program))
            } catch {
                throw Common.worstCaseFailure(error, card: card)
            }
        }
        io.report(Array(Set(all.flatMap(\.warnings))))
        io.out(PlanMargins.render(all, format: input.format, bold: io.colour))
        return 0
    }
}
