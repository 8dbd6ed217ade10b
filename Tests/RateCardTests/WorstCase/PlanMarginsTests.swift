import Testing

@testable import RateCard

/// The figures of the example plan card, worked by hand in `docs/plans.md`, and the
/// engine against brute force.
@Suite struct PlanMarginsTests {
    func margins() throws -> PlanMargins {
        let (repo, card) = try PlanFixtures.example()
        return try PlanMargins(card: card, repository: repo)
    }

    func row(_ m: PlanMargins, _ id: String) throws -> PlanMargins.Row {
        try #require(m.rows.first { $0.plan.productId == id })
    }

    func line(_ r: PlanMargins.Row, _ p: PlanMargins.Program) throws -> PlanMargins.Line {
        try #require(r.lines.first { $0.program == p })
    }

    // MARK: docs/plans.md, plan 1: 3,000 credits and an allowance a month

    @Test func plusMonthlyCreditsAndAllowance() throws {
        let plus = try row(try margins(), "talk.plus.monthly")
        // 3,000 credits on ASR: 9,000 s at CNY 4.5 an hour = 11.25 (seed 001's figure).
        #expect(plus.worst.creditWorst?.cost == cnyMoney("11.25"))
        #expect(plus.worst.creditWorst?.witnessFeature == "asr")
        // 1,000,000 input tokens at CNY 3 a million (cache miss, peak) = 3.00.
        #expect(plus.worst.limits.map(\.cost) == [cnyMoney("3")])
        #expect(plus.worst.cost == cnyMoney("14.25"))
        let std = try line(plus, .standard)
        #expect(std.yearOne.proceeds == cnyMoney("19.6"))
        #expect(std.yearOne.margin == cnyMoney("5.35"))
        #expect(std.afterYearOne.proceeds == cnyMoney("23.8"))
        #expect(std.afterYearOne.margin == cnyMoney("9.55"))
        #expect(std.yearOneTotal == cnyMoney("64.2"))
        #expect(std.laterYearTotal == cnyMoney("114.6"))
        #expect(plus.yearOnePeriods == 12 && plus.laterYearPeriods == 12)
        let small = try line(plus, .smallBusiness)
        #expect(small.yearOne.margin == cnyMoney("9.55"))
    }

    // MARK: plan 2: per-feature quotas, one daily

    @Test func proMonthlyDailyQuotaCountsTheLongestMonth() throws {
        let pro = try row(try margins(), "talk.pro.monthly")
        let asr = try #require(pro.worst.limits.first { $0.limit.feature == "asr" })
        // 20 minutes a day = 1,200 s = 400 intervals of 3 s; CNY 1.50 a day; 31 days.
        #expect(asr.limit.amount == 1200)
        #expect(asr.intervals == 400)
        #expect(asr.perWindow.cost == cnyMoney("1.5"))
        #expect(asr.windows == 31)
        #expect(asr.cost == cnyMoney("46.5"))
        let out = try #require(pro.worst.limits.first { $0.limit.feature == "llm" })
        #expect(out.cost == cnyMoney("1.8"))
        let tts = try #require(pro.worst.limits.first { $0.limit.feature == "tts" })
        #expect(tts.cost == cnyMoney("0") && tts.noRunningCost != nil)
        #expect(pro.worst.cost == cnyMoney("48.3"))
        // The longest month is the worst: 28, 29, 30 and 31 days of the daily quota.
        let byLength = try [28, 29, 30, 31].map {
            try asr.perWindow.cost.amount.multiplied(by: Exact($0)).adding(out.cost.amount)
        }
        #expect(byLength.max() == pro.worst.cost.amount)
        let std = try line(pro, .standard)
        #expect(std.yearOne.margin == cnyMoney("6.3"))
        #expect(std.afterYearOne.margin == cnyMoney("18"))
    }

    // MARK: introductory offers and payback

    @Test func freeTrialAndPayAsYouGoPayBack() throws {
        let m = try margins()
        let plus = try row(m, "talk.plus.monthly")
        let trial = try #require(plus.intro)
        // A week's trial holds one month's credits and allowance: 14.25, earned nothing.
        #expect(trial.price == cnyMoney("0"))
        #expect(trial.worst.cost == cnyMoney("14.25"))
        #expect(try line(plus, .standard).introMargin == cnyMoney("-14.25"))
        #expect(try line(plus, .standard).paybackPeriods == 3)  // 5.35 × 3 = 16.05 ≥ 14.25 > 10.70
        #expect(try line(plus, .smallBusiness).paybackPeriods == 2)  // 9.55 × 2 = 19.10

        let pro = try row(m, "talk.pro.monthly")
        let offer = try #require(pro.intro)
        // Three months at CNY 8: 92 days of the daily quota and three months of tokens.
        #expect(offer.price == cnyMoney("24"))
        #expect(offer.worst.cost == cnyMoney("143.4"))
        #expect(try line(pro, .standard).introMargin == cnyMoney("-126.6"))
        // 12 × 6.30 = 75.60 in year one leaves 51.00; 3 × 18.00 after: 15 periods.
        #expect(try line(pro, .standard).paybackPeriods == 15)
        #expect(try line(pro, .smallBusiness).introMargin == cnyMoney("-123"))
        #expect(try line(pro, .smallBusiness).paybackPeriods == 7)
    }

