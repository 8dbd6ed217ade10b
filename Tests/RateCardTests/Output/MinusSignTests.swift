import Foundation
import Testing

@testable import RateCard

/// One minus sign for every negative figure people read: U+2212 in tables, Markdown, the
/// reports and the charts, for money, credits and percentages alike; CSV and JSON keep the
/// ASCII hyphen-minus for programs.
@Suite("Human formats sign negative figures with one minus")
struct MinusSignTests {
    static let minus = "\u{2212}"

    /// The figures of `text` that are signed with an ASCII hyphen-minus (a "-" before a
    /// digit, at the start or after a space, "(", "|", "+" or "/").
    static func asciiNegatives(_ text: String) -> [String] {
        let re = try! NSRegularExpression(
            pattern: #"(^|[ (|+/*])-[0-9][0-9.,]*%?"#, options: [.anchorsMatchLines])
        let ns = text as NSString
        return re.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
            ns.substring(with: $0.range)
        }
    }

    @Test(
        "humanMinus signs figures, not words, dates or options",
        arguments: [
            ("-0.21", "−0.21"), ("-21.7%", "−21.7%"), ("0.50 → -0.25", "0.50 → −0.25"),
            ("CNY -3.00", "CNY −3.00"), ("(-1.2%)", "(−1.2%)"), ("-1,500", "−1,500"),
            ("osg-v10", "osg-v10"), ("2026-11-02T10:00:00-05:00", "2026-11-02T10:00:00-05:00"),
            ("--fx", "--fx"), ("-", "-"), ("a-1", "a-1"), ("—", "—"), ("", ""),
        ])
    func humanMinus(input: String, expected: String) {
        #expect(Format.humanMinus(input) == expected)
    }

    @Test("packs: every negative margin and margin % has the same minus; CSV and JSON ASCII")
    func packs() throws {
        for format in ["table", "markdown"] {
            let r = try expectMargin(
                ["packs", "--commission", "0.15,0.95", "--format", format], exits: 0)
            // 3000tks in CNY at 95%: proceeds 1.40, cost 11.25, margin −9.85, −35.2%.
            #expect(r.stdout.contains("\(Self.minus)9.85"), "\(format)")
            #expect(r.stdout.contains("\(Self.minus)35.2%"), "\(format)")
            #expect(Self.asciiNegatives(r.stdout) == [], "\(format)")
        }
        let csv = try expectMargin(
            ["packs", "--commission", "0.15,0.95", "--format", "csv"], exits: 0)
        #expect(csv.stdout.contains(",-9.85,"))
        #expect(!csv.stdout.contains(Self.minus))
        let json = try expectMargin(
            ["packs", "--commission", "0.15,0.95", "--format", "json"], exits: 0)
        #expect(json.stdout.contains(#""-9.85""#))
        #expect(!json.stdout.contains(Self.minus))
    }

    /// The committed-report generator: with a 95% commission the report's loss rows, its
    /// summary sentence and the index print money and percentages with one minus (the
    /// report said "USD −1.44, -48.0%").
    @Test("report: money and percentages share the minus")
    func report() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        let commission = cards + "/commission.json"
        let text = try String(contentsOfFile: commission, encoding: .utf8)
        try text.replacingOccurrences(of: #""0.30""#, with: #""0.95""#).write(
            toFile: commission, atomically: true, encoding: .utf8)
        let out = dir.path + "/Reports"
        try expectMargin(["report", "--cards", cards, "--out", out], exits: 0)
        let md = try String(contentsOfFile: out + "/osg-v10.md", encoding: .utf8)
        #expect(md.contains("**USD \(Self.minus)1.44**, \(Self.minus)48.0% of the price"))
        #expect(md.contains("| \(Self.minus)0.21 **loss** | \(Self.minus)21.7% |"))
        #expect(Self.asciiNegatives(md) == [])
        let index = try String(contentsOfFile: out + "/index.md", encoding: .utf8)
        #expect(index.contains("(\(Self.minus)48.0%)"), "\(index)")
        #expect(Self.asciiNegatives(index) == [])
        let svg = try String(contentsOfFile: out + "/osg-v10.svg", encoding: .utf8)
        #expect(svg.contains("(\(Self.minus)48.0% of price)"))
    }

    /// diff, replay and pnl: the credit changes, margins and losses of the worked replay.
    @Test("diff, replay and pnl tables and Markdown use the minus; CSV keeps ASCII")
    func diffReplayPnL() throws {
        let candidate = ReplayGateCLITests.candidate
        let worked = packageRoot.appendingPathComponent(
            "Tests/RateCardTests/Fixtures/replay/osg-worked.jsonl"
        ).path
        let runs: [[String]] = [
            ["diff", "osg@10", candidate, "--usage", worked],
            ["replay", worked, "--card", candidate, "--credit-value", "CNY 0.01"],
            ["pnl", worked, "--card", "osg", "--window", "all", "--credit-value", "CNY 0.0001"],
        ]
        for args in runs {
            for format in ["table", "markdown"] {
                let r = try runMargin(args + ["--format", format])
                #expect(r.status == 0 || r.status == 1, "\(args) \(r.stderr)")
                #expect(r.stdout.contains(Self.minus), "\(args) \(format)")
                #expect(Self.asciiNegatives(r.stdout) == [], "\(args) \(format)")
            }
        }
        // replay: asr's credits 526 → 316, a change of −210 (−39.9%).
        let table = try runMargin(runs[1])
        #expect(table.stdout.contains("\(Self.minus)210    \(Self.minus)39.9%"))
        let csv = try runMargin(runs[1] + ["--format", "csv"])
        #expect(csv.stdout.contains(",-210,"))
        #expect(!csv.stdout.contains(Self.minus))
        // pnl: a loss at CNY 0.0001 a credit.
        let pnl = try runMargin(runs[2] + ["--format", "csv"])
        #expect(!pnl.stdout.contains(Self.minus))
        #expect(pnl.stdout.contains(",-"))
    }

    /// docs/diff.md's example is the tool's output, its grant cut signed with the minus.
    @Test("docs/diff.md's example is the tool's output, with the minus")
    func diffDocument() throws {
        let r = try expectMargin(
            ["diff", "osg@10", "osg@11", "--cards", "Tests/RateCardTests/Fixtures/diff"],
            exits: 0)
        let doc = try String(
            contentsOf: packageRoot.appendingPathComponent("docs/diff.md"), encoding: .utf8)
        let start = try #require(
            doc.range(
                of: "$ margin diff osg@10 osg@11 --cards Tests/RateCardTests/Fixtures/diff\n"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        #expect(String(doc[start.upperBound..<end.lowerBound]) == r.stdout)
        #expect(r.stdout.contains("signup  1,000 → 500  \(Self.minus)50.0%"))
        #expect(r.stdout.contains("\(Self.minus)2.50  asr"))
    }
}
