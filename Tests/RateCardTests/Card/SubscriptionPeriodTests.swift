import Testing

@testable import RateCard

/// Periods, their lengths and the windows of a reset in them, against counting calendar
/// days one by one.
@Suite struct SubscriptionPeriodTests {
    /// Days from 1970-01-01 to the first of a month, by `CalendarDate`'s day numbers: an
    /// independent count of the calendar, not the engine's month lengths.
    static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        CalendarDate(year: year, month: month, day: day)!.daysSinceEpoch
    }

    /// Days of `n` consecutive months from every start month of 1896–2404 (every leap
    /// pattern of the Gregorian calendar): the distance between two first days of a month.
    static func bruteDays(months n: Int) -> (min: Int, max: Int) {
        var lo = Int.max
        var hi = 0
        for year in 1896...2404 {
            for month in 1...12 {
                let end = month - 1 + n
                let days =
                    dayNumber(year: year + end / 12, month: end % 12 + 1, day: 1)
                    - dayNumber(year: year, month: month, day: 1)
                lo = min(lo, days)
                hi = max(hi, days)
            }
        }
        return (lo, hi)
    }

    @Test(arguments: [("P1M", 1), ("P2M", 2), ("P3M", 3), ("P6M", 6), ("P1Y", 12)])
    func monthLengthsMatchTheCalendar(text: String, months: Int) throws {
        let p = try #require(SubscriptionPeriod(iso8601: text))
        let brute = Self.bruteDays(months: months)
        #expect(p.maxDays == brute.max)
        #expect(p.minDays == brute.min)
    }

    @Test func theWorstMonthHas31DaysAndTheWorstYear366() {
        #expect(SubscriptionPeriod.month.maxDays == 31)
        #expect(SubscriptionPeriod.month.minDays == 28)
        #expect(SubscriptionPeriod.year.maxDays == 366)
    }

    @Test(arguments: [
        ("P1M", "P1D", 31), ("P1M", "P1W", 5), ("P1M", "P1M", 1), ("P3M", "P1D", 92),
        ("P3M", "P1M", 3),
        ("P6M", "P1D", 184), ("P1Y", "P1D", 366), ("P1Y", "P1W", 53), ("P1Y", "P1M", 12),
        ("P1Y", "P3M", 4),
        ("P1W", "P1D", 7), ("P1W", "P1W", 1), ("P1W", "P1M", 1), ("P3D", "P1M", 1),
        ("P2W", "P1D", 14),
    ])
    func windows(period: String, reset: String, expected: Int) throws {
        let p = try #require(SubscriptionPeriod(iso8601: period))
        let r = try #require(SubscriptionPeriod(iso8601: reset))
        #expect(p.windows(of: r) == expected)
    }

    /// A window of `w` days starting at the period's start and every `w` days after: count
    /// how many start before the period ends, over every run of the calendar.
    @Test(arguments: [(1, 1), (1, 7), (3, 1), (3, 7), (12, 1), (12, 7)])
    func dayWindowsAgainstBruteForce(months: Int, windowDays: Int) {
        let longest = Self.bruteDays(months: months).max
        var most = 0
        var start = 0
        var count = 0
        while start < longest {
            count += 1
            start += windowDays
        }
        most = max(most, count)
        let p = SubscriptionPeriod(count: months, unit: .month)
        #expect(p.windows(of: SubscriptionPeriod(count: windowDays, unit: .day)) == most)
    }

    @Test(arguments: ["P1M2D", "PT1H", "P0M", "P01M", "1M", "P1X", "P", "P1000D", "p1m", ""])
    func rejectsWhatIsNotOneComponent(text: String) {
        #expect(SubscriptionPeriod(iso8601: text) == nil)
    }

    @Test func holdsOnlyResetsThatRenewEveryPeriod() throws {
        #expect(SubscriptionPeriod.month.holds(.day))
        #expect(SubscriptionPeriod.month.holds(SubscriptionPeriod(count: 1, unit: .week)))
        #expect(SubscriptionPeriod.month.holds(.month))
        #expect(!SubscriptionPeriod(count: 1, unit: .week).holds(.month))
        #expect(!SubscriptionPeriod.month.holds(.year))
        #expect(SubscriptionPeriod.year.holds(SubscriptionPeriod(count: 6, unit: .month)))
    }
}
