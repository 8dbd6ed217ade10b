import Foundation
import Testing

@testable import RateCard

/// A pack that adds 0 credits sells nothing to spend: it has no worst case and no margin.
/// Every command that shows it says so, in every format: "—" in a table and Markdown,
/// empty in CSV, null in JSON, the reason in the notes, a `free-price` warning at its
/// credits on stderr, and `check` the error there, not a pass.
@Suite("A pack of no credits has no margin")
struct NoCreditPackTests {
    /// The replay candidate (osg@11) with its 500tks pack (USD 0.99, CNY 8) adding 0
    /// credits, written as `RateCards/osg-v11.json` beside a copy of the repository's cards.
    static func folder() throws -> (dir: TemporaryFolder, card: String) {
        let dir = try TemporaryFolder()
        _ = try dir.copyRepositoryCards()
        let text = try PacksCommandTests.candidateText()
        let pack = #""productId": "500tks", "type": "consumable", "credits": 500,"#
        #expect(text.components(separatedBy: pack).count == 2)
        try dir.write(
            "RateCards/osg-v11.json",
            text.replacingOccurrences(
                of: pack, with: #""productId": "500tks", "type": "consumable", "credits": 0,"#))
        return (dir, dir.path + "/RateCards/osg-v11.json")
    }

    /// The warning `packs` and `storefronts` print, at the pack's credits.
    static func warning(_ card: String) -> String {
        "\(card):41:63: warning: pack \"500tks\" adds 0 credits: it sells nothing to spend, so it has no worst case and no margin; a pack must add a positive number of credits [free-price]"
    }

    @Test func packsShowNoWorstCaseAndNoMarginInEveryFormat() throws {
        let (dir, card) = try Self.folder()
        defer { dir.cleanup() }
        let args = ["packs", "osg@11", "--cards", dir.path + "/RateCards"]
        let table = try expectMargin(args, exits: 0, stderr: .contains(Self.warning(card)))
        let rows = tableRows(table.stdout)
        #expect(rows.contains("osg@11 500tks 0 CNY 8.00 — 15% 6.80 — — —"))
        #expect(rows.contains("osg@11 500tks 0 USD 0.99 — 30% 0.69 — — —"))
        #expect(
            rows.contains(
                "no margin: pack \"500tks\" adds 0 credits: it sells nothing to spend, so it has no worst case and no margin"
            ))
        #expect(!table.stdout.contains("witness 500tks"))
        // The other packs keep their figures: 1,500 × 5 s × CNY 0.00125 = 9.375.
        #expect(rows.contains("osg@11 1500tks 1,500 CNY 18.00 9.38 30% 12.60 3.22 17.9% asr"))

        let csv = try expectMargin(args + ["--format", "csv"], exits: 0)
        #expect(csv.stdout.contains("\nosg@11,pack,500tks,0,CNY,8,,0.15,6.8,,,,\n"))
        #expect(csv.stdout.contains("\nosg@11,pack,500tks,0,USD,0.99,,0.3,0.693,,,,\n"))

        let markdown = try expectMargin(args + ["--format", "markdown"], exits: 0)
        #expect(
            markdown.stdout.contains(
                "| osg@11 | 500tks | 0 | CNY | 8.00 | — | 15% | 6.80 | — | — | — |"))

        let json = try expectMargin(args + ["--format", "json"], exits: 0)
        let root = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let cards = root["cards"] as! [[String: Any]]
        let packs = cards[0]["packs"] as! [[String: Any]]
        let none = packs.filter { $0["productId"] as? String == "500tks" }
        #expect(none.count == 2)
        for p in none {
            #expect(p["worstCase"] is NSNull)
            #expect(p["providerCost"] == nil)
            #expect(
                p["noMargin"] as? String
                    == "pack \"500tks\" adds 0 credits: it sells nothing to spend, so it has no worst case and no margin"
            )
            for line in p["commissions"] as! [[String: Any]] {
                #expect(line["margin"] is NSNull)
                #expect(line["marginShare"] is NSNull)
                #expect(line["proceeds"] is String)
            }
        }
    }

    /// `diff` from osg@10 (500 credits for CNY 8: worst case 1.88, margin 4.92 at 15%) to the
    /// pack of no credits: the new side has no worst cost, margin, share or worst feature.
    @Test func diffShowsTheNewSideWithoutAMargin() throws {
        let (dir, _) = try Self.folder()
        defer { dir.cleanup() }
        let args = ["diff", "osg@10", "osg@11", "--cards", dir.path + "/RateCards"]
        let table = try expectMargin(args, exits: 0)
        #expect(
            tableRows(table.stdout).contains(
                "500tks CNY 15% 8.00 1.88 → — 4.92 → — 61.6% → — — — asr → —"))
        let json = try expectMargin(args + ["--format", "json"], exits: 0)
        let root = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let rows = (root["margins"] as! [[String: Any]]).filter {
            $0["productId"] as? String == "500tks"
        }
        #expect(rows.count == 4)
        for row in rows {
            let new = row["new"] as! [String: Any]
            #expect(new["margin"] is NSNull && new["marginShare"] is NSNull)
            #expect(new["worstCost"] is NSNull && new["worstFeature"] is NSNull)
            #expect(new["proceeds"] is String)
        }
    }

    /// `check` fails at the same place `packs` warns at, and reports no storefront gap or
    /// margin for the pack besides.
    @Test func checkIsAnErrorAtTheCredits() throws {
        let (dir, card) = try Self.folder()
        defer { dir.cleanup() }
        let r = try expectMargin(
            ["check", dir.path + "/RateCards"], exits: 1,
            stderr: .contains(
                "\(card):41:63: error: pack \"500tks\" adds 0 credits: a pack must add a positive number of credits [free-price]"
            ))
        let about500 = r.stderr.split(separator: "\n").filter { $0.contains("\"500tks\"") }
        #expect(about500.count == 1, "\(about500)")
    }

    /// `storefronts`: every storefront row of the pack says "no credits" where the margin
    /// would be, with no worst cost or margin, and the warning is said once, not per row.
    @Test func storefrontsSayNoCredits() throws {
        let (dir, card) = try Self.folder()
        defer { dir.cleanup() }
        let args = ["storefronts", "osg@11", "--cards", dir.path + "/RateCards"]
        let r = try expectMargin(args, exits: 0)
        #expect(r.stderr.components(separatedBy: Self.warning(card)).count == 2, "\(r.stderr)")
        let rows = tableRows(r.stdout).filter { $0.hasPrefix("osg@11 500tks ") }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0.hasSuffix(" modelled — — no credits") }, "\(rows.prefix(3))")
        // Not a pack's worst storefront.
        #expect(!tableRows(r.stdout).contains { $0.hasPrefix("500tks ") })
        let json = try expectMargin(args + ["--format", "json"], exits: 0)
        let root = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let cards = root["cards"] as! [[String: Any]]
        let all = cards.flatMap { $0["rows"] as? [[String: Any]] ?? [] }
        let none = all.filter { $0["productId"] as? String == "500tks" }
        #expect(!none.isEmpty)
        for row in none {
            #expect(row["margin"] is NSNull)
            #expect(row["worstCost"] is NSNull)
            #expect(row["missing"] as? String == "no credits")
        }
    }

    /// `report`: the pack's rows show "—" for cost and margin, its witness line says why,
    /// the chart has no bar for it, and the bottom line and index do not count it.
    @Test func reportIsConsistent() throws {
        let (dir, _) = try Self.folder()
        defer { dir.cleanup() }
        try expectMargin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: dir.path, exits: 0)
        let page = try String(
            contentsOfFile: dir.path + "/Reports/osg-v11.md", encoding: .utf8)
        #expect(page.contains("| `500tks` | 0 | CNY | 8.00 | 30% | 2.40 | 5.60 | — | — | — |"))
        #expect(
            page.contains(
                "- **No margin:** pack \"500tks\" adds 0 credits: it sells nothing to spend, so it has no worst case and no margin."
            ))
        #expect(
            page.contains(
                "- Warning: pack \"500tks\" adds 0 credits: it sells nothing to spend, so it has no worst case and no margin; a pack must add a positive number of credits."
            ))
        let bottom = try #require(page.components(separatedBy: "## Bottom line").last)
        let summary = try #require(bottom.components(separatedBy: "## ").first)
        #expect(summary.contains("\n`500tks` adds no credits and has no margin.\n"), "\(summary)")
        #expect(
            summary.contains(
                "The lowest worst-case margin at the highest commission is `3000tks` in USD at 30%")
        )
        let chart = try String(
            contentsOfFile: dir.path + "/Reports/osg-v11.svg", encoding: .utf8)
        #expect(!chart.contains(">500tks<") && !chart.contains("<title>500tks"))
        #expect(chart.contains(">1500tks<"))
    }

    /// A card whose every pack adds no credits: the bottom line says no pack has a margin
    /// share (not "sells no packs", not a margin of the price less commission), and so
    /// does the index.
    @Test func aCardOfNoCreditPacksHasNoLowestMargin() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        _ = try dir.copyRepositoryCards()
        var text = try PacksCommandTests.candidateText()
        for credits in ["500", "1500", "3000"] {
            let pack = "\"type\": \"consumable\", \"credits\": \(credits),"
            #expect(text.components(separatedBy: pack).count == 2)
            text = text.replacingOccurrences(
                of: pack, with: "\"type\": \"consumable\", \"credits\": 0,")
        }
        try dir.write("RateCards/osg-v11.json", text)
        try expectMargin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: dir.path, exits: 0)
        let page = try String(contentsOfFile: dir.path + "/Reports/osg-v11.md", encoding: .utf8)
        #expect(
            page.contains(
                "Every pack that adds credits makes money in the worst case at every commission rate; `500tks`, `1500tks` and `3000tks` add no credits and have no margin."
            ))
        #expect(
            page.contains(
                "No pack has a worst-case margin as a share of its price: every pack is priced 0 or adds no credits (see the table below)."
            ))
        #expect(!page.contains("This card sells no packs."))
        let index = try String(contentsOfFile: dir.path + "/Reports/index.md", encoding: .utf8)
        let row = try #require(index.split(separator: "\n").first { $0.contains("(osg-v11.md)") })
        #expect(row.contains("| no margin share |"), "\(row)")
    }
}
