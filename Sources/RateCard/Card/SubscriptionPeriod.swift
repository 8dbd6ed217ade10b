/// A length of time written as StoreKit writes it: an ISO 8601 duration of one component,
/// `P3D`, `P1W`, `P1M`, `P3M`, `P6M`, `P1Y`.
///
/// Months and years are calendar lengths (a month is 28 to 31 days), so the engine counts
/// how many quota resets a period can hold at most (see `windows(of:)`).
struct SubscriptionPeriod: Sendable, Hashable, Comparable, CustomStringConvertible {
    enum Unit: String, Sendable, Hashable, CaseIterable {
        case day = "D"
        case week = "W"
        case month = "M"
        case year = "Y"
    }

    let count: Int
    let unit: Unit

    init(count: Int, unit: Unit) {
        self.count = count
        self.unit = unit
    }

    /// The renewal periods App Store auto-renewable subscriptions have
    /// (`recurringSubscriptionPeriod`).
    static let renewalPeriods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
    /// The durations of an introductory offer or free trial (`introductoryOffer.subscriptionPeriod`).
    static let offerPeriods = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
    /// The periods a quota or allowance may reset after.
    static let resetPeriods = ["P1D", "P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    static let day = SubscriptionPeriod(count: 1, unit: .day)
    static let month = SubscriptionPeriod(count: 1, unit: .month)
    static let year = SubscriptionPeriod(count: 1, unit: .year)

    /// Parses `P<n><D|W|M|Y>` with `n` from 1 to 999; nil for anything else (`P1M2D`, `PT1H`).
    init?(iso8601 text: String) {
        let b = Array(text.utf8)
        guard b.count >= 3, b.count <= 5, b[0] == UInt8(ascii: "P"),
            let unit = Unit(rawValue: String(UnicodeScalar(b[b.count - 1]))),
            let n = CalendarDate.digits(b[1..<(b.count - 1)]), n >= 1, b[1] != UInt8(ascii: "0")
        else { return nil }
        self.init(count: n, unit: unit)
    }

    /// "P1M"
    var description: String { "P\(count)\(unit.rawValue)" }

    /// "month", "3 months", "week", "3 days"
    var phrase: String {
        let name: String
        switch unit {
        case .day: name = "day"
        case .week: name = "week"
        case .month: name = "month"
        case .year: name = "year"
        }
        return count == 1 ? name : "\(count) \(name)s"
    }

    /// The length in months when it is a whole number of months (months and years).
    var months: Int? {
        switch unit {
        case .month: count
        case .year: count * 12
        case .day, .week: nil
        }
    }

    /// The most days the period can last: 31 for a month, 92 for three, 184 for six, 366
    /// for a year (any run of consecutive calendar months, leap years included).
    var maxDays: Int { dayRange.max }

    /// The fewest days the period can last: 28 for a month, 365 for a year.
    var minDays: Int { dayRange.min }

    private var dayRange: (min: Int, max: Int) {
        switch unit {
        case .day: return (count, count)
        case .week: return (7 * count, 7 * count)
        case .month, .year:
            let n = months ?? 0
            // Every start month from 1896 to 1904 meets every leap pattern a run of months
            // can: a leap February early, late or absent, and 1900's skipped leap day.
            var lo = Int.max
            var hi = 0
            for year in 1896...1904 {
                for month in 1...12 {
                    var days = 0
                    var y = year
                    var m = month
                    for _ in 0..<n {
                        days += CalendarDate.daysIn(month: m, year: y)
                        m += 1
                        if m > 12 {
                            m = 1
                            y += 1
                        }
                    }
                    lo = min(lo, days)
                    hi = max(hi, days)
                }
            }
            return (lo, hi)
        }
    }

    /// The most windows of `reset` that can start within one run of this period, counting
    /// from the period's own start: a daily quota holds 31 windows in a month, 366 in a
    /// year; a weekly one 5 in a month (ceil(31 / 7)) and 53 in a year; a monthly one 12
    /// in a year. A reset longer than the period still gives one window.
    ///
    /// Two calendar lengths (months, years) divide exactly; otherwise the longest the
    /// period can be is divided by the shortest the window can be, rounded up.
    func windows(of reset: SubscriptionPeriod) -> Int {
        if let p = months, let w = reset.months { return max(1, (p + w - 1) / w) }
        let w = reset.minDays
        return max(1, (maxDays + w - 1) / w)
    }

    /// Ordered by their longest length, then shortest.
    static func < (lhs: SubscriptionPeriod, rhs: SubscriptionPeriod) -> Bool {
        (lhs.maxDays, lhs.minDays) < (rhs.maxDays, rhs.minDays)
    }

    /// True when `reset` never lasts longer than this period, so a quota resetting after
    /// it is renewed at least once a period (a monthly reset in a weekly plan is not).
    func holds(_ reset: SubscriptionPeriod) -> Bool {
        if let p = months, let w = reset.months { return w <= p }
        return reset.maxDays <= minDays
    }
}
