import Foundation
import Testing

@testable import RateCard

/// The storefront model against 354 real App Store Connect price points: the responses
/// saved on 2023-04-07 for an account in the Small Business Program (15%), published in
/// github.com/37iOS/AppStoreConnectAPI-Demo (commit 6942f08, AppStoreConnectAPI-v2.3-Response/),
/// trimmed into `Fixtures/storefronts/asc-2023-04-07-*.json` by `scripts/asc_points_fixture.py`
/// (see that folder's README.md).
///
/// Every point is read by the project's own reader and run through the storefront model
/// (2023-04-07, small-business); the model must agree within one unit Apple pays in (a cent;
/// a whole forint, rupiah, yen, won or Taiwan dollar). Apple's figures are the independent
/// answer. The two that differ are named, explained as far as the evidence goes, and pinned.
@Suite struct AppStoreConnectPointsAgreementTests {
    static let files = [
        "asc-2023-04-07-iap-price-points-chn.json", "asc-2023-04-07-app-price-points-chn.json",
        "asc-2023-04-07-app-equalizations.json", "asc-2023-04-07-iap-automatic-prices.json",
        "asc-2023-04-07-app-automatic-prices.json", "asc-2023-04-07-app-manual-prices.json",
    ]

    /// One of Apple's figures: in `territory`, a customer price of `price` pays `proceeds`.
    struct Point: Hashable, Sendable, CustomStringConvertible {
        let territory: String
        let price: Money
        let proceeds: Money

        var description: String { "\(territory) \(price) → \(proceeds)" }
    }

    /// A point where the model and Apple differ, with the model's figure and why.
    struct Difference: Sendable {
        let model: String
        let why: String
    }

    /// Keyed by `Point.description`.
    static let differences: [String: Difference] = [
        // Italy: 1.19 ÷ 1.22 = 0.97541; × (0.85 − 0.03) = 0.79984 → 0.80. Apple pays 0.82.
        "ITA EUR 1.19 → EUR 0.82": Difference(
            model: "0.80",
            why:
                "Italy's digital services tax: the data deducts 3% of the tax-exclusive price (Apple's notice of August 2021 changed how it applies it, without a rate); Apple's two EUR points of 2023-04-07 fit a deduction of 0.59% to 1.44% of it, not 3% (3% of a 30% commission, 0.9%, lies in that range; no source found says Apple deducts that)"
        ),
        // UK: 9.99 ÷ 1.2 = 8.325; × 0.85 = 7.07625 → 7.08. Apple pays 7.06.
        "GBR GBP 9.99 → GBP 7.06": Difference(
            model: "7.08",
            why:
                "not explained: GBP 0.99 pays 0.70 (0.99 ÷ 1.2 × 0.85 = 0.70125) but 9.99 pays 0.02 less than 9.99 ÷ 1.2 × 0.85; both points fit only a deduction of 0.14% to 0.25% of the tax-exclusive price (or 0.16% to 0.30% withheld from the proceeds), no UK tax at a known rate: the 2% DST of Apple's 2020 notice would pay 6.91"
        ),
    ]

    let table: StorefrontTable
    let points: [Point]

