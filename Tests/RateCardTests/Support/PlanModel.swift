import Foundation

@testable import RateCard

/// An independently written model of a plan's worst-case margins, for the property test of
/// `PlanMargins` and `margin check`'s plan floor (issue 24).
///
/// It shares no code with `PlanMargins`, `PlanWorstCase`, `WorstCaseEngine`,
/// `SubscriptionPeriod` or `FXTable`: it works from the generator's own parameters, with
/// `Exact` for the arithmetic only. Calendar lengths are written out from the calendar; the
/// worst case of a budget is a plain dynamic programme over every request a feature
/// allows; a rate is looked up in the generator's own table; payback is counted period by
/// period.
struct PlanCase {
    /// One metered feature with one dimension, billed by one provider meter.
    struct Feature {
        let key: String
        let dimension: String
        let unit: String
        /// The card charges `credits` per started `per` units.
        let per: Int
        let credits: Int
        let rounding: String
        /// nil: no running cost (on the device).
        let provider: Provider?
    }

    struct Provider {
        let id: String
        let currency: String
        /// `price` per `meterPer` units.
        let price: String
        let meterPer: Int
        let increment: Int?
        let minimum: Int?
    }

    /// A length as StoreKit writes it: `P<count><unit>`.
    struct Period: Equatable {
        let count: Int
        let unit: Character

        var text: String { "P\(count)\(unit)" }
        var months: Int? {
            unit == "M" ? count : unit == "Y" ? 12 * count : nil
        }
        /// The longest and shortest run in days: for months, every run of that many
        /// consecutive calendar months starting in a whole 400-year Gregorian cycle, counted
        /// by Foundation's calendar.
        var maxDays: Int {
            switch unit {
            case "D": return count
            case "W": return 7 * count
            default: return Period.monthDays[months ?? 0]?.max ?? 0
            }
        }
        var minDays: Int {
            switch unit {
            case "D": return count
            case "W": return 7 * count
            default: return Period.monthDays[months ?? 0]?.min ?? 0
            }
        }

        /// Shortest and longest runs of n months, for every n a generated period can span.
        static let monthDays: [Int: (min: Int, max: Int)] = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            var out: [Int: (min: Int, max: Int)] = [:]
            for n in [1, 2, 3, 6, 9, 12, 24, 36] {
                var lo = Int.max
                var hi = 0
                for year in 2000..<2400 {
                    for month in 1...12 {
                        let start = calendar.date(
                            from: DateComponents(year: year, month: month, day: 1))!
                        let end = calendar.date(byAdding: .month, value: n, to: start)!
                        let days = calendar.dateComponents([.day], from: start, to: end).day!
                        lo = min(lo, days)
                        hi = max(hi, days)
                    }
                }
                out[n] = (lo, hi)
            }
            return out
        }()

