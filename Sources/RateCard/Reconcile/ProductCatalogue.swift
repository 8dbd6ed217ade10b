/// The card family's products as a reconciliation needs them: for a product id, the pack
/// of the version in force at an instant (its credits and prices), and which ids are
/// subscriptions (read, counted and not matched: they grant no top-up).
struct ProductCatalogue: Sendable {
    /// Versions sorted by `effective`.
    let versions: [RateCard]
    let products: Set<String>
    let subscriptions: Set<String>

    init(versions: [RateCard]) {
        self.versions = versions
        subscriptions = Set(versions.flatMap { $0.subscriptions.map(\.productId) })
        products = Set(versions.flatMap { $0.packs.map(\.productId) }).union(subscriptions)
    }

    /// The version in force at `at`: the last effective at or before it (the first, for an
    /// instant before any).
    func version(at: Timestamp) -> RateCard? {
        versions.last { $0.effective <= at } ?? versions.first
    }

    /// The pack `productId` of the version in force at `at`, else of the latest version
    /// before `at` that has it, else of the earliest that has it.
    func pack(_ productId: String, at: Timestamp) -> (pack: Pack, card: RateCard)? {
        if let v = version(at: at), let p = v.packs.first(where: { $0.productId == productId }) {
            return (p, v)
        }
        let having = versions.filter { $0.packs.contains { $0.productId == productId } }
        guard let v = having.last(where: { $0.effective <= at }) ?? having.first,
            let p = v.packs.first(where: { $0.productId == productId })
        else { return nil }
        return (p, v)
    }

    /// The card's price of `pack` in `currency`: the one for `storefront` when the card has
    /// one, else the one for every storefront.
    static func price(of pack: Pack, currency: Currency, storefront: String?) -> Money? {
        let inCurrency = pack.prices.filter { $0.price.currency == currency }
        if let storefront, let p = inCurrency.first(where: { $0.storefront == storefront }) {
            return p.price
        }
        return inCurrency.first { $0.storefront == nil }?.price
    }
}
