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

    /// The last four dates a reader saw (`YYYY-MM-DD` as written) and their day numbers:
    /// entries in time order share dates, and at any instant the devices' offsets (from
    /// −12:00 to +14:00) spread their local dates over two or three days, so a reader
    /// that keeps four reads each date about once.
    struct DayCache {
        private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private var tails: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
        private var dayNumbers: (Int, Int, Int, Int) = (0, 0, 0, 0)
        /// Slots in use (they fill in order), and the one a new date replaces.
        private var filled = 0
        private var next = 0

        init() {}

        /// The day number of a date kept, by its first ten bytes.
        @inline(__always)
        fileprivate func days(word: UInt64, tail: UInt16) -> Int? {
            if filled > 0, word == words.0, tail == tails.0 { return dayNumbers.0 }
            if filled > 1, word == words.1, tail == tails.1 { return dayNumbers.1 }
            if filled > 2, word == words.2, tail == tails.2 { return dayNumbers.2 }
            if filled > 3, word == words.3, tail == tails.3 { return dayNumbers.3 }
            return nil
        }

        /// Keeps a date just read and checked, in place of the one kept longest.
        fileprivate mutating func keep(word: UInt64, tail: UInt16, days d: Int) {
            switch next {
            case 0: (words.0, tails.0, dayNumbers.0) = (word, tail, d)
            case 1: (words.1, tails.1, dayNumbers.1) = (word, tail, d)
            case 2: (words.2, tails.2, dayNumbers.2) = (word, tail, d)
            default: (words.3, tails.3, dayNumbers.3) = (word, tail, d)
            }
            next = (next + 1) & 3
            filled = min(filled + 1, 4)
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
        if let t = parseCommon(p, n, cache: cache) { return .success(t) }
        return parseAny(p, n, cache: &cache)
    }

    /// The form exports write, read a word at a time: a date kept in `cache`, `T`,
    /// `HH:MM:SS`, an optional fraction of 1–9 digits, then `Z` or `±HH:MM`
    /// (`UTCOffset.parse`). Nil for anything else (a date not kept, `t`, a space, a leap
    /// second, a longer fraction, any bad byte, an instant out of range), which `parseAny`
    /// reads and, when it is wrong, names. Where this succeeds it gives what `parseAny`
    /// gives (`ScannerFastPathTests.keptDays`).
    @inline(__always)
    private static func parseCommon(_ p: UnsafePointer<UInt8>, _ n: Int, cache: DayCache)
        -> Parsed?
    {
        guard n >= 20, p[10] == UInt8(ascii: "T") else { return nil }
        let raw = UnsafeRawPointer(p)
        guard
            let days = cache.days(
                word: raw.loadUnaligned(as: UInt64.self),
                tail: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        else { return nil }
        // `HH:MM:SS` as one little-endian word: digits in bytes 0, 1, 3, 4, 6, 7.
        let t = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 11, as: UInt64.self))
        let digitBytes: UInt64 = 0xFFFF_00FF_FF00_FFFF
        let colons: UInt64 = 0x0000_3A00_003A_0000
        let low = t & 0x0F0F_000F_0F00_0F0F
        guard t & ~digitBytes == colons, t & 0xF0F0_00F0_F000_F0F0 == 0x3030_0030_3000_3030,
            (low &+ 0x0606_0006_0600_0606) & 0xF0F0_00F0_F000_F0F0 == 0
        else { return nil }
        @inline(__always) func pair(_ k: UInt64) -> Int {
            Int((low >> (8 * k)) & 0xF) * 10 + Int((low >> (8 * k + 8)) & 0xF)
        }
        let (hour, minute, second) = (pair(0), pair(3), pair(6))
        guard hour <= 23, minute <= 59, second <= 59 else { return nil }
        var k = 19
        var nanos = 0
        if p[k] == UInt8(ascii: ".") {
            k += 1
            let first = k
            while k < n, k - first < 9, p[k] &- 0x30 < 10 {
                nanos = nanos &* 10 &+ Int(p[k] &- 0x30)
                k += 1
            }
            guard k > first else { return nil }
            if k - first < 9 { nanos &*= Self.scale[k - first] }
        }
        guard let offset = UTCOffset.parse(p + k, n - k) else { return nil }
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let seconds = local - Int64(offset * 60)
        guard seconds >= Timestamp.firstSecond, seconds <= Timestamp.lastSecond else {
            return nil
        }
        return Parsed(seconds: seconds, nanoseconds: Int32(nanos), offsetMinutes: offset)
    }

    /// Every form RFC 3339 allows, and the reason when the text is not one.
    private static func parseAny(_ p: UnsafePointer<UInt8>, _ n: Int, cache: inout DayCache)
        -> Result<Parsed, TimestampError>
    {
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
        if let kept = cache.days(word: word, tail: tail) {
            days = kept
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
            cache.keep(word: word, tail: tail, days: days)
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
