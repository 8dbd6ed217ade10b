import Foundation
import Testing

@testable import RateCard

/// The worked example of docs/proceeds.md: every figure the page works by hand, from the
/// fixtures it shows (the reconcile example's Apple records, a ledger of five accounts, a
/// card whose credits lapse after 30 days with 20% expected breakage).
@Suite struct ProceedsExampleTests {
    static let apple = "Tests/RateCardTests/Fixtures/Apple"
    static let folder = "Tests/RateCardTests/Fixtures/Proceeds"
    static let now = try! Timestamp(rfc3339: "2026-12-07T00:00:00Z")

    static func path(_ p: String) -> String { packageRoot.path + "/" + p }

    static func run(window: TakingsWindow = .all) throws -> ProceedsReport {
        let request = PnLRequest(
            inputs: [TakingsInput(path: path("\(folder)/ledger.jsonl"))], window: window,
            now: now, cards: [path("\(folder)/cards")], currency: Currency(code: "GBP"),
            creditValue: gbp("0.005"))
        let plan = try PnLRun.plan(request)
        let sources = ProceedsSources(
            reports: [path("\(apple)/financial-2026-11.txt"), path("\(apple)/sales-2026-11.txt")],
            transactions: [
                path("\(apple)/transactions.jsonl"), path("\(apple)/history-page.json"),
                path("\(apple)/notifications.jsonl"),
            ])
        return try ProceedsRun.run(sources, plan: plan, inputs: request.inputs, now: now)
    }

    static func gbp(_ s: String) -> Money { Money(exact(s), Currency(code: "GBP")!) }

    @Test func theFeatureAsWorkedByHand() throws {
        let r = try Self.run()
        #expect(r.features.count == 1)
        let chat = try #require(r.features.first)
        #expect(chat.key == "chat")
        // 30 + 40 − 40 + 60 (a1) + 100 (a2) + 20 (a3) + 100 (a4) + 80 (a5)
        #expect(chat.credits == 390)
        #expect(chat.modelled == Self.gbp("1.95"))
        // 40 × 0.0058 + 100 × 0.005584 + 20 × 0.005348 + 100 × 0 + 80 × 0.0058
        #expect(chat.proceeds == Self.gbp("1.36136"))
        #expect(chat.difference == Self.gbp("-0.58864"))
        #expect(
            chat.byBasis == ["free": 50, "transaction": 220, "period": 20, "refunded": 100])
    }

    @Test func theRatesAsWorkedByHand() throws {
        let r = try Self.run()
        let byLabel = Dictionary(uniqueKeysWithValues: r.rates.map { ($0.label, $0) })
        let fin = "financial 2026-11-01–2026-11-28"
        #expect(byLabel["demo.credits.100 GBP, \(fin)"]?.perCredit == Self.gbp("0.0058"))
        #expect(byLabel["demo.credits.100 GBP, \(fin)"]?.lots == 2)
        #expect(byLabel["demo.credits.100 GBP, \(fin)"]?.credits == 300)
        #expect(byLabel["demo.credits.500 USD, \(fin)"]?.perCredit == Self.gbp("0.005584"))
        #expect(byLabel["demo.credits.500 GBP, \(fin)"]?.perCredit == Self.gbp("0.00466"))
        #expect(byLabel["every product, \(fin)"]?.perCredit == Self.gbp("0.005348"))
        #expect(byLabel["every product, \(fin)"]?.unbacked == 20)
        #expect(byLabel["refunded"]?.credits == 500)
        #expect(byLabel["free"]?.credits == 60)
    }

    @Test func theLiabilityAndBreakageAsWorkedByHand() throws {
        let r = try Self.run()
        let l = r.liability
        // a2's GBP lot (500 left) and a5's lot (120 left); every other lot lapsed or empty.
        #expect(l.paidCredits == 620)
        #expect(l.lots == 2)
        #expect(l.value == Self.gbp("3.026"))
        // a5: min(120, 80 × 0.2 ÷ 0.8 = 20) credits × 0.0058
        #expect(l.breakageRecognised == Self.gbp("0.116"))
        #expect(l.deferred == Self.gbp("2.91"))
        #expect(l.freeCredits == 10)
        // a1's lot lapsed with 60 left, a2's USD lot with 400; a5's 20 in proportion.
        #expect(r.breakage.recognised == Self.gbp("2.6976"))
        #expect(r.breakage.lapsedPaid == 460)
        #expect(r.breakage.lapsedFree == 0)
        #expect(r.takenBack == 400)
        #expect(r.takenBackBeyond == 0)
        #expect(r.accounts == 5)
        #expect(r.ledgerEntries == 16)
    }

    /// The window from 2026-12-01: no charge in it, the breakage of the lapses and none of
    /// the proportional breakage recognised before.
    @Test func aWindowTakesOnlyItsOwnBreakage() throws {
        let since = try Timestamp(rfc3339: "2026-12-01T00:00:00Z")
        let r = try Self.run(window: TakingsWindow(since: since, until: Self.now))
        #expect(r.features.isEmpty)
        // At the start: a5 20 (proportional), a1 10 (= min(60, 40 × 0.25)), a2 USD
        // min(400, 100 × 0.25) = 25; at the end: a5 20, a1 60, a2 400.
        // (60 − 10) × 0.0058 + (400 − 25) × 0.005584 = 0.29 + 2.094 = 2.384
        #expect(r.breakage.recognised == Self.gbp("2.384"))
        #expect(r.breakage.lapsedPaid == 460)
    }
}
