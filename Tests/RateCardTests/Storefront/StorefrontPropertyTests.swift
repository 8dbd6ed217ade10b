import Foundation
import Testing

@testable import RateCard

/// `StorefrontMargins` and the storefront rule of `margin check` against a model written
/// here from docs/storefronts.md alone (issue 24, the storefront half of the property test).
///
/// Each seed generates a world as plain values: a storefront data file (territories with
/// tax-inclusive or tax-exclusive prices, VAT, digital services taxes, whole-unit currencies,
/// default and per-territory commission regimes with dates), an FX file (some currencies
/// without a rate, an `--fx` override now and then), a card whose one feature costs a fixed
/// amount per credit (so the worst case is credits × that amount), a pack with prices per
/// currency and per storefront (a storefront the data lacks, a code that is no territory, a
/// price in the wrong currency, a price finer than the payment unit, a price of 0), Apple
/// price points (the card's price, another price, 0, proceeds stated or `"0.0"`), a date
/// (inside, between and before every regime) and a program. The model never calls the
/// library's proceeds, resolution or worst-case code: it computes net price, tax, DST,
/// commission, the payment-unit rounding, the conversion and the margin itself, then the
/// check's verdict per territory, and both are compared on every row.
@Suite struct StorefrontPropertyTests {
    // MARK: The generated world

    struct Territory {
        let code: String
        let name: String
        let currency: String
        let minor: Int
        let taxIncluded: Bool
        let tax: Exact
        let dst: Exact
        /// Decimal places Apple pays in; nil: the ISO minor unit.
        let unitPlaces: Int?
        let regimes: [Regime]
    }

    struct Regime {
        let program: String
        let rate: Exact
        let from: String
        let until: String?
    }

    struct CardPrice {
        let currency: String
        let amount: String
        let storefront: String?
    }

    struct ApplePoint {
        let territory: String
        let currency: String
        let price: String
        let proceeds: String
    }

    struct World {
        let territories: [Territory]
        let defaults: [Regime]
        /// 1 USD = rate of the currency; a currency absent has no rate.
        let usdRates: [String: Exact]
        let override: (quote: String, rate: Exact)?
        let credits: Int
        /// CNY per credit of the worst request.
        let costPerCredit: Exact
        let prices: [CardPrice]
        let points: [ApplePoint]
        let date: String
        let program: String
        let floor: Exact
    }

    /// The pool of storefronts a world draws from: code, name, currency, ISO minor unit.
    static let pool: [(String, String, String, Int)] = [
        ("USA", "United States", "USD", 2), ("DEU", "Germany", "EUR", 2),
        ("FRA", "France", "EUR", 2), ("ITA", "Italy", "EUR", 2), ("JPN", "Japan", "JPY", 0),
        ("HUN", "Hungary", "HUF", 2), ("IDN", "Indonesia", "IDR", 2),
        ("GBR", "United Kingdom", "GBP", 2), ("CHN", "China mainland", "CNY", 2),
    ]

    static func decimal(_ rng: inout SplitMix, max: Int, places: Int) -> String {
        let whole = rng.next(in: 0...max)
        guard places > 0 else { return "\(whole)" }
        var frac = "\(rng.next(in: 0...(Int(pow(10.0, Double(places))) - 1)))"
        while frac.count < places { frac = "0" + frac }
        return "\(whole).\(frac)"
    }

