import Foundation
import Testing

@testable import RateCard

/// A refund recorded on another device than its charge (or on none), dated before the
/// charge: its credits go back to the balance of the charge's device, right after the
/// charge, as on one device, and its feature's credits count it, as `pnl` counts it, on
/// any number of threads and partitioned.
@Suite("Replay: a refund on another device than its charge")
struct ReplayCrossDeviceRefundTests {
    static let candidate = ReplayGateCLITests.candidate

    /// Device A has 26 credits and makes two 76-second ASR charges (26 credits each on
    /// the ledger, ⌈76/5⌉ = 16 under the candidate); the first is refunded one second
    /// before it, by `refundDevice` (nil: no device). 30 one-credit grants on other
    /// devices make the file large enough to be partitioned under `--memory 1K`.
    static func ledger(refundDevice: String?) -> String {
        let device = refundDevice.map { #","device":""# + $0 + #"""# } ?? ""
        var lines = [
            #"{"id":"gB","at":"2026-11-02T08:00:00+08:00","kind":"grant","amount":100,"device":"B","balanceAfter":100}"#,
            #"{"id":"r1","at":"2026-11-02T09:59:59+08:00","kind":"refund","amount":26,"feature":"asr","refundOf":"c1","reason":"notUsable""#
                + device + "}",
            #"{"id":"gA","at":"2026-11-02T08:00:00+08:00","kind":"grant","amount":26,"device":"A","balanceAfter":26}"#,
            #"{"id":"c1","at":"2026-11-02T10:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76},"device":"A","card":"osg@10"}"#,
            #"{"id":"c2","at":"2026-11-02T11:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76},"device":"A","card":"osg@10"}"#,
        ]
        for k in 0..<30 {
            lines.append(
                #"{"id":"p\#(k)","at":"2026-11-02T08:00:00+08:00","kind":"grant","amount":1,"device":"D\#(k)"}"#
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(
        "the charge's device gets the credits back, right after the charge",
        arguments: ["B", nil],
        [
            ["--threads", "1"], ["--threads", "2"], ["--threads", "3"],
            ["--memory", "1K"], ["--memory", "1K", "--threads", "1"],
        ])
    func givenBackToTheChargesDevice(refundDevice: String?, options: [String]) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.jsonl", Self.ledger(refundDevice: refundDevice))
        let ledger = dir.path + "/ledger.jsonl"
        let size = try FileManager.default.attributesOfItem(atPath: ledger)[.size] as! Int
        #expect(ReplaySpill.partitions(inputBytes: size, memoryLimit: 1024) > 1)
        let r = try expectMargin(
            [
                "replay", ledger, "--card", Self.candidate, "--credit-value", "CNY 0.01",
                "--format", "json", "--strict",
            ] + options, exits: 0, stderr: .empty)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        // Its feature's credits count it: 26 + 26 − 26 before, 16 + 16 − 16 after.
        let total = json["total"] as! [String: Any]
        #expect(total["creditsBefore"] as? String == "26")
        #expect(total["creditsAfter"] as? String == "16")
        // A's balance: 26 − 26 + 26 − 26 = 0 before (c2 covered, not declined), 26 − 16 +
        // 16 − 16 = 10 after; B keeps its 100, and the 30 grants are 30.
        let balances = json["balances"] as! [String: Any]
        #expect(balances["declinedBefore"] as? Int == 0)
        #expect(balances["declinedAfter"] as? Int == 0)
        #expect(balances["creditsLeftBefore"] as? String == "130")
        #expect(balances["creditsLeftAfter"] as? String == "140")
        #expect(balances["devices"] as? Int == 32)
        #expect(balances["entriesWithoutDevice"] as? Int == (refundDevice == nil ? 1 : 0))
        let input = json["input"] as! [String: Any]
        #expect(input["entries"] as? Int == 35)
        #expect(input["rejected"] as? Int == 0)
    }

    /// `pnl` counts the same refund: the ASR credits left are the same 26.
    @Test("pnl counts the refund the same way")
    func pnlAgrees() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.jsonl", Self.ledger(refundDevice: "B"))
        let r = try expectMargin(
            [
                "pnl", dir.path + "/ledger.jsonl", "--card", "osg", "--window", "all",
                "--format", "json",
            ], exits: 0)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let features = json["features"] as! [[String: Any]]
        let asr = try #require(features.first { $0["feature"] as? String == "asr" })
        #expect(asr["charged"] as? String == "52")
        #expect(asr["givenBack"] as? String == "26")
        #expect(asr["left"] as? String == "26")
    }
}
