// Helpers shared by every fuzz target. Each target is linked against the `RateCard`
// library built with `-sanitize=fuzzer,address -enable-testing` by `scripts/fuzz`.
@testable import RateCard

/// The fuzzer's input as an array of bytes.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the run with `message` when a property does not hold; libFuzzer records the input.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #file, line: UInt = #line
) {
    if !condition() { fatalError("property failed: \(message())", file: file, line: line) }
}

/// `bytes` split at every NUL byte (JSON and command-line arguments never contain one).
/// (Copied part by part from the buffer: the generic `split` was a twentieth of `cardfile`'s
/// time under the sanitizers.)
func splitAtNUL(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.withUnsafeBufferPointer { b in
        var parts: [[UInt8]] = []
        var start = 0
        for k in 0..<b.count where b[k] == 0 {
            parts.append(Array(UnsafeBufferPointer(rebasing: b[start..<k])))
            start = k + 1
        }
        parts.append(Array(UnsafeBufferPointer(rebasing: b[start..<b.count])))
        return parts
    }
}

/// Two JSON values are the same when they have the same kind and contents, wherever they
/// were written.
func sameJSON(_ a: JSONNode, _ b: JSONNode) -> Bool {
    switch (a.value, b.value) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && zip(x, y).allSatisfy {
                Array($0.key.utf8) == Array($1.key.utf8) && sameJSON($0.value, $1.value)
            }
    default: return false
    }
}

/// Writes `node` as compact JSON, escaping every control character as `\u00XX`, so that a
/// parser round trip can be checked independently of `CanonicalJSON`.
func plainJSON(_ node: JSONNode, into out: inout [UInt8]) {
    switch node.value {
    case .null: out += Array("null".utf8)
    case .bool(let b): out += Array((b ? "true" : "false").utf8)
    case .number(let n): out += Array(n.utf8)
    case .string(let s): plainString(s, into: &out)
    case .array(let items):
        out.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            plainJSON(item, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    case .object(let members):
        out.append(UInt8(ascii: "{"))
        for (i, m) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            plainString(m.key, into: &out)
            out.append(UInt8(ascii: ":"))
            plainJSON(m.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

private func plainString(_ s: String, into out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    out.append(UInt8(ascii: "\""))
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            out.append(UInt8(ascii: "\\"))
            out.append(b)
        case 0..<0x20:
            out += Array("\\u00".utf8)
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        default:
            out.append(b)
        }
    }
    out.append(UInt8(ascii: "\""))
}