        /// Windows of `reset` that can start within one run of this period.
        func windows(_ reset: Period) -> Int {
            if let a = months, let b = reset.months { return max(1, (a + b - 1) / b) }
            return max(1, (maxDays + reset.minDays - 1) / reset.minDays)
        }
    }

    struct Limit {
        let kind: String  // "quota" or "allowance"
        let feature: Int  // index into features
        let intervals: Int
        let reset: Period?
    }

    struct Market: Equatable {
        let currency: String
        let storefront: String?
    }

    struct Price {
        let market: Market
        let amount: String
    }

    struct Offer {
        let mode: String  // free, payAsYouGo, payUpFront
        let period: Period
        let periods: Int
        let prices: [Price]

        var span: Period { Period(count: period.count * periods, unit: period.unit) }
    }

    struct Plan {
        let productId: String
        let period: Period
        let prices: [Price]
        let credits: Int
        let quotas: [Limit]
        let allowances: [Limit]
        let offer: Offer?
    }

    struct ApplePoint {
        let territory: String
        let currency: String
        let price: String
        let proceeds: String
        let year2: String?
    }

    let features: [Feature]
    let plans: [Plan]
    let freeTier: [Limit]?
    let storeProgram: String?
    /// `--program`
    let program: String?
    /// The FX file's rates (base, quote, rate), and the `--fx` overrides.
    let fileRates: [(String, String, String)]
    let overrides: [(String, String, String)]
    /// Apple's points per plan (product id → points), and the floor.
    let apple: [String: [ApplePoint]]
    let floor: String

    // MARK: the files

    var cardJSON: String {
        let fs = features.map { f -> String in
            let cost =
                f.provider.map { "{\"provider\": \"\($0.id)\", \"meter\": \"m\"}" }
                ?? "{\"none\": \"on the device\"}"
            return """
                {"key": "\(f.key)", "dimensions": [{"name": "\(f.dimension)", "unit": "\(f.unit)", "credits": \(f.credits), "per": \(f.per), "rounding": "\(f.rounding)", "cost": \(cost)}]}
                """
        }
        func limit(_ l: Limit) -> String {
            let f = features[l.feature]
            var s =
                "{\"feature\": \"\(f.key)\", \"amount\": \(l.intervals * f.per)"
            if let r = l.reset { s += ", \"reset\": \"\(r.text)\"" }
            return s + "}"
        }
        func prices(_ ps: [Price]) -> String {
            "["
                + ps.map { p in
                    "{\"currency\": \"\(p.market.currency)\", \"amount\": \"\(p.amount)\""
                        + (p.market.storefront.map { ", \"storefront\": \"\($0)\"" } ?? "") + "}"
                }.joined(separator: ",\n  ") + "]"
        }
        let ps = plans.map { p -> String in
            var s = """
                {"productId": "\(p.productId)", "group": "g", "period": "\(p.period.text)",
                 "prices": \(prices(p.prices)),
                 "credits": \(p.credits)
                """
            if !p.quotas.isEmpty {
                s += ",\n \"quotas\": [" + p.quotas.map(limit).joined(separator: ", ") + "]"
            }
            if !p.allowances.isEmpty {
                s +=
                    ",\n \"allowances\": [" + p.allowances.map(limit).joined(separator: ", ") + "]"
            }
            if let o = p.offer {
                s +=
                    ",\n \"introductoryOffer\": {\"paymentMode\": \"\(o.mode)\", \"period\": \"\(o.period.text)\", \"periods\": \(o.periods)"
                if o.mode != "free" { s += ",\n   \"prices\": \(prices(o.prices))" }
                s += "}"
            }
            return s + "}"
        }
        var card = """
            {"kind": "card", "id": "g", "version": 1, "effective": "2026-12-01T00:00:00Z",
             "creditUnit": {"name": "credit", "priceStep": 1},
             "features": [
             \(fs.joined(separator: ",\n "))
             ],
             "subscriptions": [
             \(ps.joined(separator: ",\n "))
             ]
            """
        if let t = freeTier {
            card +=
                ",\n \"freeTier\": {\"allowances\": [" + t.map(limit).joined(separator: ", ") + "]}"
        }
        if let s = storeProgram { card += ",\n \"storeProgram\": \"\(s)\"" }
        return card + "}\n"
    }

    var providerFiles: [String: String] {
        var out: [String: String] = [:]
        for f in features {
            guard let p = f.provider else { continue }
            var meter =
                "\"key\": \"m\", \"unit\": \"\(f.unit)\", \"per\": \"\(p.meterPer)\", \"price\": \"\(p.price)\""
            if let i = p.increment { meter += ", \"increment\": \"\(i)\"" }
            if let m = p.minimum { meter += ", \"minimum\": \"\(m)\"" }
            out["providers/\(p.id).json"] = """
                {"kind": "provider", "id": "\(p.id)", "currency": "\(p.currency)", "reviewed": "2026-11-01", "source": "https://example.com",
                 "meters": [{\(meter)}]}
                """
        }
        return out
    }

    var fxJSON: String {
        """
        {"kind": "fx", "date": "2026-11-15", "placeholder": true, "source": "generated",
         "rates": [\(fileRates.map { "{\"base\": \"\($0.0)\", \"quote\": \"\($0.1)\", \"rate\": \"\($0.2)\"}" }.joined(separator: ", "))]}
        """
    }

    func appleJSON(_ points: [ApplePoint]) -> String {
        let data = points.enumerated().map { i, p in
            var attrs = ["\"customerPrice\": \"\(p.price)\"", "\"proceeds\": \"\(p.proceeds)\""]
            if let y = p.year2 { attrs.append("\"proceedsYear2\": \"\(y)\"") }
            return """
                {"type": "subscriptionPricePoints", "id": "pt\(i)", "attributes": {\(attrs.joined(separator: ", "))},
                 "relationships": {"territory": {"data": {"type": "territories", "id": "\(p.territory)"}}}}
                """
        }
        let included = points.map {
            "{\"type\": \"territories\", \"id\": \"\($0.territory)\", \"attributes\": {\"currency\": \"\($0.currency)\"}}"
        }
        return "{\"data\": [\n" + data.joined(separator: ",\n") + "\n], \"included\": ["
            + included.joined(separator: ", ") + "]}\n"
    }
}

