import Foundation
import Testing

@testable import RateCard

/// One rule's failing fixture: the files of the folder, the extra arguments, and the rule
/// and place the finding must have.
struct RuleFixture: Sendable, CustomTestStringConvertible {
    let rule: String
    let files: [String: String]
    var arguments: [String] = []
    /// "card.json:9:56"
    let place: String

    var testDescription: String { rule }
}

/// `margin check` run as a binary over fixture folders: exit codes, rule ids and the exact
/// place of every finding.
@Suite struct CheckCommandTests {
    static let ruleFixtures: [RuleFixture] = [
        // Issue 24 case 20: a dimension charged 0 credits on a priced meter is free usage,
        // at the dimension, as `margin packs` says it; one that costs nothing is free-price.
        RuleFixture(
            rule: "free-usage",
            files: ["card.json": CheckFixture.editedCard(("\"credits\": 1,", "\"credits\": 0,"))],
            place: "card.json:9:7"),
        RuleFixture(
            rule: "free-price",
            files: ["card.json": CheckFixture.editedCard(("\"credits\": 2,", "\"credits\": 0,"))],
            place: "card.json:11:54"),
        RuleFixture(
            rule: "free-price",
            files: [
                "card.json": CheckFixture.editedCard(("\"credits\": 100 }", "\"credits\": 0 }"))
            ],
            place: "card.json:14:35"),
        RuleFixture(
            rule: "free-price",
            files: [
                "card.json": CheckFixture.editedCard(("\"credits\": 1000,", "\"credits\": -1000,"))
            ],
            place: "card.json:17:62"),
        RuleFixture(
            rule: "free-price",
            files: ["card.json": CheckFixture.editedCard(("\"0.99\"", "\"0\""))],
            place: "card.json:18:50"),
        RuleFixture(
            rule: "price-step",
            files: [
                "card.json": CheckFixture.editedCard(("\"priceStep\": 1 }", "\"priceStep\": 2 }"))
            ],
            place: "card.json:9:56"),
        RuleFixture(
            rule: "currency-decimals",
            files: ["card.json": CheckFixture.editedCard(("\"0.99\"", "\"0.999\""))],
            place: "card.json:18:50"),
        RuleFixture(
            rule: "feature-key",
            files: ["card.json": CheckFixture.editedCard(("\"summary\"", "\"Summary text\""))],
            place: "card.json:10:14"),
        RuleFixture(
            rule: "duplicate-feature",
            files: ["card.json": CheckFixture.editedCard(("\"summary\"", "\"asr\""))],
            place: "card.json:10:14"),
        RuleFixture(
            rule: "feature-removed",
            files: ["card.json": CheckFixture.card, "card-v2.json": CheckFixture.cardV2],
            place: "card-v2.json:7:15"),
        RuleFixture(
            rule: "version-order",
            files: [
                "card.json": CheckFixture.card,
                "card-v2.json": CheckFixture.cardV2.replacingOccurrences(
                    of: "2026-02-01T00:00:00Z", with: "2025-12-01T00:00:00Z"),
            ],
            place: "card-v2.json:5:16"),
        RuleFixture(
            rule: "version-order",
            files: ["card.json": CheckFixture.card, "copy.json": CheckFixture.card],
            place: "copy.json:4:14"),
        RuleFixture(
            rule: "published-card-edited",
            files: ["card.json": CheckFixture.card, "published.lock": CheckFixture.lock()],
            place: "card.json:4:14"),
        RuleFixture(
            rule: "published-card-missing",
            files: [
                "card.json": CheckFixture.card,
                "published.lock": CheckFixture.lock(card: "gone", file: "gone.json"),
            ],
            place: "published.lock:4:5"),
        RuleFixture(
            rule: "free-usage",
            files: [
                "card.json": CheckFixture.editedCard(
                    (
                        "\"rounding\": \"up\", \"cost\": { \"provider\"",
                        "\"rounding\": \"down\", \"cost\": { \"provider\""
                    ))
            ],
            place: "card.json:9:7"),
        RuleFixture(
            rule: "min-margin",
            files: [
                "card.json": CheckFixture.card,
                "provider.json": CheckFixture.provider.replacingOccurrences(
                    of: "\"0.36\"", with: "\"36\""),
            ],
            place: "card.json:18:50"),
        RuleFixture(
            rule: "min-margin", files: ["card.json": CheckFixture.card],
            arguments: ["--min-margin", "50"],
            place: "card.json:18:50"),
        RuleFixture(
            rule: "storekit-price",
            files: [
                "card.json": CheckFixture.card,
                "products.storekit": CheckFixture.storeKit(price: "1.99"),
            ],
            arguments: ["--storekit", "products.storekit"], place: "products.storekit:4:24"),
        RuleFixture(
            rule: "storekit-missing-product",
            files: [
                "card.json": CheckFixture.card,
                "products.storekit": CheckFixture.storeKit(price: "0.99").replacingOccurrences(
                    of: "\"p1000\"", with: "\"p2000\""),
            ],
            arguments: ["--storekit", "products.storekit"], place: "card.json:17:5"),
    ]

