import Foundation
import Testing

@testable import RateCard

/// One malformed variant of the real card and what must be said about it.
struct BadCard: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    /// Where the error is reported in `osg-v10.json`.
    let line: Int
    let column: Int
    /// What the message must say (the field, and what is wrong).
    let fragments: [String]

    var testDescription: String { name }

    init(_ name: String, _ bytes: [UInt8], _ line: Int, _ column: Int, _ fragments: String...) {
        self.name = name
        self.bytes = bytes
        self.line = line
        self.column = column
        self.fragments = fragments
    }

    init(_ name: String, _ text: String, _ line: Int, _ column: Int, _ fragments: String...) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.line = line
        self.column = column
        self.fragments = fragments
    }

    /// Every case; the card is `RateCards/osg-v10.json` with one thing broken.
    static let all: [BadCard] = {
        let card = osgCardText
        let cardBytes = Array(card.utf8)
        func edit(_ old: String, _ new: String) -> String { replacingOnce(card, old, new) }
        func prefix(through marker: String) -> String {
            String(card[..<card.range(of: marker)!.upperBound])
        }
        let megabyte = String(repeating: "1", count: 1_000_000)
        return [
            BadCard("empty file", [], 1, 1, "the file is empty"),
            BadCard("only whitespace", "  \n\t \r\n   ", 3, 4, "the file is empty"),
            BadCard(
                "not UTF-8 inside a string",
                Array(edit("\"title\": \"OSG", "\"title\": \"\u{1}OSG").utf8).map {
                    $0 == 0x01 ? 0xFF : $0
                },
                6, 12, "string is not valid UTF-8"),
            BadCard(
                "not UTF-8 before the value", [0xFF] + cardBytes, 1, 1,
                "unexpected byte 0xFF: expected a value"),
            BadCard(
                "UTF-16 with its byte-order mark", [0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D], 1, 1,
                "unexpected byte 0xFE"),
            BadCard(
                "truncated in the middle of a string", prefix(through: "\"title\": \"OSG man"), 6,
                12,
                "unterminated string (the file may be truncated)"),
            BadCard(
                "truncated in the middle of a number", prefix(through: "\"credits\": 50"), 41, 65,
                "unexpected end of file inside an object (the file may be truncated)"),
            BadCard(
                "a 1 MB line with a raw tab at its end",
                edit(
                    "\"title\": \"OSG",
                    "\"title\": \"" + String(repeating: "x", count: 1_000_000) + "\tOSG"),
                6, 1_000_013, "control character 0x9 must be escaped in a string"),
            BadCard(
                "a 1 MB number", edit("\"credits\": 500,", "\"credits\": \(megabyte),"), 41, 63,
                "packs[0].credits: \"1111111111111111111111111111111111111111… (1000000 characters)\"",
                "more than 38 digits"),
            BadCard(
                "a 1 MB currency code",
                edit(
                    "\"currency\": \"CNY\"",
                    "\"currency\": \"" + String(repeating: "C", count: 1_000_000) + "\""), 42, 74,
                "packs[0].prices[1].currency:",
                "(1000000 characters)\" is not a known ISO 4217 currency code"),
            BadCard(
                "arrays nested 10,000 deep",
                String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
                1, 257, "nesting deeper than 256 levels"),
            BadCard(
                "objects nested 10,000 deep",
                String(repeating: "{\"a\":", count: 10_000) + "1"
                    + String(repeating: "}", count: 10_000),
                1, 1281, "nesting deeper than 256 levels"),
            BadCard(
                "credits beyond Int64",
                edit("\"credits\": 500,", "\"credits\": 9223372036854775808,"), 41, 63,
                "packs[0].credits: 9223372036854775808 is out of range"),
            BadCard(
                "credits beyond the engine's range (10^30)",
                edit("\"credits\": 500,", "\"credits\": 1000000000000000000000000000000,"), 41, 63,
                "packs[0].credits: 1000000000000000000000000000000 is out of range (-1000000000000000…1000000000000000)"
            ),
            BadCard(
                "fractional credits", edit("\"credits\": 500,", "\"credits\": 500.5,"), 41, 63,
                "packs[0].credits: 500.5 is not a whole number"),
            BadCard(
                "NaN credits", edit("\"credits\": 500,", "\"credits\": NaN,"), 41, 63,
                "NaN and Infinity are not JSON numbers"),
            BadCard(
                "1e400 credits", edit("\"credits\": 500,", "\"credits\": 1e400,"), 41, 63,
                "packs[0].credits:", "exponent notation is not accepted"),
            BadCard(
                "1e400 as a price", edit("\"amount\": \"8\"", "\"amount\": \"1e400\""), 42, 91,
                "packs[0].prices[1].amount:", "exponent notation is not accepted"),
            BadCard(
                "a duplicated key", edit("\"id\": \"osg\",", "\"id\": \"osg\", \"id\": \"osg2\","),
                3, 16,
                "duplicate key \"id\" (first at line 3, column 3)"),
            BadCard(
                "a timestamp without offset",
                edit("2026-08-18T00:00:00+08:00", "2026-08-18T00:00:00"), 5, 16,
                "effective:", "has no UTC offset"),
            BadCard(
                "a date where a timestamp belongs", edit("2026-08-18T00:00:00+08:00", "2026-08-18"),
                5, 16,
                "effective:", "a date alone is not a timestamp"),
            BadCard(
                "February 30th", edit("2026-08-18T00:00:00+08:00", "2026-02-30T00:00:00+08:00"), 5,
                16,
                "effective:", "impossible date"),
            BadCard(
                "hour 24", edit("2026-08-18T00:00:00+08:00", "2026-08-18T24:00:00+08:00"), 5, 16,
                "effective:", "impossible time"),
            BadCard(
                "an offset of +24:00",
                edit("2026-08-18T00:00:00+08:00", "2026-08-18T00:00:00+24:00"), 5, 16,
                "effective:", "malformed UTC offset"),
        ]
    }()

    /// Variants of the card that RFC 8259 and RFC 3339 allow, and that must load.
    static let accepted: [(String, [UInt8])] = [
        ("a UTF-8 byte-order mark", [0xEF, 0xBB, 0xBF] + Array(osgCardText.utf8)),
        (
            "a leap second",
            Array(
                osgCardText.replacingOccurrences(
                    of: "2026-08-18T00:00:00+08:00", with: "2026-06-30T23:59:60Z"
                ).utf8)
        ),
        (
            "an offset of +14:00",
            Array(osgCardText.replacingOccurrences(of: "+08:00", with: "+14:00").utf8)
        ),
        (
            "an offset of -12:00",
            Array(osgCardText.replacingOccurrences(of: "+08:00", with: "-12:00").utf8)
        ),
    ]
}

