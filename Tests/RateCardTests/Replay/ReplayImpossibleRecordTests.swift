import Foundation
import Testing

/// Records that cannot have happened are rejected by `margin replay`, named at their
/// file:line with the field, counted as rejected lines (so `--strict` exits 1), and never
/// summed: a refund larger than its charge, or of another feature. One dated before its
/// charge is counted, as `pnl` counts it.
@Suite("Replay: impossible records rejected, not summed")
struct ReplayImpossibleRecordTests {
    static let candidate = ReplayGateCLITests.candidate

    static let grant =
        #"{"id":"g1","at":"2026-11-02T08:00:00+08:00","kind":"grant","amount":1000,"device":"A","balanceAfter":1000,"card":"osg@10"}"#
    static let charge =
        #"{"id":"c1","at":"2026-11-02T10:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76},"device":"A","balanceAfter":974,"card":"osg@10"}"#

    static func refund(at: String, amount: Int, feature: String = "asr") -> String {
        #"{"id":"r1","at":""# + at + #"","kind":"refund","amount":"# + "\(amount)"
            + #","feature":""# + feature
            + #"","refundOf":"c1","reason":"notUsable","device":"A","card":"osg@10"}"#
    }

    /// Replays `lines` (JSON Lines) under the candidate at CNY 0.01 a credit, in JSON,
    /// on `threads` threads, and checks the one rejected refund: named on stderr, exit 0
    /// (exit 1 with `--strict`), nothing of it in the credits or the balance.
    func expectRejected(
        _ lines: [String], stderr message: String, threads: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.jsonl", lines.joined(separator: "\n") + "\n")
        let ledger = dir.path + "/ledger.jsonl"
        let args = [
            "replay", ledger, "--card", Self.candidate, "--credit-value", "CNY 0.01",
            "--threads", threads,
        ]
        let r = try expectMargin(
            args + ["--format", "json"], exits: 0,
            stderr: .contains("\(ledger):\(message)"), sourceLocation: sourceLocation)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let total = json["total"] as! [String: Any]
        // The charge alone: 26 credits before, ⌈76/5⌉ = 16 after; the refund takes nothing back.
        #expect(total["creditsBefore"] as? String == "26", sourceLocation: sourceLocation)
        #expect(total["creditsAfter"] as? String == "16", sourceLocation: sourceLocation)
        let input = json["input"] as! [String: Any]
        #expect(input["rejected"] as? Int == 1, sourceLocation: sourceLocation)
        #expect(input["entries"] as? Int == 2, sourceLocation: sourceLocation)
        let balances = json["balances"] as! [String: Any]
        #expect(balances["creditsLeftBefore"] as? String == "974", sourceLocation: sourceLocation)
        #expect(balances["creditsLeftAfter"] as? String == "984", sourceLocation: sourceLocation)
        try expectMargin(args + ["--strict"], exits: 1, sourceLocation: sourceLocation)
    }

    @Test(
        "a refund larger than its charge is rejected (refund-exceeds-charge)",
        arguments: ["1", "2"])
    func exceeds(threads: String) throws {
        try expectRejected(
            [Self.grant, Self.charge, Self.refund(at: "2026-11-02T12:01:00+08:00", amount: 100)],
            stderr:
                "3:1: error: amount: the refund gives back 100 credits, but the charge it names",
            threads: threads)
    }

    /// A refund dated before its charge is counted, as `pnl` counts it (two services'
    /// clocks): the charge is given back on both sides, and nothing is rejected.
    @Test("a refund dated before its charge is counted, as pnl counts it", arguments: ["1", "2"])
    func beforeCharge(threads: String) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let lines = [
            Self.grant, Self.refund(at: "2026-11-02T09:59:59+08:00", amount: 26), Self.charge,
        ]
        try dir.write("ledger.jsonl", lines.joined(separator: "\n") + "\n")
        let r = try expectMargin(
            [
                "replay", dir.path + "/ledger.jsonl", "--card", Self.candidate, "--credit-value",
                "CNY 0.01", "--threads", threads, "--format", "json", "--strict",
            ], exits: 0)
        #expect(!r.stderr.contains("error:"), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let total = json["total"] as! [String: Any]
        #expect(total["creditsBefore"] as? String == "0")
        #expect(total["creditsAfter"] as? String == "0")
        let input = json["input"] as! [String: Any]
        #expect(input["rejected"] as? Int == 0)
        // The balances count it too, taken right after its charge (as the proceeds pass
        // takes it): 1,000 − 26 + 26 before and 1,000 − 16 + 16 after, not 974 and 984.
        let balances = json["balances"] as! [String: Any]
        #expect(balances["creditsLeftBefore"] as? String == "1000")
        #expect(balances["creditsLeftAfter"] as? String == "1000")
        #expect(balances["declinedBefore"] as? Int == 0)
        #expect(balances["declinedAfter"] as? Int == 0)
    }

    @Test("a refund of another feature than its charge is rejected", arguments: ["1", "2"])
    func otherFeature(threads: String) throws {
        try expectRejected(
            [
                Self.grant, Self.charge,
                Self.refund(at: "2026-11-02T12:01:00+08:00", amount: 26, feature: "llm"),
            ],
            stderr: "3:1: error: feature: the refund is for \"llm\" but the charge it names",
            threads: threads)
    }
}
