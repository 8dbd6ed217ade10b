import Foundation
import Testing

@testable import RateCard

/// The engine against the independent matcher on generated ledgers and transactions with
/// every kind of disagreement. `swift test` runs small seeded sets; with
/// `MARGIN_RECONCILE_SCALE=1` it runs the issue's size (1M ledger entries, 100k
/// transactions) and keeps the files in `MARGIN_RECONCILE_OUT` (default: a temporary
/// folder) for timing the binary on them (docs/reconcile.md, Scale).
@Suite struct ReconcileScaleTests {
    static let cards = packageRoot.path + "/Tests/RateCardTests/Fixtures/Apple/cards"

    static func check(_ g: GeneratedReconciliation, in folder: String) throws -> Reconciliation {
        try Data(g.ledgerText.utf8).write(to: URL(fileURLWithPath: folder + "/ledger.jsonl"))
        try Data(g.appleText.utf8).write(to: URL(fileURLWithPath: folder + "/transactions.jsonl"))
        let r = try ReconcileRun.run(
            ReconcileRequest(
                cards: [cards], ledger: [folder + "/ledger.jsonl"],
                transactions: [folder + "/transactions.jsonl"]))
        let expected = ReconcileOracle.findings(g)
        let got = ReconcileOracle.lines(r)
        #expect(got.count == expected.count)
        #expect(Set(got).subtracting(expected).sorted().prefix(5) == [], "found and not expected")
        #expect(Set(expected).subtracting(got).sorted().prefix(5) == [], "missed")
        if got != expected,
            let k = got.indices.first(where: { $0 >= expected.count || got[$0] != expected[$0] })
        {
            Issue.record("first difference: engine \(got[k]), oracle \(expected[k])")
        }
        return r
    }

    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func seeded(seed: UInt64) throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let g = GeneratedReconciliation(seed: seed, transactions: 1500, ledgerEntries: 15_000)
        let r = try Self.check(g, in: folder.path)
        // Every kind of finding occurs, so none is compared vacuously.
        #expect(Set(r.findings.map(\.kind)) == Set(ReconcileFinding.Kind.allCases))
        #expect(r.summary.ledgerRejected == 0)
        #expect(r.summary.appleTransactions == 1500)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["MARGIN_RECONCILE_SCALE"] == "1"))
    func atScale() throws {
        let env = ProcessInfo.processInfo.environment
        var temporary: TemporaryFolder?
        let folder: String
        if let out = env["MARGIN_RECONCILE_OUT"] {
            try FileManager.default.createDirectory(
                atPath: out, withIntermediateDirectories: true)
            folder = out
        } else {
            temporary = try TemporaryFolder()
            folder = temporary!.path
        }
        defer { if env["MARGIN_RECONCILE_OUT"] == nil { temporary?.cleanup() } }
        // `MARGIN_RECONCILE_TRANSACTIONS` sets the number of transactions (the memory
        // measurement of docs/reconcile.md uses 300,000).
        let transactions = env["MARGIN_RECONCILE_TRANSACTIONS"].flatMap { Int($0) } ?? 100_000
        let g = GeneratedReconciliation(
            seed: 27, transactions: transactions, ledgerEntries: 1_000_000)
        let start = Date()
        let r = try Self.check(g, in: folder)
        print(
            "reconcile at scale: \(g.entries.count) ledger entries, \(g.purchases.count) transactions, \(r.findings.count) findings, \(Date().timeIntervalSince(start)) s including the oracle"
        )
    }
}
