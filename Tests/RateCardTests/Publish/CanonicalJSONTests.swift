import Testing

@testable import RateCard

@Suite struct CanonicalJSONTests {
    private func canonical(_ json: String) throws -> String {
        let node = try JSONParser.parse(json)
        return String(decoding: try CanonicalJSON.serialize(node), as: UTF8.self)
    }

    private func digest(_ json: String) throws -> String {
        try CanonicalJSON.sha256(of: JSONParser.parse(json))
    }

    @Test(arguments: [
        ("28", "28"), ("28.0", "28"), ("2.8e1", "28"), ("2.8E+1", "28"), ("280e-1", "28"),
        ("0.0280e3", "28"), ("-0", "0"), ("-0.0e5", "0"), ("0e999999999999999999999", "0"),
        ("1.50", "1.5"), ("0.00375", "0.00375"), ("3.75e-3", "0.00375"), ("-11.25", "-11.25"),
        ("1e3", "1000"), ("1E-2", "0.01"), ("12.345e1", "123.45"), ("12.345e5", "1234500"),
        ("100", "100"), ("1e0", "1"), ("-5e-1", "-0.5"),
        (
            "123456789012345678901234567890123456789012345",
            "123456789012345678901234567890123456789012345"
        ),
    ])
    func numbers(input: String, expected: String) {
        #expect(CanonicalJSON.canonicalNumber(input) == expected)
    }

    @Test(arguments: [
        "1e1000", "1e-1000", "1e999999999999999999999999", "-7E+1000000000", "", "-", "1.", ".5",
        "1e", "1e+", "0x10", "1 ",
    ])
    func rejectedNumbers(input: String) {
        #expect(CanonicalJSON.canonicalNumber(input) == nil)
    }

    @Test func largestAcceptedNumber() {
        let text = "1e\(CanonicalJSON.maxNumberDigits - 1)"
        #expect(CanonicalJSON.canonicalNumber(text)?.utf8.count == CanonicalJSON.maxNumberDigits)
    }

    /// Where `Exact` can read a number, the canonical text is `Exact`'s own.
    @Test(arguments: [
        "28", "28.000", "-0.5", "0.00375", "11.25", "100", "-3", "0.10",
        "99999999999999999999.99999",
    ])
    func agreesWithExact(input: String) throws {
        let exact = try Exact(decimal: input)
        #expect(CanonicalJSON.canonicalNumber(input) == exact.canonicalDecimal)
    }

    @Test func sortsKeysAndDropsWhitespace() throws {
        let text = """
            {
              "b": [1, 2.0, {"z": null, "a": true}],
              "a": "x",
              "B": false
            }
            """
        #expect(try canonical(text) == #"{"B":false,"a":"x","b":[1,2,{"a":true,"z":null}]}"#)
    }

    @Test func keysSortByUTF8Bytes() throws {
        // "é" is U+00E9 (C3 A9), "z" is 7A, "😀" is F0 9F 98 80, "ｚ" (U+FF5A) is EF BD 9A:
        // byte order puts ｚ before 😀, as code point order does.
        #expect(
            try canonical(#"{"😀":1,"ｚ":2,"é":3,"z":4,"Z":5}"#)
                == #"{"Z":5,"z":4,"é":3,"ｚ":2,"😀":1}"#)
    }

    @Test func stringsEscapeMinimally() throws {
        #expect(
            try canonical(#"["a\"b\\c\/d\u0041\u00e9\n\t\r\b\f\u0001\u001f\u007f"]"#)
                == "[\"a\\\"b\\\\c/dAé\\n\\t\\r\\b\\f\\u0001\\u001f\u{7f}\"]")
    }

    @Test func reformattingAndReorderingKeepTheDigest() throws {
        let original = """
            {"kind": "card", "id": "osg", "version": 10,
             "packs": [{"productId": "3000tks", "credits": 3000, "prices": {"USD": "2.99", "CNY": 28}}]}
            """
        let reformatted = """
            {
                "version" : 1.0e1,
                "packs" : [
                    {
                        "prices" : { "CNY" : 28.00, "USD" : "2.99" },
                        "credits" : 3E3,
                        "productId" : "3000tks"
                    }
                ],
                "id" : "osg",
                "kind" : "card"
            }
            """
        #expect(try digest(original) == digest(reformatted))
    }

    @Test(arguments: [
        #"{"a": 29, "b": [1, 2]}"#,
        #"{"a": 28, "b": [2, 1]}"#,
        #"{"a": "28", "b": [1, 2]}"#,
        #"{"a": 28, "b": [1, 2], "c": null}"#,
        #"{"A": 28, "b": [1, 2]}"#,
        #"{"a": 28.0000001, "b": [1, 2]}"#,
        #"{"a": -28, "b": [1, 2]}"#,
    ])
    func changingOneValueChangesTheDigest(edit: String) throws {
        #expect(try digest(edit) != digest(#"{"a": 28, "b": [1, 2]}"#))
    }

    @Test func digestOfKnownText() throws {
        // The canonical text of this document is `{"a":1}`.
        #expect(try digest(#"{ "a" : 1.0 }"#) == SHA256.hexDigest(Array(#"{"a":1}"#.utf8)))
    }

    @Test func absurdNumberIsAnErrorWithItsPlace() throws {
        let node = try JSONParser.parse("{\n  \"a\": 1e5000\n}")
        let error = try #require(throws: CanonicalJSONError.self) {
            try CanonicalJSON.serialize(node)
        }
        #expect(error.location == SourceLocation(line: 2, column: 8))
        #expect(error.message.contains("1e5000"))
    }

    @Test func fileDigestReportsSyntaxErrorsAsDiagnostics() throws {
        let error = try #require(throws: Diagnostic.self) {
            try CanonicalJSON.sha256(ofFile: Array("{\"a\": [1, 2".utf8), path: "RateCards/x.json")
        }
        #expect(error.path == "RateCards/x.json")
        #expect(error.location.line == 1)
    }
}