// MARK: - the model

extension PlanCase {
    /// A rate as the model sees it: the pair, the rate, and whether `--fx` gave it.
    struct Rate: Hashable {
        let base: String
        let quote: String
        let rate: Exact
        let commandLine: Bool
    }

    /// The rates in force: the file's with each overridden pair (either direction) replaced.
    var rates: [Rate] {
        func same(_ a: (String, String, String), _ b: (String, String, String)) -> Bool {
            (a.0 == b.0 && a.1 == b.1) || (a.0 == b.1 && a.1 == b.0)
        }
        let kept = fileRates.filter { r in !overrides.contains { same($0, r) } }
        return kept.map { Rate(base: $0.0, quote: $0.1, rate: exact($0.2), commandLine: false) }
            + overrides.map { Rate(base: $0.0, quote: $0.1, rate: exact($0.2), commandLine: true) }
    }

    /// How many `to` one `from` is worth, and the rates used: direct, inverse, or through
    /// one other currency; nil when no path exists.
    func factor(_ from: String, _ to: String) -> (Exact, [Rate])? {
        if from == to { return (.one, []) }
        func direct(_ a: String, _ b: String) -> (Exact, [Rate])? {
            if let r = rates.first(where: { $0.base == a && $0.quote == b }) {
                return (r.rate, [r])
            }
            if let r = rates.first(where: { $0.base == b && $0.quote == a }) {
                return ((try? Exact.one.divided(by: r.rate)) ?? .zero, [r])
            }
            return nil
        }
        if let d = direct(from, to) { return d }
        let mids = Set(rates.flatMap { [$0.base, $0.quote] }).subtracting([from, to]).sorted()
        for m in mids {
            if let a = direct(from, m), let b = direct(m, to) {
                return ((try? a.0.multiplied(by: b.0)) ?? .zero, a.1 + b.1)
            }
        }
        return nil
    }

    /// What the provider bills for `q` units of feature `f`, in its own currency.
    func bill(_ f: Feature, _ q: Int) -> Exact {
        guard let p = f.provider else { return .zero }
        var billed = q
        if let i = p.increment { billed = (q + i - 1) / i * i }
        if let m = p.minimum { billed = max(billed, m) }
        return (try? exact(p.price).multiplied(by: Exact(billed)).divided(by: Exact(p.meterPer)))
            ?? .zero
    }

    /// The most requests of `features` can cost in `currency` with `budget` to spend, a
    /// request of k intervals of feature f using `weight(f, k)` of it: every multiset of
    /// requests, by dynamic programming (a request of k intervals is costliest at its
    /// largest quantity, k × per units, the bill never falling as the quantity grows).
    /// Nil when a costly feature's currency has no rate into `currency`.
    func knapsack(
        _ fs: [Feature], budget: Int, weight: (Feature, Int) -> Int, currency: String
    ) -> (Exact, Set<Rate>)? {
        var items: [(Int, Exact)] = []
        var used = Set<Rate>()
        for f in fs {
            guard let p = f.provider else { continue }
            guard let (k0, rs) = factor(p.currency, currency) else { return nil }
            used.formUnion(rs)
            var k = 1
            while weight(f, k) <= budget {
                items.append((weight(f, k), (try? bill(f, k * f.per).multiplied(by: k0)) ?? .zero))
                k += 1
            }
        }
        var best = [Exact](repeating: .zero, count: budget + 1)
        if budget > 0 {
            for c in 1...budget {
                best[c] = best[c - 1]
                for (w, v) in items where w <= c {
                    let candidate = (try? best[c - w].adding(v)) ?? .zero
                    if best[c] < candidate { best[c] = candidate }
                }
            }
        }
        return (best[budget], used)
    }

