import Foundation
import Testing

@testable import RateCard

/// The worked example of docs/reconcile.md: every finding and figure the page works by
/// hand, from the fixtures it shows.
@Suite struct ReconcileExampleTests {
    static let folder = "Tests/RateCardTests/Fixtures/Apple"
    static var request: ReconcileRequest {
        ReconcileRequest(
            cards: ["\(folder)/cards"], ledger: ["\(folder)/ledger.jsonl"],
            transactions: [
                "\(folder)/transactions.jsonl", "\(folder)/history-page.json",
                "\(folder)/notifications.jsonl",
            ],
            sales: ["\(folder)/sales-2026-11.txt"], financial: ["\(folder)/financial-2026-11.txt"])
    }

    static func run() throws -> Reconciliation {
        var r = request
        r.cards = r.cards.map { packageRoot.path + "/" + $0 }
        r.ledger = r.ledger.map { packageRoot.path + "/" + $0 }
        r.transactions = r.transactions.map { packageRoot.path + "/" + $0 }
        r.sales = r.sales.map { packageRoot.path + "/" + $0 }
        r.financial = r.financial.map { packageRoot.path + "/" + $0 }
        return try ReconcileRun.run(r)
    }

    static func gbp(_ s: String) -> Money { Money(exact(s), Currency(code: "GBP")!) }
    static func usd(_ s: String) -> Money { Money(exact(s), Currency(code: "USD")!) }

    struct Row: Equatable, CustomStringConvertible {
        let kind: String
        let ledgerLine: Int?
        let transaction: String?
        let appleFile: String?
        let credits: Int128
        let spent: Int128?
        let money: Money?
        var description: String {
            "\(kind) \(ledgerLine.map(String.init) ?? "-") \(transaction ?? "-") \(appleFile ?? "-") \(credits) \(spent.map { String($0) } ?? "-") \(money.map(\.description) ?? "-")"
        }
    }

