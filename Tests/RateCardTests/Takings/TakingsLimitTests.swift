import Testing

@testable import RateCard

/// The takings rows of the Limits table in `docs/takings.md`: what the engine reads
/// exactly, and a clear rejection (never a trap) just beyond.
@Suite struct TakingsLimitTests {
    static func line(_ id: String, kind: String, amount: String, feature: String? = nil) -> String {
        #"{"id":"\#(id)","at":"2026-11-30T10:00:00Z","kind":"\#(kind)","amount":\#(amount)"#
            + (feature.map { #","feature":"\#($0)""# } ?? "") + "}"
    }

    @Test("the largest amount, ±(10^18 − 1), is read and summed exactly; 10^18 is rejected")
    func largestAmount() throws {
        let max = "999999999999999999"
        let lines = [
            Self.line("c1", kind: "charge", amount: "-" + max, feature: "asr"),
            Self.line("c2", kind: "charge", amount: "\"-\(max)\"", feature: "asr"),
            Self.line("g1", kind: "grant", amount: max),
            Self.line("c3", kind: "charge", amount: "-1000000000000000000", feature: "asr"),
        ]
        let report = Takings.balanced(
            try Takings.run(lines.joined(separator: "\n"), name: "max.jsonl"))
        #expect(report.input.entries == 3)
        #expect(Takings.row(report, "asr")?.charged == 2 * Int128(LedgerEntry.maxAmount))
        #expect(report.belowTheLine.outstanding == -Int128(LedgerEntry.maxAmount))
        let r = try #require(report.rejections.first)
        #expect(
            r.reason == .amountOutOfRange && r.place.line == 4
                && r.message.contains("at most 18 digits"))
    }

    @Test("a feature's sum is an Int128: 10^4 charges of 10^18 − 1 sum beyond Int64 exactly")
    func sumBeyondInt64() throws {
        let lines = (0..<10_000).map {
            Self.line("c\($0)", kind: "charge", amount: "-999999999999999999", feature: "asr")
        }
        let report = Takings.balanced(
            try Takings.run(lines.joined(separator: "\n"), name: "big.jsonl"))
        let row = try #require(Takings.row(report, "asr"))
        #expect(row.charged == 10_000 * Int128(LedgerEntry.maxAmount))
        #expect(row.charged > Int128(Int64.max))
        #expect(report.errors.isEmpty)
    }

    @Test("a sum beyond Int128 is reported as an overflow, never a trap")
    func sumBeyondInt128() {
        // The one counting function of entries, refunds and roll-ups.
        var list = [FeatureSums(charged: Int128.max - 5)]
        let fits = FeatureSums.count(into: &list, feature: 0, charges: 1, charged: 5)
        #expect(fits && list[0].charged == .max && list[0].charges == 1)
        let beyond = FeatureSums.count(into: &list, feature: 0, charges: 1, charged: 1)
        #expect(!beyond && list[0].charged == .max && list[0].charges == 1)
        let givenBack = FeatureSums.count(into: &list, feature: 0, declines: 1, givenBack: .max)
        let givenBeyond = FeatureSums.count(into: &list, feature: 0, declines: 1, givenBack: 1)
        #expect(givenBack && !givenBeyond && list[0].declines == 1)
        let grown = FeatureSums.count(into: &list, feature: 2, declines: 1, givenBack: 7)
        #expect(grown && list.count == 3 && list[2].declines == 1 && list[2].givenBack == 7)
        var state = ShardState(rejectionsShown: 0)
        state.outstanding = .max - 5
        let outstandingFits = state.addOutstanding(5)
        let outstandingBeyond = state.addOutstanding(1)
        #expect(outstandingFits && !outstandingBeyond && state.outstanding == .max)
        let granted = state.countBelowTheLine(grants: 1, granted: 10)
        let toppedUp = state.countBelowTheLine(topups: 1, toppedUp: .max)
        let toppedUpBeyond = state.countBelowTheLine(grants: 1, granted: 1, topups: 1, toppedUp: 1)
        #expect(granted && toppedUp && !toppedUpBeyond)
        #expect(state.grants == 1 && state.granted == 10 && state.topups == 1)
        #expect(throws: MoneyError.self) { try checkedAdd(.max, 1) }
    }

    @Test(
        "one number reader: an entry's amount and a roll-up's cells are refused alike",
        arguments: [
            ("\"007\"", "007", RejectionClass.wrongType, "has a leading zero"),
            ("1.5", "1.5", .fractionalAmount, "is not a whole number"),
            ("\"1e3\"", "1e3", .fractionalAmount, "is not a whole number"),
            ("\"x1\"", "x1", .wrongType, "is not a whole number"),
            (
                "\"1000000000000000000\"", "1000000000000000000", .amountOutOfRange,
                "at most 18 digits"
            ),
        ])
    func oneNumberReader(json: String, cell: String, reason: RejectionClass, says: String)
        throws
    {
        let entry = Takings.balanced(
            try Takings.run(
                Takings.line(id: "g1", kind: "grant", amount: json, feature: nil),
                name: "e.jsonl"))
        let rollup = Takings.balanced(
            try Takings.run(
                [("r.csv", "period,feature,charges,charged\n2026-11,asr,1,\(cell)\n")],
                format: .rollupCSV))
        let e = try #require(entry.rejections.first)
        let r = try #require(rollup.rejections.first)
        #expect(e.reason == reason && r.reason == reason)
        #expect(e.message.hasPrefix("amount: ") && r.message.hasPrefix("charged: "))
        #expect(e.message.contains(says) && r.message.contains(says))
        // The same words after the field's name.
        #expect(e.message.dropFirst("amount: ".count) == r.message.dropFirst("charged: ".count))
    }

    @Test("a roll-up of 10^12 charges (and 10^17 in all) is read exactly")
    func teraRollup() throws {
        let rows = (1...100_000).map {
            #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 1000000000000, "charged": "26000000000000", "id": "r\#($0)"}}"#
        }
        let report = Takings.balanced(
            try Takings.run(rows.joined(separator: "\n"), name: "tera.jsonl"))
        #expect(report.input.rejected == 0)
        let row = try #require(Takings.row(report, "asr"))
        #expect(row.charges == 100_000_000_000_000_000)
        #expect(row.charged == 2_600_000_000_000_000_000)
    }

    @Test(
        "roll-ups that count more than 10^18 in all are rejected with a clear message, never a trap",
        arguments: [TakingsFormat.rollupJSONLines, .rollupCSV])
    func rollupCountsBeyondTheLimit(format: TakingsFormat) throws {
        // Each row counts 10^18 − 1 charges and as many grants: the second row is beyond.
        let text =
            format == .rollupCSV
            ? "period,feature,charges,grants\n"
                + String(
                    repeating: "2026-11,asr,999999999999999999,999999999999999999\n", count: 12)
            : String(
                repeating:
                    #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 999999999999999999, "grants": 999999999999999999}}"#
                    + "\n", count: 12)
        let report = Takings.balanced(try Takings.run([("counts", text)], format: format))
        #expect(report.input.rejected == 12)
        let r = try #require(report.rejections.first)
        #expect(r.reason == .amountOutOfRange)
        #expect(r.message.contains("more than 10^18"))
        // One row within the limit is read.
        let one = Takings.balanced(
            try Takings.run(
                [
                    (
                        "one",
                        format == .rollupCSV
                            ? "period,feature,charges\n2026-11,asr,999999999999999999\n"
                            : #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 999999999999999999}}"#
                    )
                ], format: format))
        #expect(Takings.row(one, "asr")?.charges == 999_999_999_999_999_999)
    }

    @Test(
        "through margin pnl: roll-up counts beyond the limit are rejections (exit 0, 1 with --strict)"
    )
    func rollupCountsCLI() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write(
            "counts.jsonl",
            String(
                repeating:
                    #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 999999999999999999, "declines": 999999999999999999}}"#
                    + "\n", count: 3))
        let r = try runMargin([
            "pnl", dir.path + "/counts.jsonl", "--cards", repositoryCards, "--card", "osg",
            "--format", "csv",
        ])
        #expect(r.status == 0)
        #expect(
            r.stderr.contains("/counts.jsonl:1:") && r.stderr.contains("more than 10^18")
                && r.stderr.contains("[amount-out-of-range]"), "\(r.stderr)")
        let strict = try runMargin([
            "pnl", dir.path + "/counts.jsonl", "--cards", repositoryCards, "--card", "osg",
            "--strict",
        ])
        #expect(strict.status == 1)
    }
}
