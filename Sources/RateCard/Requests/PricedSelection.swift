/// What `plans` and `storefronts` price, and with what: the selected cards, the `--fx`
/// rates, and Apple's price-point files with the day and the program (`--price-points`,
/// `--at`, `--program`).
struct PricedSelection: Sendable {
    var cards: CardSelection
    var fxOverrides: [FXRate]
    var arguments: StorefrontArguments

    init(cards: CardSelection, fxOverrides: [FXRate] = [], arguments: StorefrontArguments) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.arguments = arguments
    }

    /// The cards and operands, `--fx`, and `--price-points`, `--at`, `--program`.
    init(arguments args: ParsedArguments) throws(UsageError) {
        self.init(
            cards: CardSelection(arguments: args), fxOverrides: try args.fxOverrides(),
            arguments: try StorefrontArguments(arguments: args))
    }

    /// The selection loaded: the repository, the cards, the FX table with `--fx` applied,
    /// and Apple's files, each bound to a product of `products` of the cards (the `what`
    /// of them: "pack", "subscription").
    func load(_ what: String, products: (RateCard) -> [String]) throws -> Loaded {
        let (repo, cards) = try self.cards.load()
        let priceLists = try ApplePriceList.load(
            arguments, products: Set(cards.flatMap(products)), what: what, cards: cards)
        return Loaded(
            repository: repo, cards: cards, fx: repo.fx.overriding(with: fxOverrides),
            priceLists: priceLists)
    }

    struct Loaded {
        let repository: CardRepository
        let cards: [RateCard]
        let fx: FXTable
        let priceLists: [String: ApplePriceList]
    }
}
