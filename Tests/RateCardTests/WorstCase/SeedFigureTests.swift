import Testing

@testable import RateCard

/// Figures stated in the seed documents, reproduced from the repository's own `RateCards/`.
@Suite struct SeedFigureTests {
    let repo: CardRepository
    let osg: RateCard
    let engine: WorstCaseEngine
    let cny = Currency(code: "CNY")!

    init() throws {
        repo = try CardRepository.load(paths: [repositoryCards])
        osg = try #require(repo.card(reference: "osg@10"))
        engine = try WorstCaseEngine(card: osg, providers: repo.providers)
    }

    /// Seed 001: 3,000 credits spent on ASR = 150 minutes = CNY 11.25.
    @Test func asrWorstCaseFor3000Credits() throws {
        let w = try engine.worstCase(credits: 3000, feature: "asr", in: cny, fx: repo.fx)
        #expect(w.cost.amount == exact("11.25"))
        let seconds = w.plan.reduce(Int128(0)) { $0 + $1.count * $1.shape.quantity }
        #expect(seconds == 150 * 60)
    }

    /// Seed 001: all on input tokens CNY 9.00; all on output tokens CNY 10.80 (peak).
    @Test func deepSeekWorstCasesFor3000Credits() throws {
        #expect(
            try engine.worstCase(
                credits: 3000, feature: "llm", dimension: "inputTokens", in: cny, fx: repo.fx
            ).cost.amount == exact("9"))
        #expect(
            try engine.worstCase(
                credits: 3000, feature: "llm", dimension: "outputTokens", in: cny, fx: repo.fx
            ).cost.amount == exact("10.8"))
        #expect(
            try engine.worstCase(credits: 3000, feature: "llm", in: cny, fx: repo.fx).cost.amount
                == exact("10.8"))
    }

    /// Seed 001: the worst case is ASR, CNY 11.25, leaving CNY 12.55 of CNY 28 after 15%
    /// and CNY 8.35 after 30%.
    @Test func pack3000MarginsAfterCommission() throws {
        let margins = try PackMargins(card: osg, repository: repo)
        let row = try #require(
            margins.rows.first { $0.pack.productId == "3000tks" && $0.price.price.currency == cny })
        #expect(row.price.price.amount == exact("28"))
        #expect(row.worst.cost.amount == exact("11.25"))
        #expect(row.worst.witnessFeature == "asr")
        #expect(row.lines.map(\.rate) == [exact("0.15"), exact("0.3")])
        #expect(row.lines.map(\.margin?.amount) == [exact("12.55"), exact("8.35")])
    }

    /// Seeds 001/002: the V10 packs, prices and grants.
    @Test func v10PacksAndGrants() throws {
        #expect(osg.packs.map(\.productId) == ["500tks", "1500tks", "3000tks"])
        #expect(osg.packs.map(\.credits) == [500, 1500, 3000])
        #expect(
            osg.packs.map { $0.prices.map(\.price.description) } == [
                ["USD 0.99", "CNY 8"], ["USD 1.99", "CNY 18"], ["USD 2.99", "CNY 28"],
            ])
        #expect(osg.grants.map(\.key) == ["signup", "inviter", "invitee"])
        #expect(osg.grants.allSatisfy { $0.credits == 1000 })
    }

    /// Seed 001: DeepSeek off-peak is half the peak price; peak hours per the provider page.
    @Test func deepSeekScheduleHalvesOffPeak() throws {
        let sheet = try #require(repo.providers["deepseek-v4-flash"])
        let schedule = try #require(sheet.schedule)
        let llm = try #require(osg.feature("llm"))
        let costing = RequestCosting(providers: repo.providers)
        // 2026-11-30 is a Monday. 10:00 at +08:00 is peak; 20:00 is off-peak; Saturday is off-peak.
        let peak = try Timestamp(rfc3339: "2026-11-30T10:00:00+08:00")
        let evening = try Timestamp(rfc3339: "2026-11-30T12:00:00Z")
        let saturday = try Timestamp(rfc3339: "2026-12-05T10:00:00+08:00")
        #expect(schedule.period(at: peak) == "peak")
        #expect(schedule.period(at: evening) == "offPeak")
        #expect(schedule.period(at: saturday) == "offPeak")
        #expect(
            // the lunch gap
            schedule.period(at: try Timestamp(rfc3339: "2026-11-30T12:00:00+08:00")) == "offPeak")
        // 14:00 at +08:00
        #expect(schedule.period(at: try Timestamp(rfc3339: "2026-11-30T06:00:00Z")) == "peak")
        let q = ["inputTokens": Exact(1_000_000)]
        #expect(try costing.cost(of: llm, quantities: q, at: peak).first?.amount == exact("3"))
        #expect(try costing.cost(of: llm, quantities: q, at: evening).first?.amount == exact("1.5"))
    }

    /// Seed 000: at the placeholder prices a 76-second note costs 6p to transcribe and 5p
    /// to debrief; a penny is 10,000 micro-credits; the starting credit is GBP 5.00.
    @Test func voiceCardPlaceholderPrices() throws {
        let card = try #require(repo.card(reference: "voice-debrief"))
        #expect(card.creditUnit.priceStep == 10_000)
        #expect(try card.feature("transcript")?.credits(for: ["second": Exact(76)]) == 60_000)
        #expect(try card.feature("debrief")?.credits(for: ["event": Exact(1)]) == 50_000)
        #expect(try card.feature("createVault")?.credits(for: ["event": Exact(1)]) == 100_000)
        #expect(try card.feature("saveToVault")?.credits(for: ["file": Exact(4)]) == 40_000)
        // nothing moved, nothing charged
        #expect(try card.feature("pushVault")?.credits(for: ["event": Exact(0)]) == 0)
        #expect(card.grants.first?.credits == 5_000_000)
        #expect(card.packs.first?.productId == "ai.voicedebrief.app.credit.500")
        #expect(card.packs.first?.prices.first?.price.description == "GBP 5")
        let keys = [
            "transcript", "debrief", "cleanPassage", "importFile", "glossaryWord", "createVault",
            "addVault", "saveToVault",
            "send", "addRecipient", "pushVault", "pullVault", "addServer", "readNote",
            "readVaultFile", "deleteNote",
            "removeVault", "removeServer", "removeRecipient", "removeWord",
        ]
        #expect(Set(card.features.map(\.key)) == Set(keys))
        // Every price is a whole number of pence and none is free.
        #expect(
            card.features.allSatisfy {
                $0.dimensions.allSatisfy { $0.credits > 0 && $0.credits % 10_000 == 0 }
            })
    }
}
