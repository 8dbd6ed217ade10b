import Testing

@testable import RateCard

@Suite("Takings rejections")
struct TakingsRejectionTests {
    static let good = Takings.line(id: "ok")

    /// Puts `bad` on line 3 of `rejects.jsonl` (after a good line and a blank one) and
    /// returns its one rejection.
    func reject(
        _ bad: String, last: Bool = false, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> TakingsRejection {
        let text = Self.good + "\n\n" + bad + (last ? "" : "\n" + Takings.line(id: "ok2"))
        let report = Takings.balanced(
            try Takings.run(text, name: "rejects.jsonl"), sourceLocation: sourceLocation)
        #expect(report.input.rejected == 1, sourceLocation: sourceLocation)
        #expect(report.input.entries == (last ? 1 : 2), sourceLocation: sourceLocation)
        let r = try #require(report.rejections.first, sourceLocation: sourceLocation)
        #expect(
            r.place.path == "rejects.jsonl" && r.place.line == 3, sourceLocation: sourceLocation)
        #expect(r.diagnostic.rendered.hasPrefix("rejects.jsonl:3:"), sourceLocation: sourceLocation)
        return r
    }

    @Test(
        "malformed JSON",
        arguments: [
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":"f",}"#,
            #"{"id":"a" "at":"2026-11-20T10:00:00Z"}"#,
            #"{'id':'a'}"#,
            #"{"id":"a","id":"b","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1} {"id":"b"}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":01}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1,"x":NaN}"#,
            #"{"id":"a\x","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
            "{\"id\":\"a\u{01}\",\"at\":\"2026-11-20T10:00:00Z\",\"kind\":\"grant\",\"amount\":1}",
            #"{"id":"\ud800","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1,"x":[1,2,]}"#,
            "[]",
            "null",
        ])
    func malformed(_ line: String) throws {
        #expect(try reject(line).reason == .malformedJSON)
    }

