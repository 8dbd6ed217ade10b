import Foundation
import Testing

@testable import RateCard

/// The plans half of issue 24's property test: on generated cards, plans, offers, free
/// tiers, FX files, `--fx` overrides and Apple price points (seeded), `PlanMargins` and
/// `margin check`'s plan floor against the independent model of `PlanModel.swift`.
///
/// Every kind of case is generated: plan prices of zero, offers priced in only some of a
/// plan's currencies or storefronts, currencies without an FX rate (JPY always, EUR in half
/// the cases), rates overridden on the command line, points without `proceedsYear2`, with
/// `proceeds` of "0.0" or a customer price of 0, weekly to yearly plans with daily to
/// yearly resets, providers with increments and minimums.
@Suite struct PlanMarginsPropertyTests {
    typealias P = PlanCase

    // MARK: the generator

    struct Generator {
        var rng: SplitMix64

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
        mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...(xs.count - 1))] }

        /// An amount in `currency` (whole yen), zero with probability `zero`.
        mutating func amount(_ currency: String, zero: Double = 0) -> String {
            if chance(zero) { return "0" }
            if currency == "JPY" { return String(int(1...40) * 50) }
            return "\(int(0...60)).\(pick(["00", "49", "99", "50", "05"]))"
                .replacingOccurrences(of: "^0\\.00$", with: "0.99", options: .regularExpression)
        }

        static let periods = [
            P.Period(count: 1, unit: "W"), P.Period(count: 1, unit: "M"),
            P.Period(count: 2, unit: "M"), P.Period(count: 3, unit: "M"),
            P.Period(count: 6, unit: "M"), P.Period(count: 1, unit: "Y"),
        ]
        static let markets = [
            P.Market(currency: "CNY", storefront: nil), P.Market(currency: "USD", storefront: nil),
            P.Market(currency: "EUR", storefront: nil),
            P.Market(currency: "EUR", storefront: "FRA"),
            P.Market(currency: "JPY", storefront: nil),
        ]

        /// The resets a limit of a plan of `period` may have (none longer than it).
        static func resets(_ period: P.Period) -> [P.Period?] {
            let all: [P.Period] = [
                .init(count: 1, unit: "D"), .init(count: 1, unit: "W"), .init(count: 1, unit: "M"),
                .init(count: 3, unit: "M"), .init(count: 1, unit: "Y"),
            ]
            return [nil]
                + all.filter { r in
                    if let a = period.months, let b = r.months { return b <= a }
                    return r.maxDays <= period.minDays
                }
        }

        mutating func limits(_ kind: String, _ period: P.Period, avoid: Set<Int>, count: Int)
            -> [P.Limit]
        {
            var out: [P.Limit] = []
            var taken = avoid
            for _ in 0..<count {
                // tts (index 2) has no running cost: a quota of it is allowed, an allowance not.
                let choices = (kind == "quota" ? [0, 1, 2] : [0, 1]).filter { !taken.contains($0) }
                guard !choices.isEmpty else { break }
                let f = pick(choices)
                taken.insert(f)
                out.append(
                    P.Limit(
                        kind: kind, feature: f, intervals: int(1...30),
                        reset: pick(Self.resets(period))))
            }
            return out
        }

        mutating func prices(_ markets: [P.Market], zero: Double) -> [P.Price] {
            markets.map { P.Price(market: $0, amount: amount($0.currency, zero: zero)) }
        }

        mutating func make() -> P {
            let asrIncrement: Int? = pick([nil, nil, 2, 5])
            let asr = P.Feature(
                key: "asr", dimension: "second", unit: "second", per: pick([1, 2, 3, 5]),
                credits: pick([1, 1, 2, 3]), rounding: pick(["up", "up", "exact"]),
                provider: P.Provider(
                    id: "asr-sheet", currency: "CNY", price: pick(["3.6", "4.5", "7.2"]),
                    meterPer: 3600, increment: asrIncrement,
                    minimum: chance(0.4) ? (asrIncrement ?? 1) * pick([3, 6]) : nil))
            let llm = P.Feature(
                key: "llm", dimension: "token", unit: "token", per: pick([100, 400, 1000]),
                credits: pick([1, 2]), rounding: "up",
                provider: P.Provider(
                    id: "llm-sheet", currency: "USD", price: pick(["0.5", "1.2", "2"]),
                    meterPer: 1_000_000, increment: nil, minimum: nil))
            let tts = P.Feature(
                key: "tts", dimension: "character", unit: "character", per: 100, credits: 1,
                rounding: "up", provider: nil)
            var plans: [P.Plan] = []
            for i in 0..<int(1...2) {
                let period = pick(Self.periods)
                var markets = Self.markets.filter { $0.currency != "JPY" || chance(0.1) }
                    .filter { _ in chance(0.6) }
                if markets.isEmpty { markets = [Self.markets[0]] }
                let quotas = limits("quota", period, avoid: [], count: int(0...2))
                let allowances = limits(
                    "allowance", period, avoid: Set(quotas.map(\.feature)), count: int(0...1))
                var offer: P.Offer?
                switch int(0...3) {
                case 0: offer = nil
                case 1:
                    offer = P.Offer(
                        mode: "free",
                        period: pick([
                            .init(count: 3, unit: "D"), .init(count: 1, unit: "W"),
                            .init(count: 1, unit: "M"),
                        ]), periods: 1, prices: [])
                case 2:
                    offer = P.Offer(
                        mode: "payAsYouGo", period: period, periods: int(1...3),
                        prices: prices(Self.markets.filter { _ in chance(0.5) }, zero: 0)
                            .filter { $0.amount != "0" })
                default:
                    offer = P.Offer(
                        mode: "payUpFront",
                        period: pick([
                            .init(count: 1, unit: "W"), .init(count: 2, unit: "W"),
                            .init(count: 1, unit: "M"), .init(count: 3, unit: "M"),
                        ]), periods: 1,
                        prices: prices(Self.markets.filter { _ in chance(0.5) }, zero: 0)
                            .filter { $0.amount != "0" })
                }
                if let o = offer, o.mode != "free", o.prices.isEmpty {
                    offer = P.Offer(
                        mode: o.mode, period: o.period, periods: o.periods,
                        prices: [P.Price(market: Self.markets[0], amount: "1.99")])
                }
                plans.append(
                    P.Plan(
                        productId: "p\(i)", period: period,
                        prices: prices(markets, zero: 0.08),
                        credits: pick([0, 0, 10, 40, 90]), quotas: quotas, allowances: allowances,
                        offer: offer))
            }
            let tierPeriod = pick([
                P.Period(count: 1, unit: "M"), P.Period(count: 1, unit: "M"),
                P.Period(count: 1, unit: "W"), P.Period(count: 3, unit: "M"),
            ])
            let freeTier: [P.Limit]? =
                chance(0.5)
                ? limits("allowance", tierPeriod, avoid: [], count: int(1...2))
                : nil
            var fileRates = [("USD", "CNY", pick(["7.1", "7.25", "6.9"]))]
            if chance(0.7) { fileRates.append(("EUR", "CNY", pick(["7.8", "8.05"]))) }
            var overrides: [(String, String, String)] = []
            if chance(0.3) { overrides.append(("USD", "CNY", pick(["7.2", "7.0"]))) }
            if chance(0.15) { overrides.append(("EUR", "CNY", "7.9")) }
            var apple: [String: [P.ApplePoint]] = [:]
            for plan in plans where chance(0.6) {
                var points: [P.ApplePoint] = []
                for (t, c) in [("CHN", "CNY"), ("USA", "USD"), ("DEU", "EUR"), ("JPN", "JPY")]
                where chance(0.6) {
                    let price = amount(c, zero: 0.1)
                    let p = exact(price)
                    // Proceeds: about 70% of the price, sometimes Apple's "0.0".
                    func share(_ s: String) -> String {
                        let v = (try? p.multiplied(by: exact(s)).rounded(.down)) ?? 0
                        return c == "JPY" ? String(v) : "\(v).00"
                    }
                    let proceeds = chance(0.1) ? "0.0" : share(pick(["0.7", "0.6", "0.5"]))
                    let year2: String? = chance(0.25) ? nil : share(pick(["0.85", "0.8"]))
                    points.append(
                        P.ApplePoint(
                            territory: t, currency: c, price: price, proceeds: proceeds,
                            year2: year2))
                }
                if !points.isEmpty { apple[plan.productId] = points }
            }
            return P(
                features: [asr, llm, tts], plans: plans, freeTier: freeTier,
                freeTierPeriod: tierPeriod,
                storeProgram: pick([nil, nil, "standard", "small-business"]),
                program: pick([nil, nil, nil, "standard", "small-business"]),
                fileRates: fileRates, overrides: overrides, apple: apple,
                floor: pick(["0", "0.1", "0.2", "0.35", "0.5", "0.65"]))
        }
    }

    // MARK: the comparison

    /// What one case gives: the library's figures against the model's, and check's
    /// verdict against the model's floor.
    struct Outcome {
        var computed = false
        var refused = false
        var unpricedOffers = 0
        var zeroPrices = 0
        var missingFX = 0
        var missingYear2 = 0
        var overridden = false
        var floorFindings = 0
    }

    static func rates(_ rs: [FXRate]) -> Set<String> {
        Set(rs.map { "\($0) \($0.fromCommandLine ? "cli" : "file")" })
    }
    static func rates(_ rs: Set<P.Rate>) -> Set<String> {
        Set(
            rs.map {
                "\($0.base)/\($0.quote) \($0.rate.decimalText()) \($0.commandLine ? "cli" : "file")"
            })
    }

    /// "12:34": where a finding points.
    static func at(_ l: CardLocation) -> String { "\(l.line):\(l.column)" }

    func run(_ c: P, seed: UInt64) throws -> Outcome {
        var outcome = Outcome()
        outcome.overridden = !c.overrides.isEmpty
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("cards/g.json", c.cardJSON)
        for (name, text) in c.providerFiles { try tmp.write("cards/\(name)", text) }
        try tmp.write("cards/fx.json", c.fxJSON)
        var bindings: [String] = []
        for (id, points) in c.apple.sorted(by: { $0.key < $1.key }) {
            try tmp.write("\(id).json", c.appleJSON(points))
            bindings.append("\(id)=\(tmp.path)/\(id).json")
        }
        let label = "seed \(seed):\n\(c.cardJSON)"
        let repo = try CardRepository.load(paths: ["\(tmp.path)/cards"])
        let card = try #require(repo.cards.first, "\(label)")
        let overrides = c.overrides.map {
            FXRate(
                base: Currency(code: $0.0)!, quote: Currency(code: $0.1)!, rate: exact($0.2),
                fromCommandLine: true)
        }
        let arguments = try StorefrontArguments(
            pricePoints: bindings, at: "2026-12-01", program: c.program,
            today: CalendarDate("2026-12-01")!)
        let lists = try ApplePriceList.load(arguments.bindings)
        var options = CardChecker.Options(
            minMargin: exact(c.floor), now: try Timestamp(rfc3339: "2026-11-01T00:00:00Z"),
            fxOverrides: overrides)
        options.storefronts = arguments
        let report = CardChecker.check(paths: ["\(tmp.path)/cards"], options: options)
        let planRules: Set<String> = [
            "min-margin", "free-price", "offer-currency", "apple-proceeds", "storefront-fx",
        ]
        let found = report.diagnostics.filter { planRules.contains($0.rule?.id ?? "") }

        // Every plan price's row, by the model, in order; nil when a rate is missing.
        let costCurrency = "CNY"  // two provider currencies, no packs: the first sorted
        let tierPeriod = c.freeTier.flatMap { _ in
            c.freeTierCost(span: c.freeTierPeriod, costCurrency)
        }
        let tierYearCNY = c.freeTier.flatMap { _ in c.freeTierCost(span: P.year, costCurrency) }
        var modelRefuses = c.freeTier != nil && (tierPeriod == nil || tierYearCNY == nil)
        for plan in c.plans {
            for price in plan.prices {
                let cur = price.market.currency
                if c.worst(plan, span: plan.period, cur) == nil { modelRefuses = true }
                if c.freeTier != nil, c.freeTierCost(span: P.year, cur) == nil {
                    modelRefuses = true
                }
            }
        }

        let margins: PlanMargins
        do {
            margins = try PlanMargins(
                card: card, repository: repo, fx: repo.fx.overriding(with: overrides),
                priceLists: lists, date: arguments.date,
                program: arguments.program)
        } catch {
            #expect(modelRefuses, "\(label)\nPlanMargins refused: \(error)")
            guard case .fx = error else {
                Issue.record("\(label)\nnot an FX refusal: \(error)")
                return outcome
            }
            outcome.refused = true
            // check says it cannot compute the plans, as one min-margin error.
            #expect(
                found.contains {
                    $0.rule?.id == "min-margin"
                        && $0.message.contains(
                            "the worst-case margins of its subscriptions cannot be computed")
                }, "\(label)")
            return outcome
        }
        #expect(!modelRefuses, "\(label)\nthe model needs a rate the library did not")
        if modelRefuses { return outcome }
        outcome.computed = true

        // The free tier in the providers' currency.
        if let t = margins.freeTier {
            #expect(t.perPeriod.cost.amount == tierPeriod?.0, "\(label)")
            #expect(t.perYear.cost.amount == tierYearCNY?.0, "\(label)")
        } else {
            #expect(c.freeTier == nil, "\(label)")
        }

        var expectedFindings = Set<String>()
        let floor = exact(c.floor)
        let programs = c.programs
        let floorProgram =
            (c.program ?? c.storeProgram) == "small-business" ? "small-business" : "standard"
        var rowIndex = 0
        for (pi, plan) in c.plans.enumerated() {
            let loadedPlan = card.subscriptions[pi]
            let (n1, nLater) = c.yearPeriods(plan.period)
            for (qi, price) in plan.prices.enumerated() {
                let cur = price.market.currency
                let row = try #require(
                    margins.rows.count > rowIndex ? margins.rows[rowIndex] : nil, "\(label)")
                rowIndex += 1
                let what = "\(label)\nrow \(plan.productId) \(cur) \(price.market.storefront ?? "")"
                #expect(row.plan.productId == plan.productId, "\(what)")
                #expect(row.price.price.amount == exact(price.amount), "\(what)")
                let (worst, worstRates) = try #require(c.worst(plan, span: plan.period, cur))
                #expect(row.worst.cost.amount == worst, "\(what): worst case")
                #expect(row.yearOnePeriods == n1 && row.laterYearPeriods == nLater, "\(what)")
                // The offer: priced or not, its worst case, its price.
                var introWorst: (Exact, Set<P.Rate>)?
                var introPrice: Exact??
                if let o = plan.offer {
                    introWorst = c.worst(plan, span: o.span, cur)
                    introPrice = .some(c.offerPrice(o, price))
                    let intro = try #require(row.intro, "\(what)")
                    #expect(intro.worst.cost.amount == introWorst?.0, "\(what): offer worst case")
                    #expect(intro.price?.amount == c.offerPrice(o, price), "\(what): offer price")
                    if c.offerPrice(o, price) == nil { outcome.unpricedOffers += 1 }
                } else {
                    #expect(row.intro == nil, "\(what)")
                }
                let tierYear = c.freeTier.flatMap { _ in c.freeTierCost(span: P.year, cur) }
                var allRates = worstRates.union(introWorst?.1 ?? []).union(tierYear?.1 ?? [])
                if c.freeTier == nil { allRates = worstRates.union(introWorst?.1 ?? []) }
                #expect(Self.rates(row.fxUsed) == Self.rates(allRates), "\(what): FX named")
                let p = exact(price.amount)
                if !p.isPositive { outcome.zeroPrices += 1 }
                #expect(row.lines.map(\.program.name) == programs.map(\.name), "\(what)")
                for (line, program) in zip(row.lines, programs) {
                    let w = "\(what) \(program.name)"
                    // A price of 0 has no margin share (nil), not a share of 0.
                    func period(_ rate: Exact) throws -> (Exact, Exact?) {
                        let proceeds = try p.subtracting(p.multiplied(by: rate))
                        let m = try proceeds.subtracting(worst)
                        return (m, p.isPositive ? try m.divided(by: p) : nil)
                    }
                    let (m1, s1) = try period(program.yearOne)
                    let (m2, s2) = try period(program.after)
                    #expect(
                        line.yearOne.margin.amount == m1 && line.yearOne.marginShare == s1, "\(w)")
                    #expect(
                        line.afterYearOne.margin.amount == m2
                            && line.afterYearOne.marginShare == s2,
                        "\(w)")
                    let t1 = try m1.multiplied(by: Exact(n1))
                    let t2 = try m2.multiplied(by: Exact(nLater))
                    #expect(
                        line.yearOneTotal.amount == t1 && line.laterYearTotal.amount == t2, "\(w)")
                    if let o = plan.offer, let iw = introWorst, case .some(let ip) = introPrice {
                        _ = o
                        if let ip {
                            let im = try ip.subtracting(ip.multiplied(by: program.yearOne))
                                .subtracting(iw.0)
                            #expect(line.introMargin?.amount == im, "\(w): offer margin")
                            #expect(
                                line.paybackPeriods == P.payback(im, m1, n1, m2), "\(w): payback")
                        } else {
                            #expect(line.introMargin == nil, "\(w): an unpriced offer has a margin")
                        }
                    }
                    if let (ty, _) = tierYear {
                        let f = try #require(line.freeUsers, "\(w)")
                        func expected(_ total: Exact) throws -> (Exact?, Int128) {
                            guard total.isPositive else { return (nil, 0) }
                            guard ty.isPositive else { return (.zero, Int128.max) }
                            return (
                                try ty.divided(by: total), try total.divided(by: ty).rounded(.down)
                            )
                        }
                        let (a, ac) = try expected(t1)
                        let (b, bc) = try expected(t2)
                        #expect(f.yearOneShare == a && f.yearOneCovered == ac, "\(w): free tier y1")
                        #expect(
                            f.laterYearShare == b && f.laterYearCovered == bc,
                            "\(w): free tier later")
                    } else {
                        #expect(line.freeUsers == nil, "\(w)")
                    }
                    // The floor: check's program, every positive price, year one and after.
                    if program.name == floorProgram, p.isPositive {
                        let loc = Self.at(loadedPlan.prices[qi].location)
                        if let s1, s1 < floor {
                            expectedFindings.insert("min-margin \(loc) year one")
                        }
                        if let s2, s2 < floor { expectedFindings.insert("min-margin \(loc) after") }
                    }
                }
                if !p.isPositive {
                    expectedFindings.insert("free-price \(Self.at(loadedPlan.prices[qi].location))")
                }
                if let o = plan.offer, o.mode != "free", c.offerPrice(o, price) == nil {
                    expectedFindings.insert(
                        "offer-currency \(Self.at(loadedPlan.prices[qi].location))")
                }
            }
            // Offer prices no plan price uses.
            if let o = plan.offer, o.mode != "free" {
                for (oi, op) in o.prices.enumerated() {
                    let used = plan.prices.contains { pp in
                        let own = pp.market.storefront != nil && op.market == pp.market
                        let general =
                            op.market.storefront == nil && op.market.currency == pp.market.currency
                            && !(pp.market.storefront != nil
                                && o.prices.contains { $0.market == pp.market })
                        return own || general
                    }
                    if !used {
                        let loc = Self.at(
                            try #require(loadedPlan.introductoryOffer?.prices[oi].location))
                        expectedFindings.insert("offer-currency \(loc)")
                    }
                }
            }
            // Apple's points.
            guard let points = c.apple[plan.productId] else { continue }
            let appleRows = margins.appleRows.filter { $0.plan.productId == plan.productId }
            #expect(
                appleRows.map(\.point.territory) == points.map(\.territory).sorted(), "\(label)")
            for point in points {
                let w = "\(label)\napple \(plan.productId) \(point.territory)"
                let r = try #require(
                    appleRows.first { $0.point.territory == point.territory }, "\(w)")
                let price = exact(point.price)
                // Apple's "0.0" beside a positive price is no figure.
                let proceeds: Exact? =
                    exact(point.proceeds).isZero && price.isPositive ? nil : exact(point.proceeds)
                let year2 = point.year2.map(exact)
                let worst = c.worst(plan, span: plan.period, point.currency)
                #expect(r.worst?.cost.amount == worst?.0, "\(w): worst case")
                #expect(Self.rates(r.fxUsed) == Self.rates(worst?.1 ?? []), "\(w): FX named")
                func margin(_ x: Exact?) throws -> (Exact, Exact?)? {
                    guard let x, let worst else { return nil }
                    let m = try x.subtracting(worst.0)
                    return (m, price.isPositive ? try m.divided(by: price) : nil)
                }
                let y1 = try margin(proceeds)
                let y2 = try margin(year2)
                #expect(r.yearOne?.margin.amount == y1?.0 && r.yearOne?.share == y1?.1, "\(w) y1")
                #expect(
                    r.afterYearOne?.margin.amount == y2?.0 && r.afterYearOne?.share == y2?.1,
                    "\(w) after")
                let key = "\(plan.productId) in \(point.territory)"
                if worst == nil {
                    outcome.missingFX += 1
                    expectedFindings.insert("storefront-fx \(key)")
                }
                if proceeds == nil { expectedFindings.insert("apple-proceeds \(key) proceeds") }
                if year2 == nil {
                    outcome.missingYear2 += 1
                    expectedFindings.insert("apple-proceeds \(key) year2")
                }
                if !price.isPositive {
                    outcome.zeroPrices += 1
                    expectedFindings.insert("free-price \(key)")
                } else {
                    if let (_, s) = y1, let s, s < floor {
                        expectedFindings.insert("min-margin \(key) year one")
                    }
                    if let (_, s) = y2, let s, s < floor {
                        expectedFindings.insert("min-margin \(key) after")
                    }
                }
            }
        }
        #expect(rowIndex == margins.rows.count, "\(label)")

        // check's verdict, in the same terms.
        var got = Set<String>()
        for d in found {
            let rule = d.rule?.id ?? ""
            if d.path.hasSuffix("g.json") {
                if rule == "min-margin" {
                    let year = d.message.contains(" in year one (") ? "year one" : "after"
                    got.insert("min-margin \(Self.at(d.location)) \(year)")
                } else {
                    got.insert("\(rule) \(Self.at(d.location))")
                }
                continue
            }
            // Apple's files: "p0 in USA: …" or "subscription "p0" in USA …".
            let text = d.message.replacingOccurrences(of: "subscription \"", with: "")
                .replacingOccurrences(of: "\" in ", with: " in ")
            let key = text.split(separator: " ").prefix(3).joined(separator: " ")
                .trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            switch rule {
            case "min-margin":
                got.insert(
                    "min-margin \(key) \(d.message.contains("in year one") ? "year one" : "after")")
            case "apple-proceeds":
                if d.message.contains("no proceedsYear2") {
                    got.insert("apple-proceeds \(key) year2")
                } else if d.message.contains("no usable proceeds") {
                    got.insert("apple-proceeds \(key) proceeds")
                }  // the reader's own warning about "0.0" is not the plans' to count
            default: got.insert("\(rule) \(key)")
            }
        }
        #expect(
            got == expectedFindings,
            "\(label)\nonly check: \(got.subtracting(expectedFindings).sorted())\nonly model: \(expectedFindings.subtracting(got).sorted())"
        )
        outcome.floorFindings = expectedFindings.filter { $0.hasPrefix("min-margin") }.count
        return outcome
    }

    /// 240 generated cases over two seed ranges: every figure of every row, offer, free tier
    /// and Apple territory equals the model's, and check reports exactly the model's floor
    /// findings and warnings; every kind of case is reached.
    @Test(arguments: [UInt64(24_001), UInt64(90_210)])
    func plansAgainstTheModel(seed: UInt64) throws {
        var g = Generator(rng: SplitMix64(seed: seed))
        var totals = Outcome()
        var overridden = 0
        var computedCases = 0
        for i in 0..<120 {
            let c = g.make()
            let o = try run(c, seed: seed &+ UInt64(i))
            totals.computed = totals.computed || o.computed
            totals.refused = totals.refused || o.refused
            totals.unpricedOffers += o.unpricedOffers
            totals.zeroPrices += o.zeroPrices
            totals.missingFX += o.missingFX
            totals.missingYear2 += o.missingYear2
            totals.floorFindings += o.floorFindings
            if o.overridden && o.computed { overridden += 1 }
            if o.computed { computedCases += 1 }
        }
        print(
            "plans property seed \(seed): \(totals) overridden \(overridden) computed \(computedCases)"
        )
        // Every kind of case was generated and compared, not just generated.
        #expect(totals.computed && totals.refused)
        #expect(totals.unpricedOffers > 0 && totals.zeroPrices > 0)
        #expect(totals.missingFX > 0 && totals.missingYear2 > 0)
        #expect(totals.floorFindings > 0 && overridden > 0)
    }
}
