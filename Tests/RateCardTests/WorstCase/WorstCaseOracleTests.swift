import Testing

@testable import RateCard

/// The worst case against an independent oracle written from `docs/formats.md` alone.
///
/// Each seed generates a card set as plain parameters: features with up to three
/// dimensions (rounding up, down or exact; 0 to 4 credits per 1 to 5 s; billed by a CNY or
/// a USD provider, or with no running cost), provider sheets with variants, increments,
/// minimums and time-of-day schedules (windows covering the whole week, windows with no
/// days, multipliers no window names, plain peak windows), an FX file with every pair of
/// CNY, USD and GBP, and one pack priced in one of the three. The parameters are rendered
/// as JSON for the engine; the oracle never reads that JSON nor calls the engine's costing:
/// it enumerates request shapes and instants of a week directly, then solves the knapsack
/// exactly.
@Suite struct WorstCaseOracleTests {
    /// One generated dimension.
    struct Dim {
        let feature: String
        let name: String
        let credits: Int
        let per: Int
        let rounding: String
        /// Index into the sheets, or nil: no running cost.
        let sheet: Int?
        let meter: String
    }

    struct MeterSpec {
        let key: String
        let per: Int
        let prices: [String]
        let increment: Int?
        let minimum: Int?
    }

    struct Window {
        let period: String
        let days: [Int]  // 1 = Monday … 7 = Sunday
        let from: Int  // hours
        let until: Int
    }

    struct ScheduleSpec {
        let offsetHours: Int
        let defaultPeriod: String
        let windows: [Window]
        let multipliers: [(String, String)]
    }

    struct SheetSpec {
        let id: String
        let currency: String
        let meters: [MeterSpec]
        let schedule: ScheduleSpec?
    }

    struct CardSet {
        let dims: [Dim]
        let sheets: [SheetSpec]
        let rates: [(base: String, quote: String, rate: String)]
        let packCurrency: String
        let packCredits: Int
    }

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    // MARK: Generation

    static func generate(seed: Int) -> CardSet {
        var rng = SplitMix(seed: UInt64(seed) &* 0x9E37_79B9 &+ 101)
        var sheets: [SheetSpec] = []
        for (i, currency) in ["CNY", "USD"].enumerated() {
            var meters: [MeterSpec] = []
            for m in 0..<2 {
                let variants = rng.next(in: 1...2)
                meters.append(
                    MeterSpec(
                        key: "m\(m)", per: rng.next(in: 1...10),
                        prices: (0..<variants).map { _ in
                            "\(rng.next(in: 1...60)).\(rng.next(in: 0...99))"
                        },
                        increment: rng.next(in: 0...2) == 0 ? rng.next(in: 1...4) : nil,
                        minimum: rng.next(in: 0...2) == 0 ? rng.next(in: 1...10) : nil))
            }
            sheets.append(
                SheetSpec(id: "p\(i)", currency: currency, meters: meters, schedule: schedule(&rng))
            )
        }
        // Cards where nothing costs, cards with one costly feature, cards mixing both currencies.
        let style = rng.next(in: 0...5)
        var dims: [Dim] = []
        let count = rng.next(in: 1...3)
        for d in 0..<count {
            var sheet: Int? = rng.next(in: 0...1)
            if style == 0 || rng.next(in: 0...4) == 0 { sheet = nil }
            let credits = rng.next(in: 0...9) == 0 ? 0 : rng.next(in: 1...4)
            dims.append(
                Dim(
                    feature: d < 2 ? "f" : "g", name: "d\(d)", credits: credits,
                    per: rng.next(in: 1...5),
                    rounding: ["up", "up", "down", "exact"][rng.next(in: 0...3)], sheet: sheet,
                    meter: "m\(rng.next(in: 0...1))"))
        }
        let rates = [
            (base: "USD", quote: "CNY", rate: "7.\(rng.next(in: 0...99))"),
            (base: "GBP", quote: "CNY", rate: "9.\(rng.next(in: 0...99))"),
            (base: "GBP", quote: "USD", rate: "1.\(rng.next(in: 10...40))"),
        ]
        return CardSet(
            dims: dims, sheets: sheets, rates: rates,
            packCurrency: ["CNY", "USD", "GBP"][rng.next(in: 0...2)],
            packCredits: rng.next(in: 1...40))
    }

