/// The most one run of a subscription period (or free-tier period, or introductory offer)
/// can cost the providers: every included credit spent in the costliest way, every quota
/// and allowance used in full at its costliest request shape, in every window it resets in.
///
/// The parts are independent (credits are spent on their own; a quota is used on its own
/// dimension), so the period's worst case is their sum. Each part is the existing engine:
/// credits are `WorstCaseEngine.worstCase(credits:in:fx:)` over the whole card; a quota of
/// `Q` units of a dimension charged per `per` units is the same knapsack over that
/// dimension's request shapes with `Q / per` intervals to spend (a request uses as many
/// intervals as the card would charge it for), once per window.
struct PlanWorstCase: Sendable, Hashable {
    /// How long the case covers.
    let span: SubscriptionPeriod
    /// Credits added in each credit window, and how many windows start within the span.
    let credits: Int128
    let creditWindows: Int
    /// The worst case of one credit window's credits; nil when the plan includes none.
    let creditWorst: WorstCase?
    let limits: [LimitCost]
    /// The sum of every part, in the currency asked for.
    let cost: Money
    /// Every FX rate any part's figure used (the credits' and each limit's worst case
    /// compare the converted costs of every request), each once, in the order first used.
    let fxUsed: [FXRate]

    /// One quota or allowance over the span.
    struct LimitCost: Sendable, Hashable {
        let limit: UsageLimit
        let unit: MeterUnit
        /// Windows of the limit's reset period that start within the span.
        let windows: Int
        /// The card's intervals the limit allows per window.
        let intervals: Int128
        /// The worst case of one window; its "credits" are intervals of the dimension.
        let perWindow: WorstCase
        /// `perWindow.cost × windows`.
        let cost: Money
        /// Why it costs nothing, when the dimension has no running cost.
        let noRunningCost: String?

        /// "31 × (12,000 × 3 s of asr.second (billed 3 s))"
        var witnessSummary: String {
            if let why = noRunningCost {
                return "\(limit.feature).\(limit.dimension): no running cost (\(why))"
            }
            if perWindow.plan.isEmpty {
                return
                    "\(limit.feature).\(limit.dimension): no request costs the providers anything"
            }
            let steps = perWindow.plan.map {
                "\(Format.grouped($0.count)) × \($0.shape.quantity) \($0.shape.unit.abbreviation) of \($0.shape.feature).\($0.shape.dimension) (\($0.shape.billing))"
            }
            return "\(Format.grouped(Int128(windows))) × (\(steps.joined(separator: " + ")))"
        }
    }

    /// "3,000 credits: 3,000 × 3 s of asr.second …; 31 × (…)"
    var witnessSummary: String {
        var parts: [String] = []
        if let w = creditWorst {
            parts.append(
                "\(creditWindows == 1 ? "" : "\(creditWindows) × ")\(Format.grouped(credits)) credits as \(w.witnessSummary)"
            )
        }
        parts.append(contentsOf: limits.map { "\($0.limit.kind.rawValue) \($0.witnessSummary)" })
        return parts.isEmpty ? "nothing included" : parts.joined(separator: "; ")
    }

    /// The worst case of `credits` added every `creditPeriod` and `limits` used in full,
    /// over `span`, with every cost in `currency`.
    init(
        span: SubscriptionPeriod, credits: Int128, creditPeriod: SubscriptionPeriod,
        limits: [UsageLimit],
        card: RateCard, engine: WorstCaseEngine, providers: [String: ProviderSheet],
        currency: Currency, fx: FXTable
    ) throws(WorstCaseError) {
        self.span = span
        self.credits = credits
        var total = Money.zero(currency)
        if credits > 0 {
            let windows = span.windows(of: creditPeriod)
            let w = try engine.worstCase(credits: credits, in: currency, fx: fx)
            creditWindows = windows
            creditWorst = w
            total = try PlanWorstCase.add(total, w.cost, times: windows)
        } else {
            creditWindows = 0
            creditWorst = nil
        }
        var costs: [LimitCost] = []
        for limit in limits {
            let c = try PlanWorstCase.cost(
                of: limit, over: span, card: card, providers: providers, currency: currency, fx: fx)
            total = try PlanWorstCase.add(total, c.cost, times: 1)
            costs.append(c)
        }
        self.limits = costs
        cost = total
        fxUsed = PlanWorstCase.union([creditWorst?.fxUsed ?? []] + costs.map(\.perWindow.fxUsed))
    }

