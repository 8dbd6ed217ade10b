import Testing

@testable import RateCard

/// Margins in every storefront from the repository's own cards, FX and storefront data.
@Suite struct StorefrontMarginsTests {
    let repo: CardRepository
    let osg: RateCard

    init() throws {
        repo = try CardRepository.load(paths: [repositoryCards])
        osg = try #require(repo.card(reference: "osg@10"))
    }

    func row(_ m: StorefrontMargins, _ pack: String, _ territory: String) throws
        -> StorefrontMargins.Row
    {
        try #require(m.rows.first { $0.pack.productId == pack && $0.territory == territory })
    }

    /// The worked case of docs/storefronts.md: 3000tks in the USA (tax-exclusive), Germany
    /// (19% VAT) and China mainland, with the worst-case cost of CNY 11.25 converted. The
    /// USD 2.99 and EUR 2.99 storefronts are tighter than CNY 28.
    @Test func workedCase() throws {
        let lists = try StorefrontFixtures.list(
            "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json")
        let m = try StorefrontMargins(
            card: osg, repository: repo, priceLists: lists, program: .standard,
            date: StorefrontFixtures.date("2026-12-01"))
        let usa = try row(m, "3000tks", "USA")
        #expect(usa.proceedsSource == .apple)
        #expect(usa.proceeds?.amount == exact("2.09"))
        #expect(usa.modelled?.exact.amount == exact("2.093"))  // 2.99 × 0.70, no tax removed
        #expect(usa.worstCost?.amount == (try Exact(1125, over: 710)))  // CNY 11.25 ÷ 7.10
        #expect(usa.margin?.amount == (try Exact(3589, over: 7100)))  // USD 0.5055
        #expect(Format.percent(try #require(usa.marginShare)) == "16.9%")

        let deu = try row(m, "3000tks", "DEU")
        #expect(deu.proceeds?.amount == exact("1.76"))
        #expect(deu.modelled?.taxExclusive.amount == (try Exact(299, over: 119)))  // 2.99 ÷ 1.19
        #expect(deu.modelled?.rounded.amount == exact("1.76"))  // 1.7588… half-even
        #expect(deu.worstCost?.amount == (try Exact(9675, over: 7100)))  // 11.25 × 0.86 ÷ 7.10
        #expect(deu.margin?.amount == (try Exact(2821, over: 7100)))  // EUR 0.3973
        #expect(Format.percent(try #require(deu.marginShare)) == "13.3%")

        let chn = try row(m, "3000tks", "CHN")
        #expect(chn.proceedsSource == .modelled)
        #expect(chn.modelled?.regime.rate == exact("0.25"))
        #expect(chn.modelled?.regime.status == .confirmed)
        // 28 ÷ 1.009 (the local tax Apple removes first: its CNY points of 2023-04-07 are
        // price ÷ 1.009 × 0.85) = 27.7502; × 0.75 = 20.8127 → 20.81
        #expect(chn.proceeds?.amount == exact("20.81"))
        #expect(chn.worstCost?.amount == exact("11.25"))
        #expect(chn.margin?.amount == exact("9.56"))  // 20.81 − 11.25
        #expect(Format.percent(try #require(chn.marginShare)) == "34.1%")  // 9.56 ÷ 28 = 34.14%

        // Tighter in USD and EUR than in CNY; the worst storefront of 3000tks is Zimbabwe
        // (a USD storefront with 15.5% VAT and a 5% digital services tax).
        #expect(try #require(usa.marginShare) < (try #require(chn.marginShare)))
        #expect(try #require(deu.marginShare) < (try #require(usa.marginShare)))
        #expect(m.worstPerPack.first { $0.pack.productId == "3000tks" }?.territory == "ZWE")
        #expect(!m.warnings.contains { $0.rule?.id == "storefront-cross-check" })
    }

    /// Before the China change of 2026-03-15: CNY 28 ÷ 1.009 = 27.7502; × 0.70 = 19.4252 →
    /// 19.43 (margin 19.43 − 11.25 = 8.18) and × 0.85 = 23.5877 → 23.59 (margin 12.34): the
    /// local tax Apple removes keeps them 0.9% below the seed's 19.60 and 23.80.
    @Test(arguments: [(StoreProgram.standard, "19.43", "8.18"), (.smallBusiness, "23.59", "12.34")])
    func chinaBeforeTheChange(program: StoreProgram, proceeds: String, margin: String)
        throws
    {
        let m = try StorefrontMargins(
            card: osg, repository: repo, program: program,
            date: StorefrontFixtures.date("2026-03-14"))
        let chn = try row(m, "3000tks", "CHN")
        #expect(chn.proceeds?.amount == exact(proceeds))
        #expect(chn.margin?.amount == exact(margin))
    }

