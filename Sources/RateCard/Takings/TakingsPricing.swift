/// What the takings need from the rate card: which feature keys exist, and what a
/// charge cost the provider.
///
/// The aggregator calls `cost` once for every charge in the window that carries a
/// quantity, from both worker threads, and sums the results exactly per feature. A nil
/// cost means the feature has no metered cost (e.g. a model that runs on the device).
protocol TakingsPricing: Sendable {
    /// True when the card knows the feature key. Unknown keys are reported, never dropped.
    func isKnownFeature(_ key: String) -> Bool
    /// The metered provider cost of one charge: its quantity priced by the provider sheet
    /// and schedule in force at `at`.
    func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money?
    /// Whether any charge's quantities can matter (default true).
    var needsQuantities: Bool { get }
    /// The feature keys whose charges can have a metered cost, or nil when any can (the
    /// default). The readers build quantities only for charges of these keys, and the
    /// aggregator calls `cost` only for them: `cost` of any other key must be nil.
    var meteredFeatureKeys: Set<String>? { get }
    /// What the card charges per feature key, for the charge audit (default none: no
    /// audit).
    var chargeRules: [String: ChargeRules] { get }
}

extension TakingsPricing {
    /// Whether any charge's quantities can matter. When false the readers skip building
    /// them, which saves an allocation per charge on cards with no metered feature.
    var needsQuantities: Bool { true }

    /// Any feature key may have a metered cost.
    var meteredFeatureKeys: Set<String>? { nil }

    /// No charge rules: charges are not audited.
    var chargeRules: [String: ChargeRules] { [:] }
}

/// What the readers need from the pricing: which charges' quantities a run keeps (none,
/// all, or those of some feature keys), and the charge rules every charge is audited by.
struct QuantityNeed: Sendable {
    let all: Bool
    let keys: Set<String>
    let chargeRules: [String: ChargeRules]
    /// Only charges in this window are audited (the others are not counted) and priced,
    /// so only theirs keep their quantities.
    let window: TakingsWindow

    static let none = QuantityNeed(all: false, keys: [])

    init(
        all: Bool, keys: Set<String>, chargeRules: [String: ChargeRules] = [:],
        window: TakingsWindow = .all
    ) {
        self.all = all
        self.keys = keys
        self.chargeRules = chargeRules
        self.window = window
    }

    init(_ pricing: (any TakingsPricing)?, window: TakingsWindow = .all) {
        guard let pricing else {
            self = .none
            return
        }
        let rules = pricing.chargeRules
        guard pricing.needsQuantities else {
            self.init(all: false, keys: [], chargeRules: rules, window: window)
            return
        }
        if let keys = pricing.meteredFeatureKeys {
            self.init(all: false, keys: keys, chargeRules: rules, window: window)
        } else {
            self.init(all: true, keys: [], chargeRules: rules, window: window)
        }
    }

    /// Whether any charge's quantities are kept.
    var any: Bool { all || !keys.isEmpty }

    func wants(_ feature: String) -> Bool { all || keys.contains(feature) }
}
