/// The half-open span of time a P&L covers: `[since, until)`; a missing bound is open.
struct TakingsWindow: Sendable, Hashable {
    let since: Timestamp?
    let until: Timestamp?
    /// How the window was asked for ("all", "7d", "30d", "since … until …").
    let name: String

    init(since: Timestamp?, until: Timestamp?, name: String? = nil) {
        self.since = since
        self.until = until
        self.name =
            name
            ?? {
                switch (since, until) {
                case (nil, nil): "all"
                case (let s?, nil): "since \(s.rfc3339UTC)"
                case (nil, let u?): "until \(u.rfc3339UTC)"
                case (let s?, let u?): "\(s.rfc3339UTC) to \(u.rfc3339UTC)"
                }
            }()
    }

    /// The longest `Nd` window: 100 years of days.
    static let maxDays = 36_600

    /// Everything, with no bounds.
    static let all = TakingsWindow(since: nil, until: nil, name: "all")

    /// `all`, or `Nd` (e.g. `7d`, `30d`): the N×24 hours before `now`, `[now − N days, now)`.
    init(named text: String, now: Timestamp) throws(TakingsOptionError) {
        if text == "all" {
            self = .all
            return
        }
        let digits = text.dropLast()
        guard text.count >= 2, text.hasSuffix("d"), !digits.isEmpty,
            digits.allSatisfy({ ("0"..."9").contains($0) })
        else {
            throw .badWindow(text, reason: nil)
        }
        guard let days = Int(digits), days <= TakingsWindow.maxDays else {
            throw .badWindow(
                text, reason: "at most \(TakingsWindow.maxDays)d (100 years) is supported")
        }
        guard days > 0 else {
            throw .badWindow(text, reason: "a window of 0 days holds nothing; the shortest is 1d")
        }
        let since = Timestamp(
            seconds: now.seconds - Int64(days) * 86_400, nanoseconds: now.nanoseconds,
            offsetMinutes: now.offsetMinutes)
        self.init(since: since, until: now, name: text)
    }

    @inline(__always)
    func contains(seconds: Int64, nanoseconds: UInt32) -> Bool {
        if let since, (seconds, Int32(nanoseconds)) < (since.seconds, since.nanoseconds) {
            return false
        }
        if let until, !((seconds, Int32(nanoseconds)) < (until.seconds, until.nanoseconds)) {
            return false
        }
        return true
    }

    @inline(__always)
    func beforeEnd(seconds: Int64, nanoseconds: UInt32) -> Bool {
        guard let until else { return true }
        return (seconds, Int32(nanoseconds)) < (until.seconds, until.nanoseconds)
    }
}

/// A series of periods: `--by day|week|month` in UTC or a fixed offset (`--tz +08:00`),
/// each a `CalendarPeriod` known by its number.
struct TakingsSeries: Sendable, Hashable {
    typealias Period = CalendarPeriodLength

    let period: Period
    /// Minutes east of UTC that period boundaries are drawn in.
    let offsetMinutes: Int
    /// The period numbers that have a label: an entry outside them (within a day of the
    /// ends of the years 0001–9999, at an offset that moves it into year 0000 or 10000)
    /// is counted in the table, not in the series, and reported (`series-range`).
    let labelled: ClosedRange<Int64>

    init(period: Period, offsetMinutes: Int = 0) {
        self.period = period
        self.offsetMinutes = offsetMinutes
        var first = CalendarPeriod(
            length: period,
            number: CalendarPeriod.number(
                containing: Timestamp.firstSecond, length: period, offsetMinutes: offsetMinutes),
            offsetMinutes: offsetMinutes)
        if first.label == nil { first = first.next }
        let lastNumber = CalendarPeriod.number(
            containing: Timestamp.lastSecond, length: period, offsetMinutes: offsetMinutes)
        var last = CalendarPeriod(length: period, number: lastNumber, offsetMinutes: offsetMinutes)
        if last.label == nil {
            last = CalendarPeriod(
                length: period, number: lastNumber - (period == .week ? 7 : 1),
                offsetMinutes: offsetMinutes)
        }
        labelled = first.number...last.number
    }

    /// `Z`, `UTC`, or `±HH:MM` (`UTCOffset`, the one offset rule).
    static func offset(_ text: String) throws(TakingsOptionError) -> Int {
        guard let minutes = UTCOffset.parse(text) else { throw .badOffset(text) }
        return minutes
    }

    /// The number of the period an instant falls in (`CalendarPeriod.number`), or
    /// `outside` when that period has no label.
    @inline(__always)
    func bucket(seconds: Int64) -> Int64 {
        let b = CalendarPeriod.number(
            containing: seconds, length: period, offsetMinutes: offsetMinutes)
        return labelled.contains(b) ? b : TakingsSeries.outside
    }

    /// The bucket of entries whose period cannot be named: counted in the table only.
    static let outside = Int64.min

    /// The period of a bucket.
    func calendarPeriod(_ b: Int64) -> CalendarPeriod {
        CalendarPeriod(length: period, number: b, offsetMinutes: offsetMinutes)
    }

    /// `2026-11-29 at +08:00` style text for messages.
    var name: String {
        period.rawValue + (offsetMinutes == 0 ? "" : " at \(UTCOffset.text(offsetMinutes))")
    }
}

/// A bad `--window`, `--tz` or other option value.
enum TakingsOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text, and why a number of days is refused (nil: not `all` nor `Nd`).
    case badWindow(String, reason: String?)
    case badOffset(String)
    case emptyWindow(since: Timestamp, until: Timestamp)
    case tooManyInputs(Int)

    var description: String {
        switch self {
        case .badWindow(let s, let reason?): "window \"\(s)\": \(reason)"
        case .badWindow(let s, nil):
            "unknown window \"\(s)\": expected all, 7d, 30d or another number of days like 90d"
        case .badOffset(let s):
            "bad time-zone offset \"\(s)\": expected Z, UTC or ±HH:MM such as +08:00"
        case .emptyWindow(let s, let u):
            "the window is empty: since \(s.rfc3339UTC) is not before until \(u.rfc3339UTC)"
        case .tooManyInputs(let n): "\(n) inputs in one run: at most \(TakingsRun.maxInputs)"
        }
    }
}
