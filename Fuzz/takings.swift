// Fuzz target `takings`: `TakingsRun.run` (the reader of `margin pnl`) on arbitrary bytes,
// in every input format.
//
// The first byte chooses how: bits 0–2 the format (0 and 6–7 detected from the content,
// then jsonl, ledger, csv, rollup-jsonl, rollup-csv forced), bit 3 priced by the `osg`
// card or not, bits 4–5 the window (all; since 2026-11-01; until 2026-11-20; both with a
// daily series at +08:00), bit 6 one input or several (the rest split at NUL bytes, up to
// four files); bit 7 says a second byte follows that overrides the series and the window:
// bits 0–1 the series (none, --by day, week, month), bits 2–3 its offset (Z, +08:00,
// −12:00, +14:00), bits 4–5 the window (as chosen above; since 0001-01-01T00:00:00Z;
// until 9999-12-31T23:59:59Z; both ends of the range), so that every option that changes
// a code path, and periods at the ends of the range, are reached. Every run must balance (`lines = entries + duplicates + rejected +
// blank`), and one thread with 256-byte blocks (the checked run, so that block boundaries
// fall inside lines) must give the same table as two threads with 64 KiB blocks (so that
// the two pieces of a block meet inside it). `compareRuns` says which inputs get the
// second run, `renderReport` which get the checked run's report rendered.
@testable import RateCard

let formats: [TakingsFormat?] = [
    nil, .jsonLines, .ledgerDocument, .csv, .rollupJSONLines, .rollupCSV, nil, nil,
]
let since = try! Timestamp(rfc3339: "2026-11-01T00:00:00Z")
let until = try! Timestamp(rfc3339: "2026-11-20T00:00:00+08:00")
let first = try! Timestamp(rfc3339: "0001-01-01T00:00:00Z")
let last = try! Timestamp(rfc3339: "9999-12-31T23:59:59Z")
let periods: [TakingsSeries.Period?] = [nil, .day, .week, .month]
let offsets = [0, 480, -720, 840]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = inputBytes(data, size)
    let selector = bytes[0]
    let format = formats[Int(selector & 7)]
    let priced = selector & 8 != 0
    var window = TakingsWindow.all
    var series: TakingsSeries?
    switch (selector >> 4) & 3 {
    case 1: window = TakingsWindow(since: since, until: nil)
    case 2: window = TakingsWindow(since: nil, until: until)
    case 3:
        window = TakingsWindow(since: since, until: until)
        series = TakingsSeries(period: .day, offsetMinutes: 480)
    default: break
    }
    var body = Array(bytes[1...])
    if selector & 128 != 0, let options = body.first {
        body.removeFirst()
        series = periods[Int(options & 3)].map {
            TakingsSeries(period: $0, offsetMinutes: offsets[Int(options >> 2) & 3])
        }
        switch (options >> 4) & 3 {
        case 1: window = TakingsWindow(since: first, until: nil)
        case 2: window = TakingsWindow(since: nil, until: last)
        case 3: window = TakingsWindow(since: first, until: last)
        default: break
        }
    }
    let files = selector & 64 != 0 ? Array(splitAtNUL(body).prefix(4)) : [body]
    let inputs = files.enumerated().map {
        TakingsInput(name: "in\($0.offset).txt", bytes: $0.element, format: format)
    }
    let one = checkTakings(
        inputs,
        options: TakingsOptions(window: window, series: series, threads: 1, chunkBytes: 256),
        priced: priced,
        render: renderReport(body))
    guard compareRuns(body) else { return 0 }
    let two = checkTakings(
        inputs,
        options: TakingsOptions(window: window, series: series, threads: 2, chunkBytes: 65536),
        priced: priced, render: false)
    requireSameTable(one, two, "1 thread with 256-byte blocks vs 2 threads with 64 KiB")
    return 0
}
