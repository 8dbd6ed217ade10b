// Fuzz target `json`: the strict JSON parser never crashes, every location it reports is
// inside the input, and an accepted document written back out (by an independent
// writer) reads back as the same value.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    let node: JSONNode
    do {
        node = try JSONParser.parse(bytes)
    } catch {
        require(
            error.location.line >= 1 && error.location.line <= lines,
            "error line \(error.location.line) outside 1...\(lines)")
        require(
            error.location.column >= 1 && error.location.column <= size + 2,
            "error column \(error.location.column) outside the input")
        require(!error.message.isEmpty, "empty error message")
        return 0
    }
    // RFC 8259 text is UTF-8: an accepted document must be valid UTF-8 (after a BOM).
    require(
        String(validating: bytes, as: UTF8.self) != nil, "accepted a document that is not UTF-8")
    var out: [UInt8] = []
    plainJSON(node, into: &out)
    guard let again = try? JSONParser.parse(out) else {
        require(
            false, "written-back document does not parse: \(String(decoding: out, as: UTF8.self))")
        return 0
    }
    require(sameJSON(node, again), "written-back document reads as another value")
    return 0
}
