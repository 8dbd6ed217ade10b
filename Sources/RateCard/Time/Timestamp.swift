/// An instant, read from RFC 3339 text with its UTC offset.
///
/// Kept as whole seconds since 1970-01-01T00:00:00Z plus nanoseconds, and the offset it
/// was written with (for local-time rules such as off-peak hours the provider's own zone
/// is used instead). Leap seconds (`:60`) are accepted and count as the next second, as
/// POSIX time does.
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Seconds since the Unix epoch, UTC.
    public let seconds: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public let nanoseconds: Int32
    /// The offset it was written with, in minutes east of UTC.
    public let offsetMinutes: Int

    public init(seconds: Int64, nanoseconds: Int32 = 0, offsetMinutes: Int = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.offsetMinutes = offsetMinutes
    }

    /// Parses RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`. `t`/`z` and a
    /// space for `T` are accepted as RFC 3339 §5.6 notes allow. An offset is required.
    public init(rfc3339 text: some StringProtocol) throws(TimestampError) {
        let b = Array(text.utf8)
        func num(_ r: Range<Int>) throws(TimestampError) -> Int {
            guard r.upperBound <= b.count else { throw .truncated }
            var v = 0
            for i in r {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { throw .malformed }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        guard b.count >= 19 else { throw b.count >= 10 && !b.contains(UInt8(ascii: "T")) && !b.contains(UInt8(ascii: "t")) && !b.contains(0x20) ? .missingTime : .truncated }
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 0x20,
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":") else { throw .malformed }
        let year = try num(0..<4), month = try num(5..<7), day = try num(8..<10)
        let hour = try num(11..<13), minute = try num(14..<16), second = try num(17..<19)
        guard let date = CalendarDate(year: year, month: month, day: day) else { throw .invalidDate }
        guard hour <= 23, minute <= 59, second <= 60 else { throw .invalidTime }
        var i = 19
        var nanos = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if digits < 9 { nanos = nanos * 10 + Int(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { throw .malformed }
            if digits < 9 { for _ in digits..<9 { nanos *= 10 } }
        }
        guard i < b.count else { throw .missingOffset }
        var offset = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            guard i + 6 <= b.count, b[i + 3] == UInt8(ascii: ":") else { throw .malformedOffset }
            let oh = try num(i + 1..<i + 3), om = try num(i + 4..<i + 6)
            guard oh <= 23, om <= 59 else { throw .malformedOffset }
            offset = sign * (oh * 60 + om)
            i += 6
        default:
            throw .malformedOffset
        }
        guard i == b.count else { throw .trailing }
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        // The instant must be writable in UTC with a four-digit year, as `rfc3339UTC` does.
        guard Timestamp.utcRange.contains(local - Int64(offset * 60)) else { throw .outOfRange }
        self.seconds = local - Int64(offset * 60)
        self.nanoseconds = Int32(nanos)
        self.offsetMinutes = offset
    }

    /// Seconds from 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
    static let utcRange: ClosedRange<Int64> =
        Int64(CalendarDate(year: 1, month: 1, day: 1)!.daysSinceEpoch) * 86_400
        ... Int64(CalendarDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch) * 86_400 + 86_399

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    public static func == (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.seconds == rhs.seconds && lhs.nanoseconds == rhs.nanoseconds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seconds)
        hasher.combine(nanoseconds)
    }

    /// The calendar date and second of day at `offsetMinutes` east of UTC.
    public func local(offsetMinutes: Int) -> (date: CalendarDate, secondOfDay: Int) {
        let s = seconds + Int64(offsetMinutes * 60)
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        return (CalendarDate(daysSinceEpoch: Int(days)), Int(s - days * 86_400))
    }

    /// The UTC instant at the start of `date`.
    public init(startOf date: CalendarDate, offsetMinutes: Int = 0) {
        self.init(seconds: Int64(date.daysSinceEpoch) * 86_400 - Int64(offsetMinutes * 60), offsetMinutes: offsetMinutes)
    }

    /// RFC 3339 in UTC, e.g. `2026-11-29T10:00:00Z` (fraction only when non-zero).
    public var rfc3339UTC: String {
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
public enum TimestampError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated, malformed, missingTime, invalidDate, invalidTime, missingOffset, malformedOffset, trailing, outOfRange

    public var description: String {
        switch self {
        case .truncated: "timestamp is too short (expected RFC 3339, e.g. 2026-11-29T10:00:00Z)"
        case .malformed: "timestamp is not RFC 3339 (expected e.g. 2026-11-29T10:00:00+08:00)"
        case .missingTime: "a date alone is not a timestamp: add a time and an offset, e.g. T00:00:00Z"
        case .invalidDate: "timestamp has an impossible date"
        case .invalidTime: "timestamp has an impossible time of day"
        case .missingOffset: "timestamp has no UTC offset: add Z or ±HH:MM"
        case .malformedOffset: "timestamp has a malformed UTC offset (expected Z or ±HH:MM)"
        case .trailing: "unexpected characters after the timestamp"
        case .outOfRange: "timestamp is outside the years 0001 to 9999 once converted to UTC"
        }
    }
}
