import Foundation
import Testing

@testable import RateCard

/// The P&L cases of issue 10 (9, 10, 14, 15, 17) through the built `margin pnl`: stdout,
/// stderr and the exit code.
@Suite(.serialized) struct PnLRegressionCLITests {
    /// Runs `margin pnl` in a fresh folder holding `files`, with the repository's cards
    /// unless `cards` names another folder there.
    func pnl(
        _ files: [String: String], _ arguments: [String], cards: String? = nil,
        setup: (TemporaryFolder) throws -> Void = { _ in }
    ) throws -> CLIResult {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for (name, text) in files { try dir.write(name, text) }
        try setup(dir)
        return try runMargin(
            ["pnl"] + arguments + [
                "--cards", cards.map { dir.path + "/" + $0 } ?? repositoryCards, "--card", "osg",
            ], in: dir.path)
    }

    static let refundInWindow = """
        {"id":"c1","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-10,"feature":"llm"}
        {"id":"r1","at":"2026-11-20T10:00:00Z","kind":"refund","amount":10,"feature":"llm","refundOf":"c1"}

        """

    static let window = ["--since", "2026-11-15T00:00:00Z", "--until", "2026-12-01T00:00:00Z"]

    static let costs =
        #"{"kind": "costs", "currency": "CNY", "since": "2026-11-01", "until": "2026-12-01", "costs": [{"feature": "asr", "amount": "3.00"}]}"#

    // MARK: 9

