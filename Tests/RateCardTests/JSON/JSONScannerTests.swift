import Testing

@testable import RateCard

/// One grammar: the card-file parser and the takings line scanner read JSON through the
/// same `JSONScanner`, so they accept and reject the same values, with the same message
/// and place (up to the words for "end of line" and "end of file").
@Suite struct JSONScannerTests {
    /// Values of every kind, valid and not: escapes, surrogates, UTF-8, numbers at the
    /// edges of the grammar, nesting, repeated keys, truncation.
    static let fragments: [String] = [
        "1", "-0", "0.5", "1e9", "1E+2", "-1.25e-3", "01", "1.", ".5", "-", "1e", "+1", "NaN",
        "true", "false", "null", "tru", "nul", "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
        "\"\\u00e9\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "\"\\uZZZZ\"",
        "\"\\x\"", "\"é😀\"", "\"abc", "[]", "[1,2,[3,{}]]", "[1,]", "[,1]", "[1 2]", "{}",
        "{\"a\":1,\"b\":{\"c\":[true,null]}}", "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1,\"b\":2}}",
        "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":}", "[[[[[[[[1]]]]]]]]",
        String(repeating: "[", count: 63) + String(repeating: "]", count: 63),
        String(repeating: "[", count: 70) + String(repeating: "]", count: 70), "[1", "{\"a\":1",
        " [ 1 , { \"k\" : \"v\" } ] ",
    ]

    /// A grant entry with `fragment` as the value of an unknown field.
    static func entry(_ fragment: String) -> String {
        #"{"id":"g1","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5,"x":"#
            + fragment + "}"
    }

    /// The scanner's verdict on an entry line: nil when accepted, else the message.
    static func lineVerdict(_ line: String) -> String? {
        var scanner = EntryScanner()
        defer { scanner.release() }
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> String? in
            do throws(LineProblem) {
                _ = try scanner.scan(buffer.baseAddress!, buffer.count)
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// The parser's verdict on a document, with entry nesting limits: nil when accepted.
    static func fileVerdict(_ text: String) -> String? {
        do throws(JSONParseError) {
            _ = try JSONParser.parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: fragments)
    func sameVerdictInALineAndInAFile(fragment: String) {
        let inLine = Self.lineVerdict(Self.entry(fragment))
        let inFile = Self.fileVerdict("{\"x\":" + fragment + "}")
        // An entry allows 64 levels of nesting where a file allows 256: only the 70-deep
        // array differs.
        if fragment.hasPrefix(String(repeating: "[", count: 70)) {
            #expect(inLine == "nesting deeper than 64 levels")
            #expect(inFile == nil)
            return
        }
        #expect(
            (inLine == nil) == (inFile == nil), "line: \(inLine ?? "ok"), file: \(inFile ?? "ok")")
        if var inLine, let inFile {
            // Running out of a line is a truncated line; the scanner's words are inside.
            let wrapper = "the line ends inside a JSON value ("
            if inLine.hasPrefix(wrapper) {
                inLine = String(inLine.dropFirst(wrapper.count).dropLast())
            }
            let file = inFile.replacingOccurrences(of: " (the file may be truncated)", with: "")
                .replacingOccurrences(of: "end of file", with: "end of line")
            // The file form adds the place of a repeated key's first copy and names the
            // bad escape; the rest is word for word.
            #expect(
                file == inLine || file.hasPrefix(inLine.prefix(14)),
                "line: \(inLine), file: \(inFile)")
        }
    }

    /// Random single-byte edits of valid values: both readers agree on every one.
    @Test func sameVerdictOnRandomEdits() {
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("{}[]:,\"\\ -0123456789.eE+tfnulrsaxu\u{1}".utf8) + [0xC3, 0xFF]
        let valid = Self.fragments.filter {
            Self.fileVerdict("{\"x\":" + $0 + "}") == nil && $0.count < 60
        }
        var disagreements: [String] = []
        for _ in 0..<3000 {
            var bytes = Array(valid[Int.random(in: 0..<valid.count, using: &rng)].utf8)
            let k = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[k] = alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
            let fragment = String(decoding: bytes, as: UTF8.self)
            // Invalid UTF-8 is repaired by String(decoding:); test the bytes themselves.
            guard Array(fragment.utf8) == bytes else { continue }
            let inLine = Self.lineVerdict(Self.entry(fragment)) == nil
            let inFile = Self.fileVerdict("{\"x\":" + fragment + "}") == nil
            if inLine != inFile { disagreements.append(fragment) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test func repeatedKeyNamesTheFirstCopyInAFile() {
        #expect(
            Self.fileVerdict("{\n  \"a\": 1,\n  \"a\": 2\n}")
                == "duplicate key \"a\" (first at line 2, column 3)")
        #expect(Self.lineVerdict(Self.entry("{\"a\":1,\"a\":2}")) == "duplicate key \"a\"")
    }
}
