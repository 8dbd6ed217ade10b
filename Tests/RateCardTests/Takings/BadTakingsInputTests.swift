import Foundation
import Testing

@testable import RateCard

/// The takings rows of the bad-input corpus: each input format broken one way at a time,
/// read through the library and through `margin pnl` (the built binary, priced by the
/// repository's `osg` card). A bad line is a rejection naming the file and line (exit 0,
/// exit 1 with `--strict`); an input that cannot be read at all is exit 2; nothing traps
/// or hangs.
@Suite struct BadTakingsInputTests {
    enum Expect: Sendable {
        /// A rejection of this class at this line whose message contains the fragment;
        /// `entries` distinct entries used besides.
        case rejected(line: Int, RejectionClass, String, entries: Int)
        /// Read without a rejection: `entries` used, `blank` blank lines.
        case accepted(entries: Int, blank: Int)
        /// The input cannot be read at all (exit 2); the message contains the fragment.
        case unreadable(String)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let bytes: [UInt8]
        let expect: Expect
        var testDescription: String { "\(file): \(name)" }
    }

    // MARK: The inputs

    static let good1 = #"{"id":"g1","at":"2026-11-30T08:00:00+08:00","kind":"grant","amount":1000}"#
    static let good2 =
        #"{"id":"c1","at":"2026-11-30T10:00:00+08:00","kind":"charge","amount":-26,"feature":"asr","quantity":{"second":76}}"#

