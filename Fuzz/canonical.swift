// Fuzz target `canonical`: canonical JSON is idempotent (serialize, parse, serialize
// gives the same bytes) and its digest never crashes.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard let node = try? JSONParser.parse(bytes) else { return 0 }
    let first: [UInt8]
    do {
        first = try CanonicalJSON.serialize(node)
    } catch {
        require(!error.message.isEmpty, "empty canonical error message")
        return 0
    }
    guard let reread = try? JSONParser.parse(first) else {
        require(false, "canonical form does not parse: \(String(decoding: first, as: UTF8.self))")
        return 0
    }
    guard let second = try? CanonicalJSON.serialize(reread) else {
        require(false, "canonical form cannot be serialized again")
        return 0
    }
    require(
        first == second,
        "not idempotent:\n\(String(decoding: first, as: UTF8.self))\n\(String(decoding: second, as: UTF8.self))"
    )
    _ = try? CanonicalJSON.sha256(ofFile: bytes, path: "fuzz.json")
    return 0
}
