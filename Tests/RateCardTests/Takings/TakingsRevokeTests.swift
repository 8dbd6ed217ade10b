import Testing

@testable import RateCard

/// The `revoke` entry: credits taken back after the store refunded the purchase that bought
/// them. Read by every ledger reader, of negative amount, naming its purchase.
@Suite("Takings: revoke entries")
struct TakingsRevokeTests {
    static let topup =
        #"{"id":"t1","at":"2026-11-02T00:00:00Z","kind":"topup","amount":500,"paymentRef":"2000000005","device":"d1","balanceAfter":500}"#
    static let revoke =
        #"{"id":"v1","at":"2026-11-15T00:00:00Z","kind":"revoke","amount":-500,"paymentRef":"2000000005","device":"d1","balanceAfter":0}"#

    @Test("a revoke takes its credits out of the outstanding balance in every format")
    func everyFormat() throws {
        let jsonl = Takings.balanced(try Takings.run(Self.topup + "\n" + Self.revoke + "\n"))
        let document = Takings.balanced(
            try Takings.run(
                "{\"device\":\"d1\",\"entries\":[\n\(Self.topup),\n\(Self.revoke)\n]}\n",
                name: "credit-ledger.json"))
        let csv = Takings.balanced(
            try Takings.run(
                """
                id,at,kind,amount,paymentRef,device,balanceAfter
                t1,2026-11-02T00:00:00Z,topup,500,2000000005,d1,500
                v1,2026-11-15T00:00:00Z,revoke,-500,2000000005,d1,0

                """, name: "t.csv"))
        for report in [jsonl, document, csv] {
            #expect(report.input.entries == 2)
            #expect(report.input.rejected == 0)
            #expect(report.belowTheLine.topups == 1)
            #expect(report.belowTheLine.outstanding == 0)
            #expect(report.warnings.isEmpty)
        }
        // The same revoke in two formats is one entry.
        let both = try Takings.run([
            ("a.jsonl", Self.topup + "\n" + Self.revoke + "\n"),
            (
                "b.csv",
                "id,at,kind,amount,paymentRef,device,balanceAfter\nv1,2026-11-15T00:00:00Z,revoke,-500,2000000005,d1,0\n"
            ),
        ])
        #expect(both.input.duplicates == 1)
        #expect(both.belowTheLine.outstanding == 0)
    }

    @Test("a positive revoke or one without paymentRef is rejected, naming the rule")
    func rejected() throws {
        let report = try Takings.run(
            #"{"id":"v1","at":"2026-11-15T00:00:00Z","kind":"revoke","amount":500,"paymentRef":"p"}"#
                + "\n"
                + #"{"id":"v2","at":"2026-11-15T00:00:00Z","kind":"revoke","amount":-500}"# + "\n")
        #expect(report.input.rejectedByClass[.wrongSign] == 1)
        #expect(report.input.rejectedByClass[.missingField] == 1)
        #expect(
            report.rejections.map(\.message) == [
                "amount: a revoke is negative, found 500",
                "paymentRef: missing required field for a revoke",
            ])
    }

    @Test("a revoke is not a charge a refund can name")
    func notRefundable() throws {
        let report = try Takings.run(
            Self.revoke + "\n"
                + #"{"id":"r1","at":"2026-11-16T00:00:00Z","kind":"refund","amount":500,"feature":"transcript","refundOf":"v1"}"#
                + "\n")
        #expect(report.input.rejectedByClass[.refundOfUnknownCharge] == 1)
        #expect(report.rejections.map(\.message) == [#"refundOf: "v1" is a revoke, not a charge"#])
    }
}
