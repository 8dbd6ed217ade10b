/// Prices takings with a card family: each charge's quantities are costed by the provider
/// sheets of the card version in force at the charge's time (history is priced by the card
/// that applied then), at the schedule period in force at that time, and converted into
/// one reporting currency.
public struct CardTakingsPricing: TakingsPricing {
    public let family: String
    public let repository: CardRepository
    public let currency: Currency
    let costing: RequestCosting
    let knownKeys: Set<String>

    public init(family: String, repository: CardRepository, currency: Currency) {
        self.family = family
        self.repository = repository
        self.currency = currency
        costing = RequestCosting(providers: repository.providers)
        knownKeys = Set(repository.versions(of: family).flatMap { $0.features.map(\.key) })
    }

    public func isKnownFeature(_ key: String) -> Bool { knownKeys.contains(key) }

    /// The provider cost of one charge in the reporting currency; nil when the feature has
    /// no running cost or the charge carries no quantity.
    public func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money? {
        let versions = repository.versions(of: family)
        // Before the first version took effect, the first version prices it (and says so in
        // the docs); otherwise the version in force.
        guard let card = repository.card(family, at: at) ?? versions.first,
              let f = card.feature(feature) else { return nil }
        // Quantities only matter for metered dimensions: an unknown quantity on a feature
        // with no running cost is harmless, on a metered one it means the card and the app
        // disagree about what is measured.
        let metered = f.dimensions.contains { if case .provider = $0.cost { true } else { false } }
        guard metered else { return nil }
        for key in quantity.keys where !f.dimensions.contains(where: { $0.name == key }) {
            throw PricingError("feature \(feature) of \(card.reference) has no dimension \"\(key)\" (it has: \(f.dimensions.map(\.name).joined(separator: ", ")))")
        }
        let costs = try costing.cost(of: f, quantities: quantity, at: at)
        guard !costs.isEmpty else { return nil }
        var total = Money.zero(currency)
        for c in costs {
            total = try total.adding(repository.fx.convert(c, to: currency))
        }
        return total
    }
}

/// A charge that could not be priced.
public struct PricingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
