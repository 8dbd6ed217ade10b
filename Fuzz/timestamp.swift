// Fuzz target `timestamp`: RFC 3339 timestamps and calendar dates never crash; an
// accepted timestamp renders in UTC as text that reads back to the same instant, and its
// local date and time are the ones written.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: inputBytes(data, size), as: UTF8.self)
    if let date = CalendarDate(text) {
        require(date.description == text, "date \(text) renders as \(date)")
        require(
            CalendarDate(daysSinceEpoch: date.daysSinceEpoch) == date,
            "day count of \(text) does not round-trip")
        require((1...7).contains(date.isoWeekday), "weekday of \(text)")
    }
    guard let stamp = try? Timestamp(rfc3339: text) else { return 0 }
    let utc = stamp.rfc3339UTC
    guard let back = try? Timestamp(rfc3339: utc) else {
        require(false, "\(text) renders as \(utc), which does not read back")
        return 0
    }
    require(
        back == stamp && back.offsetMinutes == 0,
        "\(text) renders as \(utc), which reads back as another instant")
    require((0..<1_000_000_000).contains(stamp.nanoseconds), "nanoseconds out of range for \(text)")
    // The local fields at the written offset are the ones in the text (a leap second is
    // the next second).
    let b = Array(text.utf8)
    let written = String(decoding: b[0..<10], as: UTF8.self)
    let second = Int(String(decoding: b[17..<19], as: UTF8.self))!
    if second < 60 {
        let (date, secondOfDay) = stamp.local(offsetMinutes: stamp.offsetMinutes)
        let clock =
            Int(String(decoding: b[11..<13], as: UTF8.self))! * 3600
            + Int(String(decoding: b[14..<16], as: UTF8.self))! * 60 + second
        require(
            date.description == written && secondOfDay == clock,
            "\(text) reads as \(date) second \(secondOfDay)")
    }
    return 0
}
