import RateCard

/// What `plans` and `storefronts` read before computing: the same options (`--cards`,
/// `--format`, `--fx`, `--price-points`, `--at`, `--program`) and the same loading.
struct StorefrontInputs {
    /// The options both commands take.
    static let options =
        [Common.cardsOption, Common.formatOption, Common.fxOption] + Common.storefrontOptions

    let format: OutputFormat
    let arguments: StorefrontArguments
    let repository: CardRepository
    let cards: [RateCard]
    /// The repository's FX table with `--fx` applied.
    let fx: FXTable
    let priceLists: [String: ApplePriceList]

    /// Reads the options, the cards and Apple's files; `products` gives the product ids a
    /// `--price-points` file may name, `what` what they are ("pack", "subscription").
    init(
        _ args: ParsedArguments, products: (RateCard) -> [String], what: String
    ) throws {
        format = try args.choice("format", default: OutputFormat.table)
        let fxOverrides = try Common.fxOverrides(args)
        arguments = try Common.storefrontArguments(args)
        (repository, cards) = try Common.loadCards(args)
        priceLists = try Common.priceLists(
            arguments, known: Set(cards.flatMap(products)), what: what, cards: cards)
        fx = repository.fx.overriding(with: fxOverrides)
    }
}
