/// The most a given number of credits can cost the providers, with the requests that
/// reach it (the witness).
struct WorstCase: Sendable, Hashable {
    /// Credits being spent.
    let credits: Int128
    /// The total provider cost, in `cost.currency`.
    let cost: Money
    /// The requests of the witness, each with how many times it is made.
    let plan: [PlanStep]
    /// Credits the witness does not spend on requests with a running cost: no costly
    /// request can use them up exactly, so they are left unspent (or spent on features that
    /// cost nothing). On a card where nothing costs, every credit.
    let unspent: Int128
    /// The feature shapes that were ranked, for reports.
    let worstShape: RequestShape?
    /// Every FX rate the figure rests on: the rates that converted each provider currency
    /// with a costly request into `cost.currency` (the ranking compares them all), in the
    /// order first needed. Empty when every cost is already in that currency.
    let fxUsed: [FXRate]

    struct PlanStep: Sendable, Hashable {
        let shape: RequestShape
        let count: Int128
    }

    /// "3,000 × 3 s of asr.second for 1 credit …"
    var witnessSummary: String {
        if plan.isEmpty {
            let left =
                unspent > 0
                ? "; \(Format.grouped(unspent)) credit\(unspent == 1 ? "" : "s") left unspent" : ""
            return
                (worstShape == nil
                ? "no request costs the providers anything" : "no request with a running cost fits")
                + left
        }
        var parts = plan.map { "\(Format.grouped($0.count)) × \($0.shape.summary)" }
        if unspent > 0 { parts.append("\(Format.grouped(unspent)) credits left unspent") }
        return parts.joined(separator: "; ")
    }

    /// The feature of the witness's main step.
    var witnessFeature: String? {
        plan.max { $0.count * $0.shape.credits < $1.count * $1.shape.credits }?.shape.feature
    }
}

/// Finds worst cases: the most expensive way to spend exactly a number of whole credits.
struct WorstCaseEngine: Sendable {
    let profiles: [FeatureCostProfile]

    /// The largest knapsack the engine solves step by step.
    static let maxSearch: Int128 = 2_000_000

    init(card: RateCard, providers: [String: ProviderSheet]) throws(WorstCaseError) {
        var p: [FeatureCostProfile] = []
        for f in card.features {
            p.append(try FeatureCostProfile(feature: f, providers: providers))
        }
        profiles = p
    }

    /// The features a request can use for free while costing the provider money.
    var freeUsage: [RequestShape] { profiles.flatMap(\.freeUsage) }

    /// The worst case of spending `credits`, with every cost converted into `currency`.
    ///
    /// Items are request shapes of every feature (whole credits each). Let `b` be the shape
    /// with the highest cost per credit and `s` its credits. Among any `s` other requests a
    /// non-empty subset uses a multiple of `s` credits (pigeonhole on prefix sums), and
    /// replacing it by copies of `b` never lowers the cost; so some worst case makes fewer
    /// than `s` other requests, using at most `(s − 1) × largest` credits. The engine solves
    /// that small knapsack exactly and fills the rest with `b`. All of this runs in steps of
    /// the greatest common divisor of the request sizes, so micro-credit cards stay small.
    func worstCase(credits: Int128, in currency: Currency, fx: FXTable)
        throws(WorstCaseError) -> WorstCase
    {
        do {
            return try compute(credits: credits, currency: currency, fx: fx)
        } catch let e as WorstCaseError {
            throw e
        } catch let e as MoneyError {
            throw .fx(e)
        } catch {
            throw .arithmetic(
                "the worst case of \(credits) credits is too large to compute exactly")
        }
    }

    /// The costliest request shape of each credit size, converted to `currency`, in order
    /// of credits, feature and dimension; and the FX rates the conversion used.
    private func shapesBySize(in currency: Currency, fx: FXTable) throws -> (
        items: [RequestShape], fxUsed: [FXRate]
    ) {
        var bySize: [Int128: RequestShape] = [:]
        var factors: [Currency: Exact] = [:]
        var used: [FXRate] = []
        for p in profiles {
            for s in p.shapes where s.credits > 0 && s.cost.amount.isPositive {
                let f: Exact
                if let known = factors[s.cost.currency] {
                    f = known
                } else {
                    let conversion = try fx.factor(from: s.cost.currency, to: currency)
                    f = conversion.factor
                    factors[s.cost.currency] = f
                    for r in conversion.used where !used.contains(r) { used.append(r) }
                }
                let c = try s.converted(by: f, to: currency)
                if let old = bySize[c.credits], !(old.cost.amount < c.cost.amount) { continue }
                bySize[c.credits] = c
            }
        }
        let items = bySize.values.sorted {
            ($0.credits, $0.feature, $0.dimension) < ($1.credits, $1.feature, $1.dimension)
        }
        return (items, used)
    }

