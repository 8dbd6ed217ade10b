/// The one JSON string writer, used by every JSON the tool writes (`--format json`, the
/// canonical form whose digest the publish lock records, the entries of a ledger document
/// handed to the entry scanner). The escaping is RFC 8785's (JSON Canonicalization
/// Scheme): `"` and `\` escaped, the short forms `\b \t \n \f \r`, `\u00xx` (lower-case
/// hex) for the other control characters, every other character as its UTF-8 bytes. So
/// the same string is the same bytes everywhere.
enum JSONString {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// True when a byte must be escaped in a JSON string.
    @inline(__always)
    static func needsEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
    }

    /// Appends `s` quoted; runs of bytes that need no escape are copied at once.
    static func append(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            var run = 0
            for (k, b) in bytes.enumerated() where needsEscape(b) {
                if run < k { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<k])) }
                run = k + 1
                out.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(b)
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigits[Int(b >> 4)])
                    out.append(hexDigits[Int(b & 15)])
                }
            }
            if run < bytes.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// `s` as a JSON string literal.
    static func quoted(_ s: String) -> String {
        // Most strings need no escape: quoted as they are.
        if !s.utf8.contains(where: needsEscape) { return "\"" + s + "\"" }
        var out: [UInt8] = []
        append(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
