import Foundation
import Testing

@testable import RateCard

/// Issue 24, storefronts cases 1–8: each through the library and through the built binary.
@Suite(.serialized) struct StorefrontTrustTests {
    static let date = CalendarDate("2026-12-01")!
    typealias F = StorefrontTrustFixture
    typealias P = StorefrontTrustFixture.Point

    func row(_ m: StorefrontMargins, _ territory: String, pack: String = "3000tks") throws
        -> StorefrontMargins.Row
    {
        try #require(m.rows.first { $0.pack.productId == pack && $0.territory == territory })
    }

    /// The France price of the card, after a generic EUR price.
    static let france = F.pricesWith(
        #"{ "currency": "EUR", "amount": "2.99" }"#,
        #"{ "currency": "EUR", "amount": "2.49", "storefront": "FRA" }"#)

    // MARK: 1. A storefront's own price

    @Test func storefrontPriceWinsOverTheCurrencyPrice() throws {
        let (repo, card) = try F.load(try F.files(card: [Self.france]))
        let m = try StorefrontMargins(card: card, repository: repo, date: Self.date)
        let fra = try row(m, "FRA")
        #expect(fra.customerPrice.amount == exact("2.49"))
        // 2.49 ÷ 1.20 = 2.075; × 0.70 = 1.4525 → 1.45 (no DST: Apple's EUR points of
        // 2023-04-07 deduct none in France). Cost 11.25 × 0.86 ÷ 7.10 = 1.3627; margin
        // 1.45 − 1.3627 = 0.0873, 3.5% of 2.49.
        #expect(fra.proceeds?.amount == exact("1.45"))
        #expect(Format.percent(try #require(fra.marginShare)) == "3.5%")
        #expect(try row(m, "DEU").customerPrice.amount == exact("2.99"))
        // Still not the worst: Zimbabwe's USD 2.99 ÷ 1.155 = 2.5887; × 0.70 − 5% DST of it =
        // 1.6827 → 1.68; margin 1.68 − 11.25 ÷ 7.10 = 0.0955, 3.2% of 2.99.
        #expect(Format.percent(try #require(try row(m, "ZWE").marginShare)) == "3.2%")
        #expect(m.worstPerPack.first { $0.pack.productId == "3000tks" }?.territory == "ZWE")
        // The check rule and the report read the same row.
        let report = try CardReport(
            card: card, repository: repo, paths: ReportPaths(cardsDirectory: "RateCards"))
        #expect(
            report.storefrontSection().contains {
                $0.contains("| `3000tks` | FRA (France) | EUR | 2.49 |") && $0.contains("| 3.5% |")
            })
    }

    @Test func storefrontPriceThroughTheBinary() throws {
        let tmp = try F.folder(try F.files(card: [Self.france]))
        defer { tmp.cleanup() }
        let r = try expectMargin(
            ["storefronts", "osg", "--at", "2026-12-01"], in: tmp.path, exits: 0,
            stdout: .contains("3000tks  FRA        EUR        2.49"))
        let fra = r.stdout.split(separator: "\n").first { $0.contains("3000tks  FRA") } ?? ""
        #expect(fra.hasSuffix("3.5%"), "\(fra)")
        try expectMargin(
            [
                "check", "RateCards", "--min-margin", "10", "--at", "2026-12-01", "--now",
                F.draftTime,
            ],
            in: tmp.path, exits: 1,
            stderr: .contains(
                "error: pack \"3000tks\" in FRA (France): the worst-case margin at EUR 2.49 is EUR 0.09 (3.5% of the price), below the 10.0% floor"
            ))
    }

    // MARK: 2. A price point of 0, a losing price

    static let freeAndLosing = [
        P(territory: "DEU", currency: "EUR", price: "0.0", proceeds: "0.0"),
        P(territory: "JPN", currency: "JPY", price: "100", proceeds: "64"),
        P(territory: "USA", currency: "USD", price: "2.99", proceeds: "2.09"),
    ]