    /// Removing VAT first: proceeds of 0.588 (Germany, 19%) and 0.551 (Hungary, 27%) of the
    /// price at 30%, against 0.70 where prices exclude tax.
    @Test(arguments: [("DEU", "0.588"), ("HUN", "0.551"), ("USA", "0.7")])
    func proceedsShareAfterTax(territory: String, share: String) throws {
        let table = try #require(repo.storefronts)
        let sf = try #require(table.storefront(territory))
        let regime = try #require(
            table.regime(for: sf, program: .standard, on: StorefrontFixtures.date("2026-12-01")))
        let m = try ModelledProceeds(
            price: Money(exact("1000"), sf.currency), storefront: sf, regime: regime,
            on: StorefrontFixtures.date("2026-12-01"))
        #expect(
            try m.exact.amount.divided(by: exact("1000")).formatted(scale: 3, rule: .halfEven)
                == (try exact(share).formatted(scale: 3, rule: .halfEven)))
    }

    /// A digital services tax is deducted from the tax-exclusive price: EUR 2.99 in Italy is
    /// 2.99 ÷ 1.22 = 2.4508 net, 1.7156 after 30%, less 3% of net (0.073525): 1.6420 → 1.64.
    /// France and the UK have no DST in Apple's price-point proceeds (EUR 0.99 pays 0.70 =
    /// 0.99 ÷ 1.2 × 0.85 on 2023-04-07; GBP 3.99 pays 2.33 = 3.99 ÷ 1.2 × 0.70): EUR 2.99 and
    /// GBP 2.99 both pay 2.99 ÷ 1.2 × 0.70 = 1.7442 → 1.74.
    @Test func digitalServicesTax() throws {
        let table = try #require(repo.storefronts)
        let day = StorefrontFixtures.date("2026-12-01")
        let ita = try #require(table.storefront("ITA"))
        let regime = try #require(table.regime(for: ita, program: .standard, on: day))
        let m = try ModelledProceeds(
            price: Money(exact("2.99"), ita.currency), storefront: ita, regime: regime, on: day)
        #expect(
            m.digitalServicesTax.amount == (try Exact(299, over: 122).multiplied(by: exact("0.03")))
        )
        #expect(m.rounded.amount == exact("1.64"))
        let fra = try #require(table.storefront("FRA"))
        let france = try ModelledProceeds(
            price: Money(exact("2.99"), fra.currency), storefront: fra, regime: regime, on: day)
        #expect(france.digitalServicesTax.amount == .zero)
        #expect(france.rounded.amount == exact("1.74"))
        let gbr = try #require(table.storefront("GBR"))
        let uk = try ModelledProceeds(
            price: Money(exact("2.99"), gbr.currency), storefront: gbr, regime: regime, on: day)
        #expect(uk.digitalServicesTax.amount == .zero)
        #expect(uk.rounded.amount == exact("1.74"))
    }

    /// The cross-check, both ways: Apple's EUR 1.76 matches the model (no warning); EUR 2.09
    /// (as if no VAT were removed) is a warning naming both figures.
    @Test func crossCheckBothWays() throws {
        let date = StorefrontFixtures.date("2026-12-01")
        let agrees = try StorefrontMargins(
            card: osg, repository: repo,
            priceLists: try StorefrontFixtures.list(
                "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json"), date: date)
        #expect(!agrees.warnings.contains { $0.rule?.id == "storefront-cross-check" })
        let differs = try StorefrontMargins(
            card: osg, repository: repo,
            priceLists: try StorefrontFixtures.list("3000tks-deu-differs.json"), date: date)
        let w = try #require(differs.warnings.first { $0.rule?.id == "storefront-cross-check" })
        #expect(w.severity == .warning)
        #expect(w.message.contains("Apple pays EUR 2.09") && w.message.contains("models EUR 1.76"))
        #expect(w.message.contains("19.0% tax removed"))
        #expect(w.path.hasSuffix("3000tks-deu-differs.json"))
        // Apple's figure is what the margin uses.
        #expect(try row(differs, "3000tks", "DEU").proceeds?.amount == exact("2.09"))
    }

    /// Within one minor unit is not a warning: Apple rounds in its own way.
    @Test func oneMinorUnitIsTolerated() throws {
        #expect(StorefrontMargins.tolerance(Currency(code: "EUR")!) == exact("0.01"))
        #expect(StorefrontMargins.tolerance(Currency(code: "JPY")!) == exact("1"))
    }

    /// A currency without an FX rate: the row stays, with no margin, last, and a warning.
    @Test func territoryWithoutFXRate() throws {
        let fx = FXTable(
            date: nil, sourceNote: "test", placeholder: false,
            rates: [FXRate(base: .usd, quote: Currency(code: "CNY")!, rate: exact("7.1"))],
            source: SourceFile(path: "fx.json"))
        let m = try StorefrontMargins(
            card: osg, repository: repo,
            priceLists: try StorefrontFixtures.list("3000tks-kaz.json"),
            date: StorefrontFixtures.date("2026-12-01"), fx: fx)
        let kaz = try row(m, "3000tks", "KAZ")
        #expect(kaz.proceeds?.amount == exact("898.99"))
        #expect(kaz.worstCost == nil && kaz.margin == nil && kaz.marginShare == nil)
        #expect(m.rows.last?.territory == "KAZ")
        #expect(
            m.warnings.contains { $0.rule?.id == "storefront-fx" && $0.message.contains("KZT") })
        #expect(m.worstPerPack.first { $0.pack.productId == "3000tks" }?.territory == "ZWE")
    }

    /// Rows are sorted worst first; every row with a share is at or above the one before.
    @Test func sortedWorstFirst() throws {
        let m = try StorefrontMargins(
            card: osg, repository: repo,
            priceLists: try StorefrontFixtures.list(
                "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json"),
            date: StorefrontFixtures.date("2026-12-01"))
        let shares = m.rows.compactMap(\.marginShare)
        #expect(shares == shares.sorted())
        // Every storefront each card price reaches (109 USD storefronts among them), once.
        #expect(m.rows.count == 334)
        #expect(Set(m.rows.map { "\($0.pack.productId) \($0.territory)" }).count == 334)
    }

    /// A card that states `"storeProgram": "small-business"` is modelled at 15% (12% in China
    /// mainland from the reported change); `--program` overrides it.
    @Test func cardStatesItsProgram() throws {
        let text = try String(contentsOfFile: osg.source.path, encoding: .utf8)
            .replacingOccurrences(
                of: #""version": 10,"#, with: #""version": 10, "storeProgram": "small-business","#)
        guard
            case .card(let card) = try CardFileLoader.load(
                bytes: Array(text.utf8), path: "osg-sbp.json")
        else {
            Issue.record("not a card")
            return
        }
        #expect(card.storeProgram == .smallBusiness)
        let date = StorefrontFixtures.date("2026-12-01")
        let sbp = try StorefrontMargins(card: card, repository: repo, date: date)
        #expect(sbp.program == .smallBusiness)
        // 28 ÷ 1.009 × 0.88 = 24.4202 → 24.42
        #expect(try row(sbp, "3000tks", "CHN").proceeds?.amount == exact("24.42"))
        // 2.99 × 0.85 = 2.5415
        #expect(try row(sbp, "3000tks", "USA").proceeds?.amount == exact("2.54"))
        let standard = try StorefrontMargins(
            card: card, repository: repo, program: .standard, date: date)
        #expect(try row(standard, "3000tks", "CHN").proceeds?.amount == exact("20.81"))
        #expect(
            loadDiagnostics(
                text.replacingOccurrences(of: "small-business", with: "small"), path: "osg.json"
            ).contains { $0.message.hasPrefix("storeProgram: \"small\" is not") })
    }

    /// JSON rows carry the fields as exact decimal strings.
    @Test func jsonRows() throws {
        let m = try StorefrontMargins(
            card: osg, repository: repo, date: StorefrontFixtures.date("2026-12-01"))
        let text = StorefrontReport([m]).render(.json)
        #expect(text.contains(#""productId": "3000tks""#))
        #expect(text.contains(#""proceedsSource": "modelled""#))
        #expect(text.contains(#""worstCost": "11.25""#))
        #expect(text.contains(#""customerPrice": "28""#))
        // CNY 28 ÷ 1.009 × 0.75 = 20.81; 20.81 − 11.25 = 9.56; 9.56 ÷ 28 = 34.142…%
        #expect(text.contains(#""margin": "9.56""#))
        #expect(text.contains(#""marginPercent": "34.142857142857""#))  // 956 ÷ 28 = 239 ÷ 7
    }
}

