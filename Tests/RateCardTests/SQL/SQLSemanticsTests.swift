import Foundation
import Testing

@testable import RateCard

/// Issue 24 case 17: one definition of a quantity member, of content and of the charge
/// audit, which `margin pnl` and the query of `--sql` both follow (docs/takings.md,
/// docs/sql.md). margin's side through the library and the built binary; the query's side
/// by what each dialect's text must hold (the engines themselves run in
/// `scripts/sql-differential` and `scripts/sql-equality`).
@Suite("SQL: one definition on both sides", .serialized)
struct SQLSemanticsTests {
    static let osg = TakingsTrustTests.osg

    static func charge(_ id: String, _ quantity: String, amount: String = "-334") -> String {
        #"{"id":"\#(id)","at":"2026-11-20T10:00:00Z","kind":"charge","amount":\#(amount),"feature":"asr","quantity":\#(quantity)}"#
    }

    // MARK: margin's side

    @Test(
        "quantity members: an exponent in a JSON number, a negative zero and a null member are read; an exponent in a string and more than 15 digits are not",
        arguments: [
            (#"{"second":1e3}"#, true, "1000"),
            (#"{"second":1.5E+2}"#, true, "150"),
            (#"{"second":1000.0}"#, true, "1000"),
            (#"{"second":-0}"#, true, "0"),
            (#"{"second":-0.0}"#, true, "0"),
            (#"{"second":"-0"}"#, true, "0"),
            (#"{"second":null}"#, true, nil),
            (#"{"second":0.0000001}"#, true, "0.0000001"),
            (#"{"second":12345678901234567}"#, true, "12345678901234567"),
            (#"{"second":"1e3"}"#, false, nil),
            (#"{"second":0.10000000000000001}"#, false, nil),
            (#"{"second":-1}"#, false, nil),
            (#"{"second":"07"}"#, false, nil),
        ] as [(String, Bool, String?)])
    func quantityMembers(quantity: String, accepted: Bool, value: String?) throws {
        let line = Self.charge("c", quantity)
        let report = try Takings.run([("q.jsonl", line + "\n")], pricing: Self.osg)
        #expect(report.input.rejected == (accepted ? 0 : 1), "\(report.rejections)")
        if accepted {
            // The same charge written with the decimal prices the same.
            let plain = try Takings.run(
                [("p.jsonl", Self.charge("c", value.map { #"{"second":\#($0)}"# } ?? "{}") + "\n")],
                pricing: Self.osg)
            #expect(Takings.row(report, "asr")?.cost == Takings.row(plain, "asr")?.cost)
        } else {
            #expect(
                report.rejections.first?.reason == .badValue
                    || report.rejections.first?.reason == .wrongType)
        }
        let r = try TakingsTrustTests.pnl(
            line + "\n", ["--format", "json", "--credit-value", "CNY 0.01"], name: "q.jsonl")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains("\"rejected\": \"\(accepted ? 0 : 1)\"")
                || r.stdout.contains("\"rejected\": \(accepted ? 0 : 1)"), "\(r.stdout.prefix(400))"
        )
    }

    @Test("a null required field is a missing one, as the engines read it")
    func nullRequiredIsMissing() throws {
        for field in ["id", "at", "kind", "amount"] {
            var parts = [
                "\"id\":\"a\"", "\"at\":\"2026-11-20T10:00:00Z\"", "\"kind\":\"grant\"",
                "\"amount\":5",
            ]
            parts = parts.map { $0.hasPrefix("\"\(field)\":") ? "\"\(field)\":null" : $0 }
            let report = try Takings.run("{" + parts.joined(separator: ",") + "}\n")
            #expect(report.rejections.first?.reason == .missingField, "\(field)")
        }
    }

    @Test("an empty note, device or reason is an absent one: copies are one entry, not a conflict")
    func emptyTextIsAbsent() throws {
        let text = [
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1,"note":""}"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
            #"{"id":"b","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1,"device":"","reason":""}"#,
            #"{"id":"b","at":"2026-11-20T10:00:00Z","kind":"grant","amount":1}"#,
        ].joined(separator: "\n")
        let report = Takings.balanced(try Takings.run(text + "\n"))
        #expect(report.input.duplicates == 2 && report.input.rejected == 0)
        let r = try TakingsTrustTests.pnl(text + "\n", ["--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test("feature keys are bytes: NFC and NFD are two rows, in byte order")
    func featureKeysAreBytes() throws {
        let nfc = "caf\u{e9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd, "Swift compares them equal; margin must not")
        let text = [nfc, nfd, nfc].enumerated().map { i, f in
            Takings.line(id: "c\(i)", feature: f)
        }.joined(separator: "\n")
        let report = try Takings.run(text + "\n")
        let keys = report.rows.map { Array($0.feature.utf8) }
        #expect(keys == [Array(nfd.utf8), Array(nfc.utf8)])
        #expect(report.rows.map(\.charges) == [1, 2])
        // A refund of an NFC charge naming the feature in NFD is of another feature.
        let refund = Takings.refund(id: "r", of: "c0", amount: "30000", feature: nfd)
        let r2 = try Takings.run(text + "\n" + refund + "\n")
        #expect(r2.rejections.first?.reason == .badValue)
        let r = try TakingsTrustTests.pnl(text + "\n", ["--format", "csv"])
        let rows = r.stdout.split(separator: "\n").dropFirst().map {
            Array(String($0).utf8.prefix(while: { $0 != UInt8(ascii: ",") }))
        }
        #expect(rows.contains(Array(nfc.utf8)) && rows.contains(Array(nfd.utf8)))
    }

    // MARK: The query's side

    func query(_ d: SQLDialect, audit: Bool = false, window: Bool = false) throws -> String {
        let args: [String] =
            (d == .postgres ? ["--table", "ledger"] : ["FILE"])
            + [audit ? "--sql-audit" : "--sql", d.rawValue]
            + (window
                ? ["--since", "2026-11-01T00:00:00Z", "--until", "2026-12-01T00:00:00Z"] : [])
        let r = try PnLSQLTests().run(args)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test(arguments: SQLDialect.allCases)
    func theQueryFollowsTheDefinition(dialect d: SQLDialect) throws {
        let q = try query(d)
        // An empty optional text is absent when copies are compared.
        for f in ["note", "device", "reason", "card", "payment_ref", "price"] {
            #expect(q.contains("NULLIF(\(f), '')"), "\(f)")
        }
        // A negative zero is a member; a negative exponent stops the query.
        #expect(q.contains("-0([.]0"))
        #expect(q.contains("[eE]-[0-9]+$"))
        // An empty feature or refundOf is rejected, as margin rejects it.
        #expect(q.contains("(feature IS NULL OR feature <> '')"))
        if d == .clickhouse { #expect(q.contains("'null')"), "a null member is absent") }
    }

    /// A revoke (docs/takings.md): negative, with a `paymentRef` that is not empty; a refund
    /// that names one is `refund-of-unknown-charge`. margin's side, then each dialect's
    /// query: the same rules, and DuckDB's one read carries `payment_ref` into the checks
    /// of an id's only line (without it, every revoke of one line was rejected).
    @Test(arguments: SQLDialect.allCases)
    func aRevokeIsCheckedAsMarginChecksIt(dialect d: SQLDialect) throws {
        let lines = [
            #"{"id":"t","at":"2026-11-20T10:00:00Z","kind":"topup","amount":500,"paymentRef":"p1"}"#,
            #"{"id":"v","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-200,"paymentRef":"p1"}"#,
            #"{"id":"v2","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":200,"paymentRef":"p1"}"#,
            #"{"id":"v3","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-200}"#,
            #"{"id":"v4","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-200,"paymentRef":""}"#,
            #"{"id":"r","at":"2026-11-22T10:00:00Z","kind":"refund","amount":200,"feature":"asr","refundOf":"v"}"#,
        ]
        let report = try Takings.run(lines.joined(separator: "\n") + "\n")
        #expect(report.input.rejected == 4, "\(report.rejections)")
        #expect(
            report.rejections.map(\.reason) == [
                .wrongSign, .missingField, .missingField, .refundOfUnknownCharge,
            ])
        let q = try query(d)
        // DuckDB writes the same rules as equalities (`PnLSQLScaleTests`).
        #expect(
            q.contains(
                d == .duckdb
                    ? "kind = 'grant' OR kind = 'charge' OR kind = 'refund' OR kind = 'topup' OR kind = 'revoke'"
                    : "kind IN ('grant', 'charge', 'refund', 'topup', 'revoke')"))
        #expect(
            q.contains(
                d == .duckdb
                    ? "(amt < 0) = (kind = 'charge' OR kind = 'revoke') AND amt <> 0"
                    : "((kind IN ('charge', 'revoke') AND amt < 0) OR (kind NOT IN ('charge', 'revoke') AND amt > 0))"
            ))
        #expect(q.contains("(kind <> 'revoke' OR NULLIF(payment_ref, '') IS NOT NULL)"))
        // Only a charge can be refunded (`rv` joins charges; the audit names the kind).
        #expect(q.contains("ch.kind = 'charge'"))
        let a = try query(d, audit: true)
        #expect(a.contains("refund_of || ' is a ' || ch_kind || ', not a charge'"))
        if d == .duckdb {
            let text = SQLSchema.types(d).text
            #expect(!q.contains("CAST(NULL AS \(text)) AS \"payment_ref\""))
            #expect(
                q.contains("CAST(NULL AS \(text)) AS \"note\""), "the unchecked columns stay out")
        }
    }

    @Test(arguments: SQLDialect.allCases)
    func theAuditCoversMarginsCharges(dialect d: SQLDialect) throws {
        let a = try query(d, audit: true, window: true)
        // Never a conflicting id in the charge audit (PostgreSQL's MIN mixed its copies).
        #expect(a.contains("WHERE kind = 'charge' AND NOT conflict"))
        // Only charges in the window, of a feature on the version in force.
        let priced = try #require(a.range(of: "priced AS ("))
        let body = a[priced.upperBound...].prefix(4000)
        #expect(body.contains("1793491200"), "the window's start in the charge audit")
        #expect(body.contains("feature IN ('asr', 'llm')") || body.contains("feature IN ("))
        // margin's order of checks: each field's problem before the required fields.
        let bad = try #require(a.range(of: "WHEN id = '' THEN 'bad-value'"))
        let missing = try #require(a.range(of: "WHEN NOT present THEN 'missing-field'"))
        #expect(bad.lowerBound < missing.lowerBound)
    }
}
