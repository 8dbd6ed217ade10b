/// An auto-renewable subscription product of a card: what a subscriber pays each period
/// and what each period includes.
///
/// A period may include credits (spent like a pack's), quotas of features in their own
/// dimensions (600 minutes of speech recognition a day) and allowances (usage free of
/// charge before credits are charged). The worst case of a period uses all of them in
/// full, in the costliest way (`PlanWorstCase`).
struct SubscriptionPlan: Sendable, Hashable {
    /// The App Store product id.
    let productId: String
    /// The subscription group: the StoreKit group's reference name.
    let group: String
    /// The renewal period (`recurringSubscriptionPeriod`): P1W, P1M, P2M, P3M, P6M, P1Y.
    let period: SubscriptionPeriod
    /// The price of one period, per currency (and optionally storefront).
    let prices: [PackPrice]
    /// Credits added each period.
    let credits: Int128
    /// Usage included each period, capped.
    let quotas: [UsageLimit]
    /// Usage free of charge each period before credits are charged.
    let allowances: [UsageLimit]
    let introductoryOffer: IntroductoryOffer?
    let placeholder: Bool
    let location: SourceLocation
}

/// An amount of one dimension of one feature that a plan or free tier gives each `reset`
/// period.
///
/// Usage is counted the way the card meters the dimension: a request uses its quantity
/// rounded to the dimension's intervals (a started 3 s counts 3 s under rounding `up`), so
/// a quota is a whole number of intervals.
struct UsageLimit: Sendable, Hashable {
    /// "quota" or "allowance": how a plan names it.
    enum Kind: String, Sendable, Hashable {
        case quota, allowance

        /// "a quota", "an allowance"
        var article: String { self == .quota ? "a quota" : "an allowance" }
    }

    let kind: Kind
    let feature: String
    let dimension: String
    /// Units of the dimension's own unit (seconds, tokens) per window.
    let amount: Int128
    /// How often the amount is given afresh.
    let reset: SubscriptionPeriod
    let location: SourceLocation
    let amountLocation: SourceLocation

    /// "36,000 s of asr.second a day"
    func summary(unit: MeterUnit) -> String {
        "\(Format.grouped(amount)) \(unit.abbreviation) of \(feature).\(dimension) per \(reset.phrase)"
    }
}

/// An introductory offer or free trial for new subscribers, as App Store Connect sets it.
struct IntroductoryOffer: Sendable, Hashable {
    /// StoreKit's `paymentMode`.
    enum PaymentMode: String, Sendable, Hashable, CaseIterable {
        /// A free trial.
        case free
        /// A reduced price for each of `periods` periods.
        case payAsYouGo
        /// One price for the whole offer.
        case payUpFront
    }

    let paymentMode: PaymentMode
    /// StoreKit's `subscriptionPeriod`: one offer period.
    let period: SubscriptionPeriod
    /// StoreKit's `numberOfPeriods`.
    let periods: Int
    /// What the subscriber pays: per period (pay as you go) or once (pay up front); none
    /// for a free trial.
    let prices: [PackPrice]
    let location: SourceLocation

    /// How long the whole offer runs, as the windows of a quota see it.
    var span: SubscriptionPeriod {
        SubscriptionPeriod(count: period.count * periods, unit: period.unit)
    }

    /// What the subscriber pays for the whole offer where the plan is sold at `planPrice`;
    /// nil when the card gives the offer no price there (zero for a free trial).
    ///
    /// A storefront's plan price takes the offer's price for the same storefront, else its
    /// currency's general one; a general plan price takes only a general offer price (an
    /// offer priced for one storefront is not sold in the others).
    func totalPrice(for planPrice: PackPrice) throws(MoneyError) -> Money? {
        let currency = planPrice.price.currency
        if paymentMode == .free { return .zero(currency) }
        guard let p = price(for: planPrice) else { return nil }
        return paymentMode == .payAsYouGo ? try p.price.multiplied(by: Exact(periods)) : p.price
    }

    /// The offer's own price entry for `planPrice`, as `totalPrice(for:)` chooses it.
    func price(for planPrice: PackPrice) -> PackPrice? {
        let currency = planPrice.price.currency
        if let sf = planPrice.storefront,
            let own = prices.first(where: { $0.price.currency == currency && $0.storefront == sf })
        {
            return own
        }
        return prices.first { $0.price.currency == currency && $0.storefront == nil }
    }
}

/// What a user who pays nothing may use each period.
struct FreeTier: Sendable, Hashable {
    /// The period the free tier's cost is reported per (default P1M).
    let period: SubscriptionPeriod
    let allowances: [UsageLimit]
    let location: SourceLocation
}