    static func generate(seed: Int) -> World {
        var rng = SplitMix(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D &+ 7)
        let dates = [
            "2005-06-01", "2015-03-01", "2022-07-01", "2026-03-14", "2026-03-15", "2026-12-01",
        ]
        var defaults = [
            Regime(program: "small-business", rate: exact("0.15"), from: "2021-01-01", until: nil)
        ]
        if rng.next(in: 0...2) == 0 {
            // A change of the standard rate.
            defaults += [
                Regime(
                    program: "standard", rate: exact("0.30"), from: "2008-07-10",
                    until: "2022-01-01"),
                Regime(program: "standard", rate: exact("0.27"), from: "2022-01-01", until: nil),
            ]
        } else {
            defaults.append(
                Regime(program: "standard", rate: exact("0.30"), from: "2008-07-10", until: nil))
        }
        var territories: [Territory] = []
        for (code, name, currency, minor) in pool where rng.next(in: 0...4) > 0 {
            let included = code != "USA" || rng.next(in: 0...3) == 0
            let tax = included ? try! Exact(Int128(rng.next(in: 0...27)), over: 100) : .zero
            let dst =
                rng.next(in: 0...3) == 0
                ? try! Exact(Int128(rng.next(in: 1...3)), over: 100) : .zero
            let whole = (currency == "HUF" || currency == "IDR") && rng.next(in: 0...3) > 0
            var regimes: [Regime] = []
            if rng.next(in: 0...4) == 0 {
                regimes.append(
                    Regime(
                        program: ["standard", "small-business"][rng.next(in: 0...1)],
                        rate: try! Exact(Int128(rng.next(in: 10...28)), over: 100),
                        from: "2026-03-15", until: nil))
            }
            territories.append(
                Territory(
                    code: code, name: name, currency: currency, minor: minor,
                    taxIncluded: included, tax: tax, dst: dst, unitPlaces: whole ? 0 : nil,
                    regimes: regimes))
        }
        var usdRates: [String: Exact] = ["CNY": exact("7.\(rng.next(in: 0...40))")]
        for (c, rate) in [
            ("EUR", "0.86"), ("JPY", "152"), ("HUF", "330"), ("IDR", "16500"), ("GBP", "0.79"),
        ]
        where rng.next(in: 0...5) > 0 {
            usdRates[c] = exact(rate)
        }
        let override: (String, Exact)? =
            rng.next(in: 0...3) == 0
            ? (
                ["EUR", "JPY", "GBP"][rng.next(in: 0...2)],
                exact("\(rng.next(in: 1...3)).\(rng.next(in: 0...9))")
            )
            : nil
        // Card prices: generic ones per currency, then storefront ones.
        var prices: [CardPrice] = []
        func amount(_ currency: String) -> String {
            switch currency {
            case "JPY": "\(rng.next(in: 0...9) == 0 ? 0 : rng.next(in: 100...900))"
            case "HUF":
                rng.next(in: 0...5) == 0
                    ? "\(rng.next(in: 500...3000)).5" : "\(rng.next(in: 500...3000))"
            case "IDR": "\(rng.next(in: 5...90) * 1000)"
            default:
                rng.next(in: 0...12) == 0 ? "0" : "\(rng.next(in: 0...9)).\(rng.next(in: 10...99))"
            }
        }
        for c in ["USD", "EUR", "JPY", "HUF", "IDR", "GBP", "CNY"] where rng.next(in: 0...3) > 0 {
            prices.append(CardPrice(currency: c, amount: amount(c), storefront: nil))
        }
        for (code, _, currency, _) in pool where rng.next(in: 0...6) == 0 {
            prices.append(CardPrice(currency: currency, amount: amount(currency), storefront: code))
        }
        if rng.next(in: 0...3) == 0 {
            prices.append(CardPrice(currency: "USD", amount: "2.99", storefront: "ARG"))
        }
        if rng.next(in: 0...4) == 0 {
            prices.append(CardPrice(currency: "EUR", amount: "1.99", storefront: "XYZ"))
        }
        if rng.next(in: 0...5) == 0 {
            // A storefront price in another currency than the storefront's.
            prices.append(CardPrice(currency: "GBP", amount: "1.49", storefront: "DEU"))
        }
        if prices.isEmpty {
            prices.append(CardPrice(currency: "USD", amount: "2.99", storefront: nil))
        }
        // Apple's points: some territories of the pool, and Canada (not in the data, no rate).
        var points: [ApplePoint] = []
        for (code, _, currency, minor) in pool + [("CAN", "Canada", "CAD", 2)]
        where rng.next(in: 0...3) == 0 {
            let own =
                prices.first { $0.storefront == code && $0.currency == currency }
                ?? prices.first { $0.storefront == nil && $0.currency == currency }
            let price: String
            switch rng.next(in: 0...5) {
            case 0: price = minor == 0 ? "0" : "0.0"
            case 1, 2:
                price = decimal(
                    &rng, max: currency == "JPY" || currency == "HUF" ? 2000 : 9, places: minor)
            default: price = own?.amount ?? decimal(&rng, max: 9, places: minor)
            }
            let p = exact(price)
            let proceeds: String
            if p.isZero {
                proceeds = "0"
            } else if rng.next(in: 0...4) == 0 {
                proceeds = "0.0"
            } else {
                let share = try! Exact(Int128(rng.next(in: 40...80)), over: 100)
                proceeds = try! p.multiplied(by: share).formatted(scale: minor, rule: .down)
            }
            points.append(
                ApplePoint(territory: code, currency: currency, price: price, proceeds: proceeds))
        }
        return World(
            territories: territories, defaults: defaults, usdRates: usdRates, override: override,
            credits: rng.next(in: 1...50) * 100,
            costPerCredit: try! Exact(Int128(rng.next(in: 1...40)), over: 10_000),
            prices: prices, points: points, date: dates[rng.next(in: 0...(dates.count - 1))],
            program: rng.next(in: 0...2) == 0 ? "small-business" : "standard",
            floor: try! Exact(Int128(rng.next(in: 0...30)), over: 100))
    }

