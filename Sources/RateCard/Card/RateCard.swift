/// One published version of a rate card: what each feature costs in credits, what is given
/// away, and which store products sell credits.
///
/// A published version never changes; a change is a new version with a later effective time.
struct RateCard: Sendable, Hashable {
    /// The card family, e.g. "osg". Versions of one family share feature keys.
    let id: String
    let version: Int
    /// When this version starts to apply.
    let effective: Timestamp
    let title: String
    let creditUnit: CreditUnit
    let features: [Feature]
    /// Feature keys of earlier versions that are deliberately no longer offered.
    let retired: [RetiredFeature]
    let grants: [Grant]
    let packs: [Pack]
    /// Auto-renewable subscription products.
    let subscriptions: [SubscriptionPlan]
    /// What a user who pays nothing may use, when the card says.
    let freeTier: FreeTier?
    /// Things a reader must know are not final (e.g. "every price is a placeholder").
    let placeholders: [String]
    let notes: [String]
    /// Where the card was read from, and where its parts are, for diagnostics.
    let source: SourceFile
    /// The App Store commission program the card's packs are sold under, when it says
    /// (`"storeProgram": "small-business"`); `margin storefronts --program` overrides it.
    var storeProgram: StoreProgram? = nil
    /// When credits lapse, and the breakage the business expects (`"creditExpiry"`), when
    /// the card says; nil: credits never expire.
    var creditExpiry: CreditExpiry? = nil

    /// "osg@10"
    var reference: String { "\(id)@\(version)" }

    func feature(_ key: String) -> Feature? { features.first { $0.key == key } }
}

/// Where a value was read from.
struct SourceFile: Sendable, Hashable {
    let path: String
    let location: SourceLocation

    init(path: String, location: SourceLocation = .start) {
        self.path = path
        self.location = location
    }
}

/// The unit credits are counted in.
struct CreditUnit: Sendable, Hashable {
    /// "credit", "microcredit".
    let name: String
    /// Every feature price must be a whole multiple of this many credits: 1 for whole
    /// credits, 10,000 micro-credits for whole pence.
    let priceStep: Int128
    /// What one credit is worth at face value, when the card says so (a micro-credit is
    /// GBP 0.000001). Used to show prices in money.
    let faceValue: Money?
}

/// A feature that is charged for, under a stable key.
struct Feature: Sendable, Hashable {
    /// Never renamed, never display text: ledgers refer to features by this key.
    let key: String
    let name: String
    let dimensions: [Dimension]
    let placeholder: Bool
    let location: SourceLocation
    let keyLocation: SourceLocation
}

/// One metered dimension of a feature: `credits` per `per` units, rounded by `rounding`.
struct Dimension: Sendable, Hashable {
    /// The quantity key in ledger entries, e.g. "second", "inputTokens".
    let name: String
    let unit: MeterUnit
    /// Credits charged per interval.
    let credits: Int128
    /// Units in one interval (3 seconds, 1,000 tokens).
    let per: Int128
    let rounding: ChargeRounding
    let cost: CostBinding
    let location: SourceLocation
    let creditsLocation: SourceLocation
}

/// How a quantity that is not a whole number of intervals is charged.
enum ChargeRounding: String, Sendable, Hashable, CaseIterable {
    /// A started interval counts whole.
    case up
    /// Only complete intervals are charged.
    case down
    /// The quantity must be a whole number of intervals.
    case exact
}

/// What running a dimension costs the business.
enum CostBinding: Sendable, Hashable {
    /// Billed by a provider sheet's meter.
    case provider(sheet: String, meter: String, location: SourceLocation)
    /// No running cost, with the reason (e.g. "runs on the user's device").
    case none(reason: String)
}

/// A feature key that an earlier version had and this one deliberately dropped.
struct RetiredFeature: Sendable, Hashable {
    let key: String
    let since: Int?
    let location: SourceLocation
}

/// Credits given without payment.
struct Grant: Sendable, Hashable {
    let key: String
    let credits: Int128
    let note: String?
    let placeholder: Bool
    let location: SourceLocation
}

/// A store product that adds credits.
struct Pack: Sendable, Hashable {
    let productId: String
    let type: String
    let credits: Int128
    let prices: [PackPrice]
    let placeholder: Bool
    let location: SourceLocation
    /// Where its `credits` is written: where a finding about the credits points.
    var creditsLocation: SourceLocation
}

/// A pack's price in one currency (and, optionally, one storefront).
struct PackPrice: Sendable, Hashable {
    let price: Money
    let storefront: String?
    /// Where the price's `amount` is written: where findings about the price point.
    let location: SourceLocation
    /// Where its `storefront` is written, when it has one: where a finding about the
    /// storefront code (no App Store territory) points.
    var storefrontLocation: SourceLocation? = nil
}

/// Credits lapse `days` after the entry that added them (a top-up or a grant); of the
/// credits sold, the share `expectedBreakage` is expected never to be used (the business's
/// estimate, from its history). `margin pnl --proceeds` recognises breakage from them
/// (docs/proceeds.md).
struct CreditExpiry: Sendable, Hashable {
    let days: Int
    /// In [0, 1); 0 when the card gives none (breakage is then recognised at expiry only).
    let expectedBreakage: Exact
    let note: String?
    let location: SourceLocation
}
