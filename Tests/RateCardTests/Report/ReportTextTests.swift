import Testing

@testable import RateCard

@Suite("Report wording")
struct ReportTextTests {
    static let whole = CreditUnit(name: "credit", priceStep: 1, faceValue: nil)
    static let micro = CreditUnit(
        name: "microcredit", priceStep: 10_000,
        faceValue: Money(try! Exact(decimal: "0.000001"), Currency(code: "GBP")!))

    static func dimension(
        _ unit: MeterUnit, credits: Int128, per: Int128, _ rounding: ChargeRounding
    ) -> Dimension {
        Dimension(
            name: "d", unit: unit, credits: credits, per: per, rounding: rounding,
            cost: .none(reason: "none"), location: .start, creditsLocation: .start)
    }

    @Test(arguments: [
        (
            MeterUnit.second, Int128(1), Int128(3), ChargeRounding.up, false,
            "1 credit per started 3 s"
        ),
        (.token, 1, 1000, .up, false, "1 credit per started 1,000 tokens"),
        (.token, 2, 400, .down, false, "2 credits per complete 400 tokens"),
        (.second, 1, 1, .up, false, "1 credit per started second"),
        (.event, 1, 1, .up, false, "1 credit per event"),
        (.minute, 5, 2, .exact, false, "5 credits per 2 min (whole intervals only)"),
        (.second, 30_000, 60, .up, true, "30,000 microcredits (GBP 0.03) per started 60 s"),
        (.file, 10_000, 1, .up, true, "10,000 microcredits (GBP 0.01) per file"),
        (.event, 5, 1, .up, true, "5 microcredits (GBP 0.000005) per event"),
    ])
    func chargeRuleInWords(
        unit: MeterUnit, credits: Int128, per: Int128, rounding: ChargeRounding, micro: Bool,
        expected: String
    ) {
        let d = Self.dimension(unit, credits: credits, per: per, rounding)
        #expect(ReportText.chargeRule(d, unit: micro ? Self.micro : Self.whole) == expected)
    }

    @Test(arguments: [
        ([1, 2, 3, 4, 5], "Mon–Fri"), ([6, 7], "Sat, Sun"), ([1, 2, 3, 4, 5, 6, 7], "every day"),
        ([1, 3, 4, 5, 7], "Mon, Wed–Fri, Sun"),
    ])
    func weekdays(days: [Int], expected: String) {
        #expect(ReportText.weekdays(days) == expected)
    }

    @Test(arguments: [
        ("3000tks", "3000tks"), ("ai.voicedebrief.app.credit.500", "…app.credit.500"),
        ("averyveryverylongproductid", "averyveryverylo…"),
    ])
    func longChartLabelsKeepTheirEnd(label: String, expected: String) {
        #expect(ReportText.shortLabel(label) == expected)
    }

    @Test func timestampsKeepTheirOwnOffset() throws {
        #expect(
            ReportText.timestamp(try Timestamp(rfc3339: "2026-08-18T00:00:00+08:00"))
                == "2026-08-18T00:00:00+08:00")
        #expect(
            ReportText.timestamp(try Timestamp(rfc3339: "2026-11-13T00:00:00Z"))
                == "2026-11-13T00:00:00Z")
        #expect(
            ReportText.timestamp(try Timestamp(rfc3339: "2026-01-01T23:30:05-05:30"))
                == "2026-01-01T23:30:05-05:30")
    }
}
