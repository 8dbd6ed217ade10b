import Foundation
import Testing

@testable import RateCard

/// A refund dated before its charge (two devices' clocks, a refund stamped with the
/// request's time): `pnl` counts it, so the proceeds pass takes it right after its charge
/// and puts the credits back into the lot the charge took them from. Account x tops up 100
/// credits (Apple's …001, GBP 0.0058 a credit in the example's reports), is refunded 40 at
/// 08:00 for a charge of 40 at 09:00, and spends 30 more: the feature keeps 30 credits
/// (GBP 0.174), as `pnl` does, and 70 are left in the lot at `--now` (GBP 0.406).
@Suite struct ProceedsRefundOrderTests {
    static let ledger = """
        {"id":"t-x","at":"2026-11-05T10:01:00Z","kind":"topup","amount":100,"paymentRef":"2000000001","device":"x"}
        {"id":"r-x","at":"2026-11-06T08:00:00Z","kind":"refund","amount":40,"feature":"chat","refundOf":"c-x","reason":"notUsable","device":"x"}
        {"id":"c-x","at":"2026-11-06T09:00:00Z","kind":"charge","amount":-40,"feature":"chat","quantity":{"message":4},"device":"x"}
        {"id":"c-x2","at":"2026-11-07T09:00:00Z","kind":"charge","amount":-30,"feature":"chat","quantity":{"message":3},"device":"x"}

        """

    @Test func aRefundBeforeItsChargePutsTheCreditsBack() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.jsonl", Self.ledger)
        let now = try Timestamp(rfc3339: "2026-12-01T00:00:00Z")
        let request = PnLRequest(
            inputs: [TakingsInput(path: dir.url.appendingPathComponent("ledger.jsonl").path)],
            window: .all, now: now,
            cards: [ProceedsExampleTests.path("\(ProceedsExampleTests.folder)/cards")],
            currency: Currency(code: "GBP"), creditValue: ProceedsExampleTests.gbp("0.005"))
        let plan = try PnLRun.plan(request)
        let a = ProceedsExampleTests.apple
        let r = try ProceedsRun.run(
            ProceedsSources(
                reports: [ProceedsExampleTests.path("\(a)/financial-2026-11.txt")],
                transactions: [ProceedsExampleTests.path("\(a)/transactions.jsonl")]),
            plan: plan, inputs: request.inputs, now: now)
        let chat = try #require(r.features.first { $0.key == "chat" })
        #expect(chat.credits == 30)
        #expect(chat.proceeds == ProceedsExampleTests.gbp("0.174"))
        #expect(r.liability.paidCredits == 70)
        #expect(r.liability.value == ProceedsExampleTests.gbp("0.406"))
        #expect(r.refundsBeforeCharge == 1)
        #expect(r.refundsIgnored == 0)
        // pnl keeps the same credits.
        let takings = try PnLRun.run(request)
        #expect(takings.takings.rows.first { $0.feature == "chat" }?.left == 30)
    }

    @Test func theBinarySaysSoAlsoWithASeries() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.jsonl", Self.ledger)
        let args = [
            "pnl", dir.url.appendingPathComponent("ledger.jsonl").path, "--cards",
            ProceedsExampleTests.path("\(ProceedsExampleTests.folder)/cards"), "--currency", "GBP",
            "--now", "2026-12-01T00:00:00Z", "--proceeds",
            ProceedsExampleTests.path("\(ProceedsExampleTests.apple)/financial-2026-11.txt"),
        ]
        _ = try expectMargin(
            args, exits: 0,
            stdout: .contains(
                "0 refunds not counted, 1 dated before their charge (taken right after it)"),
            stderr: .empty)
        _ = try expectMargin(
            args + ["--by", "month"], exits: 0,
            stdout: .contains(
                "1 dated before their charge (taken right after it)",
                "By month (charges and refunds in the period of their own time):"),
            stderr: .empty)
    }
}
