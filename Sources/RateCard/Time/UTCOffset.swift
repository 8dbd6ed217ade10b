/// The one reading of a fixed UTC offset, for timestamps, `--tz`, roll-up `tz` cells and a
/// provider schedule's `utcOffset`.
///
/// RFC 3339 `time-offset`: `Z` (or `z`) or `±HH:MM` with HH 00–23 and MM 00–59. Every
/// place that reads an offset goes through `parse`, so they all accept the same offsets;
/// the range (±23:59) is RFC 3339's, wider than any zone in use (−12:00 to +14:00).
enum UTCOffset {
    /// The largest offset in minutes either way: 23:59.
    static let maxMinutes = 23 * 60 + 59

    /// Reads an offset that fills `count` bytes at `p`; minutes east of UTC, or nil.
    @inline(__always)
    static func parse(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        if count == 1 { return p[0] == UInt8(ascii: "Z") || p[0] == UInt8(ascii: "z") ? 0 : nil }
        guard count == 6, p[0] == UInt8(ascii: "+") || p[0] == UInt8(ascii: "-"),
            p[3] == UInt8(ascii: ":"),
            let h = RFC3339.twoDigits(p, 1), let m = RFC3339.twoDigits(p, 4), h <= 23, m <= 59
        else { return nil }
        return (p[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 60 + m)
    }

    /// Reads an offset written as a whole text (an option or a field): the forms of
    /// `parse`, and `UTC` as another name for `Z`.
    static func parse(_ text: some StringProtocol) -> Int? {
        if text == "UTC" { return 0 }
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeMutableBufferPointer {
            parse(UnsafePointer($0.baseAddress!), $0.count)
        }
    }

    /// `+08:00`, `-05:30`, `Z` for 0.
    static func text(_ minutes: Int) -> String {
        guard minutes != 0 else { return "Z" }
        let m = abs(minutes)
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (minutes < 0 ? "-" : "+") + p2(m / 60) + ":" + p2(m % 60)
    }
}
