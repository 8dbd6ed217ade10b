// Fuzz target `takings_jsonl`: the bytes as JSON Lines and as a device ledger document
// (the byte-level `EntryScanner` both go through), priced by the `osg` card. The checked
// and rendered run is one thread with 4 KiB blocks, so that block boundaries fall inside
// the input; the comparison run is two threads with 64 KiB blocks, so that the two
// pieces of a block meet inside it. Every run must balance, and the table must not
// depend on the thread count or the block size (`compareRuns` says which inputs get the
// comparison run).
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let compare = compareRuns(bytes)
    for format in [TakingsFormat.jsonLines, .ledgerDocument] {
        let input = [TakingsInput(name: "fuzz.\(format.rawValue)", bytes: bytes, format: format)]
        let one = checkTakings(input, options: TakingsOptions(threads: 1, chunkBytes: 4096), priced: true)
        guard compare else { continue }
        let two = checkTakings(input, options: TakingsOptions(threads: 2, chunkBytes: 65536), priced: true, render: false)
        requireSameTable(one, two, "\(format.rawValue): 1 thread with 4 KiB blocks vs 2 threads with 64 KiB")
    }
    return 0
}
