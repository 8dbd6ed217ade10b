/// The canonical text of a JSON document: the same bytes for the same content, whatever
/// the whitespace, the order of object keys or the spelling of numbers.
///
/// The digest of a rate card in `RateCards/published.lock` is the SHA-256 of this text, so
/// reformatting a published card is not an edit while changing one number is.
///
/// The form, close to RFC 8785 (JCS) but exact and without floating point:
/// - no whitespace anywhere;
/// - object members sorted by key in **UTF-8 byte order** (which is Unicode code point
///   order; JCS uses UTF-16 code units, which differs only above U+FFFF); arrays keep
///   their order;
/// - strings in double quotes with only `"` and `\` escaped, control characters below
///   U+0020 written as `\b \f \n \r \t` or `\u00xx` (lowercase hex), everything else as raw
///   UTF-8. Strings are not Unicode-normalized: "é" precomposed and decomposed differ;
/// - numbers as plain decimal text, exactly: no exponent, no `+`, no leading zeros, no
///   trailing fractional zeros, no `-0`. `28`, `28.0`, `2.8e1` and `280E-1` are all `28`;
///   `1.50` is `1.5`; `-0.0` is `0`. Exponents are expanded digit by digit, never
///   through binary floating point, so numbers beyond `Exact`'s 38 digits keep every digit. A number
///   and a string stay different: `28` and `"28"` have different digests.
/// - A number whose plain form would need more than `maxNumberDigits` digits (`1e999999`),
///   or with an exponent beyond ±1,000,000, is rejected rather than expanded (zero, however
///   written, is `0`): no real card holds one, and refusing it keeps the digest of a
///   hostile file cheap to compute.
enum CanonicalJSON {
    /// The most digits a number may have once its exponent is written out.
    static let maxNumberDigits = 1_000

    /// Exponents beyond this magnitude are not read (a non-zero number with one is
    /// rejected), so that no exponent text can overflow `Int`.
    static let maxExponent = 1_000_000

    /// The canonical bytes of `node`.
    static func serialize(_ node: JSONNode) throws(CanonicalJSONError) -> [UInt8] {
        var out: [UInt8] = []
        try write(node, to: &out)
        return out
    }

    /// SHA-256 of the canonical bytes, as 64 lowercase hex digits.
    static func sha256(of node: JSONNode) throws(CanonicalJSONError) -> String {
        SHA256.hexDigest(try serialize(node))
    }

    /// SHA-256 of the canonical form of the JSON file `bytes`, read from `path`; a syntax
    /// error or an absurd number is a diagnostic naming the place.
    static func sha256(ofFile bytes: [UInt8], path: String) throws(Diagnostic) -> String {
        let node: JSONNode
        do {
            node = try JSONParser.parse(bytes)
        } catch {
            throw Diagnostic(path: path, location: error.location, message: error.message)
        }
        do {
            return try sha256(of: node)
        } catch {
            throw Diagnostic(path: path, location: error.location, message: error.message)
        }
    }

    private static func write(_ node: JSONNode, to out: inout [UInt8]) throws(CanonicalJSONError) {
        switch node.value {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text):
            guard let canonical = canonicalNumber(text) else {
                throw CanonicalJSONError(
                    "number \(text.prefix(40))\(text.count > 40 ? "…" : "") is out of range: written out it would need more than \(maxNumberDigits) digits",
                    at: node.location)
            }
            out.append(contentsOf: canonical.utf8)
        case .string(let s):
            writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try write(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (i, member) in sorted.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                try write(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` quoted, escaped as every JSON the tool writes (`JSONString`).
    static func writeString(_ s: String, to out: inout [UInt8]) { JSONString.append(s, to: &out) }

    /// The plain decimal text of the JSON number `text` ("2.8e1" → "28", "-0.0" → "0",
    /// "1.250E-2" → "0.0125"), or nil when it is not a JSON number or would need more than
    /// `maxNumberDigits` digits.
    static func canonicalNumber(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var i = 0
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        // Significant digits, and how many of them come before the decimal point.
        var digits: [UInt8] = []
        let intStart = i
        while i < bytes.count, isDigit(bytes[i]) {
            digits.append(bytes[i])
            i += 1
        }
        guard i > intStart else { return nil }
        var point = digits.count
        var exponentOutOfRange = false
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < bytes.count, isDigit(bytes[i]) {
                digits.append(bytes[i])
                i += 1
            }
            guard i > fracStart else { return nil }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            let expStart = i
            var exponent = 0
            while i < bytes.count, isDigit(bytes[i]) {
                exponent = exponent * 10 + Int(bytes[i] - 0x30)
                // Stop before the exponent can overflow; only zero survives such an exponent.
                if exponent > maxExponent {
                    exponentOutOfRange = true
                    exponent = 0
                }
                i += 1
            }
            guard i > expStart else { return nil }
            point += expNegative ? -exponent : exponent
        }
        guard i == bytes.count else { return nil }

        // Drop leading zeros (each moves the point left) and trailing zeros.
        var start = 0
        while start < digits.count, digits[start] == UInt8(ascii: "0") {
            start += 1
            point -= 1
        }
        var end = digits.count
        while end > start, digits[end - 1] == UInt8(ascii: "0") { end -= 1 }
        if start == end { return "0" }
        guard !exponentOutOfRange else { return nil }
        let significant = digits[start..<end]

        let width = point <= 0 ? significant.count - point + 1 : max(point, significant.count)
        guard width <= maxNumberDigits else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(width + 2)
        if negative { out.append(UInt8(ascii: "-")) }
        if point <= 0 {
            out.append(contentsOf: Array("0.".utf8))
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
            out.append(contentsOf: significant)
        } else if point >= significant.count {
            out.append(contentsOf: significant)
            out.append(
                contentsOf: repeatElement(UInt8(ascii: "0"), count: point - significant.count))
        } else {
            out.append(contentsOf: significant.prefix(point))
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: significant.dropFirst(point))
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why a JSON value has no canonical form, and where it is.
struct CanonicalJSONError: Error, Sendable, Hashable {
    let message: String
    let location: SourceLocation

    init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }
}
