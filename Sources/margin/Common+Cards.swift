import RateCard

extension Common {
    /// Apple's files of `--price-points`, each bound to a product id in `known` (the
    /// `what` of `cards`: "pack", "subscription"). A file that cannot be read or names
    /// another product is a failure (exit 2).
    static func priceLists(
        _ options: StorefrontArguments, known: Set<String>, what: String, cards: [RateCard]
    ) throws(CommandFailure) -> [String: ApplePriceList] {
        let lists: [String: ApplePriceList]
        do {
            lists = try ApplePriceList.load(options.bindings)
        } catch {
            throw CommandFailure(
                error.items, message: problems(error.items, in: "the App Store Connect files"))
        }
        for product in lists.keys.sorted() where !known.contains(product) {
            throw CommandFailure(
                "--price-points \(product)=…: no \(what) of \(cards.map(\.reference).joined(separator: ", ")) has product id \(product)"
            )
        }
        return lists
    }
}

extension Common {
    /// A card whose worst case could not be computed: an unbounded worst case is a finding
    /// about the card (exit 1), one per dimension that lets credits or a quota be used for
    /// free, each at its place; anything else is exit 2.
    static func worstCaseFailure(_ error: WorstCaseError, card: RateCard) -> CommandFailure {
        if case .unbounded(let shapes) = error {
            return CommandFailure(
                shapes.map { $0.freeUsageDiagnostic(card: card) }, exitCode: 1)
        }
        return CommandFailure([
            Diagnostic(
                path: card.source.path, location: card.source.location,
                message: "\(card.reference): \(error)")
        ])
    }
}
