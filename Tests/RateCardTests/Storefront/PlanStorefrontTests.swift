import Foundation
import Testing

@testable import RateCard

/// Plans through the storefront model (issue 26, item 4): each plan price in each storefront
/// it reaches, tax removed per the dated history, year one at the program's rate and after
/// one year of paid service at its reduced rate; `margin check` applies its floor there.
@Suite(.serialized) struct PlanStorefrontTests {
    /// `Tests/RateCardTests/Fixtures/plans-storefront`: a GBP 3.99 monthly plan of 3,000
    /// credits of speech recognition at GBP 0.572 an hour (9,000 s = 2.5 h = GBP 1.43).
    static let fixture = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/plans-storefront"
    ).path
    static let storefrontFile = packageRoot.appendingPathComponent("RateCards/storefronts.json")
        .path

    /// The fixture with the repository's storefront file beside it, in a temporary folder.
    func folder(_ tmp: TemporaryFolder) throws -> String {
        let dest = tmp.url.appendingPathComponent("uk").path
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: dest)
        try FileManager.default.copyItem(
            atPath: Self.storefrontFile, toPath: dest + "/storefronts.json")
        return dest
    }

    func margins(_ dir: String, on day: String = "2026-12-01") throws -> PlanMargins {
        let repo = try CardRepository.load(paths: [dir])
        let card = try #require(repo.card(reference: "uk@1"))
        return try PlanMargins(card: card, repository: repo, date: try #require(CalendarDate(day)))
    }

    /// Issue 26's case. The card's price × 0.70 = 2.793 leaves 2.793 − 1.43 = 1.36; Apple
    /// removes the UK's 20% VAT first: 3.99 ÷ 1.2 = 3.325 × 0.70 = 2.3275 → 2.33, which is
    /// what Apple pays, leaving 0.90 (22.6%). After a year: 3.325 × 0.85 = 2.82625 → 2.83,
    /// leaving 1.40. The Small Business Program: 2.83 throughout. The currency row (GBP
    /// reaches one storefront, GBR) shows the same figures; without a storefront file it is
    /// the card's price × (1 − commission), tax not removed.
    @Test func theGBP399PlanPaysWhatApplePays() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let m = try margins(try folder(tmp))
        let currencyRow = try #require(m.rows.first?.lines.first)
        #expect(currencyRow.program == .standard)
        #expect(currencyRow.storefront?.territory == "GBR")
        #expect(currencyRow.yearOne.proceeds.amount == exact("2.33"))
        #expect(currencyRow.yearOne.modelled?.exact.amount == exact("2.3275"))
        #expect(currencyRow.yearOne.margin.amount == exact("0.9"))
        #expect(currencyRow.yearOne.rate == exact("0.3"))
        #expect(currencyRow.afterYearOne.proceeds.amount == exact("2.83"))
        #expect(currencyRow.afterYearOne.margin.amount == exact("1.4"))
        #expect(currencyRow.afterYearOne.rate == exact("0.15"))
        #expect(currencyRow.yearOneTotal.amount == exact("10.8"))
        #expect(currencyRow.laterYearTotal.amount == exact("16.8"))
        let smallLine = try #require(m.rows.first?.lines.last)
        #expect(smallLine.program == .smallBusiness)
        #expect(smallLine.yearOne.proceeds.amount == exact("2.83"))
        #expect(smallLine.afterYearOne.proceeds.amount == exact("2.83"))
        // The fixture alone (no storefront file): the old figures, tax not removed.
        let bare = try CardRepository.load(paths: [Self.fixture])
        let bareCard = try #require(bare.card(reference: "uk@1"))
        let old = try #require(
            try PlanMargins(
                card: bareCard, repository: bare, date: try #require(CalendarDate("2026-12-01"))
            ).rows.first?.lines.first)
        #expect(old.storefront == nil)
        #expect(old.yearOne.modelled == nil)
        #expect(old.yearOne.proceeds.amount == exact("2.793"))
        #expect(old.yearOne.margin.amount == exact("1.363"))
        #expect(old.afterYearOne.proceeds.amount == exact("3.3915"))
        let standard = try #require(
            m.storefrontRows.first { $0.storefront.territory == "GBR" && $0.program == .standard })
        #expect(m.storefrontRows.count == 2)
        #expect(standard.worst.cost.amount == exact("1.43"))
        #expect(standard.yearOne.proceeds.taxExclusive.amount == exact("3.325"))
        #expect(standard.yearOne.proceeds.exact.amount == exact("2.3275"))
        #expect(standard.yearOne.proceeds.rounded.amount == exact("2.33"))
        #expect(standard.yearOne.margin.amount == exact("0.9"))
        #expect(standard.yearOne.share == (try exact("0.9").divided(by: exact("3.99"))))
        #expect(standard.yearOne.proceeds.digitalServicesTax.amount == .zero)
        let after = try #require(standard.afterYearOne)
        #expect(standard.laterProgram == .subscriptionAfterOneYear)
        #expect(after.proceeds.exact.amount == exact("2.82625"))
        #expect(after.proceeds.rounded.amount == exact("2.83"))
        #expect(after.margin.amount == exact("1.4"))
        let small = try #require(m.storefrontRows.first { $0.program == .smallBusiness })
        #expect(small.yearOne.proceeds.rounded.amount == exact("2.83"))
        #expect(small.afterYearOne?.proceeds.rounded.amount == exact("2.83"))
        #expect(standard.taxPhrase == "20.0% VAT removed")
    }

    /// `margin check --min-margin 25` fails the plan in the UK in year one (22.6%), naming the
    /// storefront, the tax removed and the regime; after a year (35.1%) it passes.
    @Test func checkAppliesTheFloorPerStorefront() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        var options = CardChecker.Options(minMargin: exact("0.25"))
        options.storefronts = try StorefrontArguments(
            pricePoints: [], at: "2026-12-01", program: nil,
            today: try #require(CalendarDate("2026-12-01")))
        let found = CardChecker.check(paths: [dir], options: options).diagnostics.filter {
            $0.rule?.id == "min-margin"
        }
        #expect(found.count == 1)
        #expect(
            found.first?.message
                == "subscription \"uk.monthly\" at GBP 3.99 a month in GBR (United Kingdom): the worst-case margin of a period in year one (30% standard; 20.0% VAT removed) is GBP 0.90 (22.6% of the price), below the 25.0% floor; modelled proceeds GBP 2.33 (\(dir)/storefronts.json (dated 2026-12-01), on 2026-12-01), worst-case cost GBP 1.43 as 3,000 credits as 3,000 × 3 s of asr.second for 1 credit (billed 3 s)"
        )
        #expect(found.first?.location.line == 21)
        // At 30% the card's price × 0.70 would pass (34.2%); the storefront's 22.6% fails, and
        // after a year 35.1% passes.
        var at30 = options
        at30.minMargin = exact("0.3")
        let strict = CardChecker.check(paths: [dir], options: at30).diagnostics.filter {
            $0.rule?.id == "min-margin"
        }
        #expect(strict.count == 1)
        #expect(strict.first?.message.contains("in year one (30% standard") == true)
    }

    /// The built binary: the JSON carries the storefront rows as exact strings, the table
    /// names the storefront, and both say where the data comes from.
    @Test func thePlansCommandShowsTheStorefronts() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let json = try runMargin([
            "plans", "--cards", dir, "--at", "2026-12-01", "--format", "json",
        ])
        #expect(json.status == 0)
        #expect(json.stderr.isEmpty)
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let card = try #require((parsed["cards"] as? [[String: Any]])?.first)
        let rows = try #require(card["storefronts"] as? [[String: Any]])
        let gbr = try #require(rows.first { ($0["program"] as? String) == "standard" })
        #expect(gbr["territory"] as? String == "GBR")
        #expect(gbr["taxExclusivePrice"] as? String == "3.325")
        // A year: 12 × 0.90 = 10.80 in year one, 12 × 1.40 = 16.80 in a later year.
        #expect(gbr["yearOneMargin"] as? String == "10.8")
        #expect(gbr["laterYearMargin"] as? String == "16.8")
        let one = try #require(gbr["yearOne"] as? [String: Any])
        #expect(one["proceeds"] as? String == "2.33")
        #expect(one["proceedsExact"] as? String == "2.3275")
        #expect(one["margin"] as? String == "0.9")
        let later = try #require(gbr["afterYearOne"] as? [String: Any])
        #expect(later["program"] as? String == "subscription-after-one-year")
        #expect(later["proceeds"] as? String == "2.83")
        #expect((card["storefrontData"] as? [String: Any])?["on"] as? String == "2026-12-01")
        let table = try runMargin(["plans", "--cards", dir, "--at", "2026-12-01"])
        #expect(table.status == 0)
        #expect(
            table.stdout.contains(
                "uk@1  uk.monthly  GBR        GBP        3.99  20.0%  standard        30% → 15%          2.33       0.90        22.6%            2.83          1.40           35.1%"
            ))
        #expect(table.stdout.contains("By currency, in the storefront that pays least"))
        #expect(table.stdout.contains("GBR (20.0% VAT removed)"))
        let csv = try runMargin(["plans", "--cards", dir, "--at", "2026-12-01", "--format", "csv"])
        #expect(
            csv.stdout.contains(
                "uk@1,storefront-year-one,uk.monthly,P1M,GBP,3.99,1.43,standard,0.3,2.33,0.9,0.225563909774,,,,GBR,,,,"
            ))
    }

    /// Offers, payback and the free tier's share on the currency row's storefront proceeds,
    /// worked by hand. The GBP 3.99 plan gets a GBP 0.99 offer paid up front for three months
    /// and a free tier of 900 s of speech a month (0.25 h × 0.572 = GBP 0.143; 12 months:
    /// GBP 1.716).
    /// - Offer: 0.99 ÷ 1.2 = 0.825 × 0.70 = 0.5775 → 0.58 (half-even); its worst case is three
    ///   months of credits, 3 × 1.43 = 4.29; margin 0.58 − 4.29 = −3.71. Payback: periods of
    ///   0.90 until −3.71 is earned back: 3.71 ÷ 0.90 = 4.12 → 5 (the card's price × 0.70 would
    ///   say 0.693 − 4.29 = −3.597 and 3.597 ÷ 1.363 = 2.64 → 3).
    /// - Free tier: year one 12 × 0.90 = 10.80 covers floor(10.80 ÷ 1.716) = 6 free users
    ///   (share 1.716 ÷ 10.80); a later year 12 × 1.40 = 16.80 covers 9 (with tax left in:
    ///   12 × 1.363 = 16.356 would cover 9 in year one).
    /// A plan priced in GBP only reaches one of the data's storefronts: the notes and the
    /// JSON name the other 174 rather than let "every storefront" stand for one.
    @Test func aPlanNamesTheStorefrontsItsPricesDoNotReach() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let m = try margins(try folder(tmp))
        let coverage = try #require(m.storefrontCoverage.first)
        #expect(coverage.plan.productId == "uk.monthly")
        #expect(coverage.coverage.shownCount == 1 && coverage.coverage.missingCount == 174)
        #expect(coverage.coverage.missing.allSatisfy { $0.currency.code != "GBP" })
        #expect(
            m.notes.contains {
                $0.hasPrefix("subscription \"uk.monthly\" shown in 1 of the 175 storefronts")
            })
        let json = PlanReport([m]).renderJSON()
        #expect(json.contains("\"notShown\""))
        #expect(json.contains("\"plan\": \"uk.monthly\""))
    }

    @Test func offersPaybackAndTheFreeTierUseStorefrontProceeds() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let path = dir + "/uk-v1.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "\"credits\": 3000\n",
            with:
                "\"credits\": 3000,\n      \"introductoryOffer\": {\"paymentMode\": \"payUpFront\", \"period\": \"P3M\", \"prices\": [{\"currency\": \"GBP\", \"amount\": \"0.99\"}]}\n"
        )
        text = text.replacingOccurrences(
            of: "\"placeholders\"",
            with:
                "\"freeTier\": {\"allowances\": [{\"feature\": \"asr\", \"amount\": 900, \"reset\": \"P1M\"}]},\n  \"placeholders\""
        )
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let m = try margins(dir)
        let row = try #require(m.rows.first)
        let intro = try #require(row.intro)
        #expect(intro.worst.cost.amount == exact("4.29"))
        let line = try #require(row.lines.first { $0.program == .standard })
        #expect(line.storefront?.territory == "GBR")
        #expect(line.introMargin?.amount == exact("-3.71"))
        #expect(line.paybackPeriods == 5)
        #expect(m.freeTier?.perYear.cost.amount == exact("1.716"))
        let free = try #require(line.freeUsers)
        #expect(free.yearOneShare == (try exact("1.716").divided(by: exact("10.8"))))
        #expect(free.yearOneCovered == 6)
        #expect(free.laterYearShare == (try exact("1.716").divided(by: exact("16.8"))))
        #expect(free.laterYearCovered == 9)
        // The JSON says where the proceeds come from.
        let json = try runMargin([
            "plans", "--cards", dir, "--at", "2026-12-01", "--format", "json",
        ])
        #expect(json.status == 0)
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let card = try #require((parsed["cards"] as? [[String: Any]])?.first)
        let plan = try #require((card["subscriptions"] as? [[String: Any]])?.first)
        let standard = try #require(
            (plan["programs"] as? [[String: Any]])?.first { $0["program"] as? String == "standard" }
        )
        #expect(standard["proceedsStorefront"] as? String == "GBR")
        #expect(standard["offerMargin"] as? String == "-3.71")
        let one = try #require(standard["yearOne"] as? [String: Any])
        #expect(one["proceeds"] as? String == "2.33")
        #expect(one["taxRemoved"] as? Bool == true)
        #expect(one["vat"] as? String == "0.2")
    }

    /// A currency that reaches several storefronts is judged in the one that pays least: a
    /// EUR 4.99 plan (worst case EUR 1.43) on 2025-08-21 under the standard program. The
    /// row's storefront pays no more than any storefront row of the same price, and its
    /// proceeds are that storefront's.
    @Test func aCurrencyRowIsTheStorefrontThatPaysLeast() throws {
        let provider = """
            {"kind": "provider", "id": "asr-sheet", "currency": "EUR", "reviewed": "2025-01-01", "source": "https://example.com",
             "meters": [{"key": "audio", "unit": "second", "per": "3600", "price": "0.572"}]}
            """
        let card = PlanFixtures.card(
            subscriptions: """
                [{"productId": "eu.monthly", "group": "g", "period": "P1M", "credits": 3000,
                  "prices": [{"currency": "EUR", "amount": "4.99"}]}]
                """)
        let storefronts = try String(contentsOfFile: Self.storefrontFile, encoding: .utf8)
        let repo = try repository([
            "t.json": card, "providers/asr.json": provider, "storefronts.json": storefronts,
        ])
        let plan = try #require(repo.cards.first)
        let m = try PlanMargins(
            card: plan, repository: repo, date: try #require(CalendarDate("2025-08-21")),
            program: .standard)
        let line = try #require(m.rows.first?.lines.first)
        let basis = try #require(line.storefront)
        let rows = m.storefrontRows
        #expect(rows.count == 25)
        let least = try #require(rows.map { $0.yearOne.proceeds.exact.amount }.min())
        let mine = try #require(rows.first { $0.storefront.territory == basis.territory })
        #expect(mine.yearOne.proceeds.exact.amount == least)
        #expect(line.yearOne.proceeds == mine.yearOne.proceeds.rounded)
        #expect(line.afterYearOne.proceeds == mine.afterYearOne?.proceeds.rounded)
        // Italy: 22% VAT and a 3% DST: 4.99 ÷ 1.22 = 4.0902 × 0.70 − 0.1227 = 2.7404 → 2.74,
        // below Finland's 25.5% (4.99 ÷ 1.255 × 0.70 = 2.7833 → 2.78).
        #expect(basis.territory == "ITA")
        #expect(line.yearOne.proceeds.amount == exact("2.74"))
        #expect(line.yearOne.margin.amount == exact("1.31"))
    }

    /// `margin report`'s storefront section covers the plans, on the storefront file's date.
    @Test func theReportsStorefrontSectionCoversPlans() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let repo = try CardRepository.load(paths: [dir])
        let card = try #require(repo.card(reference: "uk@1"))
        let md = try CardReport(
            card: card, repository: repo, paths: ReportPaths(cardsDirectory: dir)
        ).markdown()
        #expect(md.contains("## Every storefront"))
        #expect(md.contains("Subscriptions in every storefront"))
        #expect(
            md.contains(
                "| uk@1 | uk.monthly | GBR | GBP | 3.99 | 20.0% | standard | 30% → 15% | 2.33 | 0.90 | 22.6% | 2.83 | 1.40 | 35.1% |"
            ))
    }

    /// A dated tax change: Estonia's VAT 22% → 24% on 2025-08-21 (Apple's date), a EUR 4.99
    /// plan whose worst case is EUR 1.43. The day before: 4.99 ÷ 1.22 × 0.70 = 2.8631 → 2.86,
    /// margin 1.43; after a year × 0.85 = 3.4766 → 3.48, margin 2.05. The day of it:
    /// 4.99 ÷ 1.24 × 0.70 = 2.8169 → 2.82, margin 1.39; after a year 3.4206 → 3.42, margin
    /// 1.99. Germany (19%, unchanged) pays 4.99 ÷ 1.19 × 0.70 = 2.9353 → 2.94 on both days.
    @Test func aDatedTaxChangeMovesThePlansMargin() throws {
        let provider = """
            {"kind": "provider", "id": "asr-sheet", "currency": "EUR", "reviewed": "2025-01-01", "source": "https://example.com",
             "meters": [{"key": "audio", "unit": "second", "per": "3600", "price": "0.572"}]}
            """
        let card = PlanFixtures.card(
            subscriptions: """
                [{"productId": "eu.monthly", "group": "g", "period": "P1M", "credits": 3000,
                  "prices": [{"currency": "EUR", "amount": "4.99"}]}]
                """)
        let storefronts = try String(contentsOfFile: Self.storefrontFile, encoding: .utf8)
        let repo = try repository([
            "t.json": card, "providers/asr.json": provider, "storefronts.json": storefronts,
        ])
        let plan = try #require(repo.cards.first)
        func row(_ day: String, _ territory: String) throws -> PlanStorefrontRow {
            let m = try PlanMargins(
                card: plan, repository: repo, date: try #require(CalendarDate(day)),
                program: .standard)
            return try #require(m.storefrontRows.first { $0.storefront.territory == territory })
        }
        let before = try row("2025-08-20", "EST")
        let after = try row("2025-08-21", "EST")
        #expect(before.yearOne.proceeds.taxes.vat == exact("0.22"))
        #expect(after.yearOne.proceeds.taxes.vat == exact("0.24"))
        #expect(before.yearOne.proceeds.rounded.amount == exact("2.86"))
        #expect(before.yearOne.margin.amount == exact("1.43"))
        #expect(before.afterYearOne?.proceeds.rounded.amount == exact("3.48"))
        #expect(before.afterYearOne?.margin.amount == exact("2.05"))
        #expect(after.yearOne.proceeds.rounded.amount == exact("2.82"))
        #expect(after.yearOne.margin.amount == exact("1.39"))
        #expect(after.afterYearOne?.proceeds.rounded.amount == exact("3.42"))
        #expect(after.afterYearOne?.margin.amount == exact("1.99"))
        for day in ["2025-08-20", "2025-08-21"] {
            #expect(try row(day, "DEU").yearOne.proceeds.rounded.amount == exact("2.94"))
        }
        // Every EUR storefront of the data, each once for the one program asked for.
        let m = try PlanMargins(
            card: plan, repository: repo, date: try #require(CalendarDate("2025-08-21")),
            program: .standard)
        #expect(m.storefrontRows.count == 25)
        // The EU alternative terms exist only in the EU's storefronts (17% + 3% → 10% + 3%):
        // none for Montenegro, which prices in EUR outside the EU.
        let eu = try PlanMargins(
            card: plan, repository: repo, date: try #require(CalendarDate("2025-08-21")),
            program: .euAlternative)
        #expect(eu.storefrontRows.allSatisfy { $0.laterProgram == .euAlternativeReduced })
        #expect(!eu.storefrontRows.contains { $0.storefront.territory == "MNE" })
        let deu = try #require(eu.storefrontRows.first { $0.storefront.territory == "DEU" })
        // 4.99 ÷ 1.19 × 0.80 = 3.3546 → 3.35; after a year × 0.87 = 3.6481 → 3.65.
        #expect(deu.yearOne.proceeds.rounded.amount == exact("3.35"))
        #expect(deu.afterYearOne?.proceeds.rounded.amount == exact("3.65"))
    }
    /// Which storefronts a plan price reaches: a generic price every storefront of its
    /// currency but those the plan prices on their own (EUR 2.99: 24 of the 25 EUR
    /// storefronts; FRA takes its EUR 2.49), and none that Apple's file gives (CHN, USA: Apple's
    /// figures there). France has no DST deducted (Apple's EUR points of 2023-04-07):
    /// 2.49 ÷ 1.2 = 2.075 × 0.70 = 1.4525 → 1.45.
    @Test func whichStorefrontsAPlanPriceReaches() throws {
        var files = PlanTrustFixtures.files
        files["storefronts.json"] = try String(contentsOfFile: Self.storefrontFile, encoding: .utf8)
        let repo = try repository(files)
        let card = try #require(repo.cards.first)
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write(
            "p.json",
            PlanTrustFixtures.applePoints([
                .init(
                    territory: "CHN", currency: "CNY", price: "30", proceeds: "21", year2: "25.5"),
                .init(
                    territory: "USA", currency: "USD", price: "4.99", proceeds: "3.49",
                    year2: "4.24"),
            ]))
        let lists = try ApplePriceList.load([("p", "\(tmp.path)/p.json")])
        let m = try PlanMargins(
            card: card, repository: repo, priceLists: lists,
            date: try #require(CalendarDate("2026-12-01")), program: .standard)
        let byCurrency = Dictionary(grouping: m.storefrontRows) { $0.price.price.currency.code }
        #expect(byCurrency["CNY"] == nil)
        #expect(byCurrency["USD"]?.count == 108)
        #expect(byCurrency["USD"]?.contains { $0.storefront.territory == "USA" } == false)
        #expect(m.appleRows.map(\.point.territory).sorted() == ["CHN", "USA"])
        let eur = try #require(byCurrency["EUR"])
        #expect(eur.count == 25)
        let fra = eur.filter { $0.storefront.territory == "FRA" }
        #expect(fra.count == 1)
        #expect(fra.first?.price.price.amount == exact("2.49"))
        #expect(fra.first?.yearOne.proceeds.exact.amount == exact("1.4525"))
        #expect(fra.first?.yearOne.proceeds.rounded.amount == exact("1.45"))
        #expect(fra.first?.taxPhrase == "20.0% VAT removed")
        #expect(eur.filter { $0.price.price.amount == exact("2.99") }.count == 24)
    }
}