    @Test func freeAndLosingPointsFailAndRankWorst() throws {
        let (repo, card) = try F.load(try F.files())
        let m = try StorefrontMargins(
            card: card, repository: repo, priceLists: try F.list(Self.freeAndLosing),
            date: Self.date)
        let deu = try row(m, "DEU")
        #expect(deu.isFree && deu.marginShare == nil)
        #expect(deu.margin?.amount == (try Exact(-9675, over: 7100)))  // 0 − EUR 1.3627
        #expect(m.worstPerPack.first { $0.pack.productId == "3000tks" }?.territory == "DEU")
        #expect(m.rows.first?.territory == "DEU")
        // JPY 64 − 11.25 × 152 ÷ 7.10 = JPY 64 − 240.85: a loss, ranked before the USA.
        let jpn = try row(m, "JPN")
        #expect(try #require(jpn.marginShare).isNegative)
        let findings = CardChecker.storefrontFindings(
            [try loaded(card)], repository: repo, lists: try F.list(Self.freeAndLosing),
            arguments: try StorefrontArguments(
                pricePoints: [], at: "2026-12-01", program: nil, today: Self.date),
            floor: .zero, fx: repo.fx)
        let margins = findings.filter { $0.rule == .check(.storefrontMargin) }
        #expect(
            margins.contains {
                $0.message.contains(
                    "in DEU (Germany): Apple's price is EUR 0.00, so 3,000 credits are given away")
            })
        #expect(
            margins.contains {
                $0.message.contains("in JPN (Japan): the worst-case margin at JPY 100")
            })
        #expect(!margins.contains { $0.message.contains("in USA") })
    }

    @Test func freeAndLosingThroughTheBinary() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("points.json", F.pricePoints(Self.freeAndLosing))
        let points = "3000tks=" + tmp.path + "/points.json"
        try expectMargin(
            ["check", "--min-margin", "0", "--at", "2026-12-01", "--price-points", points],
            exits: 1,
            stderr: .contains(
                "points.json:1:11: error: pack \"3000tks\" in DEU (Germany): Apple's price is EUR 0.00, so 3,000 credits are given away; the worst-case margin is EUR -1.36",
                "pack \"3000tks\" in JPN (Japan): the worst-case margin at JPY 100 is JPY -177"))
        let r = try expectMargin(
            ["storefronts", "osg", "--at", "2026-12-01", "--price-points", points], exits: 0)
        let worst = r.stdout.components(separatedBy: "worst storefront per pack:").last ?? ""
        #expect(worst.contains("3000tks  DEU"), "\(worst)")
        let deu = r.stdout.split(separator: "\n").first { $0.contains("osg@10  3000tks  DEU") }
        #expect(deu?.hasSuffix("free") == true, "\(deu ?? "")")
    }

    // MARK: 3. --fx

    @Test func checkUsesFXAndCreditsTheCommandLine() throws {
        let page1 = "3000tks=" + StorefrontFixtures.path("3000tks-equalizations-page1.json")
        let page2 = "3000tks=" + StorefrontFixtures.path("3000tks-equalizations-page2.json")
        let (repo, card) = try F.load(try F.files())
        let fx = repo.fx.overriding(with: [
            FXRate(
                base: .usd, quote: Currency(code: "EUR")!, rate: exact("2"), fromCommandLine: true)
        ])
        let lists = try StorefrontFixtures.list(
            "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json")
        let m = try StorefrontMargins(
            card: card, repository: repo, priceLists: lists, date: Self.date, fx: fx)
        let deu = try row(m, "DEU")
        // EUR 1.76 − 11.25 × 2 ÷ 7.10 = 1.76 − 3.1690 = −1.4090: −47.1% of 2.99
        #expect(Format.percent(try #require(deu.marginShare)) == "-47.1%")
        #expect(deu.fxUsed.contains { $0.fromCommandLine && $0.rate == exact("2") })
        try expectMargin(
            [
                "check", "--at", "2026-12-01", "--price-points", page1, "--price-points", page2,
                "--fx", "USD/EUR=2",
            ], exits: 1,
            stderr: .contains(
                "pack \"3000tks\" in DEU (Germany): the worst-case margin at EUR 2.99 is EUR -1.41 (-47.1% of the price), below the 0.0% floor",
                "USD/EUR 2 (given on the command line)"))
        try expectMargin(
            ["check", "--at", "2026-12-01", "--price-points", page1, "--price-points", page2],
            exits: 0)
        let r = try expectMargin(
            [
                "storefronts", "osg", "--at", "2026-12-01", "--price-points", page1,
                "--price-points", page2, "--fx", "USD/EUR=2",
            ], exits: 0, stdout: .contains("FX given on the command line: USD/EUR 2"))
        let fileLine = r.stdout.split(separator: "\n").first { $0.hasPrefix("FX dated") } ?? ""
        #expect(!fileLine.contains("USD/EUR"), "\(fileLine)")
        let json = try runMargin([
            "storefronts", "osg", "--at", "2026-12-01", "--price-points", page1,
            "--price-points", page2, "--fx", "USD/EUR=2", "--format", "json",
        ])
        #expect(
            json.stdout.contains(
                #"{"base": "USD", "from": "command line", "quote": "EUR", "rate": "2"}"#)
                || json.stdout.contains(#""from": "command line""#))
    }

    // MARK: 4. A schedule without include=

    @Test func scheduleWithoutIncludeIsAnError() throws {
        #expect(throws: Diagnostics.self) {
            try StorefrontFixtures.list("3000tks-schedule-no-include.json")
        }
        let errors = StorefrontFixtures.errors("3000tks-schedule-no-include.json")
        #expect(errors.count == 4)
        #expect(
            errors.allSatisfy {
                $0.message.contains(
                    "is not in included[] (save the schedule with include=manualPrices,automaticPrices)"
                )
            })
        // A schedule saved with links only: no ids to name, and still an error.
        let linksOnly =
            #"{"data": {"type": "inAppPurchasePriceSchedules", "id": "1", "relationships": {"manualPrices": {"links": {"self": "x"}}}}}"#
        #expect(throws: Diagnostics.self) {
            try AppStoreConnectFile.read(try JSONParser.parse(linksOnly), path: "s.json")
        }
        try expectMargin(
            [
                "check", "--at", "2026-12-01", "--price-points",
                "3000tks=" + StorefrontFixtures.path("3000tks-schedule-no-include.json"),
            ], exits: 2,
            stderr: .contains(
                "3000tks-schedule-no-include.json:26:19: error: data.relationships.manualPrices.data[0].id: price"
            ))
    }

    // MARK: 5. Apple's price differs from the card's

    @Test func applePriceDiffersFromTheCard() throws {
        let points = [P(territory: "USA", currency: "USD", price: "3.99", proceeds: "2.79")]
        let (repo, card) = try F.load(try F.files())
        let m = try StorefrontMargins(
            card: card, repository: repo, priceLists: try F.list(points), date: Self.date)
        let finding = try #require(m.findings.first { $0.rule == .check(.applePrice) })
        #expect(finding.severity == .error)
        #expect(
            finding.message.contains(
                "3000tks in USA: Apple's price is USD 3.99 but the card osg@10 prices the pack at USD 2.99 there"
            ))
        #expect(m.exitCode == 1)
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("points.json", F.pricePoints(points))
        for command in [["storefronts", "osg"], ["check"]] {
            try expectMargin(
                command + [
                    "--at", "2026-12-01", "--price-points", "3000tks=\(tmp.path)/points.json",
                ],
                exits: 1,
                stderr: .contains(
                    "points.json:1:11: error: 3000tks in USA: Apple's price is USD 3.99",
                    "[apple-price]"))
        }
    }

    // MARK: 6. A date with no regime in force

    /// The Mini Apps Partner Program starts on 2025-11-13: on 2024-06-01 (inside the tax
    /// histories) no regime of it is in force anywhere.
    @Test func dateOutsideEveryRegimeIsSaid() throws {
        let (repo, card) = try F.load(try F.files())
        let m = try StorefrontMargins(
            card: card, repository: repo, program: .miniAppsPartner,
            date: CalendarDate("2024-06-01")!)
        #expect(!m.rows.isEmpty)
        #expect(m.rows.allSatisfy { $0.gap == .noRegime && $0.margin == nil })
        let gap = try #require(m.gaps.first { $0.rule == .check(.storefrontRegime) })
        #expect(
            gap.message.contains(
                "osg@10: no mini-apps-partner commission regime of the storefront data is in force on 2024-06-01 (its default regimes: from 2025-11-13)"
            ))
        #expect(m.gaps.count == 1, "one finding for the card: \(m.gaps)")
        let r = try expectMargin(
            ["storefronts", "osg", "--at", "2024-06-01", "--program", "mini-apps-partner"],
            exits: 0,
            stdout: .lacks("No storefront prices"),
            stderr: .contains(
                "warning: osg@10: no mini-apps-partner commission regime", "[storefront-regime]"))
        #expect(r.stdout.contains("no regime in force"))
        try expectMargin(
            ["check", "--at", "2024-06-01", "--program", "mini-apps-partner"], exits: 1,
            stderr: .contains(
                "error: osg@10: no mini-apps-partner commission regime of the storefront data is in force on 2024-06-01",
                "the 0.0% floor cannot be checked [storefront-regime]"))
        // Before the tax histories (2000-01-01, before the standard regime too) the cause
        // said is the history: the taxes are unknown whatever the program.
        try expectMargin(
            ["check", "--at", "2000-01-01"], exits: 1,
            stderr: .contains(
                "error: osg@10: the storefront data's tax histories start on 2023-01-01, and 2000-01-01 is before them",
                "the 0.0% floor cannot be checked [storefront-regime]"))
    }

    // MARK: 7. A territory the data lacks; a code that is no territory

    static let andorraAndNowhere = F.pricesWith(
        #"{ "currency": "USD", "amount": "2.99", "storefront": "AND" }"#,
        #"{ "currency": "USD", "amount": "3.49", "storefront": "XYZ" }"#)

    @Test func unknownTerritoriesAreListedOrRefused() throws {
        let files = try F.files(card: [Self.andorraAndNowhere])
        let (repo, card) = try F.load(files)
        let m = try StorefrontMargins(card: card, repository: repo, date: Self.date)
        let arg = try row(m, "AND")
        #expect(arg.gap == .notInData && arg.storefront == nil)
        #expect(arg.worstCost?.amount == (try Exact(1125, over: 710)))  // what is known
        #expect(
            m.gaps.contains { $0.message.contains("3000tks in AND: storefronts.json has no AND") })
        let xyz = try #require(m.findings.first { $0.rule == .check(.storefrontPrice) })
        #expect(
            xyz.severity == .error
                && xyz.message.contains("storefront \"XYZ\", which is no App Store territory"))
        #expect(!m.rows.contains { $0.territory == "XYZ" })
        // Where: the storefront code of the XYZ price in the card.
        let text = files["osg-v10.json"]!
        let line =
            text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("XYZ") }! + 1
        let lineText = String(
            text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1])
        let column =
            lineText.distance(
                from: lineText.startIndex, to: lineText.range(of: #""XYZ""#)!.lowerBound) + 1
        #expect(xyz.location == SourceLocation(line: line, column: column))
        let tmp = try F.folder(files)
        defer { tmp.cleanup() }
        try expectMargin(
            ["check", "RateCards", "--at", "2026-12-01", "--now", F.draftTime], in: tmp.path,
            exits: 1,
            stderr: .contains(
                "RateCards/osg-v10.json:\(line):\(column): error: pack \"3000tks\": the price USD 3.49 is for storefront \"XYZ\", which is no App Store territory",
                "3000tks in AND: RateCards/storefronts.json has no AND",
                "the 0.0% floor cannot be checked [storefront-proceeds]"))
        let r = try expectMargin(
            ["storefronts", "osg", "--cards", "RateCards", "--at", "2026-12-01"], in: tmp.path,
            exits: 1, stderr: .contains("[storefront-price]", "warning: 3000tks in AND"))
        #expect(r.stdout.contains("3000tks  AND        USD        2.99"))
    }

    // MARK: 8. Whole-unit currencies

    static let hungary = [P(territory: "HUN", currency: "HUF", price: "1190", proceeds: "656")]

    @Test func wholeUnitCurrenciesAreToleratedAndRounded() throws {
        let (repo, card) = try F.load(try F.files())
        let hun = try #require(repo.storefronts?.storefront("HUN"))
        #expect(hun.paymentScale == 0 && hun.paymentUnit == .one)
        let m = try StorefrontMargins(
            card: card, repository: repo, priceLists: try F.list(Self.hungary), date: Self.date)
        // 1190 ÷ 1.27 × 0.70 = 655.9055…: Apple pays whole forints, the model rounds to 656.
        #expect(try row(m, "HUN").modelled?.rounded.amount == exact("656"))
        #expect(!m.warnings.contains { $0.rule == .check(.storefrontCrossCheck) })
        #expect(StorefrontMargins.tolerance(hun.currency, storefront: hun) == .one)
        // Without the field the ISO unit (0.01) applies, and Apple's 656 looks like a mistake.
        let (isoRepo, isoCard) = try F.load(
            try F.files(storefronts: [(#", "currencyUnit": "1""#, "")]))
        let iso = try StorefrontMargins(
            card: isoCard, repository: isoRepo, priceLists: try F.list(Self.hungary),
            date: Self.date)
        #expect(iso.warnings.contains { $0.rule == .check(.storefrontCrossCheck) })
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("hun.json", F.pricePoints(Self.hungary))
        try expectMargin(
            [
                "storefronts", "osg", "--at", "2026-12-01", "--price-points",
                "3000tks=\(tmp.path)/hun.json",
            ],
            exits: 0, stderr: .lacks("[storefront-cross-check]"))
    }

    @Test(arguments: [
        (
            #""currencyUnit": "0.5""#,
            "territories[67].currencyUnit: 0.5 is not a unit HUF can be paid in"
        ),
        (
            #""currencyUnit": "0.001""#,
            "territories[67].currencyUnit: 0.001 is not a unit HUF can be paid in"
        ),
    ])
    func badCurrencyUnitNamesTheField(unit: String, message: String) throws {
        let files = try F.files(storefronts: [(#""currencyUnit": "1""#, unit)])
        let diagnostics = loadDiagnostics(files["storefronts.json"]!, path: "storefronts.json")
        #expect(diagnostics.contains { $0.message.hasPrefix(message) }, "\(diagnostics)")
    }

    @Test func oneCurrencyIsPaidInOneUnit() throws {
        let text = StorefrontFileTests.good.replacingOccurrences(
            of: #""tax": "0.19" } ]"#,
            with:
                #""tax": "0.19", "currencyUnit": "1" }, { "territory": "AUT", "name": "Austria", "currency": "EUR", "taxIncluded": true, "tax": "0.2" } ]"#
        )
        let diagnostics = loadDiagnostics(text, path: "s.json")
        #expect(
            diagnostics.contains {
                $0.message.contains("AUT has currencyUnit 0.01 for EUR but DEU")
            },
            "\(diagnostics)")
    }

    func loaded(_ card: RateCard) throws -> CardChecker.LoadedCard {
        let bytes = Array(
            try String(contentsOfFile: repositoryCards + "/osg-v10.json", encoding: .utf8).utf8)
        let root = try JSONParser.parseDocument(bytes, path: card.source.path)
        return CardChecker.LoadedCard(
            card: card,
            file: CardChecker.LoadedFile(
                path: card.source.path, bytes: bytes, root: root, content: .card(card)))
    }
}

/// Classes of silent wrong figures no numbered case named, found while fixing them or by
/// the property test (`StorefrontPropertyTests`).
@Suite(.serialized) struct StorefrontUnlistedTests {
    typealias F = StorefrontTrustFixture

    /// Two prices for one storefront: the second applies nowhere, and says so.
    @Test func aSecondPriceForOneStorefrontIsAnError() throws {
        let (repo, card) = try F.load(
            try F.files(card: [
                F.pricesWith(
                    #"{ "currency": "EUR", "amount": "2.49", "storefront": "FRA" }"#,
                    #"{ "currency": "USD", "amount": "2.79", "storefront": "FRA" }"#)
            ]))
        let m = try StorefrontMargins(
            card: card, repository: repo, date: CalendarDate("2026-12-01")!)
        #expect(
            m.findings.contains {
                $0.rule == .check(.storefrontPrice)
                    && $0.message.contains(
                        "the price USD 2.79 is for FRA (France), which prices in EUR")
            })
        #expect(m.rows.first { $0.territory == "FRA" }?.customerPrice.amount == exact("2.49"))
    }

    /// A card sold in two provider currencies names both conversions in every storefront,
    /// not only when the providers share one currency.
    @Test func everyRateOfAMixedProviderCardIsNamed() throws {
        var files = WorstCaseCaseFixture.twoCurrencies
        files["storefronts.json"] = """
            {"kind": "storefronts", "date": "2026-12-01", "source": "test",
             "commission": [{"program": "standard", "rate": "0.30", "from": "2008-07-10", "status": "confirmed"},
                            {"program": "small-business", "rate": "0.15", "from": "2021-01-01", "status": "confirmed"}],
             "territories": [{"territory": "GBR", "name": "United Kingdom", "currency": "GBP", "taxIncluded": true, "tax": "0.20"}]}
            """
        let repo = try repository(files)
        let card = try #require(repo.cards.first)
        let m = try StorefrontMargins(
            card: card, repository: repo, date: CalendarDate("2026-12-01")!)
        let gbr = try #require(m.rows.first { $0.territory == "GBR" })
        #expect(Set(gbr.fxUsed.map(\.description)) == ["GBP/CNY 9.2", "GBP/USD 1.25"])
        #expect(StorefrontReport([m]).render(.table).contains("GBP/CNY 9.2, GBP/USD 1.25"))
    }

    /// A schedule with no price in force on the date: said, not skipped.
    @Test func aScheduleWithNothingInForceIsSaid() throws {
        let text = try String(
            contentsOfFile: StorefrontFixtures.path("3000tks-schedule.json"), encoding: .utf8
        ).replacingOccurrences(of: #""startDate" : null,"#, with: #""startDate" : "2026-06-01","#)
        let file = try AppStoreConnectFile.read(try JSONParser.parse(text), path: "schedule.json")
        let list = ApplePriceList(productId: "3000tks", files: [file])
        let (prices, diagnostics) = list.resolve(on: CalendarDate("2026-01-01")!, cardPrices: [])
        #expect(prices["USA"] == nil)
        #expect(
            diagnostics.contains {
                $0.rule == .check(.appleSchedule)
                    && $0.message.hasPrefix(
                        "3000tks in USA: no price of the schedule is in force on 2026-01-01")
            })
    }

    /// An Apple price with more decimals than its currency is not a price Apple charges.
    @Test func anApplePriceFinerThanItsCurrencyIsAnError() throws {
        let text = F.pricePoints([
            F.Point(territory: "USA", currency: "USD", price: "2.999", proceeds: "2.09")
        ])
        #expect(throws: Diagnostics.self) {
            try AppStoreConnectFile.read(try JSONParser.parse(text), path: "p.json")
        }
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("p.json", text)
        try expectMargin(
            ["storefronts", "osg", "--price-points", "3000tks=\(tmp.path)/p.json"], exits: 2,
            stderr: .contains(
                "data[0].attributes.customerPrice: USD 2.999 has more decimals than USD (2)"))
    }

    /// A card price finer than the unit Apple prices the currency in.
    @Test func aCardPriceFinerThanThePaymentUnitIsAnError() throws {
        let (repo, card) = try F.load(
            try F.files(card: [F.pricesWith(#"{ "currency": "HUF", "amount": "1190.50" }"#)]))
        let m = try StorefrontMargins(
            card: card, repository: repo, date: CalendarDate("2026-12-01")!)
        #expect(
            m.findings.contains {
                $0.rule == .check(.currencyDecimals)
                    && $0.message.contains("Apple prices HUF in units of 1 in HUN")
            })
    }
}
