/// An instant, read from RFC 3339 text with its UTC offset.
///
/// Kept as whole seconds since 1970-01-01T00:00:00Z plus nanoseconds, and the offset it
/// was written with (for local-time rules such as off-peak hours the provider's own zone
/// is used instead). Leap seconds (`:60`) are accepted and count as the next second, as
/// POSIX time does.
struct Timestamp: Sendable, Hashable, Comparable {
    /// Seconds since the Unix epoch, UTC.
    let seconds: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    let nanoseconds: Int32
    /// The offset it was written with, in minutes east of UTC.
    let offsetMinutes: Int

    init(seconds: Int64, nanoseconds: Int32 = 0, offsetMinutes: Int = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.offsetMinutes = offsetMinutes
    }

    /// Parses RFC 3339 `date-time` (`RFC3339.parse`, the one reader of timestamps).
    init(rfc3339 text: some StringProtocol) throws(TimestampError) {
        var b = Array(text.utf8)
        b.append(0)  // never read: keeps the buffer non-empty
        let parsed = b.withUnsafeBufferPointer { RFC3339.parse($0.baseAddress!, $0.count - 1) }
        switch parsed {
        case .success(let p):
            self.init(
                seconds: p.seconds, nanoseconds: p.nanoseconds, offsetMinutes: p.offsetMinutes)
        case .failure(let e): throw e
        }
    }

    /// Seconds from 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z: the instants that
    /// can be written in UTC with a four-digit year.
    static var utcRange: ClosedRange<Int64> { firstSecond...lastSecond }
    /// 0001-01-01T00:00:00Z.
    static var firstSecond: Int64 { -62_135_596_800 }
    /// 9999-12-31T23:59:59Z.
    static var lastSecond: Int64 { 253_402_300_799 }

    static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    static func == (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.seconds == rhs.seconds && lhs.nanoseconds == rhs.nanoseconds
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(seconds)
        hasher.combine(nanoseconds)
    }

    /// The calendar date and second of day at `offsetMinutes` east of UTC.
    func local(offsetMinutes: Int) -> (date: CalendarDate, secondOfDay: Int) {
        let s = seconds + Int64(offsetMinutes * 60)
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        return (CalendarDate(daysSinceEpoch: Int(days)), Int(s - days * 86_400))
    }

    /// The UTC instant at the start of `date`.
    init(startOf date: CalendarDate, offsetMinutes: Int = 0) {
        self.init(
            seconds: Int64(date.daysSinceEpoch) * 86_400 - Int64(offsetMinutes * 60),
            offsetMinutes: offsetMinutes)
    }

    /// RFC 3339 in UTC, e.g. `2026-11-29T10:00:00Z` (fraction only when non-zero).
    var rfc3339UTC: String {
        let (date, sod) = local(offsetMinutes: 0)
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var s = "\(date)T\(p2(sod / 3600)):\(p2(sod / 60 % 60)):\(p2(sod % 60))"
        if nanoseconds != 0 {
            var f = String(nanoseconds)
            f = String(repeating: "0", count: 9 - f.count) + f
            while f.last == "0" { f.removeLast() }
            s += "." + f
        }
        return s + "Z"
    }
}

/// Why a timestamp was not accepted.
enum TimestampError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated, malformed, missingTime, invalidDate, invalidTime, missingOffset,
        malformedOffset, trailing, outOfRange

    var description: String {
        switch self {
        case .truncated: "timestamp is too short (expected RFC 3339, e.g. 2026-11-29T10:00:00Z)"
        case .malformed: "timestamp is not RFC 3339 (expected e.g. 2026-11-29T10:00:00+08:00)"
        case .missingTime:
            "a date alone is not a timestamp: add a time and an offset, e.g. T00:00:00Z"
        case .invalidDate: "timestamp has an impossible date"
        case .invalidTime: "timestamp has an impossible time of day"
        case .missingOffset: "timestamp has no UTC offset: add Z or ±HH:MM"
        case .malformedOffset: "timestamp has a malformed UTC offset (expected Z or ±HH:MM)"
        case .trailing: "unexpected characters after the timestamp"
        case .outOfRange: "timestamp is outside the years 0001 to 9999 once converted to UTC"
        }
    }
}