    /// One window of a limit: its intervals spent on its own feature, one interval each.
    func limitWindow(_ l: Limit, _ currency: String) -> (Exact, Set<Rate>)? {
        knapsack(
            [features[l.feature]], budget: l.intervals, weight: { _, k in k }, currency: currency)
    }

    /// The worst case of `span` of `plan` in `currency`: credits once per renewal period
    /// starting in it, each limit in every window of its reset starting in it.
    func worst(_ plan: Plan, span: Period, _ currency: String) -> (Exact, Set<Rate>)? {
        var total = Exact.zero
        var used = Set<Rate>()
        if plan.credits > 0 {
            guard
                let (c, rs) = knapsack(
                    features, budget: plan.credits, weight: { f, k in k * f.credits },
                    currency: currency)
            else { return nil }
            total = (try? total.adding(c.multiplied(by: Exact(span.windows(plan.period))))) ?? total
            used.formUnion(rs)
        }
        for l in plan.quotas + plan.allowances {
            guard let (c, rs) = limitWindow(l, currency) else { return nil }
            let n = span.windows(l.reset ?? plan.period)
            total = (try? total.adding(c.multiplied(by: Exact(n)))) ?? total
            used.formUnion(rs)
        }
        return (total, used)
    }

    /// The free tier over a year (every allowance in every window of 366 days, 53 weeks,
    /// 12 months) or over its month.
    func freeTierCost(span: Period, _ currency: String) -> (Exact, Set<Rate>)? {
        guard let t = freeTier else { return nil }
        var total = Exact.zero
        var used = Set<Rate>()
        for l in t {
            guard let (c, rs) = limitWindow(l, currency) else { return nil }
            let n = span.windows(l.reset ?? Period(count: 1, unit: "M"))
            total = (try? total.adding(c.multiplied(by: Exact(n)))) ?? total
            used.formUnion(rs)
        }
        return (total, used)
    }

    static let year = Period(count: 1, unit: "Y")

    /// The programs shown: `--program`, else the card's, else both.
    var programs: [(name: String, yearOne: Exact, after: Exact)] {
        let standard = (name: "standard", yearOne: exact("0.3"), after: exact("0.15"))
        let small = (name: "small-business", yearOne: exact("0.15"), after: exact("0.15"))
        switch program ?? storeProgram {
        case "standard": return [standard]
        case "small-business": return [small]
        default: return [standard, small]
        }
    }

    /// The offer's price for a plan price: a storefront's own, else its currency's general
    /// one (for a storefront's plan price); nil when unpriced. Zero for a free trial.
    func offerPrice(_ o: Offer, _ p: Price) -> Exact? {
        if o.mode == "free" { return .zero }
        let own =
            p.market.storefront == nil
            ? nil : o.prices.first { $0.market == p.market }
        let general = o.prices.first {
            $0.market.currency == p.market.currency && $0.market.storefront == nil
        }
        guard let chosen = own ?? general else { return nil }
        let a = exact(chosen.amount)
        return o.mode == "payAsYouGo" ? (try? a.multiplied(by: Exact(o.periods))) : a
    }

    /// Regular periods at the year-one rate and in a later year.
    func yearPeriods(_ p: Period) -> (Int, Int) {
        if let m = p.months { return (12 / m, 12 / m) }
        return (53, 52)  // weekly: the 53rd renewal starts on day 364
    }

    /// Fewest regular periods whose margins, added one by one, cover the offer's loss.
    static func payback(_ introMargin: Exact, _ y1: Exact, _ n1: Int, _ after: Exact) -> Int? {
        var sum = introMargin
        if !sum.isNegative { return 0 }
        var k = 0
        while k < 2_000_000 {
            k += 1
            if k > n1 && !after.isPositive { return nil }
            sum = (try? sum.adding(k <= n1 ? y1 : after)) ?? sum
            if !sum.isNegative { return k }
        }
        return nil
    }
}

/// The card reader's location type, named where `Testing` has one of its own.
typealias CardLocation = SourceLocation
