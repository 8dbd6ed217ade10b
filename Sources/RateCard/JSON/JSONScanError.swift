/// A JSON syntax error found by `JSONScanner`: what was wrong, at which byte offset, and
/// the byte found there (nil at the end of the input). A plain value (no strings inside),
/// so that throwing paths cost nothing where nothing is thrown.
///
/// The wording lives here, once, for the two kinds of input: a line of JSON Lines (where
/// running out of input is "end of line") and a whole file ("end of file", with a hint that
/// it may be truncated and the first place of a repeated key).
struct JSONScanError: Error {
    enum Problem {
        case invalidLiteral(StaticString)
        case numberDigit
        case leadingZero
        case fractionDigit
        case exponentDigit
        case unterminatedString
        case lineBreakInString
        case controlCharacter(UInt8)
        /// The bad byte, and where its string starts.
        case invalidUTF8(UInt8, stringAt: Int)
        case unpairedSurrogate
        case invalidEscape(UInt8)
        case incompleteEscape
        case badHexDigit
        case tooDeep(Int)
        case expectedValue
        case endInsideArray
        case endInsideObject
        case trailingComma(UInt8)
        case expectedCommaOr(UInt8)
        case expectedKey
        case expectedColon
        case notANumber
        /// The repeated key (in the scanner's bytes) and where its first copy is.
        case duplicateKey(JSONScanner.Span, firstAt: Int)
    }

    /// What the input is, for the wording.
    enum Context {
        case line
        case file
    }

    let problem: Problem
    let offset: Int
    let found: UInt8?

    init(_ problem: Problem, offset: Int, found: UInt8? = nil) {
        self.problem = problem
        self.offset = offset
        self.found = found
    }

    /// Where the error is reported: the offending byte, except for an invalid UTF-8
    /// sequence in a file, which is reported at the start of its string.
    func reportedOffset(in context: Context) -> Int {
        if case .invalidUTF8(_, let start) = problem, context == .file { return start }
        return offset
    }

    /// The message; `locate` turns an offset into a place (for the first copy of a
    /// repeated key in a file), and `scanner` gives the key's text.
    func message(
        in context: Context, scanner: JSONScanner,
        locate: (Int) -> SourceLocation = { _ in .start }
    ) -> String {
        let endOf = context == .line ? "end of line" : "end of file"
        let truncated = context == .line ? "" : " (the file may be truncated)"
        func foundText() -> String {
            guard let b = found else { return endOf }
            if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
            return "byte 0x" + String(b, radix: 16, uppercase: true)
        }
        func hex(_ b: UInt8) -> String { String(b, radix: 16, uppercase: true) }
        switch problem {
        case .invalidLiteral(let word): return "invalid literal: expected '\(word)'"
        case .numberDigit: return "invalid number: expected a digit"
        case .leadingZero: return "invalid number: leading zeros are not allowed"
        case .fractionDigit: return "invalid number: expected a digit after '.'"
        case .exponentDigit: return "invalid number: expected a digit in the exponent"
        case .unterminatedString: return "unterminated string" + truncated
        case .lineBreakInString:
            return
                "unterminated string: a line break inside a string (the line may be truncated)"
        case .controlCharacter(let b):
            return "control character 0x\(hex(b)) must be escaped in a string"
        case .invalidUTF8(let b, _):
            return context == .line
                ? "string is not valid UTF-8 (byte 0x\(hex(b)))" : "string is not valid UTF-8"
        case .unpairedSurrogate: return "unpaired surrogate in \\u escape"
        case .invalidEscape(let e):
            return context == .line
                ? "invalid escape in a string"
                : "invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string"
        case .incompleteEscape: return "incomplete \\u escape"
        case .badHexDigit: return "invalid hex digit in \\u escape"
        case .tooDeep(let n): return "nesting deeper than \(n) levels"
        case .expectedValue:
            return found == nil
                ? "unexpected \(endOf): expected a value" + truncated
                : "unexpected \(foundText()): expected a value"
        case .endInsideArray: return "unexpected \(endOf) inside an array" + truncated
        case .endInsideObject: return "unexpected \(endOf) inside an object" + truncated
        case .trailingComma(let c):
            return "trailing comma before '\(Character(Unicode.Scalar(c)))'"
        case .expectedCommaOr(let c):
            return "unexpected \(foundText()): expected ',' or '\(Character(Unicode.Scalar(c)))'"
        case .expectedKey: return "unexpected \(foundText()): expected a quoted key"
        case .expectedColon: return "unexpected \(foundText()): expected ':' after a key"
        case .notANumber: return "NaN and Infinity are not JSON numbers"
        case .duplicateKey(let span, let first):
            let key = scanner.string(span) ?? ""
            guard context == .file else { return "duplicate key \"\(key)\"" }
            let p = locate(first)
            return "duplicate key \"\(key)\" (first at line \(p.line), column \(p.column))"
        }
    }
}