    static func schedule(_ rng: inout SplitMix) -> ScheduleSpec? {
        let offset = [-5, 0, 8, 14, -12][rng.next(in: 0...4)]
        func mult() -> String { ["0.5", "1", "1.5", "2", "3"][rng.next(in: 0...4)] }
        switch rng.next(in: 0...4) {
        case 0:
            return nil
        case 1:
            // The windows cover the whole week: the default is never in force.
            return ScheduleSpec(
                offsetHours: offset, defaultPeriod: "base",
                windows: [
                    Window(period: "day", days: Array(1...7), from: 0, until: 12),
                    Window(period: "night", days: Array(1...7), from: 12, until: 24),
                ], multipliers: [("base", "9"), ("day", mult()), ("night", mult())])
        case 2:
            // A window with no days, and a multiplier no window names.
            return ScheduleSpec(
                offsetHours: offset, defaultPeriod: "base",
                windows: [
                    Window(period: "ghost", days: [], from: 9, until: 17),
                    Window(period: "peak", days: [1, 2, 3, 4, 5], from: 9, until: 12),
                ],
                multipliers: [("base", mult()), ("ghost", "7"), ("peak", mult()), ("unused", "8")])
        case 3:
            // A window shadowed by an earlier one.
            return ScheduleSpec(
                offsetHours: offset, defaultPeriod: "base",
                windows: [
                    Window(period: "wide", days: [6, 7], from: 0, until: 24),
                    Window(period: "hidden", days: [7], from: 10, until: 11),
                ], multipliers: [("base", mult()), ("wide", mult()), ("hidden", "6")])
        default:
            let from = rng.next(in: 0...22)
            return ScheduleSpec(
                offsetHours: offset, defaultPeriod: "off",
                windows: [
                    Window(
                        period: "peak", days: [rng.next(in: 1...7)], from: from,
                        until: rng.next(in: (from + 1)...24))
                ], multipliers: [("off", mult()), ("peak", mult())])
        }
    }

    // MARK: JSON for the engine

