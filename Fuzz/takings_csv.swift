// Fuzz target `takings_csv`: the bytes as a ledger CSV, a roll-up CSV and roll-up JSON
// Lines (the readers that are not the JSON Lines scanner), priced by the `osg` card.
// Every run must balance, and each format must give the same table with one thread as
// with two.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    for format in [TakingsFormat.csv, .rollupCSV, .rollupJSONLines] {
        let input = [TakingsInput(name: "fuzz.\(format.rawValue)", bytes: bytes, format: format)]
        let two = checkTakings(input, options: TakingsOptions(threads: 2, chunkBytes: 4096), priced: true)
        let one = checkTakings(input, options: TakingsOptions(threads: 1, chunkBytes: 4096), priced: true, render: false)
        requireSameTable(two, one, "\(format.rawValue): 2 threads vs 1")
    }
    return 0
}