    /// The worst way to spend `n` credits: the fill shape, then the search over steps of
    /// the credits' common divisor (`WorstCaseSearch`: its table, the best end and the
    /// walk back through its choices).
    private func compute(credits n: Int128, currency: Currency, fx: FXTable) throws -> WorstCase {
        // A request charged nothing that costs money can be repeated without end.
        if n > 0, !freeUsage.isEmpty { throw WorstCaseError.unbounded(freeUsage) }
        let (items, used) = try shapesBySize(in: currency, fx: fx)
        // Nothing with a running cost: every credit is left unspent (as when no costly
        // request fits), and the figure is zero.
        guard n > 0, !items.isEmpty else {
            return WorstCase(
                credits: n, cost: .zero(currency), plan: [], unspent: max(n, 0), worstShape: nil,
                fxUsed: [])
        }
        let best = try WorstCaseSearch.fillShape(items, credits: n)
        // Every request uses a multiple of g credits (10,000 micro-credits on a card priced
        // in whole pence), so the search runs in steps of g; the remainder is unspendable.
        let g = items.reduce(Int128(0)) { Int128(Exact.gcd($0.magnitude, $1.credits.magnitude)) }
        let steps = n / g
        let s = best.credits / g
        let largest = (items.map(\.credits).max() ?? g) / g  // items is not empty here
        let (span, o) = (s - 1).multipliedReportingOverflow(by: largest)
        let limit = o ? steps : min(steps, span)
        guard limit <= WorstCaseEngine.maxSearch else {
            throw WorstCaseError.packTooLarge(pack: "\(n) credits", searchSize: limit)
        }
        let search = try WorstCaseSearch(
            items: items, step: g, size: Int(limit), bestIndex: items.firstIndex(of: best) ?? 0)
        let (bestTotal, bestT) = try search.bestEnd(steps: steps, best: best)
        var (counts, unspentSteps) = search.walkBack(from: bestT)
        let copies = (steps - Int128(bestT)) / s
        if copies > 0 { counts[best, default: 0] += copies }
        unspentSteps += (steps - Int128(bestT)) - copies * s
        let unspent = unspentSteps * g + n % g
        let plan = counts.map { WorstCase.PlanStep(shape: $0.key, count: $0.value) }
            .sorted {
                ($0.count * $0.shape.credits, $0.shape.feature, $0.shape.credits) > (
                    $1.count * $1.shape.credits, $1.shape.feature, $1.shape.credits
                )
            }
        return WorstCase(
            credits: n, cost: Money(bestTotal, currency), plan: plan, unspent: unspent,
            worstShape: best, fxUsed: used)
    }

    /// The worst case of spending `credits` entirely on one feature, in `currency`.
    func worstCase(credits: Int128, feature: String, in currency: Currency, fx: FXTable)
        throws(WorstCaseError) -> WorstCase
    {
        let only = profiles.filter { $0.feature.key == feature }
        return try WorstCaseEngine(profiles: only).worstCase(credits: credits, in: currency, fx: fx)
    }

    /// The worst case of spending `credits` entirely on one dimension of one feature.
    func worstCase(
        credits: Int128, feature: String, dimension: String, in currency: Currency, fx: FXTable
    ) throws(WorstCaseError) -> WorstCase {
        let only = profiles.filter { $0.feature.key == feature }.map { p in
            FeatureCostProfile(
                feature: p.feature, shapes: p.shapes.filter { $0.dimension == dimension },
                freeUsage: [], noRunningCost: [])
        }
        return try WorstCaseEngine(profiles: only).worstCase(credits: credits, in: currency, fx: fx)
    }

    init(profiles: [FeatureCostProfile]) {
        self.profiles = profiles
    }

    /// A way to spend credits, ranked for the worst case: which of two plans is reported.
    struct Plan {
        let cost: Exact
        /// Steps of the search left unspent.
        let unused: Int128
        /// Requests of the shape with the highest cost per credit.
        let ofBest: Int128

        /// True when this plan is reported before `other`: it costs more; or as much, leaving
        /// fewer credits unspent; or as much and as many, with more requests of the costliest
        /// shape per credit. Equal in all three: the one found first is kept.
        func isWorse(than other: Plan) -> Bool {
            if cost != other.cost { return other.cost < cost }
            if unused != other.unused { return unused < other.unused }
            return ofBest > other.ofBest
        }
    }
}

extension FeatureCostProfile {
    init(
        feature: Feature, shapes: [RequestShape], freeUsage: [RequestShape], noRunningCost: [String]
    ) {
        self.feature = feature
        self.shapes = shapes
        self.freeUsage = freeUsage
        self.noRunningCost = noRunningCost
    }
}