    @Test func everyFindingAsWorkedByHand() throws {
        let r = try Self.run()
        let rows = r.findings.map {
            Row(
                kind: $0.kind.rawValue, ledgerLine: $0.ledger?.line, transaction: $0.transactionId,
                appleFile: $0.apple.map {
                    "\(URL(fileURLWithPath: $0.path).lastPathComponent):\($0.line)"
                }, credits: $0.credits, spent: $0.spentSince, money: $0.money)
        }
        #expect(
            rows == [
                Row(
                    kind: "never-credited", ledgerLine: nil, transaction: "2000000004",
                    appleFile: "transactions.jsonl:4", credits: 500, spent: nil,
                    money: Self.gbp("3.99")),
                Row(
                    kind: "credits-differ", ledgerLine: 4, transaction: "2000000003",
                    appleFile: "transactions.jsonl:3", credits: 100, spent: nil,
                    money: Self.gbp("0.99")),
                Row(
                    kind: "no-apple-transaction", ledgerLine: 17, transaction: "9999999999",
                    appleFile: nil, credits: 100, spent: nil, money: Self.gbp("0.99")),
                Row(
                    kind: "refund-not-taken-back", ledgerLine: 7, transaction: "2000000005",
                    appleFile: "notifications.jsonl:1", credits: 500, spent: 300,
                    money: Self.gbp("3.99")),
                Row(
                    kind: "revoked-without-refund", ledgerLine: 15, transaction: "2000000010",
                    appleFile: "notifications.jsonl:3", credits: 100, spent: nil,
                    money: Self.gbp("0.99")),
                Row(
                    kind: "duplicate-credit", ledgerLine: 3, transaction: "2000000002",
                    appleFile: "transactions.jsonl:2", credits: 500, spent: nil,
                    money: Self.usd("4.99")),
                Row(
                    kind: "sandbox-in-production", ledgerLine: 13, transaction: "2000000007",
                    appleFile: "transactions.jsonl:6", credits: 100, spent: nil, money: nil),
                Row(
                    kind: "price-differs", ledgerLine: 16, transaction: "2000000008",
                    appleFile: "history-page.json:9", credits: 100, spent: nil,
                    money: Self.gbp("-0.50")),
            ])
        #expect(r.exitCode == 1)
    }

    @Test func totalsAndCounts() throws {
        let r = try Self.run()
        let s = r.summary
        #expect(s.appleTransactions == 9)
        #expect(s.production == 8)
        #expect(s.otherEnvironments == 1)
        #expect(s.historyPages == 1)
        #expect(s.notifications == ["REFUND": 2, "REFUND_REVERSED": 1, "CONSUMPTION_REQUEST": 1])
        #expect(s.ledgerEntries == 17)
        #expect(s.ledgerDuplicates == 1)
        #expect(s.topups == 10 && s.revokes == 2)
        #expect(s.matched == 7)
        #expect(s.refundsTakenBack == 1)
        #expect(s.refundRequestsOpen == 1)
        // Money found per currency, by hand: GBP 3.99 + 0.99 + 0.99 + 3.99 + 0.99 − 0.50.
        var gbp = Money(.zero, Currency(code: "GBP")!)
        for t in r.totals {
            for m in t.money where m.currency.code == "GBP" { gbp = try gbp.adding(m) }
        }
        #expect(gbp == Self.gbp("10.45"))
        #expect(r.totals.map(\.credits).reduce(0, +) == 2000)
    }

    @Test func applesOwnFigures() throws {
        let r = try Self.run()
        #expect(r.sales.map(\.unitsSold) == [6, 2, 1])
        #expect(r.sales.map(\.unitsRefunded) == [1, 1, 0])
        #expect(r.sales.map(\.proceeds) == [Self.gbp("2.90"), Self.gbp("2.33"), Self.usd("3.49")])
        #expect(r.sales.map(\.transactionUnits) == [6, 2, 1])
        // The example's card folder has no storefront table: every line is by currency.
        #expect(r.sales.allSatisfy { $0.country == nil })
        #expect(
            r.sales.allSatisfy {
                $0.matchedBy == .noStorefrontTable
                    && $0.matchedBy.rawValue == "currency: the card folder has no storefront table"
            })
        // Fiscal November ends 11/28: …008 (11-21) is inside it, so the same units.
        #expect(r.financial.map(\.transactionUnits) == [6, 2, 1])
        #expect(
            r.financial.map(\.proceeds) == [Self.gbp("2.90"), Self.gbp("2.33"), Self.usd("3.49")])
        #expect(r.financial.map(\.returned) == [1, 1, 0])
        // Per credit: 2.90 ÷ ((6 − 1) × 100), 2.33 ÷ ((2 − 1) × 500), 3.49 ÷ (1 × 500).
        let perCredit = [Self.gbp("0.0058"), Self.gbp("0.00466"), Self.usd("0.00698")]
        #expect(r.sales.map(\.perCredit) == perCredit)
        #expect(r.financial.map(\.perCredit) == perCredit)
    }

    @Test func aLedgerThatAgreesHasNoFindings() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write(
            "ledger.jsonl",
            #"{"id":"a","at":"2026-11-05T10:05:00Z","kind":"topup","amount":100,"paymentRef":"2000000001","device":"d1"}"#
                + "\n")
        let onlyT1 = try String(
            contentsOfFile: packageRoot.path + "/\(Self.folder)/transactions.jsonl", encoding: .utf8
        ).split(separator: "\n")[0]
        try folder.write("t.jsonl", String(onlyT1) + "\n")
        let r = try ReconcileRun.run(
            ReconcileRequest(
                cards: [packageRoot.path + "/\(Self.folder)/cards"],
                ledger: [folder.path + "/ledger.jsonl"], transactions: [folder.path + "/t.jsonl"]))
        #expect(r.findings.isEmpty)
        #expect(r.exitCode == 0)
        #expect(r.summary.matched == 1)
    }
}

@Suite struct ReconcileBadInputTests {
    static func problems(_ transactions: String) -> [String] {
        let a = packageRoot.path + "/Tests/RateCardTests/Fixtures/Apple"
        do {
            _ = try ReconcileRun.run(
                ReconcileRequest(
                    cards: [a + "/cards"], ledger: [a + "/ledger.jsonl"],
                    transactions: [a + "/" + transactions]))
            return []
        } catch let error as AppleRecordError {
            return error.diagnostics.map { $0.rendered.replacingOccurrences(of: a + "/", with: "") }
        } catch {
            return ["\(error)"]
        }
    }

    @Test func anUnknownProductIsAnErrorAtItsTransaction() {
        #expect(
            Self.problems("bad/unknown-product.jsonl") == [
                "bad/unknown-product.jsonl:1:1: error: productId: unknown product \"demo.credits.9000\" of transaction 2000000099: not a pack or plan of card demo"
            ])
    }

    @Test func recordsOfOneTransactionThatDisagreeAreAnError() {
        #expect(
            Self.problems("bad/conflicting.jsonl") == [
                "bad/conflicting.jsonl:2:1: error: transaction 2000000001 disagrees with bad/conflicting.jsonl:1 on its product, quantity, purchase date or environment"
            ])
    }
}
