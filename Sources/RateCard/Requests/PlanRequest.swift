/// `margin plans`: the worst-case margin of every subscription plan of the selected cards,
/// by subscription year, with offers and the free tier; from Apple's proceeds in each
/// territory too where files are given.
public struct PlanRequest: Sendable {
    public var cards: CardSelection
    public var fxOverrides: [FXRate]
    /// `--price-points`, `--at`, `--program`.
    public var arguments: StorefrontArguments

    public init(cards: CardSelection, fxOverrides: [FXRate] = [], arguments: StorefrontArguments) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.arguments = arguments
    }

    /// The one call; a card whose worst case cannot be computed is its `WorstCaseFailure`.
    public func run() throws -> PlanReport {
        let (repo, cards) = try self.cards.load()
        let priceLists = try ApplePriceList.load(
            arguments, products: Set(cards.flatMap { $0.subscriptions.map(\.productId) }),
            what: "subscription", cards: cards)
        let fx = repo.fx.overriding(with: fxOverrides)
        var all: [PlanMargins] = []
        for card in cards {
            do {
                all.append(
                    try PlanMargins(
                        card: card, repository: repo, fx: fx, priceLists: priceLists,
                        date: arguments.date, program: arguments.program))
            } catch {
                throw WorstCaseFailure(error, card: card)
            }
        }
        return PlanReport(all)
    }
}