    /// The rates of `lists`, each once, in the order first named.
    static func union(_ lists: [[FXRate]]) -> [FXRate] {
        var out: [FXRate] = []
        for r in lists.joined() where !out.contains(r) { out.append(r) }
        return out
    }

    /// The worst case of one quota or allowance over `span`.
    static func cost(
        of limit: UsageLimit, over span: SubscriptionPeriod, card: RateCard,
        providers: [String: ProviderSheet],
        currency: Currency, fx: FXTable
    ) throws(WorstCaseError) -> LimitCost {
        guard let feature = card.feature(limit.feature),
            let d = feature.dimensions.first(where: { $0.name == limit.dimension })
        else {
            throw .arithmetic(
                "\(limit.kind.rawValue) on \(limit.feature).\(limit.dimension): no such feature dimension"
            )
        }
        let windows = span.windows(of: limit.reset)
        let intervals = limit.amount / d.per
        if case .none(let why) = d.cost {
            let empty = WorstCase(
                credits: intervals, cost: .zero(currency), plan: [], unspent: 0, worstShape: nil,
                fxUsed: [])
            return LimitCost(
                limit: limit, unit: d.unit, windows: windows, intervals: intervals,
                perWindow: empty, cost: .zero(currency), noRunningCost: why)
        }
        let engine = try intervalEngine(feature: feature, dimension: d, providers: providers)
        let w = try engine.worstCase(credits: intervals, in: currency, fx: fx)
        let cost = try add(.zero(currency), w.cost, times: windows)
        return LimitCost(
            limit: limit, unit: d.unit, windows: windows, intervals: intervals, perWindow: w,
            cost: cost, noRunningCost: nil)
    }

    /// The engine over one dimension's request shapes with one "credit" per interval: what
    /// a quota counts, whatever credits the card charges for the dimension.
    static func intervalEngine(
        feature: Feature, dimension d: Dimension, providers: [String: ProviderSheet]
    ) throws(WorstCaseError) -> WorstCaseEngine {
        let perInterval = Dimension(
            name: d.name, unit: d.unit, credits: 1, per: d.per, rounding: d.rounding, cost: d.cost,
            location: d.location, creditsLocation: d.creditsLocation)
        let only = Feature(
            key: feature.key, name: feature.name, dimensions: [perInterval],
            placeholder: feature.placeholder,
            location: feature.location, keyLocation: feature.keyLocation)
        return WorstCaseEngine(profiles: [
            try FeatureCostProfile(feature: only, providers: providers)
        ])
    }

    /// A request of `limit`'s dimension that uses none of it but costs money, if the
    /// card's rounding allows one (rounding `down` below one interval): the quota can then
    /// be used without limit.
    static func freeUsage(
        of limit: UsageLimit, card: RateCard, providers: [String: ProviderSheet]
    ) throws(WorstCaseError) -> RequestShape? {
        guard let feature = card.feature(limit.feature),
            let d = feature.dimensions.first(where: { $0.name == limit.dimension })
        else { return nil }
        if case .none = d.cost { return nil }
        return try intervalEngine(feature: feature, dimension: d, providers: providers).freeUsage
            .first
    }

    static func add(_ total: Money, _ part: Money, times: Int) throws(WorstCaseError) -> Money {
        do {
            return try total.adding(part.multiplied(by: Exact(times)))
        } catch {
            throw .arithmetic(
                "the worst case of a subscription period is too large to compute exactly")
        }
    }
}
