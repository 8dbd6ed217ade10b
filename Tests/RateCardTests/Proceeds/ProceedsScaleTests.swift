import Foundation
import Testing

@testable import RateCard

/// The proceeds pass at scale. `swift test` runs a generated ledger of 400 accounts × 60
/// entries under a 16 KiB cap (dozens of partitions) and in memory, and requires the two
/// reports to be the same. With `MARGIN_PROCEEDS_SCALE=1` it generates the size
/// (20,000 accounts × 50 entries planned, 989,239 ledger lines as generated for seed 27,
/// with their transactions and a financial and a sales report), checks the partitioned pass (64 MiB cap) against the
/// in-memory one, and keeps the files in `MARGIN_PROCEEDS_OUT` for timing the binary on
/// them (docs/proceeds.md, Scale).
@Suite struct ProceedsScaleTests {
    static func compare(accounts: Int, entriesPerAccount: Int, seed: UInt64, memoryLimit: Int)
        throws
    {
        let g = GeneratedProceeds(
            seed: seed, accounts: accounts, entriesPerAccount: entriesPerAccount)
        let env = ProcessInfo.processInfo.environment
        var (ledger, reports, transactions) = try ProceedsPropertyTests.files(g, seed: seed)
        if let out = env["MARGIN_PROCEEDS_OUT"], accounts * entriesPerAccount >= 1_000_000 {
            try FileManager.default.createDirectory(
                atPath: out, withIntermediateDirectories: true)
            func keep(_ path: String) throws -> String {
                let dest = out + "/" + URL(fileURLWithPath: path).lastPathComponent
                try? FileManager.default.removeItem(atPath: dest)
                try FileManager.default.copyItem(atPath: path, toPath: dest)
                return dest
            }
            ledger = try keep(ledger)
            reports = try reports.map(keep)
            transactions = try transactions.map(keep)
        }
        let now = try Timestamp(rfc3339: "2026-12-05T00:00:00Z")
        let request = PnLRequest(
            inputs: [TakingsInput(path: ledger)], window: .all, now: now,
            cards: [ProceedsPropertyTests.cards], currency: Currency(code: "GBP"),
            creditValue: Money(exact("0.005"), Currency(code: "GBP")!))
        let plan = try PnLRun.plan(request)
        let sources = ProceedsSources(reports: reports, transactions: transactions)
        let size = try FileManager.default.attributesOfItem(atPath: ledger)[.size] as? Int
        #expect(ProceedsLedger.partitions(inputBytes: size, memoryLimit: memoryLimit) > 1)
        let inMemory = try ProceedsRun.run(
            sources, plan: plan, inputs: request.inputs, now: now, memoryLimit: nil)
        let partitioned = try ProceedsRun.run(
            sources, plan: plan, inputs: request.inputs, now: now, memoryLimit: memoryLimit)
        #expect(inMemory.ledgerEntries >= accounts * entriesPerAccount * 9 / 10)
        #expect(partitioned.renderJSON() == inMemory.renderJSON())
        #expect(partitioned.renderCSV() == inMemory.renderCSV())
    }

    @Test func partitionedEqualsInMemory() throws {
        try Self.compare(accounts: 400, entriesPerAccount: 60, seed: 31, memoryLimit: 16_384)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["MARGIN_PROCEEDS_SCALE"] == "1"))
    func atScale() throws {
        try Self.compare(
            accounts: 20_000, entriesPerAccount: 50, seed: 27, memoryLimit: 64 << 20)
    }
}
