/// A day, an ISO week (Monday to Sunday) or a month of the proleptic Gregorian calendar,
/// drawn at a fixed UTC offset: the one period type of `--by` series and roll-up rows.
///
/// A period is a number, so that finding the one an instant falls in is integer
/// arithmetic valid for any instant: for a day the days since 1970-01-01 of that day, for
/// a week those of its Monday, for a month `year × 12 + month − 1`. Its label and bounds
/// are optional: a period whose local dates leave the years 0001–9999 has no label
/// (`2026-11-29`, `2026-W48`, `2026-11` need a four-digit year), and a bound outside
/// 0001-01-01T00:00:00Z…9999-12-31T23:59:59Z cannot be written as RFC 3339 and is nil.
struct CalendarPeriod: Sendable, Hashable {
    typealias Length = CalendarPeriodLength

    let length: Length
    let number: Int64
    /// Minutes east of UTC that the period is drawn in.
    let offsetMinutes: Int

    init(length: Length, number: Int64, offsetMinutes: Int) {
        self.length = length
        self.number = number
        self.offsetMinutes = offsetMinutes
    }

    /// The period of `length` that contains an instant, at `offsetMinutes`.
    @inline(__always)
    static func number(containing seconds: Int64, length: Length, offsetMinutes: Int) -> Int64 {
        let local = seconds + Int64(offsetMinutes * 60)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        switch length {
        case .day:
            return days
        case .week:
            // 1970-01-01 was a Thursday: Monday-based weeks start 3 days earlier.
            let shifted = days + 3
            let w = shifted >= 0 ? shifted / 7 : (shifted - 6) / 7
            return w * 7 - 3
        case .month:
            let d = CalendarDate(daysSinceEpoch: Int(days))
            return Int64(d.year * 12 + d.month - 1)
        }
    }

    /// Reads a label: a day `2026-11-29`, an ISO week `2026-W48` or a month `2026-11`.
    init?(label text: String, offsetMinutes: Int) {
        let b = Array(text.utf8)
        func digits(_ r: Range<Int>) -> Int? { CalendarDate.digits(b[r]) }
        if b.count == 10, let d = CalendarDate(text) {
            self.init(length: .day, number: Int64(d.daysSinceEpoch), offsetMinutes: offsetMinutes)
        } else if b.count == 7, b[4] == UInt8(ascii: "-"), let y = digits(0..<4),
            let m = digits(5..<7),
            CalendarDate(year: y, month: m, day: 1) != nil
        {
            self.init(length: .month, number: Int64(y * 12 + m - 1), offsetMinutes: offsetMinutes)
        } else if b.count == 8, b[4] == UInt8(ascii: "-"), b[5] == UInt8(ascii: "W"),
            let y = digits(0..<4), let w = digits(6..<8),
            let jan4 = CalendarDate(year: y, month: 1, day: 4), w >= 1
        {
            let monday = jan4.daysSinceEpoch - (jan4.isoWeekday - 1) + (w - 1) * 7
            // A week number past the year's last ISO week is not a period.
            guard CalendarDate(daysSinceEpoch: monday + 3).year == y else { return nil }
            self.init(length: .week, number: Int64(monday), offsetMinutes: offsetMinutes)
        } else {
            return nil
        }
    }

    /// The first day of the period and the first day after it, as days since 1970-01-01.
    private var days: (first: Int64, next: Int64) {
        switch length {
        case .day: return (number, number + 1)
        case .week: return (number, number + 7)
        case .month:
            let (y, m) = yearAndMonth
            let first = CalendarDate.daysFromCivil(year: y, month: m, day: 1)
            let next =
                m == 12
                ? CalendarDate.daysFromCivil(year: y + 1, month: 1, day: 1)
                : CalendarDate.daysFromCivil(year: y, month: m + 1, day: 1)
            return (Int64(first), Int64(next))
        }
    }

    /// A month period's year and month (1–12), for any number.
    private var yearAndMonth: (year: Int, month: Int) {
        let y = number >= 0 ? number / 12 : (number - 11) / 12
        return (Int(y), Int(number - y * 12) + 1)
    }

    /// Seconds since the epoch of the period's first instant, for any period.
    var startSeconds: Int64 { days.first * 86_400 - Int64(offsetMinutes * 60) }
    /// Seconds since the epoch of the first instant after the period, for any period.
    var endSeconds: Int64 { days.next * 86_400 - Int64(offsetMinutes * 60) }

    /// The first instant, nil when it is before 0001-01-01T00:00:00Z or after the range.
    var since: Timestamp? {
        let s = startSeconds
        return Timestamp.utcRange.contains(s) ? Timestamp(seconds: s) : nil
    }

    /// The first instant after the period, nil when that is after 9999-12-31T23:59:59Z.
    var until: Timestamp? {
        let s = endSeconds
        return Timestamp.utcRange.contains(s) ? Timestamp(seconds: s) : nil
    }

    /// `2026-11-29`, `2026-W48` (ISO week-year and week), `2026-11`; nil outside the years
    /// 0001–9999.
    var label: String? {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        switch length {
        case .day:
            let d = CalendarDate(daysSinceEpoch: Int(number))
            guard (1...9999).contains(d.year) else { return nil }
            return d.description
        case .week:
            let thursday = CalendarDate(daysSinceEpoch: Int(number) + 3)
            guard (1...9999).contains(thursday.year) else { return nil }
            let jan1 = CalendarDate.daysFromCivil(year: thursday.year, month: 1, day: 1)
            let week = (thursday.daysSinceEpoch - jan1) / 7 + 1
            return pad(thursday.year, 4) + "-W" + pad(week, 2)
        case .month:
            let (year, month) = yearAndMonth
            guard (1...9999).contains(year) else { return nil }
            return pad(year, 4) + "-" + pad(month, 2)
        }
    }

    /// The next period of the same length.
    var next: CalendarPeriod {
        CalendarPeriod(
            length: length, number: number + (length == .week ? 7 : 1), offsetMinutes: offsetMinutes
        )
    }
}

/// How long a calendar period is: `--by day|week|month`.
enum CalendarPeriodLength: String, Sendable, Hashable, CaseIterable {
    case day, week, month
}
