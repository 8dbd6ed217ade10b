/// Prices takings with a card family: each charge's quantities are costed by the provider
/// sheets of the card version in force at the charge's time (history is priced by the card
/// that applied then), at the schedule period in force at that time, and converted into
/// one reporting currency.
struct CardTakingsPricing: TakingsPricing {
    let family: String
    let repository: CardRepository
    let currency: Currency
    let costing: RequestCosting
    let knownKeys: Set<String>
    /// Keys that have a metered dimension in some version: only these can cost anything.
    let meteredKeys: Set<String>
    /// What each known key is charged, version by version, for the charge audit.
    let chargeRules: [String: ChargeRules]
    /// Versions oldest first, with their features by key (looked up once per charge).
    let versions: [(effective: Timestamp, card: RateCard, features: [String: Feature])]

    init(family: String, repository: CardRepository, currency: Currency) {
        self.family = family
        self.repository = repository
        self.currency = currency
        costing = RequestCosting(providers: repository.providers)
        let all = repository.versions(of: family)
        knownKeys = Set(all.flatMap { $0.features.map(\.key) })
        meteredKeys = Set(
            all.flatMap { card in
                card.features.filter { f in
                    f.dimensions.contains { if case .provider = $0.cost { true } else { false } }
                }.map(\.key)
            })
        chargeRules = Dictionary(
            uniqueKeysWithValues: knownKeys.map { ($0, ChargeRules(key: $0, versions: all)) })
        versions = all.map { card in
            (
                card.effective, card,
                Dictionary(card.features.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            )
        }
    }

    /// The version in force at `instant` (the first version before any took effect).
    func version(at instant: Timestamp) -> (card: RateCard, features: [String: Feature])? {
        var low = 0
        var high = versions.count
        while low < high {
            let mid = (low + high) / 2
            if versions[mid].effective <= instant { low = mid + 1 } else { high = mid }
        }
        guard !versions.isEmpty else { return nil }
        let v = versions[max(low - 1, 0)]
        return (v.card, v.features)
    }

    func isKnownFeature(_ key: String) -> Bool { knownKeys.contains(key) }

    /// Quantities only matter when some version meters some feature.
    var needsQuantities: Bool { !meteredKeys.isEmpty }

    /// Only keys metered by some version can cost anything.
    var meteredFeatureKeys: Set<String>? { meteredKeys }

    /// The provider cost of one charge in the reporting currency; nil when the feature has
    /// no running cost or the charge carries no quantity.
    func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money? {
        guard meteredKeys.contains(feature) else { return nil }
        // Before the first version took effect, the first version prices it (and says so in
        // the docs); otherwise the version in force.
        guard let (card, features) = version(at: at), let f = features[feature] else { return nil }
        // Quantities only matter for metered dimensions: an unknown quantity on a feature
        // with no running cost is harmless, on a metered one it means the card and the app
        // disagree about what is measured.
        let metered = f.dimensions.contains { if case .provider = $0.cost { true } else { false } }
        guard metered else { return nil }
        for key in quantity.keys where !f.dimensions.contains(where: { $0.name == key }) {
            throw PricingError(
                "feature \(feature) of \(card.reference) has no dimension \"\(key)\" (it has: \(f.dimensions.map(\.name).joined(separator: ", ")))"
            )
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
struct PricingError: Error, Sendable, Hashable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
