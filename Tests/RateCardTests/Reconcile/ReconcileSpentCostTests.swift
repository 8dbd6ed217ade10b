import Foundation
import Testing

@testable import RateCard

/// The provider cost of the credits spent since a refund that was not taken back: the
/// device's charges after the top-up costed by the sheets of the version in force, equal to
/// what `margin pnl` costs the same charges (a path of its own: `CardTakingsPricing`).
@Suite struct ReconcileSpentCostTests {
    static let folder = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/Apple/spent-cost"
    ).path

    @Test func theCostOfTheChargesSinceIsPnLsMeteredCost() throws {
        let r = try ReconcileRun.run(
            ReconcileRequest(
                cards: [repositoryCards], card: "osg", ledger: ["\(Self.folder)/ledger.jsonl"],
                transactions: ["\(Self.folder)/transactions.jsonl"]))
        let f = try #require(r.findings.first { $0.kind == .refundNotTakenBack })
        // c1 (26) + c2 (4) + c4 (4) after the top-up; c0, before it, is not counted.
        #expect(f.spentSince == 34)
        let cost = try #require(f.spentCost)

        // pnl over the same three charges alone.
        let charges =
            try String(contentsOfFile: "\(Self.folder)/ledger.jsonl", encoding: .utf8)
            .split(separator: "\n").filter { !$0.contains("\"c0\"") && !$0.contains("\"t1\"") }
            .joined(separator: "\n") + "\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spent-cost-\(ProcessInfo.processInfo.processIdentifier).jsonl"
        ).path
        try charges.write(toFile: path, atomically: true, encoding: .utf8)
        let pnl = try PnLRun.run(
            PnLRequest(
                inputs: [TakingsInput(path: path)],
                now: try Timestamp(rfc3339: "2026-12-01T00:00:00Z"),
                cards: [repositoryCards], card: "osg"))
        let metered = try #require(pnl.totals.figures?.meteredCost)
        #expect(cost == metered)
        #expect(cost.amount.isPositive)
        #expect(cost == Money(exact("0.1174"), Currency(code: "CNY")!))
    }

    /// When the device spent more than the credits not taken back, the cost is the share of
    /// the charges' cost those credits are: cost × not taken back ÷ spent.
    @Test func aCappedSpendTakesItsShareOfTheCost() throws {
        let ledger = try String(contentsOfFile: "\(Self.folder)/ledger.jsonl", encoding: .utf8)
        // A revoke of 1,490 of the 1,500: 10 not taken back, 34 spent since.
        let revoke =
            "{\"id\":\"v1\",\"at\":\"2026-11-05T09:00:00+08:00\",\"kind\":\"revoke\",\"amount\":-1490,\"paymentRef\":\"5000000001\",\"device\":\"A\"}\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spent-cost-capped-\(ProcessInfo.processInfo.processIdentifier).jsonl"
        ).path
        try (ledger + revoke).write(toFile: path, atomically: true, encoding: .utf8)
        let r = try ReconcileRun.run(
            ReconcileRequest(
                cards: [repositoryCards], card: "osg", ledger: [path],
                transactions: ["\(Self.folder)/transactions.jsonl"]))
        let f = try #require(r.findings.first { $0.kind == .refundNotTakenBack })
        #expect(f.credits == 10)
        #expect(f.spentSince == 10)
        // 0.1174 × 10 ÷ 34
        #expect(f.spentCost?.amount == (try exact("0.1174").multiplied(by: Exact(10, over: 34))))
    }
}
