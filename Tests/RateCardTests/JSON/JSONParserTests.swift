import Testing

@testable import RateCard

@Suite struct JSONParserTests {
    @Test func recordsLinesAndColumns() throws {
        let node = try JSONParser.parse("{\n  \"a\": [1,\n    \"x\"],\n  \"b\": {\"c\": true}\n}")
        let a = try #require(node["a"])
        #expect(a.location == SourceLocation(line: 2, column: 8))
        guard case .array(let items) = a.value else {
            Issue.record("not an array")
            return
        }
        #expect(items[1].location == SourceLocation(line: 3, column: 5))
        #expect(node["b"]?["c"]?.location == SourceLocation(line: 4, column: 14))
    }

    @Test func keepsNumberTextExact() throws {
        let node = try JSONParser.parse("[0.1, 12345678901234567890123, -0, 1e400]")
        guard case .array(let items) = node.value else {
            Issue.record("not an array")
            return
        }
        #expect(
            items.map(\.value) == [
                .number("0.1"), .number("12345678901234567890123"), .number("-0"), .number("1e400"),
            ])
    }

    @Test(arguments: [
        ("", 1, 1, "empty"),
        ("   \n  ", 2, 3, "empty"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\""),
        ("{\"a\": [1, 2", 1, 12, "truncated"),
        ("{\"a\": \"abc", 1, 7, "unterminated string"),
        ("{\"a\": 12.}", 1, 10, "digit after '.'"),
        ("{\"a\": 012}", 1, 7, "leading zeros"),
        ("[1,]", 1, 4, "trailing comma"),
        ("{\"a\": NaN}", 1, 7, "NaN"),
        ("{} {}", 1, 4, "after the end"),
        ("{\"a\": tru}", 1, 7, "invalid literal"),
        ("[\"\\x\"]", 1, 3, "invalid escape"),
        ("[\"\\ud800\"]", 1, 9, "surrogate"),
    ])
    func rejectsWithPlace(text: String, line: Int, column: Int, fragment: String) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(
                error.location == SourceLocation(line: line, column: column), "\(error.message)")
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func rejectsInvalidUTF8AndControlCharacters() {
        #expect(throws: JSONParseError.self) {
            try JSONParser.parse([0x5B, 0x22, 0xFF, 0x22, 0x5D])
        }
        #expect(throws: JSONParseError.self) {
            try JSONParser.parse([0x5B, 0x22, 0x01, 0x22, 0x5D])
        }
    }

    @Test func skipsAByteOrderMark() throws {
        let node = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8))
        #expect(node["a"]?.value == .number("1"))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let node = try JSONParser.parse("[\"a\\n\\u00e9\\ud83d\\ude00\\\"\"]")
        guard case .array(let items) = node.value else {
            Issue.record("not an array")
            return
        }
        #expect(items[0].value == .string("a\né😀\""))
    }
}