/// The storefront data file, read strictly.
@Suite struct StorefrontFileTests {
    static let good = #"""
        { "kind": "storefronts", "date": "2026-12-01", "source": "test",
          "commission": [ { "program": "standard", "rate": "0.30", "from": "2008-07-10", "status": "confirmed" },
                          { "program": "small-business", "rate": "0.15", "from": "2021-01-01", "status": "confirmed" } ],
          "territories": [ { "territory": "DEU", "name": "Germany", "currency": "EUR", "taxIncluded": true, "tax": "0.19" } ] }
        """#

    @Test func loads() throws {
        guard
            case .storefronts(let t) = try CardFileLoader.load(
                bytes: Array(Self.good.utf8), path: "s.json")
        else {
            Issue.record("not a storefront file")
            return
        }
        #expect(
            t.storefront("DEU")?.rates(on: StorefrontFixtures.date("2026-12-01")).vat
                == exact("0.19"))
    }

    @Test(arguments: [
        (
            #""tax": "0.19""#, #""tax": "1.19""#,
            "territories[0].tax: 1.19 must be from 0 to below 1"
        ),
        (
            #""program": "standard""#, #""program": "standrd""#,
            "commission[0].program: \"standrd\" is not a program (one of: standard, small-business"
        ),
        (
            #""territory": "DEU""#, #""territory": "De""#,
            "territories[0].territory: \"De\" is not a territory code"
        ),
        (
            #""taxIncluded": true"#, #""taxIncluded": false"#,
            "territories[0].tax: prices exclude tax here"
        ),
        (
            #""status": "confirmed" },"#, #""status": "rumoured" },"#,
            "commission[0].status: \"rumoured\" is not \"confirmed\""
        ),
        (
            #""currency": "EUR""#, #""currency": "EUR", "vat": "0.19""#,
            "territories[0].vat: unknown field"
        ),
        (
            #", "tax": "0.19" } ]"#,
            #", "tax": "0.19" }, { "territory": "DEU", "name": "x", "currency": "EUR", "taxIncluded": true, "tax": "0.2" } ]"#,
            "territories[1].territory: DEU is already listed"
        ),
    ])
    func badFileNamesTheField(from: String, to: String, message: String) {
        let text = Self.good.replacingOccurrences(of: from, with: to)
        let diagnostics = loadDiagnostics(text, path: "s.json")
        #expect(
            diagnostics.contains { $0.message.hasPrefix(message) }, "\(diagnostics.map(\.message))")
    }
}

/// The proceeds model over many generated storefronts and prices.
@Suite struct ModelledProceedsInvariantTests {
    /// Rounded proceeds are within half a minor unit of the exact figure, never above the
    /// tax-exclusive price, and fall as the tax, the commission or the DST rises.
    @Test(arguments: ["EUR", "JPY", "HUF", "USD"])
    func invariants(code: String) throws {
        let currency = try #require(Currency(code: code))
        let half = try StorefrontMargins.tolerance(currency).divided(by: Exact(2))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<300 {
            let price = Money(try Exact(Int128(1 + next(1_000_000)), over: 100), currency)
            let tax = try Exact(Int128(next(30)), over: 100)
            let dst = try Exact(Int128(next(8)), over: 100)
            let rate = try Exact(Int128(5 + next(30)), over: 100)
            func model(_ tax: Exact, _ dst: Exact, _ rate: Exact) throws -> ModelledProceeds {
                let sf = Storefront(
                    territory: "XXX", name: "x", currency: currency, taxIncluded: true, tax: tax,
                    digitalServicesTax: dst)
                return try ModelledProceeds(
                    price: price, storefront: sf,
                    regime: CommissionRegime(
                        program: .standard, rate: rate, from: CalendarDate("2020-01-01")!,
                        status: .confirmed), on: CalendarDate("2026-01-01")!)
            }
            let m = try model(tax, dst, rate)
            let gap = try m.rounded.amount.subtracting(m.exact.amount)
            #expect(!(half < (gap.isNegative ? try gap.negated() : gap)))
            #expect(
                m.exact.amount < m.taxExclusive.amount || m.exact.amount == m.taxExclusive.amount)
            #expect(m.rounded.isWholeMinorUnits)
            #expect(try model(tax.adding(exact("0.01")), dst, rate).exact.amount < m.exact.amount)
            #expect(try model(tax, dst.adding(exact("0.01")), rate).exact.amount < m.exact.amount)
            #expect(try model(tax, dst, rate.adding(exact("0.01"))).exact.amount < m.exact.amount)
        }
    }
}
