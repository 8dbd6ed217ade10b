import RateCard

extension Common {
    /// Apple's files of `--price-points`, each bound to a product id in `known` (the
    /// `what` of `cards`: "pack", "subscription"). Prints why and returns nil (exit 2) when
    /// a file cannot be read or names another product.
    static func priceLists(
        _ options: StorefrontArguments, known: Set<String>, what: String, cards: [RateCard],
        _ io: Terminal
    ) -> [String: ApplePriceList]? {
        let lists: [String: ApplePriceList]
        do {
            lists = try ApplePriceList.load(options.bindings)
        } catch {
            io.report(error.items)
            io.error(
                "\(error.items.count) problem\(error.items.count == 1 ? "" : "s") in the App Store Connect files"
            )
            return nil
        }
        for product in lists.keys.sorted() where !known.contains(product) {
            io.error(
                "--price-points \(product)=…: no \(what) of \(cards.map(\.reference).joined(separator: ", ")) has product id \(product)"
            )
            return nil
        }
        return lists
    }
}

extension Common {
    /// Reports a card whose worst case could not be computed and returns the exit code: an
    /// unbounded worst case is a finding about the card (1), one per dimension that lets
    /// credits or a quota be used for free, each at its place; anything else is 2.
    static func reportWorstCaseFailure(_ error: WorstCaseError, card: RateCard, _ io: Terminal)
        -> Int32
    {
        if case .unbounded(let shapes) = error {
            io.report(
                shapes.map { shape in
                    let loc =
                        card.feature(shape.feature)?.dimensions.first {
                            $0.name == shape.dimension
                        }?.location ?? card.source.location
                    return Diagnostic(
                        path: card.source.path, location: loc,
                        message: "\(card.reference): \(shape.freeUsageMessage)",
                        rule: .check(.freeUsage))
                })
            return 1
        }
        io.report([
            Diagnostic(
                path: card.source.path, location: card.source.location,
                message: "\(card.reference): \(error)")
        ])
        return 2
    }
}
