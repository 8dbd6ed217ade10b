// Fuzz target `takings_jsonl`: the bytes as JSON Lines and as a device ledger document
// (the byte-level `EntryScanner` both go through), priced by the `osg` card, with two
// threads and 4 KiB blocks so that block and piece boundaries fall inside the input.
// Every run must balance, and the table must not depend on the thread count.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    for format in [TakingsFormat.jsonLines, .ledgerDocument] {
        let input = [TakingsInput(name: "fuzz.\(format.rawValue)", bytes: bytes, format: format)]
        let two = checkTakings(input, options: TakingsOptions(threads: 2, chunkBytes: 4096), priced: true)
        let one = checkTakings(input, options: TakingsOptions(threads: 1, chunkBytes: 65536), priced: true, render: false)
        requireSameTable(two, one, "\(format.rawValue): 2 threads with 4 KiB blocks vs 1 thread")
    }
    return 0
}
