import Foundation
import Testing

@testable import RateCard

/// `margin pnl --proceeds … --by PERIOD`: each period's features valued at proceeds beside
/// the modelled value, against `ProceedsOracle`'s ISO weeks (worked by Foundation's
/// calendar, not the engine's periods) on generated ledgers, in memory and partitioned; the
/// periods add up to the window; and the worked example through the binary.
@Suite struct ProceedsSeriesTests {
    static func check(seed: UInt64, since: String?, until: String?, memoryLimit: Int? = nil)
        throws
    {
        let g = GeneratedProceeds(seed: seed, accounts: 40, entriesPerAccount: 60)
        let (ledger, reports, transactions) = try ProceedsPropertyTests.files(g, seed: seed)
        let now = try Timestamp(rfc3339: "2026-12-05T00:00:00Z")
        let window = TakingsWindow(
            since: try since.map { try Timestamp(rfc3339: $0) },
            until: try until.map { try Timestamp(rfc3339: $0) })
        let request = PnLRequest(
            inputs: [TakingsInput(path: ledger)], window: window, now: now,
            cards: [ProceedsPropertyTests.cards], currency: Currency(code: "GBP"),
            creditValue: Money(exact("0.005"), Currency(code: "GBP")!))
        let plan = try PnLRun.plan(request)
        let r = try ProceedsRun.run(
            ProceedsSources(reports: reports, transactions: transactions), plan: plan,
            inputs: request.inputs, now: now, memoryLimit: memoryLimit,
            series: TakingsSeries(period: .week))
        let o = ProceedsOracle(
            g: g, since: window.since?.seconds, now: now.seconds, until: window.until?.seconds
        ).run()

        var credits: [String: [String: Int128]] = [:]
        var value: [String: [String: Exact]] = [:]
        for p in r.periods {
            for f in p.features {
                credits[p.period, default: [:]][f.key] = f.credits
                value[p.period, default: [:]][f.key] = f.proceeds.amount
                #expect(
                    f.modelled.amount
                        == (try exact("0.005").multiplied(by: Exact(integer: f.credits))))
            }
        }
        func nonZero<V>(_ d: [String: [String: V]], _ zero: (V) -> Bool) -> [String: [String: V]] {
            d.mapValues { $0.filter { !zero($0.value) } }.filter { !$0.value.isEmpty }
        }
        let oCredits = nonZero(o.weekCredits) { $0 == 0 }
        #expect(nonZero(credits) { $0 == 0 } == oCredits, "seed \(seed)")
        #expect(
            nonZero(value) { $0 == .zero } == nonZero(o.weekValue) { $0 == .zero }, "seed \(seed)")
        #expect(r.series == "week")
        #expect(r.periods.map(\.period) == r.periods.map(\.period).sorted())
        #expect(oCredits.count >= 3, "seed \(seed): the series has several weeks")
        // The periods add up to the window's figures.
        for f in r.features {
            let periods = r.periods.flatMap(\.features).filter { $0.key == f.key }
            #expect(periods.reduce(Int128(0)) { $0 + $1.credits } == f.credits)
            var sum = Exact.zero
            for p in periods { sum = try sum.adding(p.proceeds.amount) }
            #expect(sum == f.proceeds.amount, "seed \(seed) \(f.key)")
        }
    }

    // Seeds of their own: the property tests write their files by seed.
    @Test(arguments: [21, 22, 23] as [UInt64])
    func weeksAgreeWithTheOracle(seed: UInt64) throws {
        try Self.check(seed: seed, since: nil, until: nil)
        try Self.check(seed: seed + 4, since: "2026-11-12T00:00:00Z", until: "2026-11-29T12:00:00Z")
    }

    @Test func weeksAgreePartitioned() throws {
        try Self.check(seed: 28, since: nil, until: nil, memoryLimit: 4_096)
    }

    /// docs/proceeds.md's example by week: W45 130 credits (30 free, 100 at GBP 0.005584),
    /// W46 180 (20 free, 40 at 0.0058, 20 at the period's 0.005348, 100 refunded), W48 80
    /// at 0.0058; they add up to the section's GBP 1.36136.
    @Test func theWorkedExampleByWeek() throws {
        let p = "Tests/RateCardTests/Fixtures/Proceeds"
        let a = "Tests/RateCardTests/Fixtures/Apple"
        let args = [
            "pnl", "\(p)/ledger.jsonl", "--cards", "\(p)/cards", "--currency", "GBP",
            "--credit-value", "GBP 0.005", "--now", "2026-12-07T00:00:00Z",
            "--proceeds", "\(a)/financial-2026-11.txt", "--proceeds", "\(a)/sales-2026-11.txt",
            "--transactions", "\(a)/transactions.jsonl", "--transactions",
            "\(a)/history-page.json", "--transactions", "\(a)/notifications.jsonl", "--by", "week",
        ]
        _ = try expectMargin(
            args, exits: 0,
            stdout: .contains(
                """
                By week (charges and refunds in the period of their own time):
                period    feature  credits  modelled  at proceeds    difference
                --------  -------  -------  --------  -----------  ------------
                2026-W45  chat         130  GBP 0.65   GBP 0.5584   GBP −0.0916
                2026-W46  chat         180  GBP 0.90  GBP 0.33896  GBP −0.56104
                2026-W48  chat          80  GBP 0.40    GBP 0.464     GBP 0.064
                """), stderr: .empty)
        let csv = try expectMargin(args + ["--format", "csv"], exits: 0, stderr: .empty)
        #expect(
            csv.stdout.contains(
                """
                period,2026-W45 chat,modelled,130,0.65,GBP
                period,2026-W45 chat,proceeds,130,0.5584,GBP
                period,2026-W46 chat,modelled,180,0.9,GBP
                period,2026-W46 chat,proceeds,180,0.33896,GBP
                period,2026-W48 chat,modelled,80,0.4,GBP
                period,2026-W48 chat,proceeds,80,0.464,GBP
                """))
        let json = try expectMargin(args + ["--format", "json"], exits: 0, stderr: .empty)
        let proceeds = try #require(try JSONParser.parse(json.stdout)["proceeds"])
        #expect(proceeds["by"]?.value == .string("week"))
        guard case .array(let periods) = proceeds["periods"]?.value else {
            Issue.record("no periods")
            return
        }
        #expect(periods.count == 3)
        #expect(periods[1]["period"]?.value == .string("2026-W46"))
        // Without --by the JSON has no series members (unchanged).
        let plain = try expectMargin(
            Array(args.dropLast(2)) + ["--format", "json"], exits: 0, stderr: .empty)
        #expect(try JSONParser.parse(plain.stdout)["proceeds"]?["periods"] == nil)
    }
}
