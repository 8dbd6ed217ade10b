// Fuzz target `takings_csv`: the bytes as a ledger CSV, a roll-up CSV and roll-up JSON
// Lines (the readers that are not the JSON Lines scanner), priced by the `osg` card.
// Every run must balance, and each format must give the same table with one thread as
// with two (`compareRuns` says which inputs get the two-thread run).
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let compare = compareRuns(bytes)
    for format in [TakingsFormat.csv, .rollupCSV, .rollupJSONLines] {
        let input = [TakingsInput(name: "fuzz.\(format.rawValue)", bytes: bytes, format: format)]
        let one = checkTakings(input, options: TakingsOptions(threads: 1, chunkBytes: 4096), priced: true)
        guard compare else { continue }
        let two = checkTakings(input, options: TakingsOptions(threads: 2, chunkBytes: 4096), priced: true, render: false)
        requireSameTable(one, two, "\(format.rawValue): 1 thread vs 2")
    }
    return 0
}