    @Test func negativeValueHasNoMargin() throws {
        let csv = try pnl(
            ["e.jsonl": Self.refundInWindow],
            ["e.jsonl", "--credit-value", "CNY 0.01", "--format", "csv"] + Self.window)
        #expect(csv.status == 0)
        #expect(csv.stderr == "")
        #expect(
            csv.stdout == """
                feature,charges,charged,declines,givenBack,left,declineRate,cost,value,meteredCost,fixedCost,profit,margin,currency
                asr,0,0,0,0,0,,0,0,0,0,0,,CNY
                llm,0,0,1,10,-10,,0,-0.1,0,0,-0.1,,CNY

                """)
        let table = try pnl(
            ["e.jsonl": Self.refundInWindow],
            ["e.jsonl", "--credit-value", "CNY 0.01"] + Self.window)
        #expect(table.status == 0 && table.stderr == "")
        #expect(
            table.stdout.contains(
                "\nllm            0        0         1          10   −10             —        −0.10        0.00         −0.10       —\n"
            ), "\(table.stdout)")
        #expect(!table.stdout.contains("100.0%"))
        let json = try pnl(
            ["e.jsonl": Self.refundInWindow],
            ["e.jsonl", "--credit-value", "CNY 0.01", "--format", "json"] + Self.window)
        let root = try JSONParser.parse(json.stdout)
        guard case .array(let features) = root["features"]?.value else {
            Issue.record("features")
            return
        }
        let llm = try #require(features.first { $0["feature"]?.value == .string("llm") })
        #expect(llm["value"]?.value == .string("-0.1"))
        #expect(llm["margin"]?.value == .null)
    }

    // MARK: 10

    @Test(arguments: ["csv", "json", "table"])
    func aFixedCostWithoutTakingsIsOneRow(format: String) throws {
        let r = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": Self.costs],
            ["e.jsonl", "--credit-value", "CNY 0.01", "--costs", "costs.json", "--format", format])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        switch format {
        case "csv":
            #expect(
                r.stdout.split(separator: "\n").filter { $0.hasPrefix("asr,") } == [
                    "asr,0,0,0,0,0,,3,0,0,3,-3,,CNY"
                ])
        case "json":
            #expect(r.stdout.components(separatedBy: #""feature": "asr""#).count == 2)
        default:
            #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("asr ") }.count == 1)
        }
    }

    // MARK: 14

    @Test func anUnknownCostKeyIsAnErrorWithDidYouMean() throws {
        let sheet = Self.costs.replacingOccurrences(of: #""asr""#, with: #""asrr""#)
        let r = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": sheet],
            ["e.jsonl", "--costs", "costs.json"])
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(
            r.stderr
                == "costs.json:1:106: error: costs: \"asrr\" is not a feature of card osg; did you mean \"asr\"? [unknown-feature]\n"
        )
    }

    @Test func aWindowInsideTheSheetIsProratedAndSaysSo() throws {
        let r = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": Self.costs],
            [
                "e.jsonl", "--credit-value", "CNY 0.01", "--costs", "costs.json", "--now",
                "2026-12-01T00:00:00Z", "--window", "7d", "--format", "csv",
            ])
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout.contains("\nasr,0,0,0,0,0,,0.7,0,0,0.7,-0.7,,CNY\n"), "\(r.stdout)")
        let table = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": Self.costs],
            [
                "e.jsonl", "--credit-value", "CNY 0.01", "--costs", "costs.json", "--now",
                "2026-12-01T00:00:00Z", "--window", "7d",
            ])
        #expect(
            table.stdout.contains(
                "\nfixed costs: costs.json, 2026-11-01 to 2026-12-01, prorated by days: the window covers 7 of the sheet's 30 days (0.233333 of each cost)\n"
            ), "\(table.stdout)")
        let json = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": Self.costs],
            [
                "e.jsonl", "--credit-value", "CNY 0.01", "--costs", "costs.json", "--now",
                "2026-12-01T00:00:00Z", "--window", "7d", "--format", "json",
            ])
        let sheet = try JSONParser.parse(json.stdout)["valuation"]?["fixedCostSheet"]
        #expect(sheet?["application"]?.value == .string("prorated"))
    }

    @Test func aWindowOutsideTheSheetIsRefused() throws {
        let r = try pnl(
            ["e.jsonl": PnLReportTests.llmExport, "costs.json": Self.costs],
            ["e.jsonl", "--costs", "costs.json", "--now", "2026-12-05T00:00:00Z", "--window", "7d"])
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(
            r.stderr
                == "costs.json:1:47: error: the cost sheet covers 2026-11-01 to 2026-12-01 (UTC) but the window runs from 2026-11-28T00:00:00Z to 2026-12-05T00:00:00Z: what the days outside the sheet cost is not known; give a window inside the sheet's period or a sheet that covers the window [cost-sheet-period]\n"
        )
    }

    // MARK: 15

    @Test func creditsAreValuedAtTheVersionInForce() throws {
        let r = try pnl(
            ["e.jsonl": PnLReportTests.llmExport],
            ["e.jsonl", "--now", "2026-12-01T00:00:00Z", "--format", "json"], cards: "RateCards"
        ) { dir in
            _ = try PnLReportTests.cardsWithDraft(dir)
        }
        #expect(r.status == 0)
        #expect(r.stderr == "")
        let v = try JSONParser.parse(r.stdout)["valuation"]
        #expect(v?["valuedAt"]?.value == .string("osg@10"))
        #expect(v?["perCredit"]?.value == .string("0.004953433333"))
        let table = try pnl(
            ["e.jsonl": PnLReportTests.llmExport], ["e.jsonl", "--now", "2026-12-01T00:00:00Z"],
            cards: "RateCards"
        ) { dir in
            _ = try PnLReportTests.cardsWithDraft(dir)
        }
        #expect(
            table.stdout.contains(
                "\ncard: osg@10 in force over the window\nvalue: CNY 0.004953433333 per credit (osg@10: lowest per-credit proceeds of any pack after the highest commission: 3000tks at USD 2.99 less 30% for 3,000 credits, converted at USD/CNY 7.1 (the FX file))\n"
            ), "\(table.stdout)")
        #expect(
            table.stdout.contains("/RateCards/fx.json, placeholder rates): USD/CNY 7.1\n"),
            "the rate the value was converted at is named")
        let overridden = try pnl(
            ["e.jsonl": PnLReportTests.llmExport],
            ["e.jsonl", "--now", "2026-12-01T00:00:00Z", "--fx", "USD/CNY=7.2"])
        #expect(overridden.status == 0 && overridden.stderr == "")
        #expect(
            overridden.stdout.contains("\nFX given on the command line: USD/CNY 7.2\n"),
            "\(overridden.stdout)")
        #expect(
            !overridden.stdout.contains("placeholder rates"),
            "an override is credited to the command line, never to the file")
        // The value names the rate it was converted at and where that came from: with
        // `--fx` it is not the file's (the note once said "the FX file's rate" either way).
        #expect(
            overridden.stdout.contains(
                "for 3,000 credits, converted at USD/CNY 7.2 (--fx))\n"), "\(overridden.stdout)")
    }

    // MARK: 17

    @Test func csvAndMarkdownAreSafe() throws {
        let csv = try pnl(
            ["e.jsonl": PnLReportTests.hostileExport],
            ["e.jsonl", "--credit-value", "CNY 0.01", "--format", "csv"])
        #expect(csv.status == 0)
        #expect(
            csv.stdout.contains(
                "\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",1,1000000,0,0,1000000,0,0,10000,0,0,10000,1,CNY\n"
            ), "\(csv.stdout)")
        #expect(csv.stdout.contains("\n'-2+3,1,2,"))
        #expect(
            csv.stderr.contains(
                "e.jsonl:1:1: warning: unknown feature key \"=HYPERLINK(\"http://x\",\"y\")\": not on the card (1 charges, kept in the table) [unknown-feature]\n"
            ), "\(csv.stderr)")
        let md = try pnl(
            ["e.jsonl": PnLReportTests.hostileExport],
            ["e.jsonl", "--credit-value", "CNY 0.01", "--format", "markdown"])
        #expect(md.status == 0)
        #expect(
            md.stdout.contains(
                #"| \*b\*\|\<i\> | 1 | 3 | 0 | 0 | 3 | 0.0% | 0.03 | 0.00 | 0.03 | 100.0% |"#),
            "\(md.stdout)")
        #expect(md.stdout.contains("- unknown feature keys: " + #"\*b\*\|\<i\>"#))
        #expect(md.stderr == csv.stderr)
    }

    @Test func tablesGroupCreditsNameTheUnitAndValueTheBalance() throws {
        let export =
            PnLCommandTests.osgExport
            + #"{"id":"t2","at":"2026-11-30T22:00:00+08:00","kind":"topup","amount":30000}"# + "\n"
        let r = try pnl(["e.jsonl": export], ["e.jsonl", "--credit-value", "CNY 0.01"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(
            r.stdout.hasPrefix(
                "Takings by feature, window all. Credits are in the card's credit unit, the credit.\n"
            ))
        #expect(r.stdout.contains("\ntop-ups: 2 (33,000 credits)\n"))
        #expect(
            r.stdout.contains(
                "\noutstanding balance: 33,968 credits, CNY 339.68 at CNY 0.01 per credit (granted or bought and not yet spent: a liability)\n"
            ), "\(r.stdout)")
        let voice = try runMargin(
            [
                "pnl", "-", "--cards", repositoryCards, "--card", "voice-debrief", "--format",
                "markdown",
            ],
            stdin: #"{"id":"1","at":"2026-11-13T09:00:00Z","kind":"grant","amount":5000000}"# + "\n"
        )
        #expect(voice.status == 0 && voice.stderr == "")
        #expect(
            voice.stdout.contains(
                "Credits are in the card's credit unit, the microcredit, one worth GBP 0.000001 at face value."
            ), "\(voice.stdout)")
        #expect(voice.stdout.contains("- grants: 1 (5,000,000 credits)"))
    }

    @Test func roundedColumnsThatDoNotAddUpCarryTheNote() throws {
        let export = """
            {"id":"a","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"asr"}
            {"id":"b","at":"2026-11-10T10:00:00Z","kind":"charge","amount":-1,"feature":"llm"}

            """
        let r = try pnl(
            ["e.jsonl": export], ["e.jsonl", "--credit-value", "CNY 0.005", "--format", "markdown"])
        #expect(r.status == 0)
        // The charges carry no quantity: the audit says their metered cost is missing.
        #expect(
            r.stderr.split(separator: "\n").count == 4
                && r.stderr.split(separator: "\n").allSatisfy { $0.hasSuffix("[missing-quantity]") },
            "\(r.stderr)")
        #expect(
            r.stdout.contains("| asr | 1 | 1 | 0 | 0 | 1 | 0.0% | 0.00 | 0.00 | 0.00 | 100.0% |"))
        #expect(
            r.stdout.contains(
                "| **total** | **2** | **2** | **0** | **0** | **2** | **0.0%** | **0.01** | **0.00** | **0.01** | **100.0%** |"
            ))
        #expect(
            r.stdout.contains(
                "\n- rounding: figures are computed exactly and then rounded, so a rounded total or profit can differ by a minor unit from the sum or difference of the rounded figures shown (here: value, profit)\n"
            ))
    }

    /// `--format xml` and `--formt` answer alike: a message, the usage line, exit 2.
    @Test(arguments: [
        (["--format", "xml"], "unknown format 'xml'"),
        (["--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
    ])
    func badFormatsAnswerAlike(arguments: [String], message: String) throws {
        let r = try pnl(["e.jsonl": PnLReportTests.llmExport], ["e.jsonl"] + arguments)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("margin: error: \(message)"), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("\nUsage: \(PnLCommandUsage.text)\n"), "\(r.stderr)")
    }
}

enum PnLCommandUsage {
    /// The usage lines of `margin pnl --help`.
    static let text = """
        margin pnl FILE… [--card ID] [--cards DIR] [--window all|7d|30d|Nd] [--now TIME] [--since TIME] [--until TIME] [--by day|week|month [--tz OFFSET]] [--input-format FORMAT] [--strict] [--quiet] [--memory SIZE] [--credit-value MONEY] [--currency CUR] [--costs FILE] [--fx BASE/QUOTE=RATE]… [--proceeds FILE]… [--transactions FILE]… [--format table|json|csv|markdown]
               margin pnl [FILE… | --table NAME] --sql|--sql-audit duckdb|clickhouse|spark|postgres [--sql-columns text|typed] [--sql-params] [the options above]
               margin pnl --sql-schema DIALECT [--sql-columns text|typed]
        """
}
