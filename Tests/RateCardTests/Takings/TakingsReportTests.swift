import Testing

@testable import RateCard

@Suite("Takings report: pricing seam and formats")
struct TakingsReportTests {
    static let text = [
        Takings.line(id: "c1", amount: "-60000", extra: #","quantity":{"second":76}"#),
        Takings.line(id: "c2", amount: "-30000", extra: #","quantity":{"second":"30.5"}"#),
        Takings.line(id: "c3", amount: "-30000"),
        Takings.refund(id: "r1", of: "c1", amount: "60000"),
        Takings.line(
            id: "c4", amount: "-50000", feature: "mystery", extra: #","quantity":{"second":1}"#),
        #"{"id":"g","at":"2026-11-01T00:00:00Z","kind":"grant","amount":5000000}"#,
        #"{"id":"t","at":"2026-11-02T00:00:00Z","kind":"topup","amount":5000000,"price":"GBP 4.99"}"#,
        "{broken",
    ].joined(separator: "\n")

    static let pricing = FakePricing(
        known: ["transcript"], perUnit: ["second": try! Exact(decimal: "0.00125")])

    @Test(
        "metered cost is summed exactly per feature; unknown feature keys are reported, never dropped"
    )
    func pricingSeam() throws {
        let report = Takings.balanced(
            try Takings.run([("p.jsonl", Self.text)], pricing: Self.pricing))
        let transcript = try #require(Takings.row(report, "transcript"))
        // (76 + 30.5) × 0.00125 = 0.133125, exact; c3 has no quantity and costs nothing.
        #expect(transcript.cost == Money(try Exact(decimal: "0.133125"), Currency(code: "GBP")!))
        #expect(report.unknownFeatures == ["mystery"])
        #expect(Takings.row(report, "mystery")?.charged == 50000)
        #expect(
            report.warnings.contains {
                $0.rule?.id == "unknown-feature" && $0.rendered.hasPrefix("p.jsonl:5:")
            })
        #expect(report.costCurrency == Currency(code: "GBP"))
    }

    @Test("a pricing failure is an error naming the line")
    func pricingFailure() throws {
        struct Failing: TakingsPricing {
            struct Nope: Error, CustomStringConvertible {
                var description: String { "no provider sheet in force" }
            }
            func isKnownFeature(_ key: String) -> Bool { true }
            func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money? {
                throw Nope()
            }
        }
        let report = try Takings.run([("p.jsonl", Self.text)], pricing: Failing())
        #expect(
            report.errors.contains {
                $0.rendered.hasPrefix("p.jsonl:1:") && $0.message.contains("no provider sheet")
            })
        #expect(report.hasFindings(strict: false))
    }

    @Test("JSON: sorted keys, credits as integer strings, exact money, the input accounting")
    func json() throws {
        let report = try Takings.run([("p.jsonl", Self.text)], pricing: Self.pricing)
        let text = PnLReport(takings: report).json()
        let root = try JSONParser.parse(text)
        let features = try #require(
            root["features"].flatMap { node -> [JSONNode]? in
                if case .array(let a) = node.value { return a }
                return nil
            })
        let first = try #require(features.first)
        #expect(first["feature"]?.value == .string("mystery"))
        let transcript = try #require(features.last)
        #expect(transcript["charges"]?.value == .string("3"))
        #expect(transcript["charged"]?.value == .string("120000"))
        #expect(transcript["declines"]?.value == .string("1"))
        #expect(transcript["givenBack"]?.value == .string("60000"))
        #expect(transcript["left"]?.value == .string("60000"))
        #expect(transcript["cost"]?.value == .string("0.133125"))
        #expect(transcript["declineRate"]?.value == .string("0.333333333333"))
        #expect(root["input"]?["lines"]?.value == .number("8"))
        #expect(root["input"]?["entries"]?.value == .number("7"))
        #expect(root["input"]?["duplicates"]?.value == .number("0"))
        #expect(root["input"]?["rejected"]?.value == .number("1"))
        #expect(
            root["belowTheLine"]?["topupMoney"].map { takingsJSONText($0) }
                == #"[{"amount":"4.99","currency":"GBP"}]"#)
        // Keys are sorted at every level.
        for node in [root, first] {
            let keys = node.members!.map(\.key)
            #expect(keys == keys.sorted())
        }
        #expect(PnLReport(takings: report).json() == text, "deterministic")
    }

    @Test("CSV: one row per feature, exact decline rate")
    func csv() throws {
        let report = try Takings.run([("p.jsonl", Self.text)])
        #expect(
            PnLReport(takings: report).csv() == """
                feature,charges,charged,declines,givenBack,left,declineRate,cost
                mystery,1,50000,0,0,50000,0,
                transcript,3,120000,1,60000,60000,0.333333333333,

                """)
        let series = try Takings.run(
            [("p.jsonl", Self.text)], series: TakingsSeries(period: .month))
        #expect(PnLReport(takings: series).csv().hasPrefix("period,feature,charges"))
        #expect(
            PnLReport(takings: series).csv().contains(
                "\n2026-11,transcript,3,120000,1,60000,60000,"))
    }

    @Test(
        "Markdown and the plain table carry the same numbers, money rounded half-even at the edge")
    func forPeople() throws {
        let report = try Takings.run([("p.jsonl", Self.text)], pricing: Self.pricing)
        let md = PnLReport(takings: report).markdown()
        #expect(md.contains("| transcript | 3 | 120000 | 1 | 60000 | 60000 | 33.3% | 0.13 |"))
        #expect(
            md.contains(
                "| **total** | **4** | **170000** | **1** | **60000** | **110000** | **25.0%** | **0.13** |"
            ))
        // A top-up's money has the currency's minor units (4.995 is not money: TakingsTrustTests).
        #expect(md.contains("GBP 4.99"))
        #expect(md.contains("8 lines read = 7 entries used + 0 duplicates + 1 rejected + 0 blank"))
        #expect(md.contains("`p.jsonl:8`"))
        let table = PnLReport(takings: report).table()
        #expect(table.contains("transcript"))
        #expect(table.contains("33.3%"))
        #expect(table.contains("outstanding balance: 9890000 credits"))
    }
}

func takingsJSONText(_ node: JSONNode) -> String {
    var out: [UInt8] = []
    TakingsJSONWriter.write(node, into: &out)
    return String(decoding: out, as: UTF8.self)
}
