import Foundation
import Testing

@testable import RateCard

/// The P&L through the library (`PnLRun.run`): the sign of margin, one row per feature,
/// the cost sheet's checks, the card version in force, output safety.
@Suite struct PnLReportTests {
    static let cny = Currency(code: "CNY")!
    static let now = try! Timestamp(rfc3339: "2026-12-01T00:00:00Z")

    /// Two DeepSeek charges on 2026-11-30 (peak and off-peak, 3 credits each).
    static let llmExport = """
        {"id":"c3","at":"2026-11-30T10:10:00+08:00","kind":"charge","amount":-3,"feature":"llm","quantity":{"inputTokens":1200,"outputTokens":300}}
        {"id":"c4","at":"2026-11-30T20:10:00+08:00","kind":"charge","amount":-3,"feature":"llm","quantity":{"inputTokens":1200,"outputTokens":300}}

        """

    static func run(
        _ export: String, cards: String = repositoryCards, window: TakingsWindow = .all,
        series: TakingsSeries? = nil,
        creditValue: String? = "0.01", costSheet: String? = nil, now: Timestamp = now
    ) throws -> PnLReport {
        try PnLRun.run(
            PnLRequest(
                inputs: [TakingsInput(name: "e.jsonl", text: export)], window: window,
                series: series, now: now, cards: [cards],
                card: "osg", creditValue: creditValue.map { Money(exact($0), cny) },
                costSheet: costSheet))
    }

    static func line(_ report: PnLReport, _ feature: String) -> PnLReport.Line? {
        report.lines.first { $0.takings.feature == feature }
    }

    static func costSheet(
        _ dir: TemporaryFolder, since: String = "2026-11-01", until: String = "2026-12-01",
        costs: String = #"[{"feature": "asr", "amount": "3.00"}]"#
    ) throws -> String {
        try dir.write(
            "costs.json",
            #"{"kind": "costs", "currency": "CNY", "since": "\#(since)", "until": "\#(until)", "costs": \#(costs)}"#
        )
        return dir.path + "/costs.json"
    }

    // MARK: 9. Sign of margin