    /// Payback against adding up the periods one by one.
    @Test(arguments: [
        ("-14.25", "5.35", "9.55"), ("-126.6", "6.3", "18"), ("-10", "-1", "2"), ("-10", "0", "0"),
        ("5", "1", "1"),
        ("-100", "1", "0"), ("-0.01", "0.01", "0.01"), ("-1000", "3", "7"),
    ])
    func paybackAgainstSumming(intro: String, yearOne: String, after: String) throws {
        let got = try PlanMargins.paybackPeriods(
            loss: exact(intro), yearOne: exact(yearOne), yearOnePeriods: 12, after: exact(after))
        var total = exact(intro)
        var brute: Int?
        if !total.isNegative { brute = 0 }
        var k = 0
        while brute == nil && k < 5000 {
            k += 1
            total = try total.adding(k <= 12 ? exact(yearOne) : exact(after))
            if !total.isNegative { brute = k }
        }
        #expect(got == brute)
    }

    // MARK: the free tier

    @Test func freeTierPerUserAndShareOfAPayingUser() throws {
        let m = try margins()
        let tier = try #require(m.freeTier)
        // 60 s a day (CNY 0.075) × 31 + 20,000 output tokens (CNY 0.18) = 2.505 a month.
        #expect(tier.perPeriod.cost == cnyMoney("2.505"))
        // 366 × 0.075 + 12 × 0.18 = 29.61 a year.
        #expect(tier.perYear.cost == cnyMoney("29.61"))
        let plus = try line(try row(m, "talk.plus.monthly"), .standard)
        let free = try #require(plus.freeUsers)
        #expect(free.yearOneShare == (try exact("29.61").divided(by: exact("64.2"))))
        #expect(free.yearOneCovered == 2)
        #expect(free.laterYearCovered == 3)  // 114.60 / 29.61 = 3.87
        let pro = try line(try row(m, "talk.pro.monthly"), .standard)
        #expect(pro.freeUsers?.yearOneCovered == 2)  // 75.60 / 29.61 = 2.55
        #expect(pro.freeUsers?.laterYearCovered == 7)  // 216.00 / 29.61 = 7.29
    }

    // MARK: a weekly plan, paid up front

    /// CNY 10 a week, 300 s of ASR a day at CNY 3.6 an hour (CNY 0.30 a day).
    @Test func weeklyPlanYearsAndAnOfferPaidUpFront() throws {
        let plans = """
            [{"productId": "w", "group": "g", "period": "P1W", "prices": [{"currency": "CNY", "amount": "10"}],
              "quotas": [{"feature": "asr", "amount": 5, "unit": "minute", "reset": "P1D"}],
              "introductoryOffer": {"paymentMode": "payUpFront", "period": "P1M", "prices": [{"currency": "CNY", "amount": "20"}]}}]
            """
        let (repo, card) = try PlanFixtures.repository(
            card: PlanFixtures.card(subscriptions: plans))
        let r = try PlanMargins(card: card, repository: repo).rows[0]
        #expect(r.worst.limits[0].windows == 7)
        #expect(r.worst.cost == cnyMoney("2.1"))
        #expect(r.yearOnePeriods == 53 && r.laterYearPeriods == 52)
        let std = try line(r, .standard)
        #expect(std.yearOne.margin == cnyMoney("4.9") && std.afterYearOne.margin == cnyMoney("6.4"))
        #expect(std.yearOneTotal == cnyMoney("259.7") && std.laterYearTotal == cnyMoney("332.8"))
        // A month up front: 31 days of the quota (9.30) for CNY 20 (14.00 after 30%).
        let intro = try #require(r.intro)
        #expect(intro.price == cnyMoney("20") && intro.worst.cost == cnyMoney("9.3"))
        #expect(std.introMargin == cnyMoney("4.7") && std.paybackPeriods == 0)
    }

    // MARK: brute force

    /// The worst case of a quota of `n` intervals against every way of splitting it into
    /// requests of whole seconds: a request of q seconds uses ceil(q / per) intervals and
    /// costs the provider's bill for q (increment, minimum).
    @Test(
        arguments: [
            (3, "up", nil, nil, 10), (3, "up", "2", nil, 10), (3, "up", "2", "15", 10),
            (5, "up", "4", "7", 9),
            (2, "exact", "3", nil, 8), (1, "up", nil, "10", 6), (4, "up", "6", "9", 7),
        ] as [(Int, String, String?, String?, Int)])
    func quotaAgainstBruteForce(
        per: Int, rounding: String, increment: String?, minimum: String?, intervals: Int
    ) throws {
        let plans = """
            [{"productId": "p", "group": "g", "period": "P1M", "prices": [{"currency": "CNY", "amount": "10"}],
              "quotas": [{"feature": "asr", "amount": \(intervals * per)}]}]
            """
        let provider = PlanFixtures.provider(
            price: "3.6", per: "3600", increment: increment, minimum: minimum)
        let (repo, card) = try PlanFixtures.repository(
            card: PlanFixtures.card(per: per, rounding: rounding, subscriptions: plans),
            provider: provider)
        let got = try PlanMargins(card: card, repository: repo).rows[0].worst.cost.amount

        // The provider's bill for q seconds, by hand: up to the increment, at least the minimum.
        func bill(_ q: Int) throws -> Exact {
            var billed = Exact(q)
            if let increment {
                billed = try exact(increment).multiplied(
                    by: billed.divided(by: exact(increment)).rounded(.up))
            }
            if let minimum, billed < exact(minimum) { billed = exact(minimum) }
            return try billed.multiplied(by: exact("0.001"))  // CNY 3.6 an hour
        }
        // best[i]: the most requests using at most i intervals cost, over requests of any
        // whole number of seconds the card allows (exact: whole intervals only).
        var best = [Exact](repeating: .zero, count: intervals + 1)
        for i in 1...intervals {
            best[i] = best[i - 1]
            for q in 1...(i * per) {
                if rounding == "exact" && q % per != 0 { continue }
                let used = (q + per - 1) / per
                guard used <= i else { continue }
                let v = try best[i - used].adding(bill(q))
                if best[i] < v { best[i] = v }
            }
        }
        #expect(got == best[intervals])
    }
}
