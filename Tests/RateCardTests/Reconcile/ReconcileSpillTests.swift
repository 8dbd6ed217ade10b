import Foundation
import Testing

@testable import RateCard

/// The records of a partitioned reconciliation come back from the files equal to what was
/// written: every field, present and absent, negative and non-terminating numbers; a file
/// cut short is an error, not a record.
@Suite struct ReconcileSpillTests {
    static func spill(_ partitions: Int = 3) throws -> ReconcileSpill {
        try ReconcileSpill(
            partitions: partitions, memoryLimit: 1 << 20, ledgerPaths: ["a.jsonl", "b.csv"],
            applePaths: ["t.jsonl", "n.jsonl"])
    }

    static func transaction(_ id: String, full: Bool) -> AppleTransaction {
        AppleTransaction(
            transactionId: id, originalTransactionId: full ? "o-\(id)" : nil,
            productId: "demo.credits.100",
            purchaseDate: Timestamp(seconds: 1_793_872_800, nanoseconds: 123_000_000),
            quantity: full ? 3 : 1, type: "Consumable", storefront: full ? "GBR" : nil,
            currency: full ? Currency(code: "GBP") : nil, priceMilliunits: full ? -990 : nil,
            revocationDate: full ? Timestamp(seconds: 1_794_000_000) : nil,
            revocationReason: full ? 1 : nil, appAccountToken: full ? "tok" : nil,
            environment: full ? .sandbox : .production,
            signedDate: full ? Timestamp(seconds: -5, nanoseconds: 7, offsetMinutes: 60) : nil,
            place: ApplePlace(path: full ? "n.jsonl" : "t.jsonl", line: 4, column: 9))
    }

    @Test func appleRecordsComeBackEqual() throws {
        let s = try Self.spill()
        defer { s.remove() }
        let records = (0..<40).map { Self.transaction("t\($0)", full: $0 % 2 == 0) }
        for t in records { s.write(t) }
        let n = AppleNotification(
            notificationType: "REFUND", subtype: nil, notificationUUID: "u",
            signedDate: Timestamp(seconds: 1), transaction: records[3],
            place: ApplePlace(path: "n.jsonl", line: 2, column: 1))
        s.write(n)
        try s.finish(ReconcileSpill.apple)
        var back = AppleRecords()
        for p in 0..<s.partitions {
            let part = try s.appleRecords(p)
            #expect(part.transactions.allSatisfy { s.partition(of: $0.transactionId) == p })
            back.transactions += part.transactions
            back.notifications += part.notifications
        }
        #expect(Set(back.transactions) == Set(records))
        #expect(back.notifications == [n])
    }

    @Test func creditsAndSpendingComeBackEqual() throws {
        let s = try Self.spill()
        defer { s.remove() }
        let credits = (0..<30).map { k in
            ReconcileLedger.Credit(
                id: "e\(k)", at: Timestamp(seconds: Int64(k) - 10, nanoseconds: Int32(k)),
                credits: Int64(k) * 100, paymentRef: k % 5 == 0 ? nil : "ref\(k % 7)",
                device: k % 3 == 0 ? nil : "d\(k)",
                price: k % 2 == 0
                    ? Money(try! Exact(-199, over: 100), Currency(code: "USD")!) : nil,
                place: ReconcileLedger.Place(path: k % 2 == 0 ? "a.jsonl" : "b.csv", line: k + 1))
        }
        for (k, c) in credits.enumerated().reversed() {
            s.write(credit: c, isTopup: k % 4 != 0, sequence: Int64(k))
        }
        var spends: [ReconcileLedger.Spend] = []
        for k in 0..<20 {
            let amount: Int64 = k % 2 == 0 ? -Int64(k) : Int64(k)
            let numerator: Int128 = Int128(k) - (Int128(1) << 70)
            let cost: Exact? = k % 3 == 0 ? nil : try Exact(numerator, over: 3)
            spends.append(
                ReconcileLedger.Spend(seconds: Int64(k) * 1000, amount: amount, cost: cost))
        }
        for (k, sp) in spends.enumerated() { s.write(spend: sp, device: "d\(k % 4)") }
        try s.finish(ReconcileSpill.credits)
        try s.finish(ReconcileSpill.spending)
        var topups: [ReconcileLedger.Credit] = []
        var revokes: [ReconcileLedger.Credit] = []
        var spending: [String: [ReconcileLedger.Spend]] = [:]
        for p in 0..<s.partitions {
            let part = try s.credits(p)
            // Back in input order within the partition, whatever order they were written in.
            #expect(part.topups.map(\.id) == credits.filter { part.topups.contains($0) }.map(\.id))
            topups += part.topups
            revokes += part.revokes
            spending.merge(try s.spending(p, of: ["d0", "d1", "d2", "d3"])) { $0 + $1 }
        }
        let isTopup = Set(credits.indices.filter { $0 % 4 != 0 }.map { credits[$0].id })
        #expect(Set(topups) == Set(credits.filter { isTopup.contains($0.id) }))
        #expect(Set(revokes) == Set(credits.filter { !isTopup.contains($0.id) }))
        for d in 0..<4 {
            #expect(spending["d\(d)"] == spends.indices.filter { $0 % 4 == d }.map { spends[$0] })
        }
    }

    @Test func aFileCutShortIsAnError() throws {
        let s = try Self.spill(1)
        defer { s.remove() }
        s.write(Self.transaction("t1", full: true))
        try s.finish(ReconcileSpill.apple)
        var bytes = try s.take(0, ReconcileSpill.apple)
        bytes.removeLast(3)
        s.append(0, ReconcileSpill.apple, bytes)
        try s.finish(ReconcileSpill.apple)
        #expect(throws: TakingsInputError.self) { try s.appleRecords(0) }
    }
}