@Suite struct BadCardInputTests {
    @Test(arguments: BadCard.all)
    func isReportedAtItsPlace(_ bad: BadCard) {
        let diagnostics = osgDiagnostics(bad.bytes)
        let hit = diagnostics.first { d in
            d.location.line == bad.line && d.location.column == bad.column
                && bad.fragments.allSatisfy { d.message.contains($0) }
        }
        #expect(hit != nil, "\(bad.name): \(diagnostics.map { String($0.rendered.prefix(300)) })")
        for d in diagnostics {
            #expect(d.path == "osg-v10.json")
            #expect(
                d.message.utf8.count < 400,
                "a message short enough to read: \(d.message.prefix(120))…")
        }
    }

    /// The CLI says the same, names the file, and exits 2 (unreadable input), never crashing.
    @Test(arguments: BadCard.all)
    func cliExitsTwo(_ bad: BadCard) throws {
        let (folder, cards) = try cardsFolder(withOSG: bad.bytes)
        defer { folder.cleanup() }
        let place = "osg-v10.json:\(bad.line):\(bad.column): error: "
        for arguments in [["packs", "--cards", cards], ["check", cards]] {
            let r = try runMargin(arguments)
            #expect(r.status == 2, "\(arguments[0]): \(bad.name): \(r.stderr.prefix(500))")
            #expect(
                r.stderr.contains(place), "\(arguments[0]): \(bad.name): \(r.stderr.prefix(500))")
            #expect(
                bad.fragments.allSatisfy { r.stderr.contains($0) }, "\(arguments[0]): \(bad.name)")
            #expect(
                r.stderr.utf8.count < 10_000, "\(arguments[0]): the report of \(bad.name) is short")
        }
    }

    @Test(arguments: BadCard.accepted.map(\.0))
    func allowedVariantLoads(_ name: String) throws {
        let bytes = try #require(BadCard.accepted.first { $0.0 == name }?.1)
        #expect(osgDiagnostics(bytes).isEmpty)
        let (folder, cards) = try cardsFolder(withOSG: bytes)
        defer { folder.cleanup() }
        let r = try runMargin(["packs", "--cards", cards, "osg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("3000tks"))
    }

    @Test func timestampsAtTheEdgesReadAsTheRightInstant() throws {
        #expect(try Timestamp(rfc3339: "2026-06-30T23:59:60Z").rfc3339UTC == "2026-07-01T00:00:00Z")
        #expect(
            try Timestamp(rfc3339: "2026-01-01T00:00:00+14:00").rfc3339UTC == "2025-12-31T10:00:00Z"
        )
        #expect(
            try Timestamp(rfc3339: "2026-01-01T00:00:00-12:00").rfc3339UTC == "2026-01-01T12:00:00Z"
        )
    }

    /// Negative and zero pack sizes load (they are `margin check` findings with a rule, so
    /// CI names them), and pricing them never traps.
    @Test(arguments: ["-500", "0"])
    func negativeOrZeroCreditsAreACheckFinding(_ credits: String) throws {
        let bytes = Array(
            replacingOnce(osgCardText, "\"credits\": 500,", "\"credits\": \(credits),").utf8)
        #expect(osgDiagnostics(bytes).isEmpty)
        let (folder, cards) = try cardsFolder(withOSG: bytes)
        defer { folder.cleanup() }
        let check = try runMargin(["check", cards])
        #expect(check.status == 1, "\(check.stderr)")
        #expect(check.stderr.contains("osg-v10.json:41:"), "\(check.stderr)")
        let packs = try runMargin(["packs", "--cards", cards, "osg"])
        #expect(packs.status == 0 || packs.status == 1, "\(packs.stderr)")
    }
}

