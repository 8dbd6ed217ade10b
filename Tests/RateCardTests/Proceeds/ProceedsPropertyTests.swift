import Foundation
import Testing

@testable import RateCard

/// The proceeds pass against `ProceedsOracle` on generated ledgers, transactions and
/// reports (seeded): every feature's credits and value, the credits per basis, the
/// liability, the breakage and what revokes took back, for an open window and a window
/// that cuts the month; and the features' credits against `margin pnl`'s own count.
@Suite struct ProceedsPropertyTests {
    static let cards = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/Proceeds/cards"
    ).path

    static func files(_ g: GeneratedProceeds, seed: UInt64) throws -> (String, [String], [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "proceeds-\(seed)-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let ledger = try write("ledger.jsonl", g.ledgerText)
        let reports = [
            try write("financial.txt", g.financialText), try write("sales.txt", g.salesText),
        ]
        let transactions = [try write("transactions.jsonl", g.transactionsText)]
        return (ledger, reports, transactions)
    }

    static func check(seed: UInt64, since: String?, until: String?, memoryLimit: Int? = nil)
        throws
    {
        let g = GeneratedProceeds(seed: seed, accounts: 40, entriesPerAccount: 60)
        let (ledger, reports, transactions) = try files(g, seed: seed)
        let now = try Timestamp(rfc3339: "2026-12-05T00:00:00Z")
        let window = TakingsWindow(
            since: try since.map { try Timestamp(rfc3339: $0) },
            until: try until.map { try Timestamp(rfc3339: $0) })
        let request = PnLRequest(
            inputs: [TakingsInput(path: ledger)], window: window, now: now, cards: [cards],
            currency: Currency(code: "GBP"),
            creditValue: Money(exact("0.005"), Currency(code: "GBP")!))
        let plan = try PnLRun.plan(request)
        if let memoryLimit {
            // The cap is far below the ledger's state: the pass runs in partitions.
            let size = try FileManager.default.attributesOfItem(atPath: ledger)[.size] as? Int
            #expect(ProceedsLedger.partitions(inputBytes: size, memoryLimit: memoryLimit) > 8)
        }
        let r = try ProceedsRun.run(
            ProceedsSources(reports: reports, transactions: transactions), plan: plan,
            inputs: request.inputs, now: now, memoryLimit: memoryLimit)
        let o = ProceedsOracle(
            g: g, since: window.since?.seconds, now: now.seconds, until: window.until?.seconds
        ).run()

        var value: [String: Exact] = [:]
        var credits: [String: Int128] = [:]
        var byBasis: [String: Int128] = [:]
        for f in r.features {
            value[f.key] = f.proceeds.amount
            credits[f.key] = f.credits
            for (k, v) in f.byBasis { byBasis[k, default: 0] += v }
        }
        #expect(
            credits == o.credits.filter { $0.value != 0 || credits[$0.key] != nil }, "seed \(seed)")
        #expect(value == o.value.filter { credits[$0.key] != nil }, "seed \(seed)")
        #expect(
            byBasis.filter { $0.value != 0 } == o.byBasis.filter { $0.value != 0 }, "seed \(seed)")
        #expect(r.liability.paidCredits == o.paidLeft, "seed \(seed)")
        #expect(r.liability.value.amount == o.liabilityValue, "seed \(seed)")
        #expect(r.liability.breakageRecognised.amount == o.liabilityBreakage, "seed \(seed)")
        #expect(r.liability.freeCredits == o.freeLeft, "seed \(seed)")
        #expect(r.breakage.recognised.amount == o.breakage, "seed \(seed)")
        #expect(r.breakage.lapsedPaid == o.lapsedPaid, "seed \(seed)")
        #expect(r.breakage.lapsedFree == o.lapsedFree, "seed \(seed)")
        #expect(r.takenBack == o.takenBack, "seed \(seed)")
        // Every basis occurs, so no case is left untested.
        for basis in ["free", "transaction", "period", "refunded", "sandbox", "modelled"] {
            #expect((o.byBasis[basis] ?? 0) != 0 || since != nil, "seed \(seed): no \(basis)")
        }
        #expect(o.breakage != .zero, "seed \(seed)")
        if since == nil { #expect(o.lapsedPaid > 0 && o.takenBack > 0, "seed \(seed)") }

        // The features' credits are the credits pnl keeps.
        let takings = try PnLRun.run(request)
        var kept: [String: Int128] = [:]
        for row in takings.takings.rows { kept[row.feature] = row.left }
        #expect(kept.filter { $0.value != 0 } == credits.filter { $0.value != 0 }, "seed \(seed)")
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func openWindowAgreesWithTheOracle(seed: UInt64) throws {
        try Self.check(seed: seed, since: nil, until: nil)
    }

    @Test(arguments: [5, 6, 7] as [UInt64])
    func aCutWindowAgreesWithTheOracle(seed: UInt64) throws {
        try Self.check(seed: seed, since: "2026-11-12T00:00:00Z", until: "2026-11-29T12:00:00Z")
    }

    /// Under a tiny `--memory` the pass runs partition by partition (by account) and
    /// still agrees with the oracle, open and cut windows.
    @Test(arguments: [8, 9] as [UInt64])
    func aTinyMemoryCapAgreesWithTheOracle(seed: UInt64) throws {
        try Self.check(seed: seed, since: nil, until: nil, memoryLimit: 4_096)
        try Self.check(
            seed: seed + 10, since: "2026-11-12T00:00:00Z", until: "2026-11-29T12:00:00Z",
            memoryLimit: 4_096)
    }
}
