import Foundation
import Testing

@testable import RateCard

/// `margin reconcile --memory`: the partitioned run (Apple's records by transaction id, the
/// ledger by entry id then by payment reference, spent-since joined last) gives the report
/// of the run in memory, in every format and with the same warnings, with partitions forced
/// small, on generated inputs with every kind of finding and on the worked example.
@Suite struct ReconcileMemoryTests {
    static let a = packageRoot.path + "/Tests/RateCardTests/Fixtures/Apple"

    /// Every format and the warnings, as one text to compare.
    static func rendered(_ r: Reconciliation) -> String {
        [
            r.renderJSON(), r.renderCSV(), r.renderTable(bold: false), r.renderMarkdown(),
            r.warnings.map(\.rendered).joined(separator: "\n"),
        ].joined(separator: "\n---\n")
    }

    static func run(_ request: ReconcileRequest, partitions: Int?) throws -> Reconciliation {
        var r = request
        r.memoryLimit = partitions == nil ? nil : 4096
        r.partitions = partitions
        return try ReconcileRun.run(r)
    }

    /// A generated ledger and Apple's records, with more besides what the oracle test has:
    /// exact copies of ledger lines, a conflicting duplicate, more lines not read than are
    /// shown (so the first 20 by input order must be chosen across partitions), a repeated
    /// transaction record and a refund notification.
    static func generated(seed: UInt64, in folder: TemporaryFolder) throws -> ReconcileRequest {
        let g = GeneratedReconciliation(seed: seed, transactions: 600, ledgerEntries: 6_000)
        var ledger = g.ledgerText.split(separator: "\n").map(String.init)
        for k in stride(from: 7, to: ledger.count, by: 997) { ledger.append(ledger[k]) }
        for k in 0..<25 {
            ledger.insert(
                #"{"id":"bad-\#(k)","at":"not a time","kind":"grant","amount":1}"#, at: k * 211)
        }
        let topup = try #require(ledger.first { $0.contains(#""kind":"topup""#) })
        ledger.append(topup.replacingOccurrences(of: #""amount":"#, with: #""amount":1"#))
        var apple = g.appleText.split(separator: "\n").map(String.init)
        apple.append(apple[5])
        let refunded = try #require(g.purchases.first { !$0.sandbox && $0.revokedMs == nil })
        let original = try #require(apple.first { $0.contains("\"\(refunded.id)\"") })
        let revoked =
            original.dropLast()
            + ",\"revocationDate\":\(refunded.purchaseMs + 7_200_000),\"revocationReason\":0,\"signedDate\":\(refunded.purchaseMs + 7_200_000)}"
        let notification =
            #"{"notificationType":"REFUND","notificationUUID":"n-1","signedDate":"#
            + "\(refunded.purchaseMs + 7_200_000)" + #","data":{"signedTransactionInfo":"#
            + revoked + "}}"
        try folder.write("ledger.jsonl", ledger.joined(separator: "\n") + "\n")
        try folder.write("transactions.jsonl", apple.joined(separator: "\n") + "\n")
        try folder.write("notifications.jsonl", notification + "\n" + notification + "\n")
        try folder.write("empty.jsonl", "")
        return ReconcileRequest(
            cards: [a + "/cards"], ledger: [folder.path + "/ledger.jsonl"],
            transactions: [
                folder.path + "/transactions.jsonl", folder.path + "/notifications.jsonl",
                folder.path + "/empty.jsonl",
            ])
    }

    @Test(arguments: [(1 as UInt64, 2), (2, 7), (3, 31)])
    func partitionedGivesTheSameReport(seed: UInt64, partitions: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let request = try Self.generated(seed: seed, in: folder)
        let memory = try Self.run(request, partitions: nil)
        let split = try Self.run(request, partitions: partitions)
        #expect(Self.rendered(split) == Self.rendered(memory))
        // Not compared vacuously: every kind of finding, spending since a refund, more
        // rejections than shown, duplicates, a repeat and an empty file.
        #expect(Set(memory.findings.map(\.kind)) == Set(ReconcileFinding.Kind.allCases))
        #expect(memory.findings.contains { ($0.spentSince ?? 0) > 0 && $0.spentCost != nil })
        #expect(memory.summary.ledgerRejected == 26)
        #expect(memory.ledgerWarnings.count == 20)
        #expect(memory.summary.ledgerDuplicates >= 6)
        #expect(memory.summary.repeatedTransactions == 1)
        #expect(memory.summary.notifications["REFUND"] == 2)
        #expect(memory.appleWarnings.count == 2)
    }

    /// The worked example (history page, notifications, reports) partitioned into 2, 3 and
    /// 16 gives the example's report.
    @Test(arguments: [2, 3, 16])
    func theWorkedExamplePartitioned(partitions: Int) throws {
        let request = ReconcileRequest(
            cards: [Self.a + "/cards"], ledger: [Self.a + "/ledger.jsonl"],
            transactions: [
                Self.a + "/transactions.jsonl", Self.a + "/history-page.json",
                Self.a + "/notifications.jsonl",
            ], sales: [Self.a + "/sales-2026-11.txt"],
            financial: [Self.a + "/financial-2026-11.txt"])
        let memory = try Self.run(request, partitions: nil)
        #expect(memory.findings.count == 8)
        #expect(
            Self.rendered(try Self.run(request, partitions: partitions)) == Self.rendered(memory))
    }

    /// The example's ledger as CSV and as a ledger document (`ledger.csv`,
    /// `ledger-document.json`: the same 18 entries) gives the JSON Lines example's findings,
    /// in memory and partitioned (the CSV read in memory once gave 0 entries without a word).
    @Test(arguments: ["ledger.csv", "ledger-document.json"])
    func everyLedgerFormatPartitioned(file: String) throws {
        func request(_ ledger: String) -> ReconcileRequest {
            ReconcileRequest(
                cards: [Self.a + "/cards"], ledger: [Self.a + "/" + ledger],
                transactions: [
                    Self.a + "/transactions.jsonl", Self.a + "/history-page.json",
                    Self.a + "/notifications.jsonl",
                ])
        }
        func findings(_ r: Reconciliation) -> [String] {
            r.findings.map {
                "\($0.kind.rawValue) \($0.ledgerId ?? "-") \($0.transactionId ?? "-") \($0.credits) \($0.spentSince.map(String.init) ?? "-") \(Reconciliation.money($0.money))"
            }
        }
        let jsonl = try Self.run(request("ledger.jsonl"), partitions: nil)
        let memory = try Self.run(request(file), partitions: nil)
        #expect(memory.summary.ledgerEntries == 17)
        #expect(memory.summary.ledgerDuplicates == 1)
        #expect(findings(memory) == findings(jsonl))
        #expect(findings(memory).count == 8)
        let split = try Self.run(request(file), partitions: 5)
        #expect(Self.rendered(split) == Self.rendered(memory))
    }

    /// The same problems, at once, whichever way the run goes.
    @Test func badInputIsTheSameErrorPartitioned() throws {
        let request = ReconcileRequest(
            cards: [Self.a + "/cards"], ledger: [Self.a + "/ledger.jsonl"],
            transactions: [
                Self.a + "/bad/fractional-price.jsonl", Self.a + "/bad/conflicting.jsonl",
            ],
            sales: [Self.a + "/bad/sales-bad-amount.txt"])
        func message(_ partitions: Int?) -> String {
            do {
                _ = try Self.run(request, partitions: partitions)
                return "no error"
            } catch { return "\(error)" }
        }
        #expect(message(nil).contains("price: 990.5 is not a whole number"))
        #expect(message(5) == message(nil))
        let conflicting = ReconcileRequest(
            cards: [Self.a + "/cards"], ledger: [Self.a + "/ledger.jsonl"],
            transactions: [Self.a + "/transactions.jsonl", Self.a + "/bad/conflicting.jsonl"])
        var errors: [String] = []
        for p in [nil, 4] as [Int?] {
            do { _ = try Self.run(conflicting, partitions: p) } catch { errors.append("\(error)") }
        }
        #expect(errors.count == 2 && errors[0] == errors[1] && errors[0].contains("disagrees"))
    }

    @Test func thePlanPartitionsOnlyPastTheCap() {
        #expect(ReconcileRun.partitions(ledgerBytes: 1000, appleBytes: 1000, memoryLimit: nil) == 1)
        #expect(
            ReconcileRun.partitions(ledgerBytes: 1000, appleBytes: 1000, memoryLimit: 1 << 20) == 1)
        // 2.5 × 110 MB + 6 × 70 MB = 695 MB under 64 MiB: each partition at most 32 MiB.
        #expect(
            ReconcileRun.partitions(
                ledgerBytes: 110_000_000, appleBytes: 70_000_000, memoryLimit: 64 << 20) == 21)
        #expect(
            ReconcileRun.partitions(ledgerBytes: 1 << 40, appleBytes: 0, memoryLimit: 1 << 20)
                == 200)
        #expect(ReconcileRun.partitions(ledgerBytes: nil, appleBytes: 10, memoryLimit: 10) == 1)
    }

    /// The binary with and without `--memory 4K` (past the cap for these files: partitioned)
    /// prints the same stdout and stderr and exits alike.
    @Test func theBinaryGivesTheSameOutputUnderACap() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let request = try Self.generated(seed: 4, in: folder)
        #expect(
            ReconcileRun.partitions(
                ledgerBytes: ProceedsRun.inputBytes(request.ledger.map { TakingsInput(path: $0) }),
                appleBytes: ProceedsRun.inputBytes(
                    request.transactions.map { TakingsInput(path: $0) }), memoryLimit: 4096) > 2)
        let args =
            ["reconcile", folder.path + "/ledger.jsonl", "--cards", Self.a + "/cards"]
            + request.transactions.flatMap { ["--transactions", $0] }
        for format in ["csv", "json", "table"] {
            let memory = try runMargin(args + ["--format", format])
            let capped = try runMargin(args + ["--format", format, "--memory", "4K"])
            #expect(memory.status == 1)
            #expect(capped.status == memory.status)
            #expect(capped.stdout == memory.stdout)
            #expect(capped.stderr == memory.stderr)
            #expect(memory.stderr.contains("empty.jsonl: warning: no transactions"))
        }
        _ = try expectMargin(
            args + ["--memory", "lots"], exits: 2, stdout: .empty,
            stderr: .hasPrefix("margin: error: --memory lots:"))
    }
}
