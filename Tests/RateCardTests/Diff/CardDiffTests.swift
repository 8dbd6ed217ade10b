import Foundation
import Testing

@testable import RateCard

@Suite("Diff: CardDiff")
struct CardDiffTests {
    @Test func asrPriceChangeIsExactWithItsPercentage() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let asr = try #require(
            diff.dimensions.first { $0.feature == "asr" && $0.dimension == "second" })
        #expect(asr.old?.credits == 1 && asr.old?.per == 3)
        #expect(asr.new?.credits == 1 && asr.new?.per == 2)
        // 1/2 ÷ 1/3 − 1 = 1/2 exactly: +50%.
        #expect(asr.relative == exact("0.5"))
        #expect(CardDiff.signedPercent(try #require(asr.relative)) == "+50.0%")
    }

    @Test func packPriceChangeKeepsTheExactRatio() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let usd = try #require(
            diff.prices.first { $0.productId == "3000tks" && $0.market.currency.code == "USD" })
        #expect(usd.old?.amount == exact("2.99"))
        #expect(usd.new?.amount == exact("3.99"))
        // 3.99 / 2.99 − 1 = 100/299, a ratio that does not terminate: rounded only for display.
        #expect(usd.relative == (try Exact(100, over: 299)))
        #expect(CardDiff.signedPercent(try #require(usd.relative)) == "+33.4%")
        // The unchanged CNY price is not listed as a change.
        #expect(
            !diff.prices.contains { $0.productId == "3000tks" && $0.market.currency.code == "CNY" })
        #expect(
            diff.prices.filter { $0.productId == "6000tks" }.allSatisfy {
                $0.old == nil && $0.new != nil
            })
    }

    @Test func featuresAddedRetiredAndRemovedWithoutRetiring() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let kinds = diff.features.map { "\($0.key):\($0.kind.rawValue)" }
        #expect(kinds == ["llm:removed-without-retiring", "ocr:added", "translate:retired"])
        let llm = try #require(diff.features.first { $0.key == "llm" })
        #expect(llm.note.hasPrefix("removed without retiring: keys are never renamed"))
        // Every dimension of a removed or added feature is listed with one side missing.
        #expect(
            diff.dimensions.filter { $0.feature == "llm" }.map(\.dimension) == [
                "inputTokens", "outputTokens",
            ])
        #expect(
            diff.dimensions.filter { $0.feature == "llm" || $0.feature == "translate" }.allSatisfy {
                $0.new == nil
            })
        #expect(diff.dimensions.first { $0.feature == "ocr" }?.old == nil)
    }

    @Test func cardFieldsGrantsAndPacks() throws {
        let diff = try DiffFixtureFolder.v10v11()
        #expect(diff.cardChanges.map(\.field) == ["version", "effective", "title"])
        let effective = try #require(diff.cardChanges.first { $0.field == "effective" })
        #expect(effective.old == "2026-08-17T16:00:00Z" && effective.new == "2026-11-30T16:00:00Z")
        #expect(diff.grants == [try CardDiff.GrantChange(key: "signup", old: 1000, new: 500)])
        #expect(diff.packs.map(\.productId) == ["6000tks"])
        #expect(diff.packs.first?.old == nil)
        #expect(diff.notes.isEmpty)
    }

    /// 3000tks in CNY: V10 worst case is ASR at CNY 4.5/3600 × 3 = 0.00375 a credit, 11.25;
    /// V11 charges 1 credit per 2 s, 0.0025 a credit, 7.50. Price 28: proceeds 23.80 and
    /// 19.60 after 15% and 30%.
    @Test(arguments: [
        ("0.15", "12.55", "16.3"),
        ("0.3", "8.35", "12.1"),
    ])
    func worstCaseMarginBeforeAndAfter(rate: String, oldMargin: String, newMargin: String) throws {
        let diff = try DiffFixtureFolder.v10v11()
        let row = try #require(
            diff.margins.first {
                $0.productId == "3000tks" && $0.market.currency.code == "CNY"
                    && $0.rate == exact(rate)
            })
        let old = try #require(row.old)
        let new = try #require(row.new)
        #expect(old.worstCost?.amount == exact("11.25"))
        #expect(new.worstCost?.amount == exact("7.5"))
        #expect(old.margin?.amount == exact(oldMargin))
        #expect(new.margin?.amount == exact(newMargin))
        #expect(row.marginChange?.amount == exact("3.75"))
        #expect(old.worstFeature == "asr" && new.worstFeature == "asr")
    }

    /// USD figures go through USD/CNY 7.10: 11.25 / 7.1 = 225/142, 7.50 / 7.1 = 75/71.
    @Test func usdWorstCaseIsConvertedExactly() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let row = try #require(
            diff.margins.first {
                $0.productId == "3000tks" && $0.market.currency.code == "USD"
                    && $0.rate == exact("0.15")
            })
        #expect(row.old?.worstCost?.amount == (try Exact(225, over: 142)))
        #expect(row.new?.worstCost?.amount == (try Exact(75, over: 71)))
        let expected = try exact("3.3915").subtracting(Exact(75, over: 71))
        #expect(row.new?.margin?.amount == expected)
        #expect(row.new.map { $0.margin.map(PackMargins.money) } == "2.34")
    }

    /// A pack only in the new version has no old side; 6,000 credits of ASR at 0.0025 cost 15.
    @Test func packOnlyInNewVersionHasNoOldSide() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let rows = diff.margins.filter {
            $0.productId == "6000tks" && $0.market.currency.code == "CNY"
        }
        #expect(rows.count == 2)
        #expect(
            rows.allSatisfy {
                $0.old == nil && $0.marginChange == nil && $0.new?.worstCost?.amount == exact("15")
            })
        #expect(rows.map { $0.new?.margin?.amount } == [exact("25.8"), exact("18.6")])
        let table = diff.marginTable.plain()
        #expect(table.contains("— → 48.00"))
    }

    @Test func grantCostBeforeAndAfter() throws {
        let diff = try DiffFixtureFolder.v10v11()
        let signup = try #require(diff.grantCosts.first { $0.key == "signup" })
        #expect(signup.old?.worst.cost.amount == exact("3.75"))
        #expect(signup.new?.worst.cost.amount == exact("1.25"))
    }

    /// Parts sum to the total on both sides: margin = price × (1 − rate) − worst cost.
    @Test func everyMarginIsProceedsLessWorstCost() throws {
        let diff = try DiffFixtureFolder.v10v11(rates: [
            exact("0"), exact("0.15"), exact("0.3"), exact("0.99"),
        ])
        #expect(diff.margins.count == (2 + 2 + 2) * 4)
        for row in diff.margins {
            for side in [row.old, row.new].compactMap({ $0 }) {
                let proceeds = try side.price.amount.multiplied(by: Exact.one.subtracting(row.rate))
                #expect(side.proceeds.amount == proceeds)
                #expect(
                    side.margin?.amount
                        == (try proceeds.subtracting(#require(side.worstCost).amount)))
            }
            if let o = row.old, let n = row.new {
                #expect(
                    row.marginChange?.amount
                        == (try #require(n.margin).amount.subtracting(#require(o.margin).amount)))
            }
        }
    }

    @Test func aCardComparedWithItselfHasNoDifferences() throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        for ref in ["osg@10", "osg@11"] {
            let card = try #require(repo.card(reference: ref))
            let diff = try CardDiff(old: card, new: card, repository: repo)
            #expect(diff.isEmpty)
            #expect(
                diff.margins.allSatisfy { $0.old == $0.new && $0.marginChange?.amount == .zero })
            #expect(diff.footnotes.contains("no differences"))
        }
    }

    /// An edited copy outside the folder, with the same id@version as a published card,
    /// is compared against it rather than rejected as a duplicate.
    @Test func editedCopyOutsideTheFolderIsAnOperand() throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        let copy = try folder.variant(
            of: "osg-v10.json", as: "osg-v10-edited.json", replacing: [("\"2.99\"", "\"3.49\"")])
        let edited = try repo.card(operand: copy)
        let inFolder = try repo.card(operand: folder.cards + "/./osg-v10.json")
        #expect(inFolder == repo.card(reference: "osg@10"))
        let diff = try CardDiff(old: inFolder, new: edited, repository: repo)
        #expect(
            diff.prices.map {
                "\($0.productId) \($0.market.label) \($0.old!.amount) → \($0.new!.amount)"
            } == ["3000tks USD 2.99 → 3.49"])
        #expect(diff.notes == ["NEW (osg@10) is not a later version than OLD (osg@10)"])
    }

    @Test func differentFamiliesAndCreditUnitsAreNoted() throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        let other = try folder.variant(
            of: "osg-v11.json", as: "lite.json",
            replacing: [
                ("\"id\": \"osg\"", "\"id\": \"osg-lite\""),
                ("\"name\": \"credit\"", "\"name\": \"token\""),
            ])
        let diff = try CardDiff(
            old: repo.card(reference: "osg@10")!, new: repo.card(operand: other), repository: repo)
        #expect(
            diff.notes.contains {
                $0.hasPrefix("comparing different card families (osg and osg-lite)")
            })
        #expect(diff.notes.contains { $0.hasPrefix("the credit unit changed (credit → token)") })
        #expect(diff.cardChanges.map(\.field).contains("credit unit"))
        // Retiring is a rule within a family: across families a dropped key is only "removed".
        #expect(diff.features.filter { $0.kind == .removed }.map(\.key) == ["llm", "translate"])
        #expect(!diff.features.contains { $0.kind == .removedWithoutRetiring })
    }

    @Test(arguments: ["osg@12", "nope", "missing.json"])
    func unknownOperandsAreDiagnostics(operand: String) throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        let error = #expect(throws: Diagnostics.self) { try repo.card(operand: operand) }
        #expect(error?.items.first?.path == operand)
    }

    @Test func aProviderSheetIsNotACardOperand() throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        let path = folder.root + "/sheet.json"
        try FileManager.default.copyItem(
            atPath: folder.cards + "/providers/deepseek-v4-flash.json", toPath: path)
        let error = #expect(throws: Diagnostics.self) { try repo.card(operand: path) }
        #expect(error?.items.first?.message.contains("not a rate card") == true)
    }

    @Test func jsonIsExactSortedAndDeterministic() throws {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        func render() throws -> String {
            try CardDiff(
                old: repo.card(reference: "osg@10")!, new: repo.card(reference: "osg@11")!,
                repository: repo
            ).json.rendered()
        }
        let a = try render()
        #expect(try render() == a)
        #expect(a.contains("\"marginChange\": \"3.75\""))
        #expect(a.contains("\"relativeChange\": \"0.5\""))
        #expect(a.contains("\"worstCost\": \"7.5\""))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(a.utf8)) as? [String: Any])
        #expect(
            object.keys.sorted() == [
                "cardChanges", "featurePrices", "features", "fx", "grantCosts", "grants",
                "identical", "marginShare", "margins", "new", "notes", "old", "packs", "prices",
                "rounding",
            ])
    }

    @Test func csvCarriesExactDifferences() throws {
        let csv = try DiffFixtureFolder.v10v11().csv()
        let lines = csv.split(separator: "\n").map(String.init)
        #expect(
            lines.first == "section,item,detail,commission,field,old,new,difference,relative,note")
        #expect(
            lines.contains("margin,3000tks,CNY,0.15,worst_cost,11.25,7.5,-3.75,-0.333333333333,"))
        #expect(lines.contains("margin,3000tks,CNY,0.15,margin,12.55,16.3,3.75,0.298804780876,"))
        #expect(lines.contains("price,3000tks,USD,,price,2.99,3.99,1,0.334448160535,"))
        #expect(lines.contains("margin,6000tks,CNY,0.15,margin,,25.8,,,"))
    }
}