/// Every field of the real card, given a value of each other JSON type: the message names
/// the field path and the place of the value.
@Suite struct WrongTypeTests {
    static let representatives: [(kind: String, text: String)] = [
        ("null", "null"), ("a boolean", "true"), ("a number", "7"), ("a string", "\"text\""),
        ("an array", "[]"), ("an object", "{}"),
    ]

    static let root = try! JSONParser.parse(osgCardText)

    /// (field path, replacement) for every field and every other kind of value.
    static let cases: [[String]] = fieldPaths(root).dropFirst().flatMap { path, node in
        representatives.filter { $0.kind != node.value.kindName }.map { [path, $0.text] }
    }

    @Test(arguments: cases)
    func isNamedWithItsPlace(_ row: [String]) throws {
        let (path, replacement) = (row[0], row[1])
        var writer = LocatedJSONWriter(replacing: path, with: replacement)
        writer.write(Self.root)
        let place = try #require(writer.location)
        let diagnostics = osgDiagnostics(writer.text)
        if diagnostics.isEmpty {
            // Decimals may be written as JSON numbers as well as strings.
            #expect(
                replacement == "7" && path.hasSuffix(".amount"),
                "\(path) = \(replacement) was accepted")
            return
        }
        let named = diagnostics.contains { d in
            d.location.line == place.line && d.location.column == place.column
                && (d.message.hasPrefix(path + ":") || d.message.hasPrefix(path + "."))
        }
        #expect(
            named,
            "\(path) = \(replacement) at \(place.line):\(place.column): \(diagnostics.map(\.rendered))"
        )
    }
}