    // MARK: The world as files

    static func files(_ w: World) -> [String: String] {
        func regimes(_ rs: [Regime]) -> String {
            rs.map { r in
                #"{"program": "\#(r.program)", "rate": "\#(r.rate.decimalText())", "from": "\#(r.from)"\#(r.until.map { #", "until": "\#($0)""# } ?? ""), "status": "confirmed"}"#
            }.joined(separator: ", ")
        }
        let territories = w.territories.map { t in
            var s =
                #"{"territory": "\#(t.code)", "name": "\#(t.name)", "currency": "\#(t.currency)", "taxIncluded": \#(t.taxIncluded), "tax": "\#(t.tax.decimalText())""#
            if !t.dst.isZero { s += #", "digitalServicesTax": "\#(t.dst.decimalText())""# }
            if let p = t.unitPlaces { s += #", "currencyUnit": "\#(p == 0 ? "1" : "0.01")""# }
            if !t.regimes.isEmpty { s += #", "commission": [\#(regimes(t.regimes))]"# }
            return s + "}"
        }.joined(separator: ",\n ")
        let rates = w.usdRates.keys.sorted().map {
            #"{"base": "USD", "quote": "\#($0)", "rate": "\#(w.usdRates[$0]!.decimalText())"}"#
        }.joined(separator: ", ")
        let prices = w.prices.map { p in
            #"{"currency": "\#(p.currency)", "amount": "\#(p.amount)"\#(p.storefront.map { #", "storefront": "\#($0)""# } ?? "")}"#
        }.joined(separator: ", ")
        return [
            "storefronts.json": """
            {"kind": "storefronts", "date": "2026-12-01", "source": "generated",
             "commission": [\(regimes(w.defaults))],
             "territories": [\(territories)]}
            """,
            "fx.json": """
            {"kind": "fx", "date": "2026-11-15", "placeholder": true, "source": "generated", "rates": [\(rates)]}
            """,
            "p.json": """
            {"kind": "provider", "id": "p", "currency": "CNY", "reviewed": "2026-01-01", "source": "https://example.com/p",
             "meters": [{"key": "audio", "unit": "second", "per": "1", "price": "\(w.costPerCredit.decimalText())"}]}
            """,
            "card.json": """
            {"kind": "card", "id": "gen", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
             "features": [{"key": "asr", "dimensions": [{"name": "second", "unit": "second", "credits": 1, "per": 1, "rounding": "up", "cost": {"provider": "p", "meter": "audio"}}]}],
             "packs": [{"productId": "pack", "type": "consumable", "credits": \(w.credits), "prices": [\(prices)]}]}
            """,
        ]
    }

    static func appleFile(_ w: World) -> String {
        StorefrontTrustFixture.pricePoints(
            w.points.map {
                StorefrontTrustFixture.Point(
                    territory: $0.territory, currency: $0.currency, price: $0.price,
                    proceeds: $0.proceeds)
            })
    }

    // MARK: The model

    enum Gap: String {
        case fx = "no FX rate"
        case proceeds = "no proceeds"
        case regime = "no regime in force"
        case data = "not in storefront data"
    }

    struct Expected: CustomStringConvertible {
        let price: Exact
        let currency: String
        let proceeds: Exact?
        let apple: Bool
        let cost: Exact?
        let margin: Exact?
        let share: Exact?
        let gap: Gap?
        var description: String {
            "\(currency) \(price.decimalText()) proceeds \(proceeds?.decimalText() ?? "-") cost \(cost?.decimalText(maxScale: 6) ?? "-") gap \(gap?.rawValue ?? "-")"
        }
    }

    /// Half-up rounding of `v` to `places` (a half away from zero, as Apple pays: its
    /// 2023 points round 0.765 to 0.77), by hand.
    static func roundHalfUp(_ v: Exact, places: Int) -> Exact {
        var scale: Int128 = 1
        for _ in 0..<places { scale *= 10 }
        let n = (v.numerator < 0 ? -v.numerator : v.numerator) * scale
        let d = v.denominator
        var q = n / d
        if 2 * (n % d) >= d { q += 1 }
        return try! Exact(v.numerator < 0 ? -q : q, over: scale)
    }

    static func regime(_ w: World, _ t: Territory) -> Regime? {
        func inForce(_ rs: [Regime]) -> Regime? {
            rs.filter {
                $0.program == w.program && $0.from <= w.date
                    && ($0.until.map { w.date < $0 } ?? true)
            }
            .max { $0.from < $1.from }
        }
        return inForce(t.regimes) ?? inForce(w.defaults)
    }

    /// 1 unit of CNY in `currency`, through USD; nil without a rate.
    static func cnyIn(_ w: World, _ currency: String) -> Exact? {
        if currency == "CNY" { return .one }
        var rates = w.usdRates
        if let o = w.override { rates[o.quote] = o.rate }
        guard let cny = rates["CNY"] else { return nil }
        if currency == "USD" { return try! Exact.one.divided(by: cny) }
        guard let r = rates[currency] else { return nil }
        return try! r.divided(by: cny)
    }

    static let territoryCodes: Set<String> = Set(pool.map(\.0) + ["ARG", "CAN"])

    /// Every row the model expects, by territory, and the check's errors by territory.
    static func model(_ w: World) -> (
        rows: [String: Expected], errors: Set<String>, appleMismatch: Set<String>,
        crossCheck: Set<String>
    ) {
        let byCode = Dictionary(uniqueKeysWithValues: w.territories.map { ($0.code, $0) })
        var specific: [String: CardPrice] = [:]
        var generic: [String: CardPrice] = [:]
        for p in w.prices {
            guard let s = p.storefront else {
                if generic[p.currency] == nil { generic[p.currency] = p }
                continue
            }
            guard territoryCodes.contains(s) else { continue }
            if let t = byCode[s], t.currency != p.currency { continue }
            if specific[s] == nil { specific[s] = p }
        }
        let cost = try! w.costPerCredit.multiplied(by: Exact(integer: Int128(w.credits)))
        var rows: [String: Expected] = [:]
        var mismatch = Set<String>()
        var cross = Set<String>()
        func modelled(_ price: Exact, _ t: Territory) -> Exact? {
            guard let r = regime(w, t) else { return nil }
            let net = t.taxIncluded ? try! price.divided(by: Exact.one.adding(t.tax)) : price
            let kept = try! net.multiplied(by: Exact.one.subtracting(r.rate)).subtracting(
                try! net.multiplied(by: t.dst))
            return roundHalfUp(kept, places: t.unitPlaces ?? t.minor)
        }
        func row(_ price: Exact, _ currency: String, _ proceeds: Exact?, apple: Bool, gap: Gap?)
            -> Expected
        {
            let c = cnyIn(w, currency).map { try! cost.multiplied(by: $0) }
            var margin: Exact?
            var share: Exact?
            if let proceeds, let c {
                margin = try! proceeds.subtracting(c)
                share = price.isPositive ? try! margin!.divided(by: price) : nil
            }
            return Expected(
                price: price, currency: currency, proceeds: proceeds, apple: apple, cost: c,
                margin: margin, share: share, gap: margin == nil ? (gap ?? .fx) : nil)
        }
        for p in w.points {
            let price = exact(p.price)
            let own = specific[p.territory] ?? generic[p.currency]
            if let own, own.currency != p.currency || exact(own.amount) != price {
                mismatch.insert(p.territory)
            }
            let stated = exact(p.proceeds)
            let appleProceeds: Exact? = stated.isZero && price.isPositive ? nil : stated
            var model: Exact?
            var gap: Gap?
            if let t = byCode[p.territory] {
                model = modelled(price, t)
                if model == nil && appleProceeds == nil { gap = .regime }
                if let a = appleProceeds, let m = model {
                    let diff = try! a.subtracting(m)
                    let mag = diff.isNegative ? try! diff.negated() : diff
                    let unit = try! Exact(1, over: Exact.powerOfTen(t.unitPlaces ?? t.minor))
                    if unit < mag { cross.insert(p.territory) }
                }
            }
            let proceeds = appleProceeds ?? model
            if proceeds == nil && gap == nil {
                gap = byCode[p.territory] == nil ? .data : .proceeds
            }
            rows[p.territory] = row(
                price, p.currency, proceeds, apple: appleProceeds != nil, gap: gap)
        }
        for t in w.territories where rows[t.code] == nil {
            guard let p = specific[t.code] ?? generic[t.currency], p.currency == t.currency else {
                continue
            }
            let price = exact(p.amount)
            let m = modelled(price, t)
            rows[t.code] = row(price, t.currency, m, apple: false, gap: m == nil ? .regime : nil)
        }
        for (code, p) in specific where rows[code] == nil {
            rows[code] = row(exact(p.amount), p.currency, nil, apple: false, gap: .data)
        }
        // The check's verdict: an Apple point of 0, a share below the floor, no margin.
        var errors = Set<String>()
        let pointTerritories = Set(w.points.map(\.territory))
        for (code, r) in rows {
            if !r.price.isPositive && pointTerritories.contains(code) {
                errors.insert(code)
                continue
            }
            if let s = r.share, s < w.floor { errors.insert(code) }
            if r.gap != nil { errors.insert(code) }
        }
        return (rows, errors, mismatch, cross)
    }

    // MARK: The property

    @Test(arguments: 0..<300)
    func storefrontsMatchTheModel(seed: Int) throws {
        let w = Self.generate(seed: seed)
        let repo = try repository(Self.files(w))
        let card = try #require(repo.cards.first)
        var fx = repo.fx
        if let o = w.override {
            fx = fx.overriding(with: [
                FXRate(
                    base: .usd, quote: Currency(code: o.quote)!, rate: o.rate, fromCommandLine: true
                )
            ])
        }
        let root = try JSONParser.parse(Self.appleFile(w))
        let lists: [String: ApplePriceList] =
            w.points.isEmpty
            ? [:]
            : [
                "pack": ApplePriceList(
                    productId: "pack",
                    files: [try AppStoreConnectFile.read(root, path: "apple.json")])
            ]
        let date = try #require(CalendarDate(w.date))
        let program = try #require(StoreProgram(name: w.program))
        let m = try StorefrontMargins(
            card: card, repository: repo, priceLists: lists, program: program, date: date, fx: fx)
        let (expected, errors, mismatch, cross) = Self.model(w)
        let got = Dictionary(m.rows.map { ($0.territory, $0) }) { a, _ in a }
        #expect(Set(got.keys) == Set(expected.keys), "seed \(seed): territories")
        for (code, e) in expected {
            guard let r = got[code] else { continue }
            let tag = "seed \(seed) \(code): expected \(e)"
            #expect(
                r.customerPrice.amount == e.price && r.customerPrice.currency.code == e.currency,
                "\(tag)")
            #expect(
                r.proceeds?.amount == e.proceeds,
                "\(tag): proceeds \(r.proceeds?.description ?? "nil")")
            #expect((r.proceedsSource == .apple) == e.apple, "\(tag): source")
            #expect(r.worstCost?.amount == e.cost, "\(tag): cost")
            #expect(r.margin?.amount == e.margin, "\(tag): margin")
            #expect(r.marginShare == e.share, "\(tag): share")
            #expect(r.gap?.rawValue == e.gap?.rawValue, "\(tag): gap \(r.gap?.rawValue ?? "none")")
            // Every rate the figure used, credited to its origin.
            if let o = w.override, r.worstCost != nil, e.currency == o.quote {
                #expect(
                    r.fxUsed.contains { $0.fromCommandLine && $0.rate == o.rate }, "\(tag): --fx")
            }
        }
        // Worst first: free rows, then shares ascending, then rows without a margin.
        let ranks = m.rows.map { $0.isFree ? 0 : ($0.marginShare != nil ? 1 : 2) }
        #expect(ranks == ranks.sorted(), "seed \(seed): order")
        let shares = m.rows.compactMap { $0.isFree ? nil : $0.marginShare }
        #expect(shares == shares.sorted(), "seed \(seed): shares ascending")
        // Findings the model predicts.
        let appleFound = Set(
            m.findings.filter { $0.rule == .check(.applePrice) }.map { territory(in: $0.message) })
        #expect(appleFound == mismatch, "seed \(seed): apple-price")
        let crossFound = Set(
            m.findings.filter { $0.rule == .check(.storefrontCrossCheck) }.map {
                territory(in: $0.message)
            })
        #expect(crossFound == cross, "seed \(seed): cross-check")
        // No territory, the wrong currency, or a second price for one storefront.
        var seen = Set<String>()
        let invalid = w.prices.contains { p in
            guard let s = p.storefront else { return false }
            if !Self.territoryCodes.contains(s) { return true }
            if w.territories.first(where: { $0.code == s }).map({ $0.currency != p.currency })
                ?? false
            {
                return true
            }
            return !seen.insert(s).inserted
        }
        // Or a price for every storefront of a currency that no row is in: it applies
        // nowhere.
        let reached = Set(expected.values.map(\.currency))
        let unreached = w.prices.contains { $0.storefront == nil && !reached.contains($0.currency) }
        #expect(
            m.findings.contains { $0.rule == .check(.storefrontPrice) } == (invalid || unreached),
            "seed \(seed): storefront-price")
        // The check's verdict, territory by territory.
        let findings = CardChecker.storefrontFindings(
            [try Self.loaded(card, Self.files(w)["card.json"]!)], repository: repo, lists: lists,
            arguments: try StorefrontArguments(
                pricePoints: [], at: w.date, program: w.program, today: date),
            floor: w.floor, fx: fx)
        var failed = Set<String>()
        for f in findings where f.severity == .error {
            switch f.rule {
            case .check(.storefrontMargin), .check(.storefrontFX), .check(.storefrontProceeds):
                failed.insert(territory(in: f.message))
            case .check(.storefrontRegime):
                for code in expected.keys where f.message.contains(" \(code)") {
                    failed.insert(code)
                }
            default: break
            }
        }
        #expect(failed == errors, "seed \(seed): check verdict, floor \(w.floor)")
    }

    /// "pack" in DEU …" or "pack in DEU: …" → "DEU".
    func territory(in message: String) -> String {
        guard let r = message.range(of: " in ") else { return "" }
        return String(message[r.upperBound...].prefix(3))
    }

    static func loaded(_ card: RateCard, _ text: String) throws -> CardChecker.LoadedCard {
        let bytes = Array(text.utf8)
        let root = try JSONParser.parseDocument(bytes, path: card.source.path)
        return CardChecker.LoadedCard(
            card: card,
            file: CardChecker.LoadedFile(
                path: card.source.path, bytes: bytes, root: root, content: .card(card)))
    }

    /// The generator reaches every kind of case the property is about.
    @Test func theGeneratedWorldsCoverEveryCase() {
        var counts: [String: Int] = [:]
        for seed in 0..<300 {
            let w = Self.generate(seed: seed)
            let (rows, _, mismatch, _) = Self.model(w)
            func count(_ k: String, _ b: Bool) { if b { counts[k, default: 0] += 1 } }
            count(
                "storefront price",
                w.prices.contains {
                    $0.storefront != nil && Self.territoryCodes.contains($0.storefront!)
                })
            count("no territory", w.prices.contains { $0.storefront == "XYZ" })
            count("not in data", rows.values.contains { $0.gap == .data })
            count("zero price", rows.values.contains { !$0.price.isPositive })
            count("losing", rows.values.contains { $0.margin?.isNegative == true })
            count("whole units", w.territories.contains { $0.unitPlaces == 0 })
            count("--fx", w.override != nil)
            count("no regime", rows.values.contains { $0.gap == .regime })
            count("no FX", rows.values.contains { $0.gap == .fx })
            count("apple", rows.values.contains { $0.apple })
            count("apple mismatch", !mismatch.isEmpty)
            count("tax excluded", w.territories.contains { !$0.taxIncluded })
            count("DST", w.territories.contains { !$0.dst.isZero })
        }
        for k in [
            "storefront price", "no territory", "not in data", "zero price", "losing",
            "whole units", "--fx", "no regime", "no FX", "apple", "apple mismatch", "tax excluded",
            "DST",
        ] {
            #expect(counts[k, default: 0] >= 10, "\(k): \(counts[k, default: 0]) of 300")
        }
    }
}
