import Foundation
import Testing

@testable import RateCard

/// Issue 24, cases 9 to 12 (plans), through the library: every FX rate named, Apple's
/// files that leave a floor unchecked said so, one program spelling, the free tier in CSV,
/// and an offer with no price where its plan is sold.
@Suite struct PlanTrustTests {
    typealias F = PlanTrustFixtures

    func margins(
        fx: [FXRate] = [], points: [F.Point]? = nil, program: StoreProgram? = nil
    ) throws -> PlanMargins {
        let (repo, card) = try F.repository()
        var lists: [String: ApplePriceList] = [:]
        if let points {
            let tmp = try TemporaryFolder()
            defer { tmp.cleanup() }
            try tmp.write("p.json", F.applePoints(points))
            lists = try ApplePriceList.load([("p", "\(tmp.path)/p.json")])
        }
        return try PlanMargins(
            card: card, repository: repo, fx: repo.fx.overriding(with: fx), priceLists: lists,
            date: CalendarDate("2026-12-01"), program: program)
    }

    func row(_ m: PlanMargins, _ currency: String, storefront: String? = nil) throws
        -> PlanMargins.Row
    {
        try #require(
            m.rows.first {
                $0.price.price.currency.code == currency && $0.price.storefront == storefront
            })
    }

    // MARK: case 9: every rate named, with where it came from

    @Test func everyRateIsNamedWithItsOrigin() throws {
        let m = try margins()
        // CNY rows use no rate; USD and EUR rows use theirs; the free tier is in CNY.
        #expect(try row(m, "CNY").fxUsed.isEmpty)
        #expect(try row(m, "USD").fxUsed.map(\.description) == ["USD/CNY 7.1"])
        #expect(m.fxUsed.map(\.description) == ["USD/CNY 7.1", "EUR/CNY 7.8"])
        #expect(m.fxRestsOnPlaceholder)
        #expect(
            m.notes.contains("FX dated 2026-11-15 (fx.json, placeholder): USD/CNY 7.1, EUR/CNY 7.8")
        )
        let json = try JSONParser.parse(PlanReport([m]).render(.json))
        let fx = try #require(json["cards"]?[0]?["fx"])
        #expect(fx["used"]?[0]?["from"]?.value == .string("file"))
        #expect(fx["used"]?[0]?["rate"]?.value == .string("7.1"))
        #expect(fx["restsOnPlaceholder"]?.value == .bool(true))
        #expect(fx["placeholder"]?.value == .bool(true))
        let csv = PlanReport([m]).render(.csv)
        #expect(csv.contains(",\"USD/CNY 7.1 (fx.json, placeholder)\"\n"))
        #expect(
            PlanReport([m]).render(.markdown).contains(
                "- FX dated 2026-11-15 (fx.json, placeholder): USD/CNY 7.1, EUR/CNY 7.8"))
    }

    @Test func aRateGivenOnTheCommandLineIsCreditedToIt() throws {
        let override = FXRate(
            base: F.usd, quote: cny, rate: exact("7.2"), fromCommandLine: true)
        let m = try margins(fx: [override])
        #expect(m.notes.contains("FX given on the command line: USD/CNY 7.2"))
        #expect(!m.notes.contains { $0.contains("USD/CNY 7.1") })
        let json = try JSONParser.parse(PlanReport([m]).render(.json))
        #expect(json["cards"]?[0]?["fx"]?["used"]?[0]?["from"]?.value == .string("command line"))
        // 9.30 / 7.2 = 1.291666…: the USD worst case moves with the given rate.
        #expect(try row(m, "USD").worst.cost.amount == (try exact("9.3").divided(by: exact("7.2"))))
    }

    @Test func checkMessagesNameTheRates() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, _) = try F.write(tmp)
        let d = CardChecker.check(
            paths: [cards],
            options: .init(
                minMargin: exact("0.5"), now: try Timestamp(rfc3339: "2026-11-01T00:00:00Z"))
        ).diagnostics
        let usd = try #require(
            d.first { $0.rule?.id == "min-margin" && $0.message.contains("at USD 4.99") })
        #expect(usd.message.hasSuffix("; FX USD/CNY 7.1 (\(cards)/fx.json, placeholder)"))
        let cnyLine = try #require(
            d.first { $0.rule?.id == "min-margin" && $0.message.contains("at CNY 30.00") })
        #expect(!cnyLine.message.contains("FX"))
    }

    // MARK: case 10: Apple's files

    @Test func proceedsYear2AboveThePriceIsRefused() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write(
            "p.json",
            F.applePoints([
                .init(
                    territory: "USA", currency: "USD", price: "4.99", proceeds: "3.49",
                    year2: "5.99")
            ]))
        var items: [Diagnostic] = []
        do { _ = try ApplePriceList.load([("p", "\(tmp.path)/p.json")]) } catch {
            items = error.items
        }
        #expect(
            items.contains {
                $0.rendered.hasPrefix("\(tmp.path)/p.json:3:")
                    && $0.message
                        == "data[0].attributes.proceedsYear2: USD 5.99 is more than the customer price USD 4.99"
            }, "\(items.map(\.rendered))")
        // Equal to the price is Apple's own figure at no commission: accepted.
        try tmp.write(
            "q.json",
            F.applePoints([
                .init(
                    territory: "USA", currency: "USD", price: "4.99", proceeds: "3.49",
                    year2: "4.99")
            ]))
        #expect(try ApplePriceList.load([("p", "\(tmp.path)/q.json")])["p"] != nil)
    }

    @Test func whatApplesFileLeavesUncheckedIsAWarning() throws {
        let m = try margins(points: F.points)
        let usa = try #require(m.appleRows.first { $0.point.territory == "USA" })
        #expect(usa.yearOne != nil && usa.afterYearOne == nil)
        let jpn = try #require(m.appleRows.first { $0.point.territory == "JPN" })
        #expect(jpn.worst == nil && jpn.yearOne == nil)
        let rules = m.inputWarnings.map { "\($0.rule?.id ?? "") \($0.message)" }
        #expect(
            rules.contains {
                $0.hasPrefix("apple-proceeds p in USA: Apple's file states no proceedsYear2")
                    && $0.hasSuffix(
                        "the margin after one year of paid service is not computed and its floor is not checked here"
                    )
            })
        #expect(
            rules.contains {
                $0.hasPrefix("storefront-fx p in JPN: no FX rate from CNY to JPY")
                    && $0.hasSuffix("the margin floor is not checked here")
            })
        // `margin check` reports both, so the run is never "0 warnings".
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, pricePoints) = try F.write(tmp)
        var options = CardChecker.Options(now: try Timestamp(rfc3339: "2026-11-01T00:00:00Z"))
        options.storefronts = try StorefrontArguments(
            pricePoints: ["p=\(pricePoints)"], at: "2026-12-01", program: nil,
            today: CalendarDate("2026-12-01")!)
        let report = CardChecker.check(paths: [cards], options: options)
        let ids = report.diagnostics.compactMap(\.rule?.id)
        #expect(ids.contains("apple-proceeds") && ids.contains("storefront-fx"))
        #expect(report.exitCode == 0)
    }

    @Test func anApplePointAtZeroIsAFinding() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, pricePoints) = try F.write(
            tmp,
            points: [
                .init(territory: "CHN", currency: "CNY", price: "0", proceeds: "0", year2: "0")
            ])
        let m = try margins(points: [
            .init(territory: "CHN", currency: "CNY", price: "0", proceeds: "0", year2: "0")
        ])
        // The margin is the whole worst case lost; a share of a price of 0 is none.
        let chn = try #require(m.appleRows.first)
        #expect(chn.yearOne?.margin == cnyMoney("-9.3") && chn.yearOne?.share == nil)
        var options = CardChecker.Options(now: try Timestamp(rfc3339: "2026-11-01T00:00:00Z"))
        options.storefronts = try StorefrontArguments(
            pricePoints: ["p=\(pricePoints)"], at: "2026-12-01", program: nil,
            today: CalendarDate("2026-12-01")!)
        let d = CardChecker.check(paths: [cards], options: options).diagnostics
        #expect(
            d.contains {
                $0.rule?.id == "free-price" && $0.severity == .error
                    && $0.message.hasPrefix(
                        "subscription \"p\" in CHN is priced at CNY 0.00 in Apple's file")
            })
    }

    // MARK: case 11: one spelling, the free tier in CSV

    @Test func theProgramHasOneSpelling() throws {
        let m = try margins(program: .smallBusiness)
        #expect(m.programs.map(\.name) == ["small-business"])
        for format in OutputFormat.allCases {
            let out = PlanReport([m]).render(format)
            #expect(out.contains("small-business"), "\(format)")
            #expect(!out.contains("small business"), "\(format)")
        }
    }

    @Test func csvCarriesTheFreeTiersShareAndCovered() throws {
        let m = try margins()
        let csv = PlanReport([m]).render(.csv)
        let header = try #require(csv.split(separator: "\n").first)
        #expect(header.hasSuffix(",territory,storefront,free_tier_share,free_tier_covered,fx"))
        // CNY, standard: year one 12 × 11.70 = 140.40 against 21.96 a year (366 × 0.06):
        // 15.6%, 6 covered; later 194.40: 8 covered.
        let std = try #require(try row(m, "CNY").lines.first { $0.program == .standard })
        let f = try #require(std.freeUsers)
        #expect(f.yearOneShare == (try exact("21.96").divided(by: exact("140.4"))))
        #expect(f.yearOneCovered == 6 && f.laterYearCovered == 8)
        #expect(
            csv.contains(
                "t@1,year-one,p,P1M,CNY,30,9.3,standard,0.3,21,11.7,0.39,12,140.4,,,,\(f.yearOneShare!.decimalText()),6,\n"
            ))
        #expect(
            csv.contains(
                "t@1,later-year,p,P1M,CNY,30,9.3,standard,0.15,25.5,16.2,0.54,12,194.4,,,,\(f.laterYearShare!.decimalText()),8,\n"
            ))
    }

    @Test func aLosingPlanHasNoShareAndCoversNone() throws {
        // CNY 10 a month: 7.00 − 9.30 < 0 in year one; 8.50 − 9.30 < 0 after.
        let plans = """
            [{"productId": "p", "group": "g", "period": "P1M", "prices": [{"currency": "CNY", "amount": "10"}],
              "quotas": [{"feature": "asr", "amount": 300, "reset": "P1D"}]}]
            """
        let (repo, card) = try PlanFixtures.repository(
            card: PlanFixtures.card(subscriptions: plans, freeTier: F.freeTier))
        let m = try PlanMargins(card: card, repository: repo, program: .standard)
        let f = try #require(m.rows[0].lines[0].freeUsers)
        #expect(f.yearOneShare == nil && f.yearOneCovered == 0)
        let json = try JSONParser.parse(PlanReport([m]).render(.json))
        let free = try #require(
            json["cards"]?[0]?["subscriptions"]?[0]?["programs"]?[0]?["freeUsers"])
        #expect(
            free["yearOneShare"]?.value == .null && free["yearOneCovered"]?.value == .string("0"))
        #expect(PlanReport([m]).render(.csv).contains(",no margin,0,\n"))
    }

    // MARK: case 12: an offer priced in only some of the plan's currencies

    @Test func anOfferWithNoPriceInACurrencyIsUnpricedAndWarned() throws {
        let m = try margins()
        let usd = try row(m, "USD")
        let intro = try #require(usd.intro)
        #expect(intro.price == nil)
        #expect(usd.lines.allSatisfy { $0.introMargin == nil })
        // The worst case of the offer's span is still known: 92 days at 0.30 / 7.1.
        #expect(intro.worst.cost.amount == (try exact("27.6").divided(by: exact("7.1"))))
        let w = try #require(m.offerWarnings.first)
        #expect(m.offerWarnings.count == 1)
        #expect(w.rule?.id == "offer-currency" && w.severity == .warning)
        #expect(
            w.message.hasPrefix(
                "subscription \"p\" is priced in USD but its payAsYouGo introductory offer is not"))
        #expect(m.warnings.contains(w))
        let table = PlanReport([m]).render(.table)
        #expect(
            table.contains(
                "t@1   p     payAsYouGo 3 × P1M  USD        unpriced        3.89  standard"))
        let csv = PlanReport([m]).render(.csv)
        #expect(csv.contains("t@1,offer-unpriced,p,P3M,USD,,"))
        let json = try JSONParser.parse(PlanReport([m]).render(.json))
        let subs = try #require(json["cards"]?[0]?["subscriptions"])
        let usdJSON = try #require(subs[1])
        #expect(usdJSON["currency"]?.value == .string("USD"))
        #expect(usdJSON["introductoryOffer"]?["priced"]?.value == .bool(false))
        #expect(usdJSON["introductoryOffer"]?["price"]?.value == .null)
        #expect(usdJSON["programs"]?[0]?["paybackPeriods"] == nil)
        // `margin check` gives the same warning, at the plan's USD price.
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, _) = try F.write(tmp)
        let d = CardChecker.check(paths: [cards]).diagnostics.filter {
            $0.rule?.id == "offer-currency"
        }
        #expect(d.count == 1 && d.first?.location.line == 10)
    }

    @Test func aStorefrontsOfferPriceIsItsOwn() throws {
        let m = try margins()
        // FRA: EUR 0.49 × 3; the general EUR row: 0.99 × 3 (the FRA price is FRA's only).
        #expect(try row(m, "EUR", storefront: "FRA").intro?.price == Money(exact("1.47"), F.eur))
        #expect(try row(m, "EUR").intro?.price == Money(exact("2.97"), F.eur))
    }

    @Test func anOfferPriceWithNoPlanPriceIsWarned() throws {
        let plans = """
            [{"productId": "p", "group": "g", "period": "P1M", "prices": [{"currency": "CNY", "amount": "30"}],
              "introductoryOffer": {"paymentMode": "payUpFront", "period": "P1M",
                                    "prices": [{"currency": "CNY", "amount": "5"}, {"currency": "USD", "amount": "0.99"}]}}]
            """
        let (_, card) = try PlanFixtures.repository(card: PlanFixtures.card(subscriptions: plans))
        let d = PlanMargins.offerFindings(card)
        #expect(d.count == 1)
        #expect(
            d.first?.message
                == "the payUpFront introductory offer of subscription \"p\" is priced in USD but the plan is not: the offer price is never used"
        )
    }

    /// `margin diff`: an unpriced offer is said so (not "never"), and the plans' rates are
    /// named with the packs'.
    @Test func theDiffMarksUnpricedOffersAndNamesThePlansRates() throws {
        var files = F.files
        let v1 = try #require(files["t.json"])
        files["t2.json"] = v1.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
            .replacingOccurrences(of: "2026-12-01T00:00:00Z", with: "2027-01-01T00:00:00Z")
            .replacingOccurrences(of: "\"amount\": \"4.99\"", with: "\"amount\": \"5.99\"")
        let repo = try RateCardTests.repository(files)
        let d = try CardDiff(
            old: try #require(repo.card(reference: "t@1")),
            new: try #require(repo.card(reference: "t@2")), repository: repo)
        let usd = try #require(
            d.plans.margins.first { $0.market.currency == F.usd && $0.program == "standard" })
        #expect(usd.old?.offer == .unpriced && usd.new?.offer == .unpriced)
        let text = d.plain()
        #expect(text.contains("+0.70  unpriced\n"))
        #expect(
            text.contains("FX dated 2026-11-15 (fx.json, placeholder): EUR/CNY 7.8, USD/CNY 7.1"))
        let json = try JSONParser.parse(d.json.rendered())
        #expect(json["fx"]?[0]?["base"]?.value == .string("USD"))
    }
}
