import Foundation
import Testing

@testable import RateCard

@Suite("Card report content")
struct CardReportTests {
    @Test func osgReportHasTheSeedFiguresInTheWorstCaseTable() throws {
        let md = try ReportFixtures.text(ReportFixtures.realSet(), "osg-v10.md")
        // Seed 001: CNY 28 pack, worst case CNY 11.25 (ASR), margin 12.55 at 15%, 8.35 at 30%.
        #expect(
            md.contains(
                "| `3000tks` | 3,000 | CNY | 28.00 | 15% | 4.20 | 23.80 | 11.25 | 12.55 | 44.8% |"))
        #expect(
            md.contains(
                "| `3000tks` | 3,000 | CNY | 28.00 | 30% | 8.40 | 19.60 | 11.25 | 8.35 | 29.8% |"))
        #expect(
            md.contains(
                "- `3000tks`: 3,000 requests of 3 s on `asr.second` (1 credit each; the provider bills 3 s): CNY 11.25 in all"
            ))
        // Grants are priced at the same worst case: 1,000 credits of ASR = CNY 3.75.
        #expect(md.contains("| `signup` | 1,000 credits | CNY 3.75 | new account |"))
    }

    @Test func osgReportStatesCardFactsSourcesAndPlaceholders() throws {
        let md = try ReportFixtures.text(ReportFixtures.realSet(), "osg-v10.md")
        #expect(md.hasPrefix("<!-- \(CardReport.generatedMarker) from RateCards/osg-v10.json;"))
        #expect(md.contains("# osg v10: OSG managed account credits (V10, whole credits)"))
        #expect(md.contains("- **Effective:** 2026-08-18T00:00:00+08:00 (2026-08-17T16:00:00Z)"))
        #expect(md.contains("every feature price is a whole multiple of 1 credit"))
        #expect(
            md.contains(
                "| Streaming speech recognition (Doubao SeedASR 2.0) | `asr` | `second` | 1 credit per started 3 s |"
            ))
        #expect(md.contains("| `llm` | `outputTokens` | 1 credit per started 400 tokens |"))
        #expect(
            md.contains(
                "- **Reviewed:** 2026-08-18, from <https://api-docs.deepseek.com/zh-cn/quick_start/pricing>"
            ))
        #expect(
            md.contains(
                "Schedule reviewed 2026-11-15, from <https://api-docs.deepseek.com/quick_start/pricing>"
            ))
        #expect(md.contains("- **File:** `RateCards/fx.json`, dated 2026-11-15"))
        #expect(md.contains("- **Status:** **placeholder**"))
        #expect(md.contains("- **Used:** 1 USD = 7.1 CNY"))
        #expect(md.contains("> - The FX rates are placeholders: the USD figures depend on them."))
        #expect(md.contains("![osg v10: "))
        #expect(md.contains("](osg-v10.svg)"))
    }

    @Test func voiceReportWritesPricesInCreditsAndMoney() throws {
        let md = try ReportFixtures.text(ReportFixtures.realSet(), "voice-debrief-v1.md")
        #expect(md.contains("30,000 microcredits (GBP 0.03) per started 60 s"))
        #expect(md.contains("50,000 microcredits (GBP 0.05) per event"))
        #expect(md.contains("no provider cost: speech recognition runs on the user's device"))
        #expect(
            md.contains(
                "| `ai.voicedebrief.app.credit.500` *(placeholder)* | 5,000,000 | GBP | 5.00 | 30% | 1.50 | 3.50 | 0.00 | 3.50 | 70.0% |"
            ))
        #expect(
            md.contains(
                "> - Every price on this card is a placeholder the owner accepted for now on 2026-11-13."
            ))
        #expect(md.contains("No conversion was needed"))
    }

    @Test func indexLinksEveryReportAndChart() throws {
        let set = try ReportFixtures.realSet()
        let index = try ReportFixtures.text(set, "index.md")
        #expect(
            set.files.map(\.name) == [
                "index.md", "osg-v10-storefronts.svg", "osg-v10.md", "osg-v10.svg",
                "voice-debrief-v1-storefronts.svg", "voice-debrief-v1.md", "voice-debrief-v1.svg",
            ])
        for report in set.reports {
            #expect(index.contains("](\(report.markdownName))"))
            #expect(index.contains("](\(report.chartName))"))
        }
    }

    @Test func generationIsByteIdenticalAndIndependentOfTheFolderLocation() throws {
        let first = try ReportFixtures.realSet()
        let second = try ReportFixtures.realSet()
        #expect(first.files == second.files)
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        let copy = try ReportSet(
            repository: CardRepository.load(paths: [root + "/RateCards/"]),
            cardsDirectory: root + "/RateCards/")
        #expect(copy.files == first.files)
    }

    @Test func committedReportsAreCurrent() throws {
        // Reads the repository's Reports/ (never writes it).
        #expect(try ReportFixtures.realSet().findings(in: ReportFixtures.reportsDirectory) == [])
    }

    @Test func everyCardVersionGetsAReport() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        let v11 = root + "/RateCards/osg-v11.json"
        try FileManager.default.copyItem(atPath: root + "/RateCards/osg-v10.json", toPath: v11)
        try ReportFixtures.edit(v11, replacing: "\"version\": 10", with: "\"version\": 11")
        try ReportFixtures.edit(
            v11, replacing: "2026-08-18T00:00:00+08:00", with: "2026-12-01T00:00:00+08:00")
        let set = try ReportSet(
            repository: CardRepository.load(paths: [root + "/RateCards"]),
            cardsDirectory: root + "/RateCards")
        #expect(set.files.map(\.name).contains("osg-v10.md"))
        #expect(set.files.map(\.name).contains("osg-v11.svg"))
        let index = try ReportFixtures.text(set, "index.md")
        #expect(index.contains("[osg](osg-v10.md) | 10 |"))
        #expect(index.contains("[osg](osg-v11.md) | 11 |"))
    }
}