    /// Each rule's fixture fails with exit 1 and a compiler-style finding at the offending value.
    @Test(arguments: ruleFixtures)
    func ruleFailsAtTheOffendingValue(_ fixture: RuleFixture) throws {
        let folder = try CheckFixture.folder(fixture.files)
        defer { folder.cleanup() }
        let result = try runMargin(["check", "."] + fixture.arguments, in: folder.path)
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let finding = lines.first {
            $0.hasPrefix(fixture.place + ": error: ") && $0.hasSuffix("[\(fixture.rule)]")
        }
        #expect(
            finding != nil, "no [\(fixture.rule)] error at \(fixture.place) in:\n\(result.stderr)")
        #expect(lines.last?.hasPrefix("0 errors") == false)
    }

    /// Before the card is in force (and with no lock), it is a draft: one warning.
    @Test func theUntouchedFixtureHasOnlyTheUnpublishedWarning() throws {
        let folder = try CheckFixture.folder(["card.json": CheckFixture.card])
        defer { folder.cleanup() }
        let result = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective], in: folder.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                card.json:4:14: warning: card demo@1 is not published (there is no lock file published.lock yet); run 'margin publish card.json' once it is final [unpublished-card]
                0 errors, 1 warning in 2 files

                """)
    }

    @Test func messagesNameTheFigures() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.editedCard(
                ("\"0.99\"", "\"0.999\""), ("\"priceStep\": 1 }", "\"priceStep\": 2 }"),
                ("\"credits\": 2,", "\"credits\": 4,"))
        ])
        defer { folder.cleanup() }
        let result = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective], in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "card.json:9:56: error: feature \"asr\", dimension \"second\" is charged 1 credits, not a whole multiple of the card's price step of 2; round it to 0 or 2 [price-step]"
            ))
        #expect(
            result.stderr.contains(
                "card.json:18:50: error: pack \"p1000\" is priced at USD 0.999, with 3 decimals, but USD has 2 [currency-decimals]"
            ))
        #expect(result.stderr.hasSuffix("2 errors, 1 warning in 2 files\n"))
    }

    @Test func minMarginNamesTheWitness() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.card,
            "provider.json": CheckFixture.provider.replacingOccurrences(
                of: "\"0.36\"", with: "\"36\""),
        ])
        defer { folder.cleanup() }
        let result = try runMargin(["check", "."], in: folder.path)
        #expect(result.status == 1)
        // 1,000 credits × 3 s at USD 36 an hour = USD 30.00; USD 0.99 × 70% = USD 0.69 (0.693), so the margin is USD -29.307, -2960.3% of USD 0.99.
        #expect(
            result.stderr.contains(
                "card.json:18:50: error: pack \"p1000\" at USD 0.99: the worst-case margin after 30% commission is USD -29.31 (-2960.3% of the price), below the 0.0% floor; proceeds USD 0.69, worst-case cost USD 30.00 spending 1,000 credits as 1,000 × 3 s of asr.second for 1 credit"
            ), "\(result.stderr)")
    }

    @Test func unreadableInputExitsTwo() throws {
        let folder = try CheckFixture.folder([
            "card.json": "{ \"kind\": \"card\", ",
            "other.json": CheckFixture.editedCard(("\"0.99\"", "\"0.999\"")),
        ])
        defer { folder.cleanup() }
        let result = try runMargin(["check", "."], in: folder.path)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("card.json:1:19: error: unexpected end of file"))
        // The other file is still checked.
        #expect(result.stderr.contains("[currency-decimals]"))
    }

    @Test func badUsageExitsTwo() throws {
        #expect(try runMargin(["check", "--min-margin", "lots"]).status == 2)
        #expect(try runMargin(["check", "--format", "xml"]).status == 2)
        let typo = try runMargin(["check", "--storekt", "x"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("did you mean '--storekit'?"))
    }

    @Test func githubFormat() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.editedCard(("\"0.99\"", "\"0.999\""))
        ])
        defer { folder.cleanup() }
        let result = try runMargin(
            ["check", ".", "--format", "github", "--now", CheckFixture.beforeEffective],
            in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                ::warning file=card.json,line=4,col=14,title=unpublished-card::card demo@1 is not published (there is no lock file published.lock yet); run 'margin publish card.json' once it is final
                ::error file=card.json,line=18,col=50,title=currency-decimals::pack "p1000" is priced at USD 0.999, with 3 decimals, but USD has 2

                """)
    }

    @Test(arguments: [
        ("plain", "plain", "plain"),
        ("50% off\r\nnext", "50%25 off%0D%0Anext", "50%25 off%0D%0Anext"),
        ("C:\\a,b: c", "C:\\a,b: c", "C%3A\\a%2Cb%3A c"),
        ("%3A", "%253A", "%253A"),
    ])
    func githubEscaping(raw: String, data: String, property: String) {
        #expect(CheckReport.githubData(raw) == data)
        #expect(CheckReport.githubProperty(raw) == property)
    }

    @Test func jsonFormatParses() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.editedCard(("\"summary\"", "\"asr\""))
        ])
        defer { folder.cleanup() }
        let result = try runMargin(
            ["check", ".", "--format", "json", "--now", CheckFixture.beforeEffective],
            in: folder.path)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        let duplicate = try #require(
            findings.first { $0["rule"] as? String == "duplicate-feature" })
        #expect(duplicate["path"] as? String == "card.json")
        #expect(duplicate["line"] as? Int == 10)
        #expect(duplicate["column"] as? Int == 14)
        #expect(duplicate["severity"] as? String == "error")
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["errors"] as? Int == 1)
        #expect(summary["warnings"] as? Int == 1)
        #expect(summary["exitCode"] as? Int == 1)
        #expect(summary["files"] as? [String] == ["card.json", "provider.json"])
    }

    @Test func outputIsDeterministic() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.card, "card-v2.json": CheckFixture.cardV2,
        ])
        defer { folder.cleanup() }
        let first = try runMargin(["check", ".", "--format", "json"], in: folder.path)
        let second = try runMargin(["check", ".", "--format", "json"], in: folder.path)
        #expect(first.stdout == second.stdout)
    }
}
