/// One published version of a rate card: what each feature costs in credits, what is given
/// away, and which store products sell credits.
///
/// A published version never changes; a change is a new version with a later effective time.
public struct RateCard: Sendable, Hashable {
    /// The card family, e.g. "osg". Versions of one family share feature keys.
    public let id: String
    public let version: Int
    /// When this version starts to apply.
    public let effective: Timestamp
    public let title: String
    public let creditUnit: CreditUnit
    public let features: [Feature]
    /// Feature keys of earlier versions that are deliberately no longer offered.
    public let retired: [RetiredFeature]
    public let grants: [Grant]
    public let packs: [Pack]
    /// Auto-renewable subscription products.
    public let subscriptions: [SubscriptionPlan]
    /// What a user who pays nothing may use, when the card says.
    public let freeTier: FreeTier?
    /// Things a reader must know are not final (e.g. "every price is a placeholder").
    public let placeholders: [String]
    public let notes: [String]
    /// Where the card was read from, and where its parts are, for diagnostics.
    public let source: SourceFile
    /// The App Store commission program the card's packs are sold under, when it says
    /// (`"storeProgram": "small-business"`); `margin storefronts --program` overrides it.
    public var storeProgram: StoreProgram? = nil

    /// "osg@10"
    public var reference: String { "\(id)@\(version)" }

    public func feature(_ key: String) -> Feature? { features.first { $0.key == key } }
}

/// Where a value was read from.
public struct SourceFile: Sendable, Hashable {
    public let path: String
    public let location: SourceLocation

    public init(path: String, location: SourceLocation = .start) {
        self.path = path
        self.location = location
    }
}

/// The unit credits are counted in.
public struct CreditUnit: Sendable, Hashable {
    /// "credit", "microcredit".
    public let name: String
    /// Every feature price must be a whole multiple of this many credits: 1 for whole
    /// credits, 10,000 micro-credits for whole pence.
    public let priceStep: Int128
    /// What one credit is worth at face value, when the card says so (a micro-credit is
    /// GBP 0.000001). Used to show prices in money.
    public let faceValue: Money?
}

/// A feature that is charged for, under a stable key.
public struct Feature: Sendable, Hashable {
    /// Never renamed, never display text: ledgers refer to features by this key.
    public let key: String
    public let name: String
    public let dimensions: [Dimension]
    public let placeholder: Bool
    public let location: SourceLocation
    public let keyLocation: SourceLocation
}

/// One metered dimension of a feature: `credits` per `per` units, rounded by `rounding`.
public struct Dimension: Sendable, Hashable {
    /// The quantity key in ledger entries, e.g. "second", "inputTokens".
    public let name: String
    public let unit: MeterUnit
    /// Credits charged per interval.
    public let credits: Int128
    /// Units in one interval (3 seconds, 1,000 tokens).
    public let per: Int128
    public let rounding: ChargeRounding
    public let cost: CostBinding
    public let location: SourceLocation
    public let creditsLocation: SourceLocation
}

/// How a quantity that is not a whole number of intervals is charged.
public enum ChargeRounding: String, Sendable, Hashable, CaseIterable {
    /// A started interval counts whole.
    case up
    /// Only complete intervals are charged.
    case down
    /// The quantity must be a whole number of intervals.
    case exact
}

/// What running a dimension costs the business.
public enum CostBinding: Sendable, Hashable {
    /// Billed by a provider sheet's meter.
    case provider(sheet: String, meter: String, location: SourceLocation)
    /// No running cost, with the reason (e.g. "runs on the user's device").
    case none(reason: String)
}

/// A feature key that an earlier version had and this one deliberately dropped.
public struct RetiredFeature: Sendable, Hashable {
    public let key: String
    public let since: Int?
    public let location: SourceLocation
}

/// Credits given without payment.
public struct Grant: Sendable, Hashable {
    public let key: String
    public let credits: Int128
    public let note: String?
    public let placeholder: Bool
    public let location: SourceLocation
}

/// A store product that adds credits.
public struct Pack: Sendable, Hashable {
    public let productId: String
    public let type: String
    public let credits: Int128
    public let prices: [PackPrice]
    public let placeholder: Bool
    public let location: SourceLocation
}

/// A pack's price in one currency (and, optionally, one storefront).
public struct PackPrice: Sendable, Hashable {
    public let price: Money
    public let storefront: String?
    public let location: SourceLocation
}
