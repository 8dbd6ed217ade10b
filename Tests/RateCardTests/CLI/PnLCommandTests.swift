import Foundation
import Testing

@testable import RateCard

/// `margin pnl` run as finance would, on the repository's own cards.
@Suite(.serialized) struct PnLCommandTests {
    /// Two ASR charges of 76 s (26 credits each, the second declined and given back), one
    /// DeepSeek charge at peak (1,200 input + 300 output tokens: 2 + 1 credits) and one
    /// off-peak, a grant and a top-up. 2026-11-30 is a Monday.
    static let osgExport = """
        {"id":"g1","at":"2026-11-30T08:00:00+08:00","kind":"grant","amount":1000,"note":"signup"}
        {"id":"c1","at":"2026-11-30T10:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76}}
        {"id":"c2","at":"2026-11-30T10:05:00+08:00","kind":"charge","amount":"-26","feature":"asr","quantity":{"second":76}}
        {"id":"r2","at":"2026-11-30T10:06:00+08:00","kind":"refund","amount":26,"feature":"asr","refundOf":"c2","reason":"notUsable"}
        {"id":"c3","at":"2026-11-30T10:10:00+08:00","kind":"charge","amount":-3,"feature":"llm","quantity":{"inputTokens":1200,"outputTokens":300}}
        {"id":"c4","at":"2026-11-30T20:10:00+08:00","kind":"charge","amount":-3,"feature":"llm","quantity":{"inputTokens":1200,"outputTokens":300}}
        {"id":"t1","at":"2026-11-30T21:00:00+08:00","kind":"topup","amount":3000,"paymentRef":"apple-1"}

        """

    func run(_ export: String, _ extra: [String], name: String = "export.jsonl") throws -> CLIResult
    {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(name, export)
        return try runMargin(["pnl", dir.path + "/" + name, "--cards", repositoryCards] + extra)
    }

    @Test func pricesMeteredChargesByTheScheduleInForce() throws {
        let r = try run(
            Self.osgExport, ["--card", "osg", "--credit-value", "CNY 0.01", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let features) = root["features"]?.value else {
            Issue.record("features")
            return
        }
        let asr = try #require(features.first { $0["feature"]?.value == .string("asr") })
        #expect(asr["charges"]?.value == .string("2"))
        #expect(asr["charged"]?.value == .string("52"))
        #expect(asr["declines"]?.value == .string("1"))
        #expect(asr["givenBack"]?.value == .string("26"))
        #expect(asr["left"]?.value == .string("26"))
        // A declined charge still cost the provider: 2 × 76 s × CNY 4.5 an hour = 0.19.
        #expect(asr["meteredCost"]?.value == .string("0.19"))
        #expect(asr["value"]?.value == .string("0.26"))
        #expect(asr["profit"]?.value == .string("0.07"))
        let llm = try #require(features.first { $0["feature"]?.value == .string("llm") })
        // Peak: 1,200 × 3 + 300 × 9 per million = 0.0063; off-peak half of it: 0.00315.
        #expect(llm["meteredCost"]?.value == .string("0.00945"))
        #expect(llm["charged"]?.value == .string("6"))
        #expect(root["input"]?["lines"]?.value == .number("7"))
        #expect(root["input"]?["entries"]?.value == .number("7"))
        #expect(root["belowTheLine"]?["outstanding"]?.value == .string("3968"))
        #expect(root["valuation"]?["currency"]?.value == .string("CNY"))
    }

    @Test func valuesCreditsConservativelyByDefault() throws {
        let r = try run(Self.osgExport, ["--card", "osg"])
        #expect(r.status == 0)
        #expect(
            r.stdout.contains(
                "lowest per-credit proceeds of any pack after the highest commission: 3000tks at USD 2.99 less 30%"
            ))
        #expect(r.stdout.contains("asr"))
    }

