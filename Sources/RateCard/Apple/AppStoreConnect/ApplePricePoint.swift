/// One App Store Connect price point as Apple states it: what the customer pays in one
/// territory and what Apple pays the developer (`inAppPurchasePricePoints`, or
/// `subscriptionPricePoints` with `proceedsYear2`).
///
/// The subscriptions work reads the same model: `proceedsYear2` is Apple's figure after a
/// subscriber's first year (the reduced commission).
struct ApplePricePoint: Sendable, Hashable {
    /// Apple's opaque id of the point (base64 of its app, territory and point number).
    let id: String
    /// The territory code ("DEU"); from the point's own relationship, or from the price
    /// record that points at it when the point was included with an empty territory.
    let territory: String
    /// `attributes.customerPrice`, in the territory's currency.
    let customerPrice: Money
    /// `attributes.proceeds`; nil when Apple's response states none (a `"0.0"` beside a
    /// positive price, as in responses saved with only `priceTier` fields).
    let proceeds: Money?
    /// `attributes.proceedsYear2` of a subscription price point.
    let proceedsYear2: Money?
    /// The legacy `priceTier` ("1") when the response carries it.
    let priceTier: String?
    /// Where the point was read.
    let path: String
    let location: SourceLocation

    init(
        id: String, territory: String, customerPrice: Money, proceeds: Money?,
        proceedsYear2: Money? = nil, priceTier: String? = nil, path: String,
        location: SourceLocation
    ) {
        self.id = id
        self.territory = territory
        self.customerPrice = customerPrice
        self.proceeds = proceeds
        self.proceedsYear2 = proceedsYear2
        self.priceTier = priceTier
        self.path = path
        self.location = location
    }
}

/// One dated price of an in-app purchase's price schedule (`inAppPurchasePrices`): the
/// point in force in a territory from `start` (nil: since ever) until `end` (nil: open).
struct AppleScheduledPrice: Sendable, Hashable {
    let id: String
    let point: ApplePricePoint
    /// Set by the developer (`manualPrices`) or equalized by Apple (`automaticPrices`).
    let manual: Bool
    let start: CalendarDate?
    /// The first day the price no longer applies.
    let end: CalendarDate?
    let location: SourceLocation

    var territory: String { point.territory }

    /// True on `date`: on or after `start`, before `end`.
    func applies(on date: CalendarDate) -> Bool {
        (start.map { $0 <= date } ?? true) && (end.map { date < $0 } ?? true)
    }
}
