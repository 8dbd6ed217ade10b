import Foundation
import Testing

@testable import RateCard

/// The worked example of `docs/replay.md`, figure by figure: osg@10's ledger replayed under
/// a candidate osg@11 that charges ASR per started 5 seconds (was 3) and DeepSeek output
/// per started 300 tokens (was 400), a credit valued at CNY 0.01.
@Suite("Replay: the worked example of docs/replay.md")
struct ReplayWorkedExampleTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/RateCardTests/Fixtures/replay")
    static let ledger = fixtures.appendingPathComponent("osg-worked.jsonl").path
    static let candidate = fixtures.appendingPathComponent("osg-v11-candidate.json").path

    static func report() throws -> ReplayReport {
        try ReplayRun.run(
            ReplayRequest(
                inputs: [TakingsInput(path: ledger)], cards: [repositoryCards], new: candidate,
                creditValue: Money(exact("0.01"), Currency(code: "CNY")!)))
    }

    @Test("per feature: credits, cost, value, profit and margin before and after")
    func features() throws {
        let r = try Self.report()
        #expect(r.new == "osg@11")
        #expect(r.before == "the ledger's own charges")
        let asr = try #require(r.features.first { $0.feature == "asr" })
        #expect(asr.requests == 5)
        #expect(asr.notRepriced == 1)
        #expect(asr.notRepricedCredits == 5)
        #expect(asr.refunded == 1)
        // 26 + 4 + 200 + 300 − 4 (refund of c4) and 16 + 2 + 120 + 180 − 2.
        #expect(asr.creditsBefore == 526)
        #expect(asr.creditsAfter == 316)
        #expect(asr.creditChange == -210)
        #expect(asr.creditChangeShare == (try Exact(-210, over: 526)))
        // (76 + 10 + 600 + 900) s × CNY 4.5 / 3600 s on both sides.
        #expect(asr.costBefore == exact("1.9825"))
        #expect(asr.costAfter == exact("1.9825"))
        #expect(asr.valueBefore == exact("5.26"))
        #expect(asr.valueAfter == exact("3.16"))
        #expect(asr.profitBefore == exact("3.2775"))
        #expect(asr.profitAfter == exact("1.1775"))
        #expect(asr.marginBefore == (try exact("3.2775").divided(by: exact("5.26"))))
        #expect(asr.marginAfter == (try exact("1.1775").divided(by: exact("3.16"))))

        let llm = try #require(r.features.first { $0.feature == "llm" })
        #expect(llm.requests == 3)
        #expect(llm.notRepriced == 0)
        // 2+2, 1+3, 1+499 before; 2+3, 1+4, 1+666 after.
        #expect(llm.creditsBefore == 508)
        #expect(llm.creditsAfter == 677)
        #expect(llm.creditChange == 169)
        // Peak 0.0099 + off-peak 0.0066 + peak 1.7994.
        #expect(llm.costBefore == exact("1.8159"))
        #expect(llm.costAfter == exact("1.8159"))
        #expect(llm.profitBefore == exact("3.2641"))
        #expect(llm.profitAfter == exact("4.9541"))
        #expect(llm.declinedAfter == 1)

        #expect(r.total.creditsBefore == 1034)
        #expect(r.total.creditsAfter == 993)
        #expect(r.total.costBefore == exact("3.7984"))
        #expect(r.total.profitBefore == exact("6.5416"))
        #expect(r.total.profitAfter == exact("6.1316"))
        #expect(r.ledgerCredits == 1043)
        #expect(r.total.marginDropPoints.map { $0.isPositive } == true)
        #expect(
            r.total.marginDropPoints
                == (try exact("6.5416").divided(by: exact("10.34"))
                    .subtracting(exact("6.1316").divided(by: exact("9.93"))).multiplied(by: 100)))
    }

    @Test("the charge without a quantity is named by file and line, never dropped")
    func named() throws {
        let r = try Self.report()
        let named = r.named.filter { $0.rule == .replay(.notRepriced) }
        #expect(named.count == 1)
        #expect(named.first?.path == Self.ledger)
        #expect(named.first?.location.line == 6)
        #expect(r.input.lines == 13)
        #expect(r.input.entries == 12)
        #expect(r.input.duplicates == 1)
    }

    @Test("balances replayed: C's 667-credit chat is declined under osg@11")
    func balances() throws {
        let b = try Self.report().balances
        #expect(b.devices == 3)
        #expect(b.counts.declinedBefore == 0)
        #expect(b.counts.declinedAfter == 1)
        #expect(b.counts.newlyDeclined == 1)
        #expect(b.devicesNewlyDeclined == 1)
        // A: 961 / 969, B: 0 / 200, C: 0 / 500.
        #expect(b.counts.leftBefore == 961)
        #expect(b.counts.leftAfter == 1669)
        #expect(b.worst.map(\.name) == ["C"])
    }

    @Test("500tks in practice: B's and C's mix beside the worst case")
    func packs() throws {
        let r = try Self.report()
        let p = try #require(r.packs.first { $0.pack == "500tks" })
        #expect(r.packs.count == 1)
        #expect(p.buyers == 2)
        #expect(p.topups == 2)
        #expect(p.creditsBefore == 1000)
        #expect(p.creditsAfter == 967)
        #expect(p.costBefore == exact("3.6744"))
        let cny = try #require(p.prices.first { $0.price.currency.code == "CNY" })
        #expect(cny.commission == exact("0.3"))
        #expect(cny.proceeds.amount == exact("5.6"))
        // 3.6744 / 1000 × 500 and 3.6744 / 967 × 500.
        #expect(cny.typicalBefore == exact("1.8372"))
        #expect(cny.typicalAfter == (try exact("1837.2").divided(by: exact("967"))))
        #expect(cny.typicalMarginBefore == (try exact("3.7628").divided(by: exact("8"))))
        // Worst case: 500 credits of ASR, 1,500 s (CNY 1.875) before, 2,500 s (3.125) after.
        #expect(cny.worstMarginBefore == (try exact("3.725").divided(by: exact("8"))))
        #expect(cny.worstMarginAfter == (try exact("2.475").divided(by: exact("8"))))
    }

    @Test("through the binary: the table, JSON with exact decimals, exit 0")
    func cli() throws {
        let args = [
            "replay", Self.ledger, "--card", Self.candidate, "--credit-value", "CNY 0.01",
        ]
        try expectMargin(
            args, exits: 0,
            stdout: .contains(
                "asr             5              1             526            316    −210    −39.9%         1.98        1.98          5.26         3.16           3.28          1.18          62.3%         37.3%",
                "total           8              1           1,034            993     −41     −4.0%"),
            stderr: .contains(
                "osg-worked.jsonl:6:1: warning: charge of asr not re-priced: before: no quantity: the provider cost of feature asr needs one"
            ))
        try expectMargin(
            args + ["--format", "json"], exits: 0,
            stdout: .contains(
                "\"costBefore\": \"1.9825\"", "\"creditsAfter\": \"316\"",
                "\"profitAfter\": \"1.1775\""), stderr: .contains("replay-not-repriced"))
        try expectMargin(
            args + ["--strict"], exits: 1, stdout: .contains("Replay under osg@11"),
            stderr: .contains("[replay-not-repriced]"))
    }
}