    @Test func everyFeatureOfTheCardIsListed() throws {
        let r = try run(Self.osgExport, ["--card", "osg", "--format", "csv"])
        #expect(r.status == 0)
        let rows = r.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",").first.map(String.init) ?? ""
        }
        #expect(rows == ["asr", "llm"])
    }

    @Test func fixedCostsComeFromACostSheet() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("e.jsonl", Self.osgExport)
        try dir.write(
            "costs.json",
            #"{"kind": "costs", "currency": "CNY", "since": "2026-11-01", "until": "2026-12-01", "costs": [{"feature": "llm", "amount": "1.50"}]}"#
        )
        let r = try runMargin(
            [
                "pnl", "e.jsonl", "--cards", repositoryCards, "--card", "osg", "--credit-value",
                "CNY=0.01", "--costs", "costs.json", "--format", "csv",
            ], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        // llm: value 6 × 0.01 = 0.06; cost 0.00945 metered + 1.50 fixed.
        #expect(
            r.stdout.contains("llm,2,6,0,0,6,0,1.50945,0.06,0.00945,1.5,-1.44945,-24.1575,CNY"),
            "\(r.stdout)")
    }

    @Test func readsTheDeviceLedgerDocumentOfTheVoiceApp() throws {
        let doc = """
            {"device": "a1b2", "entries": [
              {"id": "1", "at": "2026-11-13T09:00:00Z", "kind": "grant", "amount": 5000000, "note": "starting credit", "balanceAfter": 5000000},
              {"id": "2", "at": "2026-11-13T09:05:00Z", "kind": "charge", "amount": -60000, "feature": "transcript", "quantity": {"second": 76}, "balanceAfter": 4940000},
              {"id": "3", "at": "2026-11-13T09:06:00Z", "kind": "charge", "amount": -50000, "feature": "debrief", "balanceAfter": 4890000}
            ]}
            """
        let r = try run(
            doc, ["--card", "voice-debrief", "--format", "csv"], name: "credit-ledger.json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains("transcript,1,60000,0,0,60000,0,0,0.042,0,0,0.042,1,GBP"),
            "\(r.stdout)")
        #expect(r.stdout.contains("debrief,1,50000,0,0,50000,0,0,0.035,0,0,0.035,1,GBP"))
    }

    @Test func rejectionsAreCountedAndStrictMakesThemFindings() throws {
        let bad =
            Self.osgExport
            + "{\"id\":\"x\",\"at\":\"2026-11-30T10:00:00\",\"kind\":\"charge\",\"amount\":-1,\"feature\":\"asr\"}\n{\"id\":\"y\""
        let loose = try run(bad, ["--card", "osg"])
        #expect(loose.status == 0)
        #expect(
            loose.stdout.contains(
                "input: 9 lines read = 7 entries used + 0 duplicates + 2 rejected + 0 blank"),
            "\(loose.stdout)")
        #expect(loose.stderr.contains("export.jsonl:8:"), "\(loose.stderr)")
        #expect(loose.stderr.contains("export.jsonl:9:"))
        let strict = try run(bad, ["--card", "osg", "--strict"])
        #expect(strict.status == 1)
    }

    @Test func readsStandardInput() throws {
        let r = try runMargin(
            ["pnl", "-", "--cards", repositoryCards, "--card", "osg", "--format", "csv"],
            stdin: Self.osgExport)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("asr,2,52,1,26,26,"))
    }

    @Test(arguments: [
        ([String](), "give at least one export file"),
        (["x.jsonl", "--window", "7d", "--since", "2026-11-01T00:00:00Z"], "not both"),
        (["x.jsonl", "--now", "yesterday"], "--now yesterday"),
        (["x.jsonl", "--by", "year"], "--by year"),
        (["x.jsonl", "--card", "nope"], "no card 'nope'"),
        (
            ["x.jsonl", "--card", "osg", "--credit-value", "0.01"],
            "expected a currency and an amount"
        ),
    ])
    func badUsageExitsTwo(arguments: [String], fragment: String) throws {
        let r = try runMargin(["pnl"] + arguments + ["--cards", repositoryCards])
        #expect(r.status == 2)
        #expect(r.stderr.contains(fragment), "\(r.stderr)")
    }

    @Test func severalCardsNeedACardChoiceAndMissingFilesExitTwo() throws {
        let r = try run(Self.osgExport, [])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--card (osg, voice-debrief)"))
        let missing = try runMargin([
            "pnl", "/nonexistent/e.jsonl", "--cards", repositoryCards, "--card", "osg",
        ])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/e.jsonl"))
    }
}

@Suite struct LedgerDocumentDetectionTests {
    /// A ledger document whose first entry starts (and ends) on the opening line, and one
    /// written on a single line, as a JSON encoder writes it: both are ledger documents.
    @Test(arguments: [
        "{\"device\": \"a\", \"entries\": [{\"id\": \"1\", \"at\": \"2026-11-13T09:00:00Z\", \"kind\": \"grant\", \"amount\": 100},\n  {\"id\": \"2\", \"at\": \"2026-11-13T09:01:00Z\", \"kind\": \"charge\", \"amount\": -10, \"feature\": \"debrief\"}\n]}\n",
        "{\"device\":\"a\",\"entries\":[{\"id\":\"1\",\"at\":\"2026-11-13T09:00:00Z\",\"kind\":\"grant\",\"amount\":100},{\"id\":\"2\",\"at\":\"2026-11-13T09:01:00Z\",\"kind\":\"charge\",\"amount\":-10,\"feature\":\"debrief\"}]}",
    ])
    func detectsLedgerDocuments(text: String) throws {
        let report = try TakingsRun.run(
            inputs: [TakingsInput(name: "credit-ledger.json", text: text)],
            options: TakingsOptions(), pricing: nil)
        #expect(report.input.entries == 2 && report.input.rejected == 0)
        #expect(report.rows.first { $0.feature == "debrief" }?.charged == 10)
    }
}
