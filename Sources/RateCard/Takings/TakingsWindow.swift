/// The half-open span of time a P&L covers: `[since, until)`; a missing bound is open.
public struct TakingsWindow: Sendable, Hashable {
    public let since: Timestamp?
    public let until: Timestamp?
    /// How the window was asked for ("all", "7d", "30d", "since … until …").
    public let name: String

    public init(since: Timestamp?, until: Timestamp?, name: String? = nil) {
        self.since = since
        self.until = until
        self.name = name ?? {
            switch (since, until) {
            case (nil, nil): "all"
            case (let s?, nil): "since \(s.rfc3339UTC)"
            case (nil, let u?): "until \(u.rfc3339UTC)"
            case (let s?, let u?): "\(s.rfc3339UTC) to \(u.rfc3339UTC)"
            }
        }()
    }

    /// Everything, with no bounds.
    public static let all = TakingsWindow(since: nil, until: nil, name: "all")

    /// `all`, or `Nd` (e.g. `7d`, `30d`): the N×24 hours before `now`, `[now − N days, now)`.
    public init(named text: String, now: Timestamp) throws(TakingsOptionError) {
        if text == "all" {
            self = .all
            return
        }
        guard text.count >= 2, text.hasSuffix("d"), let days = Int(text.dropLast()), days > 0, days <= 36_600,
              text.dropLast().allSatisfy(\.isASCII) else {
            throw .badWindow(text)
        }
        let since = Timestamp(seconds: now.seconds - Int64(days) * 86_400, nanoseconds: now.nanoseconds, offsetMinutes: now.offsetMinutes)
        self.init(since: since, until: now, name: text)
    }

    @inline(__always)
    func contains(seconds: Int64, nanoseconds: UInt32) -> Bool {
        if let since, (seconds, Int32(nanoseconds)) < (since.seconds, since.nanoseconds) { return false }
        if let until, !((seconds, Int32(nanoseconds)) < (until.seconds, until.nanoseconds)) { return false }
        return true
    }

    @inline(__always)
    func beforeEnd(seconds: Int64, nanoseconds: UInt32) -> Bool {
        guard let until else { return true }
        return (seconds, Int32(nanoseconds)) < (until.seconds, until.nanoseconds)
    }
}

/// A series of periods: `--by day|week|month` in UTC or a fixed offset (`--tz +08:00`).
public struct TakingsSeries: Sendable, Hashable {
    public enum Period: String, Sendable, Hashable, CaseIterable {
        case day, week, month
    }

    public let period: Period
    /// Minutes east of UTC that period boundaries are drawn in.
    public let offsetMinutes: Int

    public init(period: Period, offsetMinutes: Int = 0) {
        self.period = period
        self.offsetMinutes = offsetMinutes
    }

    /// `Z`, `UTC`, or `±HH:MM`.
    public static func offset(_ text: String) throws(TakingsOptionError) -> Int {
        if text == "Z" || text == "UTC" || text == "z" { return 0 }
        let b = Array(text.utf8)
        guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":"),
              let h = Int(String(decoding: b[1..<3], as: UTF8.self)), let m = Int(String(decoding: b[4..<6], as: UTF8.self)),
              b[1...2].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), b[4...5].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              h <= 23, m <= 59 else { throw .badOffset(text) }
        return (b[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 60 + m)
    }

    /// The period an instant falls in, as a number: days since 1970-01-01 of its first
    /// day (day, week: Monday), or `year × 12 + month − 1` (month).
    @inline(__always)
    func bucket(seconds: Int64) -> Int64 {
        let local = seconds + Int64(offsetMinutes * 60)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        switch period {
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

    /// The first instant of a bucket.
    func start(ofBucket b: Int64) -> Timestamp {
        switch period {
        case .day, .week:
            return Timestamp(startOf: CalendarDate(daysSinceEpoch: Int(b)), offsetMinutes: offsetMinutes)
        case .month:
            let date = CalendarDate(year: Int(b / 12), month: Int(b % 12) + 1, day: 1)!
            return Timestamp(startOf: date, offsetMinutes: offsetMinutes)
        }
    }

    /// The first instant after a bucket.
    func end(ofBucket b: Int64) -> Timestamp {
        switch period {
        case .day: return start(ofBucket: b + 1)
        case .week: return start(ofBucket: b + 7)
        case .month: return start(ofBucket: b + 1)
        }
    }

    /// `2026-11-29`, `2026-W48` (ISO week), `2026-11`.
    func label(ofBucket b: Int64) -> String {
        switch period {
        case .day:
            return CalendarDate(daysSinceEpoch: Int(b)).description
        case .week:
            let thursday = CalendarDate(daysSinceEpoch: Int(b) + 3)
            let jan1 = CalendarDate(year: thursday.year, month: 1, day: 1)!
            let week = (thursday.daysSinceEpoch - jan1.daysSinceEpoch) / 7 + 1
            let year = String(thursday.year)
            return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-W" + (week < 10 ? "0" : "") + String(week)
        case .month:
            let year = String(b / 12)
            let month = Int(b % 12) + 1
            return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + (month < 10 ? "0" : "") + String(month)
        }
    }
}

/// A bad `--window`, `--tz` or other option value.
public enum TakingsOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    case badWindow(String)
    case badOffset(String)
    case emptyWindow(since: Timestamp, until: Timestamp)
    case tooManyInputs(Int)

    public var description: String {
        switch self {
        case .badWindow(let s): "unknown window \"\(s)\": expected all, 7d, 30d or another number of days like 90d"
        case .badOffset(let s): "bad time-zone offset \"\(s)\": expected Z, UTC or ±HH:MM such as +08:00"
        case .emptyWindow(let s, let u): "the window is empty: since \(s.rfc3339UTC) is not before until \(u.rfc3339UTC)"
        case .tooManyInputs(let n): "\(n) inputs in one run: at most \(TakingsRun.maxInputs)"
        }
    }
}
