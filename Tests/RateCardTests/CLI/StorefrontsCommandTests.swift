import Foundation
import Testing

@testable import RateCard

/// `margin storefronts` and the storefront rules of `margin check`, run as a user would.
@Suite(.serialized) struct StorefrontsCommandTests {
    let page1 = "3000tks=" + StorefrontFixtures.path("3000tks-equalizations-page1.json")
    let page2 = "3000tks=" + StorefrontFixtures.path("3000tks-equalizations-page2.json")

    @Test func tableIsWorstFirstWithTheWorkedCase() throws {
        let r = try runMargin([
            "storefronts", "osg", "--at", "2026-12-01", "--price-points", page1,
            "--price-points=\(page2)",
        ])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let hun = try #require(lines.firstIndex { $0.contains("3000tks  HUN") })
        let deu = try #require(lines.firstIndex { $0.contains("3000tks  DEU") })
        let usa = try #require(lines.firstIndex { $0.contains("3000tks  USA") })
        let chn = try #require(lines.firstIndex { $0.contains("3000tks  CHN") })
        #expect(hun < deu && deu < usa && usa < chn)
        #expect(
            lines[deu].contains("2.99") && lines[deu].contains("1.76")
                && lines[deu].contains("apple") && lines[deu].contains("13.3%"))
        #expect(lines[usa].contains("16.9%"))
        #expect(
            lines[chn].contains("25% standard") && lines[chn].contains("modelled")
                && lines[chn].contains("34.1%"))  // CNY 28 ÷ 1.009 × 0.75 = 20.81; 9.56 ÷ 28
        #expect(r.stdout.contains("worst storefront per pack:"))
        #expect(
            r.stdout.contains("FX dated 2026-11-15 (RateCards/fx.json, placeholder): USD/CNY 7.1"))
    }

    @Test func jsonRowsCarryExactStrings() throws {
        let r = try runMargin([
            "storefronts", "osg@10", "--at", "2026-12-01", "--price-points", page1,
            "--price-points", page2, "--format", "json",
        ])
        #expect(r.status == 0)
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let cards) = root["cards"]?.value,
            case .array(let rows) = cards.first?["rows"]?.value
        else {
            Issue.record("shape")
            return
        }
        let deu = try #require(rows.first { $0["territory"]?.value == .string("DEU") })
        #expect(deu["productId"]?.value == .string("3000tks"))
        #expect(deu["currency"]?.value == .string("EUR"))
        #expect(deu["customerPrice"]?.value == .string("2.99"))
        #expect(deu["proceeds"]?.value == .string("1.76"))
        #expect(deu["proceedsSource"]?.value == .string("apple"))
        #expect(deu["worstCost"]?.value == .string("1.362676056338"))
        #expect(deu["margin"]?.value == .string("0.397323943662"))
        #expect(deu["marginPercent"]?.value == .string("13.28842620943"))
    }

    @Test(arguments: ["csv", "markdown"])
    func otherFormats(format: String) throws {
        let r = try runMargin(["storefronts", "osg", "--at", "2026-12-01", "--format", format])
        #expect(r.status == 0)
        if format == "csv" {
            #expect(
                r.stdout.hasPrefix(
                    "card,product_id,territory,currency,customer_price,proceeds,proceeds_source,worst_cost,margin,margin_percent,missing\n"
                ))
            #expect(
                r.stdout.contains(
                    "osg@10,3000tks,CHN,CNY,28,20.81,modelled,11.25,9.56,34.142857142857,\n"))
            // A row without a margin says why in `missing`, as JSON does.
            let early = try runMargin([
                "storefronts", "osg", "--at", "2022-06-01", "--format", format,
            ])
            #expect(
                early.stdout.contains(
                    "osg@10,3000tks,ALB,USD,2.99,,,1.584507042254,,,no tax history\n"))
        } else {
            #expect(
                r.stdout.contains(
                    "| osg@10 | 3000tks | USA | USD | 2.99 | excl. | 30% standard | 2.09 | modelled | 1.58 | 0.51 | 16.9% |"
                ))
        }
    }

    @Test func crossCheckWarningOnStderr() throws {
        let r = try runMargin([
            "storefronts", "osg", "--at", "2026-12-01", "--price-points",
            "3000tks=" + StorefrontFixtures.path("3000tks-deu-differs.json"),
        ])
        #expect(r.status == 0)
        #expect(r.stderr.contains("3000tks-deu-differs.json:"))
        #expect(
            r.stderr.contains(
                "warning: 3000tks in DEU: Apple pays EUR 2.09 for EUR 2.99 but the storefront data models EUR 1.76"
            ))
        #expect(r.stderr.contains("[storefront-cross-check]"))
    }

    @Test func noFXRateKeepsTheRow() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let cards = try tmp.copyRepositoryCards()
        try tmp.write(
            "RateCards/fx.json",
            #"{ "kind": "fx", "date": "2026-11-15", "source": "test", "rates": [ { "base": "USD", "quote": "CNY", "rate": "7.10" } ] }"#
        )
        let r = try runMargin([
            "storefronts", "osg", "--cards", cards, "--at", "2026-12-01", "--format", "csv",
            "--price-points", "3000tks=" + StorefrontFixtures.path("3000tks-kaz.json"),
        ])
        #expect(r.status == 0)
        #expect(r.stdout.contains("osg@10,3000tks,KAZ,KZT,1490,898.99,apple,,,,no FX rate\n"))
        #expect(
            r.stdout.hasSuffix("osg@10,3000tks,KAZ,KZT,1490,898.99,apple,,,,no FX rate\n"),
            "listed last")
        #expect(
            r.stderr.contains(
                "warning: 3000tks in KAZ: no FX rate converts the worst-case cost into KZT"))
        #expect(r.stderr.contains("[storefront-fx]"))
    }

    @Test func badAppleFileIsExit2WithItsPlace() throws {
        let r = try runMargin([
            "storefronts", "osg", "--price-points",
            "3000tks=" + StorefrontFixtures.path("malformed-amount.json"),
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("malformed-amount.json:"))
        #expect(
            r.stderr.contains(
                ": error: data[1].attributes.customerPrice: \"2,99\" is not a decimal"))
        #expect(r.stdout.isEmpty)
    }

    @Test(arguments: [
        (["--price-points", "3000tks"], "--price-points 3000tks: expected PRODUCT_ID=FILE"),
        (["--program", "small"], "unknown program 'small'"),
        (["--program", "standrd"], "did you mean 'standard'?"),
        (["--at", "yesterday"], "--at yesterday: expected a date YYYY-MM-DD"),
        (
            ["--price-points", "nope=x.json"],
            "x.json:1:1: error: cannot read the App Store Connect file"
        ),
    ])
    func badUsage(extra: [String], message: String) throws {
        try expectMargin(["storefronts", "osg"] + extra, exits: 2, stderr: .contains(message))
    }

    @Test func unknownProductIsExit2() throws {
        try expectMargin(
            [
                "storefronts", "osg", "--price-points",
                "9000tks=" + StorefrontFixtures.path("3000tks-kaz.json"),
            ], exits: 2,
            stderr: .contains("no pack of osg@10 has product id 9000tks"))
    }

    @Test func noStorefrontDataAndNoPricePointsIsExit2() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let cards = try tmp.copyRepositoryCards()
        try FileManager.default.removeItem(atPath: cards + "/storefronts.json")
        try expectMargin(
            ["storefronts", "--cards", cards], exits: 2,
            stderr: .contains("no storefront data in \(cards) and no --price-points"))
    }

    @Test func help() throws {
        try expectMargin(
            ["storefronts", "--help"], exits: 0,
            stdout: .contains("--price-points PRODUCT_ID=FILE", "--program"))
    }

    @Test func checkAppliesTheFloorPerStorefront() throws {
        try expectMargin(
            [
                "check", "--min-margin", "15", "--at", "2026-12-01", "--price-points", page1,
                "--price-points", page2,
            ], exits: 1,
            stderr: .all(
                .contains(
                    "error: pack \"3000tks\" in DEU (Germany): the worst-case margin at EUR 2.99 is EUR 0.40 (13.3% of the price), below the 15.0% floor; Apple's proceeds EUR 1.76",
                    "pack \"3000tks\" in HUN (Hungary)",
                    "[storefront-margin]"),
                .lacks("in USA (United States)")))
        try expectMargin(
            [
                "check", "--min-margin", "3", "--at", "2026-12-01", "--price-points", page1,
                "--price-points", page2,
            ], exits: 0)
    }

    @Test func checkWithoutPricePointsModelsFromTheStorefrontFile() throws {
        let r = try runMargin(["check", "--min-margin", "20", "--at", "2026-12-01"])
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                "pack \"3000tks\" in USA (United States): the worst-case margin at USD 2.99 is USD 0.51 (16.9% of the price), below the 20.0% floor; modelled proceeds (prices exclude tax, 30% standard commission (confirmed)) USD 2.09"
            ))
    }

    @Test func checkFailsABadStorefrontFile() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let cards = try tmp.copyRepositoryCards()
        let path = cards + "/storefronts.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: #""rate": "0.19""#, with: #""rate": "19%""#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try runMargin(["check", cards])
        #expect(r.status == 2)
        #expect(r.stderr.contains("storefronts.json:"))
        #expect(r.stderr.contains(".taxes[0].rate: \"19%\" is not a decimal"))
    }
}

/// The heading, note and JSON of the storefronts a card's prices do not reach.
@Suite struct StorefrontsCoverageCLITests {
    @Test func voiceDebriefIsShownInOneStorefrontAndSaysSo() throws {
        let r = try runMargin(["storefronts", "voice-debrief", "--at", "2026-12-01"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("voice-debrief@1 in 1 of the 175 storefronts\n"))
        #expect(
            r.stdout.contains(
                "shown in 1 of the 175 storefronts of the data; not shown, since no price is in their currency and no Apple price points cover them: 174 in AED (ARE); "
            ))
        let json = try runMargin([
            "storefronts", "voice-debrief", "--at", "2026-12-01", "--format", "json",
        ])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8))
        let cards = try #require((object as? [String: Any])?["cards"] as? [[String: Any]])
        let notShown = try #require(cards.first?["notShown"] as? [[String: Any]])
        let count = notShown.reduce(0) { $0 + (($1["territories"] as? [String])?.count ?? 0) }
        #expect(count == 174)
        #expect(!notShown.contains { $0["currency"] as? String == "GBP" })
    }
}