    @Test("invalid UTF-8 in a string")
    func invalidUTF8() throws {
        var bytes = Array((Self.good + "\n\n").utf8)
        bytes +=
            Array(#"{"id":"a"#.utf8) + [0xC3, 0x28]
            + Array(#"","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#.utf8)
        let report = try TakingsRun.run(
            inputs: [TakingsInput(name: "rejects.jsonl", bytes: bytes)], options: TakingsOptions(),
            pricing: nil)
        #expect(report.rejections.first?.reason == .malformedJSON)
        #expect(report.rejections.first?.message.contains("UTF-8") == true)
        #expect(report.rejections.first?.place.line == 3)
    }

    @Test("a truncated last line")
    func truncatedLast() throws {
        let r = try reject(#"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"gr"#, last: true)
        #expect(r.reason == .truncated)
        #expect(r.message.contains("truncated last line"))
    }

    @Test("a line cut short in the middle")
    func truncatedMiddle() throws {
        #expect(
            try reject(#"{"id":"a","at":"2026-11-20T10:00:00Z","amount":-1"#).reason == .truncated)
    }

    @Test(
        "a missing required field",
        arguments: [
            (#"{"at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#, "id"),
            (#"{"id":"a","kind":"grant","amount":1}"#, "at"),
            (#"{"id":"a","at":"2026-11-20T10:00:00Z","amount":1}"#, "kind"),
            (#"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant"}"#, "amount"),
            (#"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1}"#, "feature"),
            (
                #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"refund","amount":1,"feature":"f"}"#,
                "refundOf"
            ),
        ])
    func missing(line: String, field: String) throws {
        let r = try reject(line)
        #expect(r.reason == .missingField)
        #expect(r.message.hasPrefix(field + ": missing"))
    }

    @Test(
        "a wrong type",
        arguments: [
            #"{"id":7,"at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
            #"{"id":"a","at":1700000000,"kind":"grant","amount":1}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":true}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":"ten"}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":["f"]}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":"f","quantity":[76]}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":"f","quantity":{"second":"76s"}}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1,"balanceAfter":{}}"#,
        ])
    func wrongType(_ line: String) throws {
        #expect(try reject(line).reason == .wrongType)
    }

    @Test("an amount with a fraction", arguments: ["-1.5", "\"-1.5\"", "-1.0", "-1e3"])
    func fractional(amount: String) throws {
        let r = try reject(Takings.line(id: "a", amount: amount))
        #expect(r.reason == .fractionalAmount)
        #expect(r.message.hasPrefix("amount:"))
    }

    @Test(
        "a number too large for the engine",
        arguments: [
            "-1000000000000000000", "\"-99999999999999999999999999999999999999999\"",
            "-170141183460469231731687303715884105728",
        ])
    func tooLarge(amount: String) throws {
        #expect(try reject(Takings.line(id: "a", amount: amount)).reason == .amountOutOfRange)
    }

    @Test("the largest amount is accepted")
    func largest() throws {
        let report = try Takings.run(Takings.line(id: "a", amount: "-999999999999999999"))
        #expect(report.totals.charged == 999_999_999_999_999_999)
    }

    @Test("a refund of an unknown charge")
    func refundOfUnknown() throws {
        let r = try reject(Takings.refund(id: "r", of: "no-such-charge"))
        #expect(r.reason == .refundOfUnknownCharge)
        #expect(r.message.contains("no-such-charge"))
    }

    @Test("a refund that names a grant, not a charge")
    func refundOfGrant() throws {
        let text =
            #"{"id":"g","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"# + "\n\n"
            + Takings.refund(id: "r", of: "g")
        let report = Takings.balanced(try Takings.run(text, name: "rejects.jsonl"))
        #expect(report.rejections.first?.reason == .refundOfUnknownCharge)
        #expect(report.rejections.first?.place.line == 3)
    }

    @Test("an unknown kind")
    func unknownKind() throws {
        let r = try reject(Takings.line(id: "a", kind: "spend"))
        #expect(r.reason == .unknownKind)
        #expect(r.message.contains("\"spend\""))
    }

    @Test(
        "a charge that is not negative, or another kind that is not positive",
        arguments: [
            Takings.line(id: "a", amount: "30000"),
            Takings.line(id: "a", amount: "0"),
            Takings.line(id: "a", kind: "grant", amount: "-5", feature: nil),
            Takings.line(id: "a", kind: "topup", amount: "0", feature: nil),
        ])
    func wrongSign(_ line: String) throws {
        #expect(try reject(line).reason == .wrongSign)
    }

    @Test(
        "a bad timestamp",
        arguments: [
            "2026-11-20", "2026-11-20T10:00:00", "2026-02-30T10:00:00Z", "2026-11-20T24:00:00Z",
            "2026-11-20T10:00:00+0800",
            "2026-11-20T10:00:00Z ", "0000-01-01T00:00:00Z", "2026-11-20T10:00:00.Z",
        ])
    func badTimestamp(at: String) throws {
        let r = try reject(Takings.line(id: "a", at: at))
        #expect(r.reason == .badTimestamp)
        #expect(r.message.hasPrefix("at:"))
    }

    @Test(
        "timestamps the strict parser accepts are accepted here too",
        arguments: [
            "2026-11-20T10:00:00Z", "2026-11-20t10:00:00z", "2026-11-20 10:00:00+08:00",
            "2026-12-31T23:59:60Z",
            "2026-11-20T10:00:00.123456789-05:30", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        ])
    func goodTimestamp(at: String) throws {
        let report = try Takings.run(Takings.line(id: "a", at: at))
        #expect(report.input.rejected == 0)
        #expect(report.input.entries == 1)
    }

    @Test(
        "bad values: empty id, negative quantity, exponent in a string quantity, a JSON number beyond a double's 15 digits",
        arguments: [
            Takings.line(id: ""),
            Takings.line(id: "a", extra: #","quantity":{"second":-1}"#),
            Takings.line(id: "a", extra: #","quantity":{"second":"1e3"}"#),
            Takings.line(id: "a", extra: #","quantity":{"second":0.10000000000000001}"#),
        ])
    func badValue(_ line: String) throws {
        #expect(try reject(line).reason == .badValue)
    }

    @Test(
        "money on a charge, or a top-up price that is not money: the entry is kept, the price ignored with a warning",
        arguments: [
            Takings.line(id: "a", extra: #","price":"GBP 1.00""#),
            #"{"id":"t","at":"2026-11-20T10:00:00Z","kind":"topup","amount":1,"price":"5 GBP"}"#,
        ])
    func ignoredPrice(_ line: String) throws {
        let report = Takings.balanced(try Takings.run(line))
        #expect(report.input.rejected == 0 && report.input.entries == 1)
        #expect(report.warnings.map(\.rule?.id) == ["ignored-field"])
    }

    @Test("the first 20 rejections are kept in input order; all are counted")
    func firstTwenty() throws {
        let lines = (0..<57).map { "{\"id\":\"x\($0)\"" }
        let report = Takings.balanced(
            try Takings.run(
                [("many.jsonl", lines.joined(separator: "\n"))], threads: 2, chunkBytes: 4096))
        #expect(report.input.rejected == 57)
        #expect(report.rejections.map(\.place.line) == Array(1...20))
    }
}