    /// An entry with `field` written as `value` (JSON text), or without it when nil.
    static func entry(_ changes: [String: String?] = [:], id: String = "b1") -> String {
        var fields: [(String, String)] = [
            ("id", "\"\(id)\""), ("at", "\"2026-11-30T11:00:00+08:00\""), ("kind", "\"charge\""),
            ("amount", "-26"), ("feature", "\"asr\""), ("quantity", #"{"second":76}"#),
        ]
        for (k, v) in changes.sorted(by: { $0.key < $1.key }) {
            if let i = fields.firstIndex(where: { $0.0 == k }) {
                if let v { fields[i].1 = v } else { fields.remove(at: i) }
            } else if let v {
                fields.append((k, v))
            }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// JSON Lines: a good line, `bad` on line 2, a good line.
    static func jsonl(_ bad: [UInt8]) -> [UInt8] {
        Array((good1 + "\n").utf8) + bad + Array(("\n" + good2 + "\n").utf8)
    }

    /// A device ledger document with `bad` as the second entry, on line 5.
    static func ledger(_ bad: [UInt8]) -> [UInt8] {
        Array("{\n  \"device\": \"a1b2\",\n  \"entries\": [\n    \(good1),\n    ".utf8) + bad
            + Array(",\n    \(good2)\n  ]\n}\n".utf8)
    }

    static let csvHeader = "id,at,kind,amount,feature,refundOf,quantity.second"
    static let csvGood = "g1,2026-11-30T08:00:00+08:00,grant,1000,,,"

    /// CSV: the header, a good row, `bad` on line 3, a good row.
    static func csv(_ bad: [UInt8]) -> [UInt8] {
        Array((csvHeader + "\n" + csvGood + "\n").utf8) + bad
            + Array("\nc1,2026-11-30T10:00:00+08:00,charge,-26,asr,,76\n".utf8)
    }

    /// A roll-up row as CSV cells: period, feature, charges, charged.
    static let rollupHeader = "period,tz,feature,charges,charged,declines,givenBack,id"
    static func rollupCSV(_ bad: [UInt8]) -> [UInt8] {
        Array((rollupHeader + "\n2026-11,Z,asr,2,52,1,26,r1\n").utf8) + bad
            + Array("\n2026-11-29,+08:00,llm,1,3,0,0,r2\n".utf8)
    }

    static func rollup(_ members: String) -> String { "{\"rollup\": {\(members)}}" }
    static let goodRollup = rollup(
        #""id":"r1","period":"2026-11","feature":"asr","charges":2,"charged":"52""#)
    static func rollupJSONL(_ bad: [UInt8]) -> [UInt8] {
        Array((goodRollup + "\n").utf8) + bad
            + Array(
                ("\n"
                    + rollup(
                        #""period":"2026-11-29","tz":"+08:00","feature":"llm","charges":1,"charged":3"#
                    ) + "\n").utf8)
    }

    static let megabyte = String(repeating: "x", count: 1 << 20)
    static let megaDigits = "-" + String(repeating: "9", count: 1 << 20)
    static let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    static let deepOpen = String(repeating: "[", count: 10_000)

    static func u(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A bad entry, the same for JSON Lines (line 2) and a ledger document (line 5).
    static let entryCases: [(String, [UInt8], RejectionClass?, String)] = [
        (
            "not UTF-8 in a string",
            u(#"{"id":"b"#) + [0xC3, 0x28]
                + u(#"","at":"2026-11-30T11:00:00Z","kind":"grant","amount":1}"#), .malformedJSON,
            "UTF-8"
        ),
        (
            "not UTF-8 outside a string",
            u(#"{"id":"b1","at":"2026-11-30T11:00:00Z","kind":"grant","amount":1,"#) + [0xFF]
                + u("}"), .malformedJSON, ""
        ),
        ("a 1 MB note is read", u(entry(["note": "\"\(megabyte)\""])), nil, ""),
        ("a 1 MB number", u(entry(["amount": megaDigits])), .amountOutOfRange, "amount"),
        (
            "a 1 MB string where a number goes", u(entry(["amount": "\"\(megabyte)\""])),
            .wrongType, "amount"
        ),
        (
            "nesting 10,000 deep in an unknown field", u(entry(["x": deep])), .malformedJSON,
            "nesting deeper than"
        ),
        (
            "nesting 10,000 deep in quantity", u(entry(["quantity": "{\"second\":\(deep)}"])),
            .malformedJSON, "nesting deeper than"
        ),
        (
            "an amount beyond Int64", u(entry(["amount": "-99999999999999999999"])),
            .amountOutOfRange, "amount"
        ),
        (
            "an amount beyond Int128",
            u(entry(["amount": "\"-999999999999999999999999999999999999999999\""])),
            .amountOutOfRange, "amount"
        ),
        (
            "an amount beyond the engine's 18 digits", u(entry(["amount": "-1000000000000000000"])),
            .amountOutOfRange, "18 digits"
        ),
        (
            "the largest amount is read",
            u(
                entry([
                    "amount": "-999999999999999999", "quantity": #"{"second":2999999999999999997}"#,
                ])), nil, ""
        ),
        (
            "a negative grant",
            u(entry(["kind": "\"grant\"", "amount": "-5", "feature": nil, "quantity": nil])),
            .wrongSign, "a grant is positive"
        ),
        ("a positive charge", u(entry(["amount": "26"])), .wrongSign, "a charge is negative"),
        ("a zero charge", u(entry(["amount": "0"])), .wrongSign, "a charge is negative"),
        (
            "a fractional amount", u(entry(["amount": "-1.5"])), .fractionalAmount,
            "not a whole number"
        ),
        (
            "a fractional amount as a string", u(entry(["amount": "\"-1.5\""])), .fractionalAmount,
            "not a whole number"
        ),
        ("NaN", u(entry(["amount": "NaN"])), .malformedJSON, ""),
        ("NaN as a string", u(entry(["amount": "\"NaN\""])), .wrongType, "amount"),
        ("1e400", u(entry(["amount": "-1e400"])), .fractionalAmount, "amount"),
        (
            // A JSON number may carry an exponent (issue 24): 10^400 is beyond 30 digits.
            "1e400 in a quantity", u(entry(["quantity": #"{"second":1e400}"#])),
            .amountOutOfRange, "quantity"
        ),
        ("a negative quantity", u(entry(["quantity": #"{"second":-1}"#])), .badValue, "negative"),
        (
            "a duplicated key",
            u(
                #"{"id":"b1","at":"2026-11-30T11:00:00Z","kind":"charge","amount":-1,"amount":-2,"feature":"asr"}"#
            ), .malformedJSON, "duplicate key"
        ),
        (
            "a duplicated key in quantity", u(entry(["quantity": #"{"second":1,"second":2}"#])),
            .malformedJSON, "duplicate key"
        ),
        (
            "a timestamp without offset", u(entry(["at": "\"2026-11-30T11:00:00\""])),
            .badTimestamp, "at"
        ),
        ("a date alone", u(entry(["at": "\"2026-11-30\""])), .badTimestamp, "at"),
        ("2026-02-30", u(entry(["at": "\"2026-02-30T11:00:00Z\""])), .badTimestamp, "at"),
        ("hour 24", u(entry(["at": "\"2026-11-30T24:00:00Z\""])), .badTimestamp, "at"),
        ("offset +24:00", u(entry(["at": "\"2026-11-30T11:00:00+24:00\""])), .badTimestamp, "at"),
        ("a leap second is read", u(entry(["at": "\"2016-12-31T23:59:60Z\""])), nil, ""),
        ("offset +14:00 is read", u(entry(["at": "\"2026-11-30T11:00:00+14:00\""])), nil, ""),
        ("offset -12:00 is read", u(entry(["at": "\"2026-11-30T11:00:00-12:00\""])), nil, ""),
    ]

    static let jsonlCases: [Case] = {
        var cases: [Case] = [
            Case(
                name: "empty file", file: "empty.jsonl", bytes: [],
                expect: .accepted(entries: 0, blank: 0)),
            Case(
                name: "only whitespace", file: "blank.jsonl", bytes: u(" \n\t\n\r\n  "),
                expect: .accepted(entries: 0, blank: 4)),
            Case(
                name: "a byte-order mark", file: "bom.jsonl",
                bytes: [0xEF, 0xBB, 0xBF] + u(good1 + "\n" + good2 + "\n"),
                expect: .accepted(entries: 2, blank: 0)),
            Case(
                name: "UTF-16", file: "utf16.jsonl",
                bytes: [0xFF, 0xFE] + u(good1).flatMap { [$0, 0] },
                expect: .unreadable("cannot tell the format")),
            Case(
                name: "a JSON array", file: "array.jsonl", bytes: u("[" + good1 + "]"),
                expect: .unreadable("a JSON array is not a takings export")),
            Case(
                name: "truncated in a string", file: "trunc-string.jsonl",
                bytes: jsonl(u(#"{"id":"b1","at":"2026-11-30T1"#)),
                expect: .rejected(line: 2, .truncated, "", entries: 2)),
            Case(
                name: "truncated in a number", file: "trunc-number.jsonl",
                bytes: jsonl(
                    u(#"{"id":"b1","at":"2026-11-30T11:00:00Z","kind":"charge","amount":-2"#)),
                expect: .rejected(line: 2, .truncated, "", entries: 2)),
            Case(
                name: "the last line truncated in a string", file: "trunc-last.jsonl",
                bytes: u(good1 + "\n" + #"{"id":"b1","at":"2026-11-30T1"#),
                expect: .rejected(line: 2, .truncated, "truncated last line", entries: 1)),
            Case(
                name: "the last line truncated in a number", file: "trunc-last-number.jsonl",
                bytes: u(
                    good1 + "\n"
                        + #"{"id":"b1","at":"2026-11-30T11:00:00Z","kind":"grant","amount":2"#),
                expect: .rejected(line: 2, .truncated, "truncated last line", entries: 1)),
            Case(
                name: "a 1 MB line of garbage", file: "mb-garbage.jsonl",
                bytes: jsonl(u("{" + megabyte)),
                expect: .rejected(line: 2, .malformedJSON, "", entries: 2)),
            Case(
                name: "nesting 10,000 deep, never closed", file: "deep-open.jsonl",
                bytes: jsonl(u("{\"x\":" + deepOpen)),
                expect: .rejected(
                    line: 2, .malformedJSON, "nesting deeper than 64 levels", entries: 2)),
            Case(
                name: "an array of 10,000 levels as the line", file: "deep-line.jsonl",
                bytes: jsonl(u(deep)), expect: .rejected(line: 2, .malformedJSON, "", entries: 2)),
        ]
        for (i, (name, bad, cls, fragment)) in entryCases.enumerated() {
            cases.append(
                Case(
                    name: name, file: "entry\(i).jsonl", bytes: jsonl(bad),
                    expect: cls.map { .rejected(line: 2, $0, fragment, entries: 2) }
                        ?? .accepted(entries: 3, blank: 0)))
        }
        return cases
    }()

    static let ledgerCases: [Case] = {
        var cases: [Case] = [
            Case(
                name: "empty file", file: "empty.json", bytes: [],
                expect: .accepted(entries: 0, blank: 0)),
            Case(
                name: "only whitespace", file: "blank.json", bytes: u(" \n\t\n"),
                expect: .accepted(entries: 0, blank: 2)),
            Case(
                name: "a byte-order mark", file: "bom.json",
                bytes: [0xEF, 0xBB, 0xBF] + ledger(u(entry())),
                expect: .accepted(entries: 3, blank: 0)),
            Case(
                name: "truncated in a string", file: "trunc-string.json",
                bytes: u("{\n  \"entries\": [\n    \(good1),\n" + #"    {"id":"b1","at":"2026-11"#),
                expect: .rejected(
                    line: 4, .truncated, "the ledger document is not valid JSON", entries: 0)),
            Case(
                name: "truncated in a number", file: "trunc-number.json",
                bytes: u(
                    "{\n  \"entries\": [\n    \(good1),\n"
                        + #"    {"id":"b1","at":"2026-11-30T11:00:00Z","kind":"grant","amount":12"#),
                expect: .rejected(
                    line: 4, .truncated, "the ledger document is not valid JSON", entries: 0)),
            Case(
                name: "entries not an array: read as JSON Lines", file: "entries-object.json",
                bytes: u(#"{"device": "a", "entries": {"id": "x"}}"#),
                expect: .rejected(line: 1, .missingField, "id", entries: 0)),
            Case(
                name: "a syntax error in the document", file: "syntax.json",
                bytes: ledger(u(#"{"id":"b1",}"#)),
                expect: .rejected(line: 5, .malformedJSON, "", entries: 0)),
            Case(
                name: "a document nested 10,000 deep", file: "deep.json",
                bytes: u(#"{"entries": "# + deep + "}"),
                expect: .rejected(
                    line: 1, .malformedJSON, "nesting deeper than 256 levels", entries: 0)),
            Case(
                name: "a document nested 10,000 deep, never closed", file: "deep-open.json",
                bytes: u(#"{"entries": "# + deepOpen),
                expect: .rejected(
                    line: 1, .malformedJSON, "nesting deeper than 256 levels", entries: 0)),
            Case(
                name: "a duplicated entries key", file: "dup-entries.json",
                bytes: u("{\n\"entries\": [\(good1)],\n\"entries\": [\(good2)]}"),
                expect: .rejected(line: 3, .malformedJSON, "duplicate", entries: 0)),
        ]
        for (i, (name, bad, cls, fragment)) in entryCases.enumerated() {
            // A syntax error anywhere makes the whole document one rejected line.
            let expect: Expect =
                switch cls {
                case .malformedJSON?:
                    .rejected(
                        line: 5, .malformedJSON, "the ledger document is not valid JSON", entries: 0
                    )
                case let cls?: .rejected(line: 5, cls, fragment, entries: 2)
                case nil: .accepted(entries: 3, blank: 0)
                }
            cases.append(
                Case(name: name, file: "entry\(i).json", bytes: ledger(bad), expect: expect))
        }
        return cases
    }()

    static let csvCases: [Case] = [
        Case(
            name: "empty file", file: "empty.csv", bytes: [],
            expect: .accepted(entries: 0, blank: 0)),
        Case(
            name: "only a header", file: "header.csv", bytes: u(csvHeader + "\n"),
            expect: .accepted(entries: 0, blank: 0)),
        Case(
            name: "a byte-order mark and CRLF", file: "bom.csv",
            bytes: [0xEF, 0xBB, 0xBF] + u(csvHeader + "\r\n" + csvGood + "\r\n"),
            expect: .accepted(entries: 1, blank: 0)),
        // CSV cells are taken as bytes: not UTF-8 is read (and shown with U+FFFD), unlike JSON.
        Case(
            name: "not UTF-8 is read", file: "utf8.csv",
            bytes: csv(u("b") + [0xC3, 0x28] + u(",2026-11-30T11:00:00Z,grant,1,,,")),
            expect: .accepted(entries: 3, blank: 0)),
        Case(
            name: "truncated in a quoted string", file: "trunc-string.csv",
            bytes: u(csvHeader + "\n" + csvGood + "\n" + "b1,\"2026-11-30T1"),
            expect: .rejected(line: 3, .truncated, "unterminated quoted field", entries: 1)),
        Case(
            name: "truncated in a number", file: "trunc-number.csv",
            bytes: u(csvHeader + "\n" + csvGood + "\n" + "b1,2026-11-30T11:00:00Z,grant,12"),
            expect: .rejected(
                line: 3, .malformedJSON, "the row has 4 fields, the header has 7", entries: 1)),
        Case(
            name: "a 1 MB cell", file: "mb.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-26,asr,," + megaDigits.dropFirst())),
            expect: .rejected(line: 3, .amountOutOfRange, "quantity.second", entries: 2)),
        Case(
            name: "a 1 MB number", file: "mb-number.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge," + megaDigits + ",asr,,")),
            expect: .rejected(line: 3, .amountOutOfRange, "amount", entries: 2)),
        Case(
            name: "an amount beyond Int64", file: "int64.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-99999999999999999999,asr,,")),
            expect: .rejected(line: 3, .amountOutOfRange, "amount", entries: 2)),
        Case(
            name: "an amount beyond the engine's 18 digits", file: "engine.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-1000000000000000000,asr,,")),
            expect: .rejected(line: 3, .amountOutOfRange, "18 digits", entries: 2)),
        Case(
            name: "a negative grant", file: "negative.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,grant,-5,,,")),
            expect: .rejected(line: 3, .wrongSign, "a grant is positive", entries: 2)),
        Case(
            name: "a fractional amount", file: "fraction.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-1.5,asr,,")),
            expect: .rejected(line: 3, .fractionalAmount, "not a whole number", entries: 2)),
        Case(
            name: "NaN", file: "nan.csv", bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,NaN,asr,,")),
            expect: .rejected(line: 3, .wrongType, "amount", entries: 2)),
        Case(
            name: "1e400", file: "1e400.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-1e400,asr,,")),
            expect: .rejected(line: 3, .fractionalAmount, "amount", entries: 2)),
        Case(
            name: "a quantity of NaN", file: "nan-quantity.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,charge,-26,asr,,NaN")),
            expect: .rejected(
                line: 3, .wrongType, "quantity.second: \"NaN\" is not a decimal number", entries: 2)
        ),
        Case(
            name: "a duplicated column", file: "dup-column.csv",
            bytes: u("id,at,kind,amount,amount\nb1,2026-11-30T11:00:00Z,grant,1,2\n"),
            expect: .rejected(line: 2, .malformedJSON, "amount", entries: 0)),
        Case(
            name: "a timestamp without offset", file: "no-offset.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00,grant,1,,,")),
            expect: .rejected(line: 3, .badTimestamp, "at", entries: 2)),
        Case(
            name: "2026-02-30", file: "feb30.csv",
            bytes: csv(u("b1,2026-02-30T11:00:00Z,grant,1,,,")),
            expect: .rejected(line: 3, .badTimestamp, "at", entries: 2)),
        Case(
            name: "a leap second is read", file: "leap.csv",
            bytes: csv(u("b1,2016-12-31T23:59:60Z,grant,1,,,")),
            expect: .accepted(entries: 3, blank: 0)),
        Case(
            name: "offsets +14:00 and -12:00 are read", file: "offsets.csv",
            bytes: csv(
                u(
                    "b1,2026-11-30T11:00:00+14:00,grant,1,,,\nb2,2026-11-30T11:00:00-12:00,grant,1,,,"
                )), expect: .accepted(entries: 4, blank: 0)),
        Case(
            name: "an unknown kind", file: "kind.csv",
            bytes: csv(u("b1,2026-11-30T11:00:00Z,spend,-1,asr,,")),
            expect: .rejected(line: 3, .unknownKind, "spend", entries: 2)),
        Case(
            name: "a quote inside an unquoted field", file: "quote.csv",
            bytes: csv(u("b\"1,2026-11-30T11:00:00Z,grant,1,,,")),
            expect: .rejected(line: 3, .malformedJSON, "quote", entries: 2)),
    ]

    static let rollupCases: [Case] = [
        Case(
            name: "roll-up CSV: a bad period", file: "period.csv",
            bytes: rollupCSV(u("2026-02-30,Z,asr,1,1,0,0,x")),
            expect: .rejected(line: 3, .badTimestamp, "period", entries: 2)),
        Case(
            name: "roll-up CSV: week 53 of a year with 52", file: "w53.csv",
            bytes: rollupCSV(u("2025-W53,Z,asr,1,1,0,0,x")),
            expect: .rejected(line: 3, .badTimestamp, "period", entries: 2)),
        Case(
            name: "roll-up CSV: offsets +14:00 and -12:00 are read", file: "tz.csv",
            bytes: rollupCSV(u("2026-11-30,+14:00,asr,1,1,0,0,x\n2026-11-30,-12:00,asr,1,1,0,0,y")),
            expect: .accepted(entries: 4, blank: 0)),
        Case(
            name: "roll-up CSV: a bad offset", file: "tz-bad.csv",
            bytes: rollupCSV(u("2026-11-30,+25:00,asr,1,1,0,0,x")),
            expect: .rejected(line: 3, .badTimestamp, "tz", entries: 2)),
        Case(
            name: "roll-up CSV: a negative count", file: "negative.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,-1,1,0,0,x")),
            expect: .rejected(line: 3, .wrongSign, "charges", entries: 2)),
        Case(
            name: "roll-up CSV: a fractional sum", file: "fraction.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,1,1.5,0,0,x")),
            expect: .rejected(line: 3, .fractionalAmount, "charged", entries: 2)),
        Case(
            name: "roll-up CSV: beyond Int64", file: "int64.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,1,99999999999999999999,0,0,x")),
            expect: .rejected(line: 3, .amountOutOfRange, "charged", entries: 2)),
        Case(
            name: "roll-up CSV: NaN", file: "nan.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,NaN,1,0,0,x")),
            expect: .rejected(line: 3, .wrongType, "charges", entries: 2)),
        Case(
            name: "roll-up CSV: 1e400", file: "1e400.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,1e400,1,0,0,x")),
            expect: .rejected(line: 3, .fractionalAmount, "charges", entries: 2)),
        Case(
            name: "roll-up CSV: takings without a feature", file: "no-feature.csv",
            bytes: rollupCSV(u("2026-11,Z,,1,1,0,0,x")),
            expect: .rejected(line: 3, .missingField, "feature", entries: 2)),
        Case(
            name: "roll-up CSV: a resent row with other sums", file: "conflict.csv",
            bytes: rollupCSV(u("2026-11,Z,asr,3,52,1,26,r1")),
            expect: .rejected(line: 3, .conflictingDuplicate, "conflicting duplicate", entries: 2)),
        Case(
            name: "roll-up CSV: truncated in a quoted string", file: "trunc.csv",
            bytes: u(rollupHeader + "\n\"2026-1"),
            expect: .rejected(line: 2, .truncated, "unterminated", entries: 0)),
        Case(
            name: "roll-up CSV: not UTF-8 is read", file: "utf8.csv",
            bytes: rollupCSV(u("2026-11,Z,a") + [0xFF] + u(",1,1,0,0,x")),
            expect: .accepted(entries: 3, blank: 0)),
        Case(
            name: "roll-up JSON Lines: a 1 MB line", file: "mb.jsonl",
            bytes: rollupJSONL(
                u(rollup("\"period\":\"2026-11\",\"feature\":\"\(megabyte)\",\"charges\":1"))),
            expect: .accepted(entries: 3, blank: 0)),
        Case(
            name: "roll-up JSON Lines: nesting 10,000 deep", file: "deep.jsonl",
            bytes: rollupJSONL(u(rollup("\"period\":\"2026-11\",\"x\":" + deep))),
            expect: .rejected(line: 2, .malformedJSON, "nesting deeper than 256 levels", entries: 2)
        ),
        Case(
            name: "roll-up JSON Lines: a duplicated key", file: "dup.jsonl",
            bytes: rollupJSONL(
                u(rollup(#""period":"2026-11","feature":"asr","charges":1,"charges":2"#))),
            expect: .rejected(line: 2, .malformedJSON, "duplicate", entries: 2)),
        Case(
            name: "roll-up JSON Lines: truncated in a number", file: "trunc.jsonl",
            bytes: rollupJSONL(u(#"{"rollup": {"period":"2026-11","feature":"asr","charges":1"#)),
            expect: .rejected(line: 2, .truncated, "", entries: 2)),
        Case(
            name: "roll-up JSON Lines: truncated last line", file: "trunc-last.jsonl",
            bytes: u(goodRollup + "\n" + #"{"rollup": {"period":"2026-1"#),
            expect: .rejected(line: 2, .truncated, "truncated last line", entries: 1)),
        Case(
            name: "roll-up JSON Lines: NaN", file: "nan.jsonl",
            bytes: rollupJSONL(u(rollup(#""period":"2026-11","feature":"asr","charges":NaN"#))),
            expect: .rejected(line: 2, .malformedJSON, "", entries: 2)),
        Case(
            name: "roll-up JSON Lines: 1e400", file: "1e400.jsonl",
            bytes: rollupJSONL(u(rollup(#""period":"2026-11","feature":"asr","charges":1e400"#))),
            expect: .rejected(line: 2, .fractionalAmount, "charges", entries: 2)),
        Case(
            name: "roll-up JSON Lines: a count as true", file: "bool.jsonl",
            bytes: rollupJSONL(u(rollup(#""period":"2026-11","feature":"asr","charges":true"#))),
            expect: .rejected(line: 2, .wrongType, "rollup.charges", entries: 2)),
        Case(
            name: "roll-up JSON Lines: the period as a number", file: "period-number.jsonl",
            bytes: rollupJSONL(u(rollup(#""period":202611,"feature":"asr","charges":1"#))),
            expect: .rejected(line: 2, .badTimestamp, "period", entries: 2)),
        Case(
            name: "roll-up JSON Lines: rollup not an object", file: "rollup-array.jsonl",
            bytes: rollupJSONL(u(#"{"rollup": [1]}"#)),
            expect: .rejected(line: 2, .wrongType, "rollup", entries: 2)),
        Case(
            name: "roll-up JSON Lines: a 10^12-entry roll-up is read", file: "tera.jsonl",
            bytes: rollupJSONL(
                u(
                    rollup(
                        #""period":"2026-11","feature":"llm","charges":1000000000000,"charged":"3000000000000""#
                    ))), expect: .accepted(entries: 3, blank: 0)),
    ]

    // MARK: Through the library

    static func read(_ c: Case, strict: Bool = false) throws -> TakingsReport {
        let pricing = try osgPricing()
        return try TakingsRun.run(
            inputs: [TakingsInput(name: c.file, bytes: c.bytes)],
            options: TakingsOptions(strict: strict), pricing: pricing)
    }

    static func osgPricing() throws -> CardTakingsPricing {
        let repository = try CardRepository.load(paths: [repositoryCards])
        return CardTakingsPricing(
            family: "osg", repository: repository, currency: Currency(code: "CNY")!)
    }

    func checkLibrary(_ c: Case) throws {
        switch c.expect {
        case .unreadable(let fragment):
            do {
                let report = try Self.read(c)
                Issue.record("read, with \(report.input); expected unreadable: \(fragment)")
            } catch let e as TakingsInputError {
                #expect(e.path == c.file)
                // Compiler style, at the place the reading stopped (issue 24 case 19).
                #expect(e.description.hasPrefix("\(c.file):\(e.line):\(e.column): error: "))
                #expect(fragment.isEmpty || e.message.contains(fragment), "\(e.message)")
            }
        case .accepted(let entries, let blank):
            let report = try Self.read(c)
            #expect(report.input.isBalanced)
            #expect(report.input.rejected == 0, "\(report.rejections.map(\.diagnostic.rendered))")
            #expect(
                report.input.entries == entries && report.input.blank == blank, "\(report.input)")
            #expect(report.errors.isEmpty, "\(report.errors)")
        case .rejected(let line, let cls, let fragment, let entries):
            let report = try Self.read(c)
            #expect(report.input.isBalanced)
            #expect(report.input.entries == entries, "\(report.input)")
            let r = report.rejections.first { $0.place.line == line }
            #expect(
                r?.reason == cls && (fragment.isEmpty || r?.message.contains(fragment) == true),
                "expected \(cls) '\(fragment)' at line \(line); got \(report.rejections.map(\.diagnostic.rendered))"
            )
            if let r {
                #expect(r.diagnostic.rendered.hasPrefix("\(c.file):\(line):"))
                // A message quotes values by their start, never a megabyte of them.
                #expect(r.message.utf8.count < 400, "a message of \(r.message.utf8.count) bytes")
            }
        }
    }

    @Test(arguments: jsonlCases) func jsonLines(_ c: Case) throws { try checkLibrary(c) }
    @Test(arguments: ledgerCases) func ledgerDocument(_ c: Case) throws { try checkLibrary(c) }
    @Test(arguments: csvCases) func csvLedger(_ c: Case) throws { try checkLibrary(c) }
    @Test(arguments: rollupCases) func rollups(_ c: Case) throws { try checkLibrary(c) }

    // MARK: Wrong types in every field

    /// Every field of an entry given each JSON type; what each field accepts.
    static let typeValues = ["true", "7", "-7", "\"x\"", "[]", "{}", "null"]
    static let fields = [
        "id", "at", "kind", "amount", "feature", "refundOf", "reason", "quantity", "device", "note",
        "card", "paymentRef", "balanceAfter", "price",
    ]

    /// nil when the value is accepted in that field, else the class and message fragment.
    static func wrongTypeExpectation(field: String, value: String) -> (RejectionClass, String)? {
        let isString = value.hasPrefix("\"")
        switch field {
        case "id", "kind", "at", "feature":
            // A required field that is null is missing (issue 24), as the engines read it.
            if value == "null" { return (.missingField, field) }
            if !isString { return (.wrongType, field) }
            return field == "at"
                ? (.badTimestamp, "at") : field == "kind" ? (.unknownKind, "kind") : nil
        case "amount":
            if value == "null" { return (.missingField, field) }
            if value == "-7" { return nil }
            if value == "7" { return (.wrongSign, "amount") }
            return (.wrongType, "amount")
        case "balanceAfter":
            if value == "null" || value == "7" || value == "-7" { return nil }
            return (.wrongType, field)
        case "quantity":
            if value == "null" || value == "{}" { return nil }
            return (.wrongType, field)
        case "price":
            if value == "null" { return nil }
            // A string that is not money (or money on a charge) is ignored with a warning, the
            // entry kept (TakingsTrustTests); another type is still the wrong type.
            return isString ? nil : (.wrongType, field)
        default:
            // Optional strings; refundOf on a charge is ignored but must still be a string.
            if value == "null" || isString { return nil }
            return (.wrongType, field)
        }
    }

    /// One file per field: line k + 1 holds the field replaced by the k-th type.
    static let wrongTypeFiles: [(field: String, lines: [String])] = fields.map { field in
        (
            field,
            typeValues.enumerated().map { k, v in
                entry([field: v], id: "w\(k)").replacingOccurrences(
                    of: "\"id\":\"w\(k)\"", with: field == "id" ? "\"id\":\(v)" : "\"id\":\"w\(k)\""
                )
            }
        )
    }

    @Test(arguments: fields)
    func wrongTypes(_ field: String) throws {
        let lines = Self.wrongTypeFiles.first { $0.field == field }!.lines
        let report = try TakingsRun.run(
            inputs: [
                TakingsInput(name: "\(field).jsonl", text: lines.joined(separator: "\n") + "\n")
            ],
            options: TakingsOptions(), pricing: try Self.osgPricing())
        #expect(report.input.isBalanced)
        for (k, value) in Self.typeValues.enumerated() {
            let got = report.rejections.first { $0.place.line == k + 1 }
            if let (cls, fragment) = Self.wrongTypeExpectation(field: field, value: value) {
                #expect(
                    got?.reason == cls
                        && (fragment.isEmpty || got?.message.contains(fragment) == true),
                    "\(field): \(value): expected \(cls) '\(fragment)', got \(got.map(\.diagnostic.rendered) ?? "accepted")"
                )
            } else {
                #expect(
                    got == nil, "\(field): \(value) should be read, got \(got!.diagnostic.rendered)"
                )
            }
        }
    }

    // MARK: Through `margin pnl`

    static func pnl(_ c: Case, strict: Bool) throws -> (CLIResult, String) {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let path = dir.path + "/" + c.file
        try Data(c.bytes).write(to: URL(fileURLWithPath: path))
        let result = try runMargin(
            ["pnl", path, "--cards", repositoryCards, "--card", "osg", "--format", "csv"]
                + (strict ? ["--strict"] : []))
        return (result, path)
    }

    func checkCLI(_ c: Case) throws {
        for strict in [false, true] {
            let (r, path) = try Self.pnl(c, strict: strict)
            #expect(
                !r.stderr.contains("Fatal error") && !r.stderr.contains("Crash") && r.status < 64,
                "crashed: \(r.status) \(r.stderr.prefix(500))")
            #expect(r.stderr.utf8.count < 8_000, "stderr of \(r.stderr.utf8.count) bytes")
            switch c.expect {
            case .unreadable(let fragment):
                #expect(r.status == 2)
                #expect(
                    r.stderr.range(
                        of: "\(path):[0-9]+:[0-9]+: error: ", options: .regularExpression)
                        != nil
                        && (fragment.isEmpty || r.stderr.contains(fragment)), "\(r.stderr)")
            case .accepted:
                // A roll-up of a metered feature has no quantity, so its cost is incomplete:
                // an error under --strict (issue 24 case 13), and only that.
                let onlyRollupCost =
                    strict
                    && r.stderr.split(separator: "\n").allSatisfy {
                        !$0.contains(": error: ") || $0.contains("[missing-quantity]")
                    } && r.stderr.contains("a roll-up of")
                #expect(
                    r.status == 0 || (r.status == 1 && onlyRollupCost), "\(r.stderr.prefix(500))")
                #expect(r.stdout.hasPrefix("feature,"))
            case .rejected(let line, let cls, let fragment, _):
                let expected: Int32 = strict || cls == .conflictingDuplicate ? 1 : 0
                #expect(r.status == expected, "strict \(strict): \(r.stderr.prefix(500))")
                #expect(r.stdout.hasPrefix("feature,"))
                #expect(
                    r.stderr.contains("\(path):\(line):")
                        && (fragment.isEmpty || r.stderr.contains(fragment))
                        && r.stderr.contains("[\(cls.rawValue)]"),
                    "\(r.stderr.prefix(500))")
            }
        }
    }

    @Test(arguments: jsonlCases) func jsonLinesCLI(_ c: Case) throws { try checkCLI(c) }
    @Test(arguments: ledgerCases) func ledgerDocumentCLI(_ c: Case) throws { try checkCLI(c) }
    @Test(arguments: csvCases) func csvLedgerCLI(_ c: Case) throws { try checkCLI(c) }
    @Test(arguments: rollupCases) func rollupsCLI(_ c: Case) throws { try checkCLI(c) }

    @Test func wrongTypesCLI() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for (field, lines) in Self.wrongTypeFiles {
            try dir.write("\(field).jsonl", lines.joined(separator: "\n") + "\n")
            let r = try runMargin([
                "pnl", dir.path + "/\(field).jsonl", "--cards", repositoryCards, "--card", "osg",
                "--format", "csv",
            ])
            let rejected = Self.typeValues.filter {
                Self.wrongTypeExpectation(field: field, value: $0) != nil
            }.count
            #expect(r.status == 0, "\(field): \(r.stderr.prefix(300))")
            for (k, value) in Self.typeValues.enumerated() {
                if let (cls, _) = Self.wrongTypeExpectation(field: field, value: value) {
                    #expect(
                        r.stderr.contains("/\(field).jsonl:\(k + 1):")
                            && r.stderr.contains("[\(cls.rawValue)]"),
                        "\(field) \(value): \(r.stderr)")
                }
            }
            let strict = try runMargin([
                "pnl", dir.path + "/\(field).jsonl", "--cards", repositoryCards, "--card", "osg",
                "--strict", "--format", "csv",
            ])
            #expect(strict.status == (rejected > 0 ? 1 : 0), "\(field) --strict")
        }
    }

    /// Inputs that cannot be read at all: exit 2 with the path and the reason.
    @Test(arguments: [
        ("missing", "no such file"), ("directory", ""), ("text", "cannot tell the format"),
    ])
    func unreadable(_ kind: String, _ fragment: String) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        var path = dir.path + "/missing.jsonl"
        if kind == "directory" { path = dir.path }
        if kind == "text" {
            path = dir.path + "/notes.txt"
            try dir.write("notes.txt", "hello, world\nthis is not an export\n")
        }
        let r = try runMargin(["pnl", path, "--cards", repositoryCards, "--card", "osg"])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains(path)
                && (fragment.isEmpty || r.stderr.lowercased().contains(fragment)), "\(r.stderr)")
    }
}
