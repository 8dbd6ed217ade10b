import Foundation
import Testing

@testable import RateCard

/// `margin packs` and the conventions every command shares, run as a user would.
@Suite(.serialized) struct PacksCommandTests {
    @Test func showsTheSeedFiguresFor3000tks() throws {
        let r = try expectMargin(["packs", "osg", "--format", "csv"], exits: 0, stderr: .empty)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "card,kind,key,credits,currency,price,worst_cost,commission_rate,proceeds,margin,margin_share,worst_feature,storefront"
        )
        #expect(
            lines.contains(
                "osg@10,pack,3000tks,3000,CNY,28,11.25,0.15,23.8,12.55,0.448214285714,asr,"))
        #expect(
            lines.contains(
                "osg@10,pack,3000tks,3000,CNY,28,11.25,0.3,19.6,8.35,0.298214285714,asr,")
        )
        #expect(lines.contains("osg@10,grant,signup,1000,CNY,,3.75,,,,,asr,"))
    }

    @Test func defaultTableCoversEveryCard() throws {
        try expectMargin(
            ["packs"], exits: 0,
            stdout: .all(
                .contains(
                    "osg@10  3000tks    3,000  CNY       28.00       11.25         15%     23.80   12.55     44.8%  asr"
                ),
                .contains("voice-debrief@1"),
                .contains("witness 3000tks: 3,000 × 3 s of asr.second for 1 credit (billed 3 s)"),
                .lacks("\u{1B}[")))  // no colour when stdout is not a terminal
    }

    @Test func jsonCarriesExactDecimalStrings() throws {
        let r = try runMargin(["packs", "osg@10", "--format=json"])
        #expect(r.status == 0)
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let cards) = root["cards"]?.value, let card = cards.first,
            case .array(let packs) = card["packs"]?.value
        else {
            Issue.record("shape")
            return
        }
        let cny3000 = try #require(
            packs.first {
                $0["productId"]?.value == .string("3000tks")
                    && $0["currency"]?.value == .string("CNY")
            })
        #expect(cny3000["worstCase"]?["cost"]?.value == .string("11.25"))
        guard case .array(let lines) = cny3000["commissions"]?.value else {
            Issue.record("commissions")
            return
        }
        #expect(lines.map { $0["margin"]?.value } == [.string("12.55"), .string("8.35")])
        // USD costs are converted at the FX file's rate and kept exact until rounded for JSON.
        let usd3000 = try #require(
            packs.first {
                $0["productId"]?.value == .string("3000tks")
                    && $0["currency"]?.value == .string("USD")
            })
        #expect(usd3000["worstCase"]?["cost"]?.value == .string("1.584507042254"))
        #expect(usd3000["providerCost"]?["amount"]?.value == .string("11.25"))
        // Same output twice: deterministic.
        #expect(try runMargin(["packs", "osg@10", "--format=json"]).stdout == r.stdout)
    }

    @Test func commissionAndFXCanBeOverridden() throws {
        try expectMargin(
            ["packs", "osg", "--format", "csv", "--commission", "0.3", "--fx", "USD/CNY=7.5"],
            exits: 0,
            stdout: .all(
                .contains(
                    "osg@10,pack,3000tks,3000,USD,2.99,1.5,0.3,2.093,0.593,0.198327759197,asr"),
                .lacks(",0.15,")))
    }

    /// With a 20% tax in GBP, GBP 5.00 is GBP 4.1666… before tax; 30% of that goes to the store.
    @Test func taxIsRemovedBeforeCommissionWhenGiven() throws {
        try expectMargin(
            [
                "packs", "voice-debrief", "--format", "csv", "--tax", "GBP=0.20", "--commission",
                "0.3",
            ], exits: 0,
            stdout: .contains(
                ",pack,ai.voicedebrief.app.credit.500,5000000,GBP,5,0,0.3,2.916666666667,2.916666666667,0.583333333333,"
            ))
        try expectMargin(
            ["packs", "voice-debrief", "--tax", "GBP=0.20"], exits: 0,
            stdout: .contains("tax removed from tax-inclusive prices before commission: GBP 20.00%")
        )
        try expectMargin(
            ["packs", "voice-debrief"], exits: 0, stdout: .contains("tax not modelled"))
    }

    @Test func markdownIsATable() throws {
        try expectMargin(
            ["packs", "osg", "--format", "markdown"], exits: 0,
            stdout: .contains(
                "| osg@10 | 3000tks | 3,000 | CNY | 28.00 | 11.25 | 30% | 19.60 | 8.35 | 29.8% | asr |"
            ))
    }

    @Test(arguments: [
        (["packs", "--format", "yaml"], "unknown format 'yaml'"),
        (["packs", "--formt", "json"], "did you mean '--format'?"),
        (["packs", "--commission", "1.5"], "must be from 0 to below 1"),
        (["packs", "--fx", "USD-CNY"], "expected BASE/QUOTE=RATE"),
        (["packs", "nosuchcard"], "no card 'nosuchcard'"),
        (["pack"], "did you mean 'packs'?"),
        (["packs", "--format"], "needs a value"),
    ])
    func badUsageExitsTwo(arguments: [String], fragment: String) throws {
        try expectMargin(arguments, exits: 2, stdout: .empty, stderr: .contains(fragment))
    }

    @Test func helpAndVersionGoToStdout() throws {
        try expectMargin(["packs", "--help"], exits: 0, stdout: .contains("Usage: margin packs"))
        try expectMargin(["--help"], exits: 0, stdout: .contains("Commands:"))
        try expectMargin(["--version"], exits: 0, stdout: .hasPrefix("margin "))
        try expectMargin([], exits: 2, stderr: .contains("Usage: margin <command>"))
    }

    @Test func unreadableCardsExitTwoWithLocatedDiagnostics() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        let path = cards + "/osg-v10.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingFirst("\"amount\": \"28\"", with: "\"amount\": \"28.0.0\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try expectMargin(
            ["packs", "--cards", "RateCards"], in: dir.path, exits: 2, stdout: .empty,
            stderr: .contains(
                "RateCards/osg-v10.json:50:91: error: packs[2].prices[1].amount: \"28.0.0\" is not a decimal"
            ))
    }

    @Test func aCardThatChargesNothingForShortRequestsIsAFinding() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        let path = cards + "/osg-v10.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingFirst(
            "\"per\": 3, \"rounding\": \"up\"", with: "\"per\": 3, \"rounding\": \"down\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try expectMargin(
            ["packs", "osg"], in: dir.path, exits: 1,
            stderr: .contains(
                "RateCards/osg-v10.json:13:9: error: osg@10: feature \"asr\", dimension \"second\": a request of 2 s is charged 0 credits",
                "[free-usage]"))
    }

    /// The replay fixture's candidate card (osg@11), the base of the pack edge cases.
    static func candidateText() throws -> String {
        try String(
            contentsOfFile: packageRoot.appendingPathComponent(
                "Tests/RateCardTests/Fixtures/replay/osg-v11-candidate.json"
            ).path, encoding: .utf8)
    }

    /// A pack priced 0: its margin is shown, its margin share is "—" (null in JSON, empty
    /// in CSV), never 0.0%, since a share of nothing is not computed.
    @Test func aPackPricedZeroHasNoMarginShare() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let text = try Self.candidateText()
        let priced =
            #""prices": [ { "currency": "USD", "amount": "0.99" }, { "currency": "CNY", "amount": "8" } ]"#
        #expect(text.components(separatedBy: priced).count == 2)
        try dir.write(
            "osg-v11.json",
            text.replacingOccurrences(
                of: priced, with: #""prices": [ { "currency": "CNY", "amount": "0" } ]"#))
        let path = dir.path + "/osg-v11.json"
        let table = try expectMargin(["packs", path], exits: 0)
        let rows = tableRows(table.stdout)
        #expect(rows.contains("osg@11 500tks 500 CNY 0.00 3.12 15% 0.00 −3.12 — asr"))
        #expect(rows.contains("osg@11 500tks 500 CNY 0.00 3.12 30% 0.00 −3.12 — asr"))
        let csv = try expectMargin(["packs", path, "--format", "csv"], exits: 0)
        #expect(csv.stdout.contains("osg@11,pack,500tks,500,CNY,0,3.125,0.15,0,-3.125,,asr"))
        let json = try expectMargin(["packs", path, "--format", "json"], exits: 0)
        #expect(json.stdout.contains(#""marginShare": null"#))
    }
}
