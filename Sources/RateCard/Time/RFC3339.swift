/// The one RFC 3339 `date-time` reader, on bytes: `Timestamp(rfc3339:)` and the takings
/// scanner both call it, so an instant one accepts the other accepts identically.
///
/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `t`/`z` and a space for `T` as RFC 3339 §5.6
/// notes allow; an offset is required (`UTCOffset`); a leap second (`:60`) counts as the
/// next second, as POSIX time does; digits past nanoseconds are read and dropped. The
/// instant must lie in 0001-01-01T00:00:00Z…9999-12-31T23:59:59Z (`Timestamp.utcRange`)
/// once converted to UTC, so that it can always be written back with a four-digit year.
enum RFC3339 {
    struct Parsed {
        var seconds: Int64
        var nanoseconds: Int32
        var offsetMinutes: Int
    }

    /// What `digits` digits of a fraction are multiplied by to give nanoseconds.
    private static let scale = [
        1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1000, 100, 10,
    ]

    @inline(__always)
    static func twoDigits(_ p: UnsafePointer<UInt8>, _ k: Int) -> Int? {
        let a = p[k] &- 0x30
        let b = p[k + 1] &- 0x30
        guard a <= 9, b <= 9 else { return nil }
        return Int(a) * 10 + Int(b)
    }

    /// The last date a reader saw (`YYYY-MM-DD` as written) and its day number: entries
    /// in time order share dates, so a reader that keeps one reads each date once.
    struct DayCache {
        fileprivate var word: UInt64 = 0
        fileprivate var tail: UInt16 = 0
        fileprivate var days = 0
        fileprivate var filled = false

        init() {}

        fileprivate init(word: UInt64, tail: UInt16, days: Int) {
            (self.word, self.tail, self.days, filled) = (word, tail, days, true)
        }
    }

    /// Reads a timestamp that fills `n` bytes at `p`, without allocating.
    @inline(__always)
    static func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Result<Parsed, TimestampError> {
        var cache = DayCache()
        return parse(p, n, cache: &cache)
    }

    /// The same, with the day number of a date seen last taken from `cache`.
    @inline(__always)
    static func parse(_ p: UnsafePointer<UInt8>, _ n: Int, cache: inout DayCache) -> Result<
        Parsed, TimestampError
    > {
        guard n >= 19 else {
            var hasT = false
            for k in 0..<n
            where p[k] == UInt8(ascii: "T") || p[k] == UInt8(ascii: "t") || p[k] == 0x20 {
                hasT = true
            }
            return .failure(n >= 10 && !hasT ? .missingTime : .truncated)
        }
        let raw = UnsafeRawPointer(p)
        let word = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        guard p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: "t") || p[10] == 0x20,
            p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":"),
            let hour = twoDigits(p, 11), let minute = twoDigits(p, 14),
            let second = twoDigits(p, 17)
        else {
            return .failure(.malformed)
        }
        let days: Int
        if cache.filled, word == cache.word, tail == cache.tail {
            days = cache.days
        } else {
            // The same checks, in the same order of failure, as for a date not seen.
            guard p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"),
                let y1 = twoDigits(p, 0), let y2 = twoDigits(p, 2),
                let month = twoDigits(p, 5), let day = twoDigits(p, 8)
            else {
                return .failure(.malformed)
            }
            let year = y1 * 100 + y2
            guard year >= 1, month >= 1, month <= 12, day >= 1,
                day <= CalendarDate.daysIn(month: month, year: year)
            else {
                return .failure(.invalidDate)
            }
            days = CalendarDate.daysFromCivil(year: year, month: month, day: day)
            cache = DayCache(word: word, tail: tail, days: days)
        }
        guard hour <= 23, minute <= 59, second <= 60 else { return .failure(.invalidTime) }
        var k = 19
        var nanos = 0
        if k < n, p[k] == UInt8(ascii: ".") {
            k += 1
            var digits = 0
            while k < n, p[k] >= 0x30, p[k] <= 0x39 {
                if digits < 9 { nanos = nanos * 10 + Int(p[k] - 0x30) }
                digits += 1
                k += 1
            }
            guard digits > 0 else { return .failure(.malformed) }
            if digits < 9 { nanos *= Self.scale[digits] }
        }
        guard k < n else { return .failure(.missingOffset) }
        let offsetLength = p[k] == UInt8(ascii: "Z") || p[k] == UInt8(ascii: "z") ? 1 : 6
        guard p[k] == UInt8(ascii: "+") || p[k] == UInt8(ascii: "-") || offsetLength == 1 else {
            return .failure(.malformedOffset)
        }
        guard k + offsetLength <= n, let offset = UTCOffset.parse(p + k, offsetLength) else {
            return .failure(.malformedOffset)
        }
        guard k + offsetLength == n else { return .failure(.trailing) }
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let seconds = local - Int64(offset * 60)
        guard seconds >= Timestamp.firstSecond, seconds <= Timestamp.lastSecond else {
            return .failure(.outOfRange)
        }
        return .success(Parsed(seconds: seconds, nanoseconds: Int32(nanos), offsetMinutes: offset))
    }
}
