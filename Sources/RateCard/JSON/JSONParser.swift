/// A strict RFC 8259 JSON parser that records the line and column of every value and key.
///
/// It rejects what Foundation tolerates: duplicate keys in one object, invalid UTF-8,
/// unescaped control characters, trailing commas, `NaN`, leading zeros, and anything after
/// the top-level value. Nesting deeper than `maxDepth` is an error, not a stack overflow.
/// A UTF-8 byte-order mark at the very start is skipped, as RFC 8259 allows.
public struct JSONParser {
    /// How deeply arrays and objects may nest.
    public static let maxDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    /// Parses one complete JSON document.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.index = 3
            parser.lineStart = 3
        }
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw JSONParseError("the file is empty: expected a JSON value", at: parser.location)
        }
        let node = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw JSONParseError(
                "unexpected \(parser.describeCurrent()) after the end of the JSON value",
                at: parser.location)
        }
        return node
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var location: SourceLocation {
        SourceLocation(line: line, column: index - lineStart + 1)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default:
                return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONNode {
        let start = location
        guard index < bytes.count else {
            throw JSONParseError(
                "unexpected end of file: expected a value (the file may be truncated)", at: start)
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(), at: start)
        case UInt8(ascii: "["): return JSONNode(try parseArray(), at: start)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return JSONNode(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try parseNumber()), at: start)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw JSONParseError("NaN and Infinity are not JSON numbers", at: start)
        default:
            throw JSONParseError("unexpected \(describeCurrent()): expected a value", at: start)
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let start = location
        let count = word.utf8CodeUnitCount
        let w = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(w) else {
            throw JSONParseError("invalid literal: expected '\(word)'", at: start)
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONParser.maxDepth else {
            throw JSONParseError("nesting deeper than \(JSONParser.maxDepth) levels", at: location)
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [JSONMember] = []
        var seen: [String: SourceLocation] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([])
        }
        while true {
            skipWhitespace()
            let keyLocation = location
            guard index < bytes.count else {
                throw JSONParseError(
                    "unexpected end of file inside an object (the file may be truncated)",
                    at: keyLocation)
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw JSONParseError(
                    "unexpected \(describeCurrent()): expected a quoted key", at: keyLocation)
            }
            let key = try parseString()
            if let first = seen[key] {
                throw JSONParseError(
                    "duplicate key \"\(key)\" (first at line \(first.line), column \(first.column))",
                    at: keyLocation)
            }
            seen[key] = keyLocation
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw JSONParseError(
                    "unexpected \(describeCurrent()): expected ':' after a key", at: location)
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            guard index < bytes.count else {
                throw JSONParseError(
                    "unexpected end of file inside an object (the file may be truncated)",
                    at: location)
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    throw JSONParseError("trailing comma before '}'", at: location)
                }
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            throw JSONParseError(
                "unexpected \(describeCurrent()): expected ',' or '}'", at: location)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else {
                throw JSONParseError(
                    "unexpected end of file inside an array (the file may be truncated)",
                    at: location)
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    throw JSONParseError("trailing comma before ']'", at: location)
                }
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            }
            throw JSONParseError(
                "unexpected \(describeCurrent()): expected ',' or ']'", at: location)
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        let startLocation = location
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        guard isDigit(index) else {
            throw JSONParseError("invalid number: expected a digit", at: location)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) {
                throw JSONParseError(
                    "invalid number: leading zeros are not allowed", at: startLocation)
            }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else {
                throw JSONParseError("invalid number: expected a digit after '.'", at: location)
            }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count,
            bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
        {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard isDigit(index) else {
                throw JSONParseError(
                    "invalid number: expected a digit in the exponent", at: location)
            }
            while isDigit(index) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let startLocation = location
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw JSONParseError(
                    "unterminated string (the file may be truncated)", at: startLocation)
            }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw JSONParseError("string is not valid UTF-8", at: startLocation)
                }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else {
                    throw JSONParseError(
                        "unterminated string (the file may be truncated)", at: startLocation)
                }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw JSONParseError("unpaired surrogate in \\u escape", at: location)
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw JSONParseError("unpaired surrogate in \\u escape", at: location)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw JSONParseError("unpaired surrogate in \\u escape", at: location)
                    }
                    guard let u = Unicode.Scalar(scalar) else {
                        throw JSONParseError("invalid \\u escape", at: location)
                    }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw JSONParseError(
                        "invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string",
                        at: SourceLocation(line: line, column: index - 1 - lineStart))
                }
            default:
                if b < 0x20 {
                    if b == 0x0A {
                        throw JSONParseError(
                            "unterminated string: a line break inside a string (the line may be truncated)",
                            at: startLocation)
                    }
                    throw JSONParseError(
                        "control character 0x\(String(b, radix: 16, uppercase: true)) must be escaped in a string",
                        at: location)
                }
                out.append(b)
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else {
            throw JSONParseError("incomplete \\u escape", at: location)
        }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - 0x41 + 10)
            default: throw JSONParseError("invalid hex digit in \\u escape", at: location)
            }
            v = v * 16 + d
            index += 1
        }
        return v
    }
}

/// A JSON syntax error and where it is.
public struct JSONParseError: Error, Sendable, Hashable {
    public let message: String
    public let location: SourceLocation

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }
}
