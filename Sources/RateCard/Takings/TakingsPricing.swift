/// What the takings need from the rate card: which feature keys exist, and what a
/// charge cost the provider.
///
/// The aggregator calls `cost` once for every charge in the window that carries a
/// quantity, from both worker threads, and sums the results exactly per feature. A nil
/// cost means the feature has no metered cost (e.g. a model that runs on the device).
public protocol TakingsPricing: Sendable {
    /// True when the card knows the feature key. Unknown keys are reported, never dropped.
    func isKnownFeature(_ key: String) -> Bool
    /// The metered provider cost of one charge: its quantity priced by the provider sheet
    /// and schedule in force at `at`.
    func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money?
    /// Whether any charge's quantities can matter (default true).
    var needsQuantities: Bool { get }
}

extension TakingsPricing {
    /// Whether any charge's quantities can matter. When false the readers skip building
    /// them, which saves an allocation per charge on cards with no metered feature.
    public var needsQuantities: Bool { true }
}