    init() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        table = try #require(repo.storefronts)
        var seen = Set<Point>()
        var list: [Point] = []
        for name in Self.files {
            let file = try StorefrontFixtures.file(name)
            for p in file.pricePoints + file.scheduledPrices.map(\.point) {
                let proceeds = try #require(p.proceeds, "\(name): \(p.territory)")
                let point = Point(
                    territory: p.territory, price: p.customerPrice, proceeds: proceeds)
                if seen.insert(point).inserted { list.append(point) }
            }
        }
        points = list
    }

    static let day = CalendarDate("2023-04-07")!

    /// Storefronts whose 2023 currency is not the one the data holds now: Bulgaria priced in
    /// leva until it adopted the euro on 2026-01-01. The model's rates and rounding apply
    /// to the lev as to the euro (both in cents).
    static let formerCurrencies = ["BGR": "BGN"]

    func modelled(_ p: Point) throws -> (ModelledProceeds, Storefront) {
        let sf = try #require(table.storefront(p.territory), "\(p.territory)")
        #expect(
            sf.currency == p.price.currency
                || Self.formerCurrencies[p.territory] == p.price.currency.code, "\(p)")
        let regime = try #require(table.regime(for: sf, program: .smallBusiness, on: Self.day))
        return (try table.proceeds(p.price, in: sf, regime: regime, on: Self.day), sf)
    }

    func agrees(_ p: Point) throws -> Bool {
        let (model, sf) = try modelled(p)
        let diff = try model.rounded.amount.subtracting(p.proceeds.amount)
        let magnitude = diff.isNegative ? try diff.negated() : diff
        return !(sf.paymentUnit < magnitude)
    }

    /// What the fixtures hold: 354 distinct points (territory, price, proceeds) in 103
    /// storefronts and 25 currencies (Bulgaria's lev among them), 201 of them in China mainland (Apple's lists of every CNY point of an app
    /// and of an in-app purchase), the rest one or two per storefront from the schedules.
    @Test func theFixturesHold354Points() throws {
        #expect(points.count == 354)
        #expect(Set(points.map(\.territory)).count == 103)
        #expect(points.filter { $0.territory == "CHN" }.count == 201)
        let currencies = Set(points.map(\.price.currency.code))
        #expect(currencies.count == 25)
        #expect(currencies.contains("BGN"))
    }

    /// The agreement figure: 352 of the 354 agree within the unit Apple pays; the two that do
    /// not are exactly the explained ones, at the pinned model figures.
    @Test func agreementFigure() throws {
        var off: [String] = []
        for p in points where try !agrees(p) {
            let (model, _) = try modelled(p)
            off.append(p.description)
            let known = Self.differences[p.description]
            #expect(known != nil, "unexplained: model \(model.rounded) vs Apple \(p)")
            if let known { #expect(model.rounded.amount == exact(known.model), "\(p)") }
        }
        #expect(off.sorted() == Self.differences.keys.sorted())
        #expect(points.count - off.count == 352)
    }

    /// China mainland: every one of the 201 CNY points is exactly price ÷ 1.009 × 0.85,
    /// rounded to the fen (CNY 10 → 10 ÷ 1.009 × 0.85 = 8.4242 → 8.42). The data's 0.9% is
    /// that fit; with 0.75% only 10 of them are Apple's figure (CNY 10 → 8.44).
    @Test func chinaMainlandIsPriceOver1009() throws {
        let chn = points.filter { $0.territory == "CHN" }
        let sf = try #require(table.storefront("CHN"))
        #expect(sf.rates(on: Self.day).vat == exact("0.009"))
        var exactFits = 0
        var oldFits = 0
        for p in chn {
            let (model, _) = try modelled(p)
            if model.rounded.amount == p.proceeds.amount { exactFits += 1 }
            let old = try ModelledProceeds.round(
                p.price.amount.divided(by: exact("1.0075")).multiplied(by: exact("0.85")),
                to: sf.paymentUnit)
            if old == p.proceeds.amount { oldFits += 1 }
        }
        #expect(exactFits == 201)
        #expect(oldFits == 10)
    }

    /// Apple rounds a half up, not half-even: the seven points whose exact proceeds fall on
    /// half a cent are all paid the cent above (BHR and BHS 0.99 ÷ 1.10 × 0.85 = 0.765 → 0.77;
    /// KHM likewise; BRA 0.90 × 0.85 = 0.765 → 0.77 and 4.90 × 0.85 = 4.165 → 4.17; ISR
    /// 2.90 × 0.85 = 2.465 → 2.47 and 3.50 × 0.85 = 2.975 → 2.98). The model's half-even
    /// rounding pays the cent below on six of them (2.975 → 2.98 is even), within the
    /// one-unit tolerance.
    @Test func appleRoundsHalvesUp() throws {
        var ties: [String] = []
        var below = 0
        for p in points {
            let (model, sf) = try modelled(p)
            let steps = try model.exact.amount.divided(by: sf.paymentUnit)
            guard steps.denominator == 2 else { continue }
            ties.append(p.territory)
            let up = try model.exact.amount.adding(
                sf.paymentUnit.divided(by: Exact(2)))
            #expect(p.proceeds.amount == up, "\(p)")
            if model.rounded.amount < p.proceeds.amount { below += 1 }
        }
        #expect(ties.sorted() == ["BHR", "BHS", "BRA", "BRA", "ISR", "ISR", "KHM"])
        #expect(below == 6)
    }

    /// The corrections these points made to the data, each the rate Apple applied on
    /// 2023-04-07: Costa Rica removes no VAT (USD 0.99 → 0.84 = 0.99 × 0.85), Barbados 17.5%
    /// (0.99 ÷ 1.175 × 0.85 = 0.7162 → 0.72), Cameroon 19.25% (÷ 1.1925 → 0.7057 → 0.71),
    /// Ghana 18.5% with its 5% levies (÷ 1.185 → 0.7101 → 0.71), Israel no VAT
    /// (ILS 2.90 × 0.85 = 2.465 → Apple 2.47), France no DST (EUR 0.99 ÷ 1.2 × 0.85 = 0.70125
    /// → 0.70; 3% would pay 0.68).
    @Test(arguments: [
        ("CRI", "vat", "0"), ("BRB", "vat", "0.175"), ("CMR", "vat", "0.1925"),
        ("GHA", "vat", "0.185"), ("ISR", "vat", "0"), ("FRA", "dst", "0"), ("FRA", "vat", "0.2"),
        ("ITA", "dst", "0.03"), ("CHN", "vat", "0.009"),
    ])
    func correctedRates(territory: String, kind: String, rate: String) throws {
        let rates = try #require(table.storefront(territory)).rates(on: Self.day)
        let value = kind == "vat" ? rates.vat : rates.digitalServicesTax
        #expect(value == exact(rate))
    }

    /// Each rate these points confirm names them: every tax entry in force on 2023-04-07 in
    /// a storefront whose points all agree has a source, and only China mainland's (a fit,
    /// not a published rate) is still a placeholder.
    @Test func confirmedRatesNameThePoints() throws {
        let agreeing = Set(points.map(\.territory)).subtracting(["GBR", "ITA"])
        var placeholders: [String] = []
        for t in agreeing.sorted() {
            let sf = try #require(table.storefront(t))
            for entry in sf.rates(on: Self.day).entries {
                #expect(entry.source != nil, "\(t) \(entry.kind)")
                if entry.placeholder { placeholders.append(t) }
            }
        }
        #expect(placeholders == ["CHN"])
        let inferred = table.storefronts.flatMap(\.taxes).filter {
            $0.source?.hasPrefix("inferred from App Store Connect price points of 2023-04-07")
                == true
        }
        #expect(inferred.count == 54)
    }

    /// The figure each inferred entry's note works ("USD 1.19 pays 0.87 = 1.19 ÷ 1.16 × 0.85 =
    /// 0.87198") is one of Apple's points in that storefront, and the model gives Apple's
    /// figure for it.
    @Test func everyInferredNoteWorksOneOfApplesPoints() throws {
        var checked = 0
        for sf in table.storefronts {
            for entry in sf.taxes
            where entry.source?.hasPrefix(
                "inferred from App Store Connect price points of 2023-04-07") == true
            {
                let note = try #require(entry.note, "\(sf.territory)")
                let pays = try #require(note.range(of: " pays "), "\(sf.territory): \(note)")
                let price = try #require(note[..<pays.lowerBound].split(separator: " ").last)
                let paid = try #require(note[pays.upperBound...].split(separator: " ").first)
                let point = try #require(
                    points.first {
                        $0.territory == sf.territory
                            && $0.price.amount == (try? Exact(decimal: String(price)))
                            && $0.proceeds.amount == (try? Exact(decimal: String(paid)))
                    }, "\(sf.territory): \(note)")
                #expect(try agrees(point), "\(point)")
                checked += 1
            }
        }
        #expect(checked == 54)
    }

    /// The ranges the two explanations state, found by trying every deduction from 0% to 3%
    /// in steps of 0.01%: the ones that give Apple's figure for both of the storefront's
    /// points, with Apple's half-up rounding of the cent.
    @Test func theDifferencesRanges() throws {
        func fitting(_ vat: String, _ pairs: [(String, String)], withheld: Bool) throws -> [Int] {
            var out: [Int] = []
            for bp in 0...300 {
                let d = try Exact(Int128(bp), over: 10_000)
                var all = true
                for (price, paid) in pairs {
                    let net = try exact(price).divided(by: exact(vat))
                    let kept =
                        withheld
                        ? try net.multiplied(by: exact("0.85")).multiplied(
                            by: Exact.one.subtracting(d))
                        : try net.multiplied(by: exact("0.85").subtracting(d))
                    let cents = try kept.scaled(2, rule: .halfUp)
                    if try Exact(cents, over: 100) != exact(paid) { all = false }
                }
                if all { out.append(bp) }
            }
            return out
        }
        let ita = try fitting("1.22", [("0.99", "0.68"), ("1.19", "0.82")], withheld: false)
        #expect(ita.first == 59 && ita.last == 144 && ita.count == 86)
        #expect(!ita.contains(300) && ita.contains(90))
        let gbr = [("0.99", "0.70"), ("9.99", "7.06")]
        let dst = try fitting("1.2", gbr, withheld: false)
        #expect(dst.first == 14 && dst.last == 25 && dst.count == 12)
        let held = try fitting("1.2", gbr, withheld: true)
        #expect(held.first == 16 && held.last == 30)
        // The 2% DST of Apple's 2020 notice: 9.99 ÷ 1.2 × (0.85 − 0.02) = 6.90975 → 6.91.
        #expect(!dst.contains(200))
    }
}
