import Foundation
import Testing

@testable import RateCard

/// Regressions of issue 10's P&L cases 6, 7, 8, 11, 12, 13 and 16, through the library and
/// through the built `margin pnl`.
@Suite("Takings: figures finance can sign", .serialized)
struct TakingsTrustTests {
    static let osg: CardTakingsPricing = {
        let repository = try! CardRepository.load(paths: [repositoryCards])
        return CardTakingsPricing(
            family: "osg", repository: repository, currency: Currency(code: "CNY")!)
    }()

    static func pnl(_ text: String, _ extra: [String], name: String = "t.jsonl") throws -> CLIResult
    {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(name, text)
        return try runMargin(
            ["pnl", dir.path + "/" + name, "--cards", repositoryCards]
                + (extra.contains("--card") ? [] : ["--card", "osg"]) + extra)
    }

    // MARK: 6. Periods at the ends of the range

    @Test(
        "a series at the ends of the range never traps: the last month runs to the end, an unnamable period is an error",
        arguments: [
            ("9999-12-31T12:00:00Z", TakingsSeries.Period.month, "Z", "9999-12", false),
            ("9999-12-31T23:59:59Z", .day, "Z", "9999-12-31", false),
            ("9999-12-31T23:59:59Z", .week, "Z", "9999-W52", false),
            ("0001-01-01T00:00:00Z", .week, "-12:00", nil, true),
            ("0001-01-01T00:00:00Z", .day, "+14:00", "0001-01-01", false),
            ("9999-12-31T23:59:59Z", .day, "+14:00", nil, true),
            ("9999-12-31T23:59:59Z", .month, "-12:00", "9999-12", false),
        ] as [(String, TakingsSeries.Period, String, String?, Bool)])
    func seriesAtTheEnds(
        at: String, by: TakingsSeries.Period, tz: String, label: String?, outside: Bool
    ) throws {
        let series = TakingsSeries(period: by, offsetMinutes: try TakingsSeries.offset(tz))
        let report = Takings.balanced(
            try Takings.run([("t.jsonl", Takings.line(id: "c", at: at))], series: series))
        #expect(report.totals.charges == 1)
        #expect(report.periods.map(\.label) == (label.map { [$0] } ?? []))
        #expect(report.errors.contains { $0.rule?.id == "series-range" } == outside)
        // The binary: exit 1 only for the period that cannot be named.
        let r = try Self.pnl(
            Takings.line(id: "c", at: at),
            ["--window", "all", "--by", by.rawValue, "--tz", tz, "--format", "json"])
        #expect(r.status == (outside ? 1 : 0), "\(r.stderr)")
        #expect(r.stderr.contains("[series-range]") == outside)
        #expect(!r.stdout.contains("10000-"))
    }