    static func files(_ set: CardSet) -> [String: String] {
        var features: [String: [String]] = [:]
        var order: [String] = []
        for d in set.dims {
            if features[d.feature] == nil { order.append(d.feature) }
            let cost =
                d.sheet.map { #"{"provider": "p\#($0)", "meter": "\#(d.meter)"}"# }
                ?? #"{"none": "runs on the device"}"#
            features[d.feature, default: []].append(
                #"{"name": "\#(d.name)", "unit": "second", "credits": \#(d.credits), "per": \#(d.per), "rounding": "\#(d.rounding)", "cost": \#(cost)}"#
            )
        }
        let featureJSON = order.map {
            #"{"key": "\#($0)", "dimensions": [\#(features[$0, default: []].joined(separator: ", "))]}"#
        }.joined(separator: ", ")
        var out: [String: String] = [
            "card.json": """
            {"kind": "card", "id": "gen", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
             "features": [\(featureJSON)],
             "packs": [{"productId": "pack", "type": "consumable", "credits": \(set.packCredits), "prices": [{"currency": "\(set.packCurrency)", "amount": "5"}]}]}
            """,
            "fx.json": """
            {"kind": "fx", "date": "2026-01-01", "placeholder": true, "source": "test",
             "rates": [\(set.rates.map { #"{"base": "\#($0.base)", "quote": "\#($0.quote)", "rate": "\#($0.rate)"}"# }.joined(separator: ", "))]}
            """,
        ]
        for sheet in set.sheets {
            let meters = sheet.meters.map { m in
                var s = #"{"key": "\#(m.key)", "unit": "second", "per": "\#(m.per)", "variants": ["#
                s +=
                    m.prices.enumerated().map {
                        #"{"name": "v\#($0.offset)", "price": "\#($0.element)"}"#
                    }.joined(separator: ", ") + "]"
                if let i = m.increment { s += #", "increment": "\#(i)""# }
                if let n = m.minimum { s += #", "minimum": "\#(n)""# }
                return s + "}"
            }.joined(separator: ", ")
            var schedule = ""
            if let sch = sheet.schedule {
                let sign = sch.offsetHours < 0 ? "-" : "+"
                let offset = "\(sign)\(pad(abs(sch.offsetHours))):00"
                let windows = sch.windows.map { w in
                    #"{"period": "\#(w.period)", "days": [\#(w.days.map { "\"\(dayNames[$0 - 1])\"" }.joined(separator: ", "))], "from": "\#(pad(w.from)):00", "until": "\#(pad(w.until)):00"}"#
                }.joined(separator: ", ")
                let multipliers = sch.multipliers.map { #""\#($0.0)": "\#($0.1)""# }.joined(
                    separator: ", ")
                schedule =
                    #", "schedule": {"utcOffset": "\#(offset)", "default": "\#(sch.defaultPeriod)", "windows": [\#(windows)], "multipliers": {\#(multipliers)}}"#
            }
            out["\(sheet.id).json"] = """
                {"kind": "provider", "id": "\(sheet.id)", "currency": "\(sheet.currency)", "reviewed": "2026-01-01", "source": "test", "meters": [\(meters)]\(schedule)}
                """
        }
        return out
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    // MARK: The oracle

    /// The period in force at an instant, found by walking a real week of instants:
    /// Unix second 0 was a Thursday, so the local weekday follows from the seconds.
    static func periodsSeen(_ s: ScheduleSpec) -> Set<String> {
        var seen = Set<String>()
        // Every half hour of one week, as UTC instants from 2026-01-05 (a Monday).
        let start = 1_767_571_200
        for step in 0..<(7 * 48) {
            // positive: integer division floors
            let local = start + step * 1800 + s.offsetHours * 3600
            let days = local / 86_400
            let weekday = (days + 3) % 7 + 1  // 1970-01-01 (day 0) was a Thursday (4)
            let second = local - days * 86_400
            let window = s.windows.first {
                $0.days.contains(weekday) && $0.from * 3600 <= second && second < $0.until * 3600
            }
            seen.insert(window?.period ?? s.defaultPeriod)
        }
        return seen
    }

    /// The highest multiplier of any instant of the week, 1 without a schedule.
    static func worstMultiplier(_ sheet: SheetSpec) -> Exact {
        guard let s = sheet.schedule else { return .one }
        var best: Exact?
        for period in periodsSeen(s) {
            let m = exact(s.multipliers.first { $0.0 == period }?.1 ?? "1")
            if best.map({ $0 < m }) ?? true { best = m }
        }
        return best ?? .one
    }

    /// Credits and worst cost (in the provider's currency) of `q` seconds of one dimension;
    /// nil when the card refuses the quantity (`exact` rounding off the interval).
    static func request(_ d: Dim, _ q: Int, _ set: CardSet) -> (
        credits: Int, cost: Exact, currency: String?
    )? {
        let intervals: Int
        switch d.rounding {
        case "up": intervals = (q + d.per - 1) / d.per
        case "down": intervals = q / d.per
        default:
            guard q % d.per == 0 else { return nil }
            intervals = q / d.per
        }
        let credits = intervals * d.credits
        guard let s = d.sheet, q > 0 else { return (credits, .zero, nil) }
        let sheet = set.sheets[s]
        guard let meter = sheet.meters.first(where: { $0.key == d.meter }) else {
            return (credits, .zero, nil)
        }
        var billed = q
        if let inc = meter.increment { billed = (billed + inc - 1) / inc * inc }
        if let min = meter.minimum, billed < min { billed = min }
        let price = meter.prices.map(exact).max() ?? .zero
        let cost = try! price.multiplied(by: Exact(billed)).divided(by: Exact(meter.per))
            .multiplied(by: worstMultiplier(sheet))
        return (credits, cost, sheet.currency)
    }

    /// `1 base = rate quote`: the factor from `from` into `to`, from a direct pair.
    static func factor(_ set: CardSet, from: String, to: String) -> (Exact, String)? {
        if from == to { return (.one, "") }
        for r in set.rates {
            if r.base == from && r.quote == to { return (exact(r.rate), "\(r.base)/\(r.quote)") }
            if r.base == to && r.quote == from {
                return (try! Exact.one.divided(by: exact(r.rate)), "\(r.base)/\(r.quote)")
            }
        }
        return nil
    }

    /// A plan as the oracle ranks it.
    struct Ranked {
        var cost: Exact
        var unspent: Int
        var ofBest: Int

        func beats(_ o: Ranked) -> Bool {
            if cost != o.cost { return o.cost < cost }
            if unspent != o.unspent { return unspent < o.unspent }
            return ofBest > o.ofBest
        }
    }

    /// The witness reported among plans of equal cost (issue 24 case 21), by brute force over
    /// every request of at most `credits`: the highest cost, then the fewest credits unspent,
    /// then the most requests of the shape with the highest cost per credit that fits (ties:
    /// fewer credits; at its size, the costliest request).
    static func ranked(_ items: [(credits: Int, cost: Exact)], credits n: Int) throws -> Ranked {
        var best: (credits: Int, cost: Exact)?
        for it in items where it.credits <= n {
            guard let b = best else {
                best = it
                continue
            }
            let r = try it.cost.divided(by: Exact(it.credits))
            let rb = try b.cost.divided(by: Exact(b.credits))
            if rb < r || (r == rb && it.credits < b.credits)
                || (it.credits == b.credits && b.cost < it.cost)
            {
                best = it
            }
        }
        var table = [Ranked](repeating: Ranked(cost: .zero, unspent: 0, ofBest: 0), count: n + 1)
        for t in stride(from: 1, through: n, by: 1) {
            var r = table[t - 1]
            r.unspent += 1
            for it in items where it.credits <= t {
                let from = table[t - it.credits]
                let isBest = best.map { $0.credits == it.credits && $0.cost == it.cost } ?? false
                let c = Ranked(
                    cost: try from.cost.adding(it.cost), unspent: from.unspent,
                    ofBest: from.ofBest + (isBest ? 1 : 0))
                if c.beats(r) { r = c }
            }
            table[t] = r
        }
        return table[n]
    }

    // MARK: The property

    @Test(arguments: 0..<1000)
    func engineMatchesTheOracle(seed: Int) throws {
        let set = Self.generate(seed: seed)
        let repo = try repository(Self.files(set))
        let card = try #require(repo.cards.first)
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let target = try #require(Currency(code: set.packCurrency))

        // Periods in force: the engine's analysis against a walk over a real week.
        for sheet in set.sheets {
            guard let spec = sheet.schedule, let loaded = repo.providers[sheet.id]?.schedule else {
                continue
            }
            #expect(
                Set(loaded.periodsInForce) == Self.periodsSeen(spec),
                "seed \(seed) sheet \(sheet.id)")
        }

        // Free usage: every dimension with a request charged nothing that costs money.
        let n = set.packCredits
        var freeDims = Set<String>()
        var items: [(credits: Int, cost: Exact)] = []
        var currenciesUsed = Set<String>()
        for d in set.dims {
            // Every quantity a request of at most n credits can have, and a few beyond.
            for q in 1...((n + 2) * d.per) {
                guard let r = Self.request(d, q, set) else { continue }
                if r.credits == 0 {
                    if r.cost.isPositive { freeDims.insert("\(d.feature).\(d.name)") }
                    continue
                }
                guard r.cost.isPositive, let currency = r.currency,
                    let (f, pair) = Self.factor(set, from: currency, to: set.packCurrency)
                else { continue }
                if !pair.isEmpty { currenciesUsed.insert(pair) }
                if r.credits <= n { items.append((r.credits, try r.cost.multiplied(by: f))) }
            }
        }
        #expect(
            Set(engine.freeUsage.map { "\($0.feature).\($0.dimension)" }) == freeDims,
            "seed \(seed): every free dimension")
        if !freeDims.isEmpty {
            #expect(throws: WorstCaseError.self) {
                try engine.worstCase(credits: Int128(n), in: target, fx: repo.fx)
            }
            return
        }

        // The exact knapsack over every request shape.
        var table = [Exact](repeating: .zero, count: n + 1)
        for t in 1...n {
            table[t] = table[t - 1]
            for it in items where it.credits <= t {
                let v = try table[t - it.credits].adding(it.cost)
                if table[t] < v { table[t] = v }
            }
        }
        // The witness reported among plans of equal cost (issue 24 case 21): the fewest
        // credits unspent, then the most requests of the shape with the highest cost per
        // credit (ties: fewer credits; at its size, the costliest request).
        for credits in Set([1, n / 2 + 1, n]) {
            let w = try engine.worstCase(credits: Int128(credits), in: target, fx: repo.fx)
            #expect(w.cost.amount == table[credits], "seed \(seed), \(credits) credits")
            let ranked = try Self.ranked(items, credits: credits)
            #expect(ranked.cost == table[credits])
            if !items.isEmpty {
                #expect(
                    w.unspent == Int128(ranked.unspent),
                    "seed \(seed), \(credits) credits: the fewest unspent credits")
                let ofBest = w.plan.first { $0.shape == w.worstShape }?.count ?? 0
                #expect(
                    ofBest == Int128(ranked.ofBest),
                    "seed \(seed), \(credits) credits: the most requests of the costliest shape")
            }
            let spent = w.plan.reduce(Int128(0)) { $0 + $1.count * $1.shape.credits }
            #expect(
                spent + w.unspent == Int128(credits),
                "seed \(seed): the witness and the unspent credits add up")
            let total = try w.plan.reduce(Exact.zero) {
                try $0.adding($1.shape.cost.amount.multiplied(by: $1.count))
            }
            #expect(total == w.cost.amount, "seed \(seed): the witness costs the figure")
            if items.isEmpty {
                #expect(
                    w.plan.isEmpty && w.unspent == Int128(credits),
                    "seed \(seed): nothing costs, every credit unspent")
            }
        }

        // Every FX rate the figure rests on is named, by the worst case and by the pack row.
        let margins = try PackMargins(card: card, repository: repo)
        let row = try #require(margins.rows.first)
        let named = Set(row.fxUsed.map { "\($0.base.code)/\($0.quote.code)" })
        #expect(named == currenciesUsed, "seed \(seed): FX named")
        #expect(
            Set(margins.fxUsed.map { "\($0.base.code)/\($0.quote.code)" }).isSuperset(
                of: currenciesUsed))
        // The FX file is a placeholder: the figure rests on it exactly when it converts.
        #expect(
            margins.fxRestsOnPlaceholder == !currenciesUsed.isEmpty,
            "seed \(seed): placeholder status")
    }

    /// The generator covers what the brief asks for, so that the property cannot pass on
    /// easy cases alone.
    @Test func theGeneratedSetsCoverEveryCase() {
        var twoCurrencies = 0
        var wholeWeek = 0
        var emptyDays = 0
        var unused = 0
        var noCost = 0
        var nothingCosts = 0
        var bigRequests = 0
        for seed in 0..<240 {
            let set = Self.generate(seed: seed)
            let costed = set.dims.compactMap(\.sheet)
            if Set(costed).count == 2 { twoCurrencies += 1 }
            let schedules = set.sheets.compactMap(\.schedule)
            if schedules.contains(where: {
                $0.windows.count == 2 && $0.windows.allSatisfy { $0.days.count == 7 }
            }) {
                wholeWeek += 1
            }
            if schedules.contains(where: { $0.windows.contains { $0.days.isEmpty } }) {
                emptyDays += 1
            }
            if schedules.contains(where: { $0.multipliers.contains { $0.0 == "unused" } }) {
                unused += 1
            }
            if set.dims.contains(where: { $0.sheet == nil }) { noCost += 1 }
            if costed.isEmpty { nothingCosts += 1 }
            if set.dims.contains(where: { $0.credits > 1 && $0.sheet != nil }) { bigRequests += 1 }
        }
        for (name, count) in [
            ("two currencies", twoCurrencies), ("whole week", wholeWeek), ("empty days", emptyDays),
            ("unused multiplier", unused),
            ("no running cost", noCost), ("nothing costs", nothingCosts),
            ("requests of several credits", bigRequests),
        ] {
            #expect(count >= 10, "\(name): \(count) of 240")
        }
    }
}