    /// A charge before the window and its refund inside it: −10 credits kept, value −0.10,
    /// profit −0.10. Margin is profit ÷ value only where value > 0.
    @Test func noMarginUnlessTheValueIsPositive() throws {
        let export = """
            {"id":"c1","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-10,"feature":"llm"}
            {"id":"r1","at":"2026-11-20T10:00:00Z","kind":"refund","amount":10,"feature":"llm","refundOf":"c1"}

            """
        let window = TakingsWindow(
            since: Takings.ts("2026-11-15T00:00:00Z"), until: Takings.ts("2026-12-01T00:00:00Z"))
        let report = try Self.run(export, window: window)
        let llm = try #require(Self.line(report, "llm")?.figures)
        #expect(llm.value == Money(exact("-0.1"), Self.cny))
        #expect(llm.profit == Money(exact("-0.1"), Self.cny))
        #expect(llm.margin == nil, "−0.10 ÷ −0.10 is not a margin of +100%")
        #expect(
            try #require(Self.line(report, "asr")?.figures).margin == nil, "no value, no margin")
        #expect(
            report.csv().contains("\nllm,0,0,1,10,-10,,0,-0.1,0,0,-0.1,,CNY\n"), "\(report.csv())")
        let row = try #require(report.table().split(separator: "\n").first { $0.hasPrefix("llm ") })
        #expect(row.hasSuffix("−0.10       —"), "\(row)")
        #expect(report.json().contains(#""margin": null"#))
    }

    @Test(arguments: [("0.06", "0.05055", "0.8425"), ("0", "-0.00945", nil)])
    func marginIsProfitOverAPositiveValue(value: String, profit: String, margin: String?) throws {
        let v = PnLValuation(
            credit: CreditValuation(stated: Money(exact("0.01"), Self.cny)), meteredNote: "test")
        let f = try v.figures(
            credits: value == "0" ? 0 : 6, metered: Money(exact("0.00945"), Self.cny), fixed: nil)
        #expect(f.value.amount == exact(value))
        #expect(f.profit.amount == exact(profit))
        #expect(f.margin == margin.map(exact))
    }

    // MARK: 10. One row per feature

    /// `asr` has a fixed cost and no takings in the window: one row, in every format.
    @Test func aFeatureWithAFixedCostAndNoTakingsIsOneRow() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let report = try Self.run(Self.llmExport, costSheet: try Self.costSheet(dir))
        #expect(report.lines.map(\.takings.feature) == ["asr", "llm"])
        let csvRows = report.csv().split(separator: "\n").dropFirst().map {
            $0.split(separator: ",")[0]
        }
        #expect(csvRows == ["asr", "llm"])
        #expect(report.table().components(separatedBy: "\nasr ").count == 2)
        let root = try JSONParser.parse(report.json())
        guard case .array(let features) = root["features"]?.value else {
            Issue.record("features")
            return
        }
        #expect(features.count == 2)
        #expect(
            try #require(Self.line(report, "asr")?.figures).fixedCost == Money(exact("3"), Self.cny)
        )
    }

    // MARK: 14. The cost sheet is checked

    @Test func anUnknownCostSheetKeyIsAnErrorWithDidYouMean() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let path = try Self.costSheet(dir, costs: #"[{"feature": "asrr", "amount": "3.00"}]"#)
        #expect {
            try Self.run(Self.llmExport, costSheet: path)
        } throws: { error in
            guard case .diagnostics(let d) = error as? PnLError, let first = d.first else {
                return false
            }
            return d.count == 1 && first.path == path && first.rule?.id == "unknown-feature"
                && first.message
                    == #"costs: "asrr" is not a feature of card osg; did you mean "asr"?"#
                && first.location.line == 1
        }
    }

    /// A 7-day window inside a 30-day sheet carries 7/30 of each cost, and says so.
    @Test func aWindowInsideTheSheetIsProratedByDays() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let window = TakingsWindow(
            since: Takings.ts("2026-11-24T00:00:00Z"), until: Takings.ts("2026-12-01T00:00:00Z"))
        let report = try Self.run(
            Self.llmExport, window: window, costSheet: try Self.costSheet(dir))
        #expect(
            try #require(Self.line(report, "asr")?.figures).fixedCost
                == Money(exact("0.7"), Self.cny))
        let fixed = try #require(report.valuation?.fixedCosts)
        #expect(fixed.share == (try Exact(7, over: 30)))
        #expect(fixed.application == "prorated")
        #expect(
            report.table().contains("prorated by days: the window covers 7 of the sheet's 30 days"))
        #expect(report.json().contains(#""application": "prorated""#))
    }

    /// The periods of a series share the window's fixed cost by their days, and add up.
    @Test func periodsCarryTheirShareOfTheFixedCost() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let report = try Self.run(
            Self.llmExport, series: TakingsSeries(period: .week), costSheet: try Self.costSheet(dir)
        )
        var sum = Exact.zero
        for p in report.periods {
            let asr = try #require(p.lines.first { $0.takings.feature == "asr" }?.figures)
            sum = try sum.adding(asr.fixedCost.amount)
            #expect(p.totals.figures?.fixedCost == asr.fixedCost)
        }
        #expect(sum == exact("3"))
        // 2026-11-01 is a Sunday: week 44 holds one day of November, 1/30 of CNY 3.
        #expect(
            report.periods.first?.lines.first?.figures?.fixedCost == Money(exact("0.1"), Self.cny))
    }

    /// An open window (`all`) is closed by the sheet's period: the costs apply in full.
    @Test func anOpenWindowIsClosedByTheSheet() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let report = try Self.run(Self.llmExport, costSheet: try Self.costSheet(dir))
        #expect(report.window.since == Takings.ts("2026-11-01T00:00:00Z"))
        #expect(report.window.until == Takings.ts("2026-12-01T00:00:00Z"))
        #expect(report.valuation?.fixedCosts?.application == "full")
        #expect(report.table().contains("applied in full: the window is the sheet's period"))
    }

    /// A November sheet for a window reaching into December is refused, with its place.
    @Test(arguments: [
        ("2026-11-28T00:00:00Z", "2026-12-05T00:00:00Z"),
        ("2026-10-31T00:00:00Z", "2026-11-05T00:00:00Z"),
        ("2026-12-01T00:00:00Z", "2026-12-31T00:00:00Z"),
    ])
    func aWindowOutsideTheSheetIsRefused(since: String, until: String) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let path = try Self.costSheet(dir)
        let window = TakingsWindow(since: Takings.ts(since), until: Takings.ts(until))
        #expect {
            try Self.run(Self.llmExport, window: window, costSheet: path)
        } throws: { error in
            guard case .diagnostics(let d) = error as? PnLError, let first = d.first else {
                return false
            }
            return first.rule?.id == "cost-sheet-period" && first.path == path
                && first.message.hasPrefix(
                    "the cost sheet covers 2026-11-01 to 2026-12-01 (UTC) but the window runs from \(since) to \(until)"
                )
        }
    }

    // MARK: 15. Valuation at the version in force

    /// `RateCards/` plus a draft osg@11 effective 2026-12-15 whose 3000tks costs USD 3.99.
    static func cardsWithDraft(_ dir: TemporaryFolder) throws -> String {
        let cards = try dir.copyRepositoryCards()
        var text = try String(contentsOfFile: cards + "/osg-v10.json", encoding: .utf8)
        for (a, b) in [
            (#""version": 10"#, #""version": 11"#),
            ("2026-08-18T00:00:00+08:00", "2026-12-15T00:00:00+08:00"),
            (#""USD", "amount": "2.99""#, #""USD", "amount": "3.99""#),
        ] {
            #expect(text.contains(a))
            text = text.replacingOccurrences(of: a, with: b)
        }
        try text.write(toFile: cards + "/osg-v11-draft.json", atomically: true, encoding: .utf8)
        return cards
    }

    @Test func creditsAreValuedAtTheVersionInForceNotADraft() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try Self.cardsWithDraft(dir)
        let report = try Self.run(Self.llmExport, cards: cards, creditValue: nil)
        let v = try #require(report.valuation)
        #expect(v.versionsInForce == ["osg@10"])
        #expect(v.valuedAt == "osg@10")
        #expect(v.credit.basis.contains("3000tks at USD 2.99"))
        // The draft's value would have been 32% higher (its lowest is 3000tks at CNY 28).
        let repo = try CardRepository.load(paths: [cards])
        let draft = try CreditValuation(
            card: try #require(repo.card(reference: "osg@11")), commission: repo.commission,
            fx: repo.fx, currency: Self.cny)
        let ratio = try draft.perCredit.amount.divided(by: v.credit.perCredit.amount)
        #expect(Format.percent(try ratio.subtracting(.one)) == "31.9%")
        #expect(report.table().contains("card: osg@10 in force over the window"))
        #expect(report.json().contains(#""valuedAt": "osg@10""#))
    }

    /// A window across the change is valued at the lowest value per credit of the versions
    /// in force, and both are named.
    @Test func aWindowAcrossVersionsIsValuedAtTheLowest() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try Self.cardsWithDraft(dir)
        let window = TakingsWindow(
            since: Takings.ts("2026-12-01T00:00:00Z"), until: Takings.ts("2027-01-01T00:00:00Z"))
        let report = try Self.run(
            Self.llmExport, cards: cards, window: window, creditValue: nil,
            now: Takings.ts("2027-01-02T00:00:00Z"))
        #expect(report.valuation?.versionsInForce == ["osg@10", "osg@11"])
        #expect(report.valuation?.valuedAt == "osg@10")
        #expect(
            report.table().contains(
                "card: osg@10, osg@11 in force over the window; credits valued at osg@10, the lowest value per credit of these"
            ))
        let after = TakingsWindow(
            since: Takings.ts("2026-12-20T00:00:00Z"), until: Takings.ts("2027-01-01T00:00:00Z"))
        let later = try Self.run(Self.llmExport, cards: cards, window: after, creditValue: nil)
        #expect(later.valuation?.versionsInForce == ["osg@11"])
        #expect(
            later.valuation?.credit.basis.contains("3000tks at CNY 28.00") == true,
            "\(later.valuation?.credit.basis ?? "")")
    }

    @Test(
        arguments: [
            // (versions' effective days in December 2026, window since, until, now, expected versions)
            ([1, 15], "2026-11-01", "2026-11-30", "2026-12-31", [0]),
            ([1, 15], "2026-12-05", "2026-12-20", "2026-12-31", [0, 1]),
            ([1, 15], "2026-12-15", "2026-12-20", "2026-12-31", [1]),
            ([1, 15], nil, nil, "2026-12-10", [0]),
            ([1, 15], nil, nil, "2026-12-16", [0, 1]),
            ([1, 15], "2026-12-20", nil, "2026-12-10", [1]),
            ([5], "2026-11-01", "2026-11-02", "2026-12-31", [0]),
        ] as [([Int], String?, String?, String, [Int])])
    func versionsInForceOverAWindow(
        effective: [Int], since: String?, until: String?, now: String, expected: [Int]
    ) throws {
        let cards = try effective.enumerated().map { i, day in
            try #require(
                try repository([
                    "c\(i).json": Self.minimalCard(
                        version: i + 1, effective: "2026-12-\(day < 10 ? "0" : "")\(day)T00:00:00Z")
                ]).cards.first)
        }
        let ts = { (d: String) in Takings.ts(d + "T00:00:00Z") }
        let got = PnLRun.versionsInForce(
            cards, window: TakingsWindow(since: since.map(ts), until: until.map(ts)), now: ts(now))
        #expect(got.map(\.version) == expected.map { $0 + 1 })
    }

    static func minimalCard(version: Int, effective: String) -> String {
        """
        {"kind": "card", "id": "t", "version": \(version), "effective": "\(effective)", "title": "t",
         "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [{"key": "a", "name": "A", "dimensions": [{"name": "n", "unit": "item", "credits": 1, "per": 1, "rounding": "up", "cost": {"none": "free"}}]}],
         "packs": [{"productId": "p", "type": "consumable", "credits": 100, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """
    }

    // MARK: 17. Output safety and consistency

    static let hostileExport = """
        {"id":"c1","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1000000,"feature":"=HYPERLINK(\\"http://x\\",\\"y\\")"}
        {"id":"c2","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-3,"feature":"*b*|<i>"}
        {"id":"c3","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-2,"feature":"-2+3"}

        """

    @Test func csvCellsCannotBeFormulas() throws {
        let csv = try Self.run(Self.hostileExport).csv()
        #expect(csv.contains("\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",1,1000000,"), "\(csv)")
        #expect(csv.contains("\n'-2+3,1,2,0,0,2,0,0,0.02,0,0,0.02,1,CNY\n"), "\(csv)")
        #expect(csv.contains("\n*b*|<i>,1,3,"))
    }

    @Test func negativeNumbersStayNumbersInCSV() throws {
        let export = """
            {"id":"c1","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-10,"feature":"llm"}
            {"id":"r1","at":"2026-11-20T10:00:00Z","kind":"refund","amount":10,"feature":"llm","refundOf":"c1"}

            """
        let window = TakingsWindow(
            since: Takings.ts("2026-11-15T00:00:00Z"), until: Takings.ts("2026-12-01T00:00:00Z"))
        #expect(try Self.run(export, window: window).csv().contains(",-10,,0,-0.1,0,0,-0.1,,CNY"))
    }

    @Test func markdownIsEscaped() throws {
        let md = try Self.run(Self.hostileExport).markdown()
        #expect(md.contains(#"| \*b\*\|\<i\> | 1 | 3 |"#), "\(md)")
        #expect(md.contains(#"| =HYPERLINK\("http\://x","y"\) | 1 | 1,000,000 |"#))
    }

    /// A feature key with terminal escapes cannot recolour the terminal; JSON escapes it.
    @Test func controlCharactersNeverReachTheTerminal() throws {
        let report = try Self.run(
            #"{"id":"a","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"\u001b[31mred"}"#
                + "\n")
        let table = report.table()
        #expect(!table.contains("\u{1B}"))
        #expect(table.contains("\u{FFFD}[31mred"))
        #expect(report.json().contains(#""feature": "\u001b[31mred""#))
    }

    @Test func creditsAreGroupedTheUnitNamedAndTheBalanceValued() throws {
        let export =
            Self.llmExport
            + #"{"id":"t1","at":"2026-11-30T21:00:00+08:00","kind":"topup","amount":30000}"# + "\n"
        let report = try Self.run(export)
        let table = report.table()
        #expect(table.contains("Credits are in the card's credit unit, the credit."))
        #expect(table.contains("top-ups: 1 (30,000 credits)"))
        #expect(
            table.contains(
                "outstanding balance: 29,994 credits, CNY 299.94 at CNY 0.01 per credit"),
            "\(table)")
        #expect(report.outstandingValue == Money(exact("299.94"), Self.cny))
        #expect(report.json().contains(#""outstandingValue": "299.94""#))
    }

    /// Two rows of CNY 0.005 each show 0.00 (half-even) and their total 0.01: the note says so.
    @Test func roundedColumnsThatDoNotAddUpCarryTheNote() throws {
        let export = """
            {"id":"a","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"asr"}
            {"id":"b","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"llm"}

            """
        let report = try Self.run(export, creditValue: "0.005")
        #expect(
            report.table().contains(
                "rounding: figures are computed exactly and then rounded, so a rounded total or profit can differ by a minor unit from the sum or difference of the rounded figures shown (here: value, profit)"
            ), "\(report.table())")
        #expect(
            try !Self.run(Self.llmExport).table().contains("rounding: figures"),
            "no note when the columns add up")
    }

    /// A figure that cannot be computed is an error and a row with its money cells
    /// missing, never a shorter CSV row.
    @Test func aFigureThatOverflowsIsAnErrorNotAShorterRow() throws {
        let huge = try Exact(decimal: "1000000000000000000000000000000").divided(by: Exact(7))
        let v = PnLValuation(
            credit: CreditValuation(stated: Money(huge, Self.cny)), meteredNote: "test")
        let takings = try Takings.run([
            ("e.jsonl", Takings.line(id: "c", amount: "-999999999999999999", feature: "llm"))
        ])
        let report = PnLReport(takings: takings, valuation: v, features: ["asr", "llm"])
        #expect(
            report.errors.contains {
                $0.rule?.id == "pnl-figures"
                    && $0.message.hasPrefix("llm: the money figures cannot be computed exactly")
            })
        #expect(report.hasFindings(strict: false))
        let rows = report.csv().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).count }
        #expect(Set(rows) == [14], "every CSV row has every column")
        #expect(
            report.csv().contains(
                "\nllm,1,999999999999999999,0,0,999999999999999999,0,,,,,,,CNY\n"),
            "\(report.csv())")
        #expect(report.table().contains("—"))
    }

    /// A feature called "total" is a feature like any other: it gets no other row's costs.
    @Test func aFeatureCalledTotalIsNotTheTotals() throws {
        let report = try Self.run(
            #"{"id":"a","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"total"}"#
                + "\n")
        #expect(report.lines.filter { $0.takings.feature == "total" }.count == 1)
        #expect(report.lines.allSatisfy { !$0.isTotal } && report.totals.isTotal)
    }
}