    @Test(
        "every offset and length: the first and last labelled periods read back from their labels")
    func labelledRange() throws {
        for length in CalendarPeriodLength.allCases {
            for offset in [-(23 * 60 + 59), -12 * 60, -1, 0, 1, 14 * 60, 23 * 60 + 59] {
                let series = TakingsSeries(period: length, offsetMinutes: offset)
                for number in [series.labelled.lowerBound, series.labelled.upperBound] {
                    let period = series.calendarPeriod(number)
                    let label = try #require(period.label, "\(length) at \(offset)")
                    #expect(CalendarPeriod(label: label, offsetMinutes: offset)?.number == number)
                }
                // One step beyond either end has no label.
                #expect(
                    series.calendarPeriod(series.labelled.lowerBound - (length == .week ? 7 : 1))
                        .label == nil)
                #expect(
                    series.calendarPeriod(series.labelled.upperBound + (length == .week ? 7 : 1))
                        .label == nil)
            }
        }
    }

    @Test(
        "roll-up periods at the ends of the range: read, or rejected with a reason",
        arguments: [
            ("9999-12", "Z", true), ("9999-12-31", "Z", true), ("9999-W52", "+14:00", true),
            ("0001-01", "Z", true), ("0001-01-01", "+14:00", false), ("0001-W01", "+00:01", false),
        ])
    func rollupsAtTheEnds(period: String, tz: String, read: Bool) throws {
        let line =
            #"{"rollup": {"period": "\#(period)", "tz": "\#(tz)", "feature": "asr", "charges": 1, "charged": 10}}"#
        for series in [
            nil, TakingsSeries(period: .month), TakingsSeries(period: .week, offsetMinutes: -720),
        ] {
            let report = Takings.balanced(try Takings.run([("r.jsonl", line)], series: series))
            #expect(report.input.rejected == (read ? 0 : 1))
            if !read { #expect(report.rejections.first?.reason == .badTimestamp) }
        }
        let r = try Self.pnl(line, ["--window", "all", "--by", "month"], name: "r.jsonl")
        #expect(r.status == 0)
        #expect(r.stderr.contains("[bad-timestamp]") == !read)
    }

    // MARK: 7. One timestamp rule

    static let edgeInstants = [
        "9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59Z",
        "9999-12-31T23:59:60Z",
        "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01",
        "9999-12-31T10:00:00-13:59",
        "9999-12-31T10:00:00-14:00", "9999-12-31T23:59:59.999999999Z", "2026-11-29T10:00:00+23:59",
        "2026-11-29T10:00:00+24:00",
        "2026-02-29T10:00:00Z", "2024-02-29T10:00:00Z", "2026-11-29t10:00:00z",
        "2026-11-29 10:00:00Z", "2026-11-29T10:00:00",
        "2026-11-29T10:00:00.Z", "2026-11-29T10:00:00+08:00x", "0000-12-31T23:59:59Z", "2026-11-29",
    ]

    @Test("Timestamp and the takings scanner accept exactly the same instants, with the same value")
    func oneTimestampRule() throws {
        var texts = Self.edgeInstants
        var rng = SplitMix64(seed: 7)
        // Generated instants around the ends of the range and the offsets' limits.
        for _ in 0..<400 {
            let year = [1, 2, 1970, 9998, 9999, 0][Int(rng.next() % 6)]
            let month = Int(rng.next() % 13)
            let day = Int(rng.next() % 32)
            let hour = Int(rng.next() % 25)
            let offsetHour = Int(rng.next() % 25)
            let offsetMinute = [0, 1, 30, 59, 60][Int(rng.next() % 5)]
            func p(_ v: Int, _ n: Int = 2) -> String {
                String(repeating: "0", count: max(0, n - String(v).count)) + String(v)
            }
            let sign = rng.next() % 2 == 0 ? "+" : "-"
            texts.append(
                "\(p(year, 4))-\(p(month))-\(p(day))T\(p(hour)):59:59\(sign)\(p(offsetHour)):\(p(offsetMinute))"
            )
        }
        for text in texts {
            let direct = try? Timestamp(rfc3339: text)
            let report = try Takings.run(Takings.line(id: "a", at: text))
            #expect((report.input.entries == 1) == (direct != nil), "\(text)")
            if direct == nil {
                #expect(report.rejections.first?.reason == .badTimestamp, "\(text)")
                continue
            }
            // The scanner's instant is the one Timestamp read: a window of exactly it holds it.
            let d = try #require(direct)
            let from = TakingsWindow(
                since: d, until: Timestamp(seconds: d.seconds + 1, nanoseconds: d.nanoseconds))
            let before = TakingsWindow(since: nil, until: d)
            #expect(
                try Takings.run(Takings.line(id: "a", at: text), window: from).input.inWindow == 1,
                "\(text)")
            #expect(
                try Takings.run(Takings.line(id: "a", at: text), window: before).input.inWindow
                    == 0, "\(text)")
        }
    }

    @Test(
        "out-of-range instants are rejected in entries and refused as options",
        arguments: ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"])
    func outOfRange(text: String) throws {
        #expect(throws: TimestampError.outOfRange) { try Timestamp(rfc3339: text) }
        let report = try Takings.run(Takings.line(id: "a", at: text))
        #expect(report.input.rejectedByClass == [.badTimestamp: 1])
        #expect(report.rejections.first?.message.contains("outside the years 0001 to 9999") == true)
        let r = try Self.pnl(
            Takings.line(id: "a", at: text), ["--window", "all", "--by", "day", "--strict"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("[bad-timestamp]"))
        #expect(!r.stdout.contains("10000-"))
        let option = try Self.pnl(Takings.line(id: "a"), ["--since", text])
        #expect(option.status == 2)
    }

    @Test(
        "one UTC-offset rule for timestamps, --tz, roll-up tz and card schedules",
        arguments: [
            ("Z", 0), ("+00:00", 0), ("-00:00", 0), ("+14:00", 840), ("-12:00", -720),
            ("+23:59", 1439), ("-23:59", -1439),
            ("+24:00", nil), ("+08:60", nil), ("+8:00", nil), ("08:00", nil), ("+08:00 ", nil),
            ("", nil),
        ] as [(String, Int?)])
    func oneOffsetRule(text: String, minutes: Int?) throws {
        #expect(UTCOffset.parse(text) == minutes)
        #expect((try? TakingsSeries.offset(text)) == minutes)
        #expect(CardFileLoader.parseOffset(text) == minutes)
        #expect((try? Timestamp(rfc3339: "2026-11-29T10:00:00" + text))?.offsetMinutes == minutes)
    }

    // MARK: 8. Impossible ledgers

    @Test(
        "a roll-up that gives back more than it charged, or declines more than it charges, is rejected",
        arguments: [
            #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 2, "charged": 10, "declines": 1, "givenBack": 11}}"#,
            #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 2, "charged": 10, "declines": 3, "givenBack": 5}}"#,
        ])
    func impossibleRollups(line: String) throws {
        let report = Takings.balanced(try Takings.run([("r.jsonl", line)]))
        #expect(report.input.rejectedByClass == [.impossibleRollup: 1])
        #expect(report.rows.isEmpty)
        #expect(report.belowTheLine.outstanding == 0)
        let csv = "period,feature,charges,charged,declines,givenBack\n2026-11,asr,2,10,3,11\n"
        #expect(try Takings.run([("r.csv", csv)]).input.rejectedByClass == [.impossibleRollup: 1])
        let r = try Self.pnl(line, ["--window", "all", "--strict"], name: "r.jsonl")
        #expect(r.status == 1)
        // At the column of the field that cannot be (declines, else givenBack).
        let field = line.contains(#""declines": 3"#) ? "declines" : "givenBack"
        let key = try #require(line.range(of: "\"\(field)\": "))
        let column = line.utf8.distance(from: line.startIndex, to: key.upperBound) + 1
        #expect(
            r.stderr.contains("r.jsonl:1:\(column): error: \(field):")
                && r.stderr.contains("[impossible-rollup]"), "\(r.stderr)")
    }

    @Test(
        "the binary: a refund larger than its charge and a second refund are rejected with their place"
    )
    func impossibleRefundsThroughTheBinary() throws {
        let text =
            [
                Takings.line(id: "c1", amount: "-30000"),
                Takings.refund(id: "r1", of: "c1", amount: "30001"),
                Takings.line(id: "c2", amount: "-30000"), Takings.refund(id: "r2", of: "c2"),
                Takings.refund(id: "r3", of: "c2", at: "2026-11-20T12:00:00Z"),
            ]
            .joined(separator: "\n") + "\n"
        let r = try Self.pnl(text, ["--window", "all", "--format", "json"])
        #expect(
            r.stderr.contains("t.jsonl:2:1: error:") && r.stderr.contains("[refund-exceeds-charge]")
        )
        #expect(r.stderr.contains("t.jsonl:5:1: error:") && r.stderr.contains("[refunded-twice]"))
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let features) = root["features"]?.value else {
            Issue.record("features")
            return
        }
        let transcript = try #require(
            features.first { $0["feature"]?.value == .string("transcript") })
        #expect(transcript["givenBack"]?.value == .string("30000"))
        #expect(transcript["declines"]?.value == .string("1"))
    }

    // MARK: 11, 12. The charge audit and metered charges without a quantity

    /// asr is 1 credit per started 3 s; llm 1 per 1,000 input and 1 per 400 output tokens.
    static let audited = [
        #"{"id":"ok","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-3000,"feature":"asr","quantity":{"second":9000}}"#,
        #"{"id":"under","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":"asr","quantity":{"second":9000}}"#,
        #"{"id":"over","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-5,"feature":"llm","quantity":{"inputTokens":1200,"outputTokens":300}}"#,
        #"{"id":"none","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-7,"feature":"asr"}"#,
    ]

    @Test(
        "every charge is compared with the card in force: mismatches counted with credits over and under, charges without a quantity counted"
    )
    func chargeAudit() throws {
        let report = Takings.balanced(
            try Takings.run([("a.jsonl", Self.audited.joined(separator: "\n"))], pricing: Self.osg))
        let audit = try #require(report.chargeAudit)
        let asr = try #require(audit.features.first { $0.feature == "asr" })
        #expect(
            asr.checked == 2 && asr.mismatches == 1 && asr.underCharged == 2999
                && asr.overCharged == 0)
        #expect(asr.missingQuantity == 1 && asr.costIncomplete && asr.unchecked == 0)
        #expect(asr.findings.map(\.place.line) == [2, 4])
        #expect(asr.findings.first?.expected == 3000)
        let llm = try #require(audit.features.first { $0.feature == "llm" })
        #expect(llm.mismatches == 1 && llm.overCharged == 2)
        #expect(
            report.warnings.contains {
                $0.rule?.id == "charge-audit" && $0.rendered.hasPrefix("a.jsonl:2:1: warning:")
            })
        #expect(
            report.warnings.contains {
                $0.rule?.id == "missing-quantity" && $0.message.contains("cost is incomplete")
            })
        #expect(report.errors.isEmpty)
        let strict = try Takings.run(
            [("a.jsonl", Self.audited.joined(separator: "\n"))], strict: true, pricing: Self.osg)
        #expect(
            strict.errors.contains { $0.rule?.id == "charge-audit" }
                && strict.errors.contains { $0.rule?.id == "missing-quantity" })
        #expect(strict.hasFindings(strict: true))
    }

    @Test(
        "per-use features: no quantity is one use; a quantity in a dimension the card does not charge cannot be checked"
    )
    func perUseAndUnchecked() throws {
        let repository = try CardRepository.load(paths: [repositoryCards])
        let voice = CardTakingsPricing(
            family: "voice-debrief", repository: repository, currency: Currency(code: "GBP")!)
        let text = [
            #"{"id":"d","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-50000,"feature":"debrief"}"#,
            #"{"id":"t","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-90000,"feature":"transcript","quantity":{"second":"121.5"}}"#,
            #"{"id":"p","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-10000,"feature":"pushVault","quantity":{"object":7}}"#,
            #"{"id":"n","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-30000,"feature":"transcript"}"#,
        ].joined(separator: "\n")
        let audit = try #require(try Takings.run([("v.jsonl", text)], pricing: voice).chargeAudit)
        let debrief = try #require(audit.features.first { $0.feature == "debrief" })
        #expect(debrief.checked == 1 && debrief.mismatches == 0 && debrief.findings.isEmpty)
        // 121.5 s at 3p per started minute: 3 minutes, 90,000 micro-credits.
        let transcript = try #require(audit.features.first { $0.feature == "transcript" })
        #expect(transcript.checked == 1 && transcript.mismatches == 0)
        #expect(transcript.missingQuantity == 1 && !transcript.costIncomplete)
        let push = try #require(audit.features.first { $0.feature == "pushVault" })
        #expect(
            push.unchecked == 1
                && push.findings.first?.message.contains("no dimension \"object\"") == true)
    }

    @Test(
        "correctly priced charges pass silently; only the first findings are listed, all are counted"
    )
    func correctChargesPass() throws {
        let report = try Takings.run([("a.jsonl", Self.audited[0])], pricing: Self.osg)
        #expect(report.warnings.isEmpty && report.errors.isEmpty)
        #expect(report.chargeAudit?.features.first?.checked == 1)
        let many = (0..<25).map {
            #"{"id":"u\#($0)","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-1,"feature":"asr","quantity":{"second":9000}}"#
        }
        let audit = try #require(
            try Takings.run([("m.jsonl", many.joined(separator: "\n"))], pricing: Self.osg)
                .chargeAudit)
        #expect(audit.mismatches == 25)
        #expect(audit.features.first?.findings.count == ChargeAudit.shown)
        #expect(audit.features.first?.findings.map(\.place.line) == Array(1...ChargeAudit.shown))
    }

    @Test(
        "the binary: the audit warns, --strict makes it exit 1, JSON carries the counts and credits"
    )
    func chargeAuditThroughTheBinary() throws {
        let text = Self.audited.joined(separator: "\n") + "\n"
        let r = try Self.pnl(text, ["--card", "osg", "--window", "all", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "t.jsonl:2:1: warning: asr charge: charged 1 credits, the card charges 3000 for its quantity [charge-audit]"
            ))
        #expect(r.stderr.contains("[missing-quantity]"))
        let root = try JSONParser.parse(r.stdout)
        #expect(root["chargeAudit"]?["mismatches"]?.value == .string("2"))
        #expect(root["chargeAudit"]?["missingQuantity"]?.value == .string("1"))
        let table = try Self.pnl(text, ["--card", "osg", "--window", "all"])
        #expect(table.stdout.contains("metered cost incomplete (charges without a quantity): asr"))
        let strict = try Self.pnl(text, ["--card", "osg", "--window", "all", "--strict"])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("error: asr charge: charged 1 credits"))
    }

    // MARK: 13. Detection never loses entries

    @Test(
        "a JSON Lines file whose first entry has an entries field: detection stops and asks; forced, every entry is read"
    )
    func misdetectedInput() throws {
        let text =
            [Takings.line(id: "a", extra: #","entries":[]"#), Takings.line(id: "b")].joined(
                separator: "\n") + "\n"
        #expect(throws: TakingsInputError.self) { try Takings.run(text) }
        let one = Takings.line(id: "a", extra: #","entries":[]"#)
        #expect(throws: TakingsInputError.self) { try Takings.run(one) }
        #expect(try Takings.run(text, format: .jsonLines).input.entries == 2)
        // A real one-line ledger document is still one.
        let document =
            #"{"device":"d","entries":[\#(Takings.line(id: "a")),\#(Takings.line(id: "b"))]}"#
        #expect(try Takings.run(document).input.entries == 2)
        let r = try Self.pnl(text, ["--window", "all"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--input-format ledger or --input-format jsonl"))
        let forced = try Self.pnl(
            text, ["--window", "all", "--input-format", "jsonl", "--format", "json"])
        #expect(forced.status == 0)
        #expect(try JSONParser.parse(forced.stdout)["input"]?["entries"]?.value == .number("2"))
    }

    // MARK: 16. Top-ups keep their credits

    @Test(
        "a bad price is ignored with a warning and the top-up kept in the balance",
        arguments: ["USD 2.999", "USD", "2.99 USD", "XYZ 1.00", "GBP -1.00"])
    func topupPrice(price: String) throws {
        let text =
            #"{"id":"t","at":"2026-11-02T00:00:00Z","kind":"topup","amount":5000,"price":"\#(price)"}"#
        let report = Takings.balanced(try Takings.run(text))
        #expect(report.input.rejected == 0)
        #expect(report.belowTheLine.outstanding == 5000 && report.belowTheLine.toppedUp == 5000)
        #expect(report.belowTheLine.topupMoney.isEmpty)
        #expect(
            report.warnings.contains {
                $0.rule?.id == "ignored-field"
                    && $0.rendered.hasPrefix("t.jsonl:1:1: warning: price:")
            })
        let r = try Self.pnl(text, ["--window", "all", "--format", "json"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("[ignored-field]"))
        #expect(
            try JSONParser.parse(r.stdout)["belowTheLine"]?["outstanding"]?.value == .string("5000")
        )
        #expect(try Self.pnl(text, ["--window", "all", "--strict"]).status == 1)
    }

    @Test("a good price is money; a price on a grant is ignored, the grant kept")
    func goodPrice() throws {
        let text = [
            #"{"id":"t","at":"2026-11-02T00:00:00Z","kind":"topup","amount":5000,"price":"JPY 600"}"#,
            #"{"id":"g","at":"2026-11-02T00:00:00Z","kind":"grant","amount":100,"price":"GBP 1.00"}"#,
        ].joined(separator: "\n")
        let report = Takings.balanced(try Takings.run(text))
        #expect(report.belowTheLine.topupMoney == [Money(Exact(600), Currency(code: "JPY")!)])
        #expect(report.belowTheLine.outstanding == 5100)
        #expect(report.warnings.map(\.rule?.id) == ["ignored-field"])
    }

    @Test(
        "a price text read again gives the same answer: money on each top-up, ignored on a grant, past the parser's cache too"
    )
    func repeatedPrices() throws {
        // The same text on top-ups and on a grant (read once per kind), and more distinct
        // texts than `PriceCache.limit`, so that some are read afresh every time.
        var lines: [String] = []
        var expected = Exact.zero
        for k in 0..<(PriceCache.limit + 8) {
            for copy in 0..<3 {
                let price = "GBP \(k).50"
                lines.append(
                    #"{"id":"t\#(k)-\#(copy)","at":"2026-11-02T00:00:00Z","kind":"topup","amount":10,"price":"\#(price)"}"#
                )
                expected = try expected.adding(Exact(decimal: "\(k).50"))
            }
        }
        lines.append(
            #"{"id":"g","at":"2026-11-02T00:00:00Z","kind":"grant","amount":1,"price":"GBP 0.50"}"#)
        lines.append(
            #"{"id":"b","at":"2026-11-02T00:00:00Z","kind":"topup","amount":1,"price":"GBP 0.505"}"#
        )
        lines.append(
            #"{"id":"b2","at":"2026-11-02T00:00:00Z","kind":"topup","amount":1,"price":"GBP 0.505"}"#
        )
        let text = lines.joined(separator: "\n")
        for threads in [1, 2] {
            let report = Takings.balanced(
                try Takings.run([("t.jsonl", text)], threads: threads, chunkBytes: 512))
            #expect(report.input.entries == lines.count && report.input.rejected == 0)
            let gbp = try #require(Currency(code: "GBP"))
            #expect(report.belowTheLine.topupMoney == [Money(expected, gbp)])
            #expect(report.belowTheLine.outstanding == Int128(10 * 3 * (PriceCache.limit + 8) + 3))
            let ignored = report.warnings.filter { $0.rule?.id == "ignored-field" }
            #expect(ignored.count == 3, "the grant's price and both bad top-up prices")
            #expect(ignored.contains { $0.message.contains("only a top-up records money") })
            #expect(ignored.filter { $0.message.contains("is not money") }.count == 2)
        }
    }
}
