import RateCard

extension Common {
    /// Apple's files of `--price-points`, each bound to a product id in `known` (the
    /// `what` of `cards`: "pack", "subscription"). Prints why and returns nil (exit 2) when
    /// a file cannot be read or names another product.
    static func priceLists(_ options: StorefrontArguments, known: Set<String>, what: String, cards: [RateCard], _ io: Terminal) -> [String: ApplePriceList]? {
        let lists: [String: ApplePriceList]
        do {
            lists = try ApplePriceList.load(options.bindings)
        } catch {
            io.report(error.items)
            io.error("\(error.items.count) problem\(error.items.count == 1 ? "" : "s") in the App Store Connect files")
            return nil
        }
        for product in lists.keys.sorted() where !known.contains(product) {
            io.error("--price-points \(product)=…: no \(what) of \(cards.map(\.reference).joined(separator: ", ")) has product id \(product)")
            return nil
        }
        return lists
    }
}
