import Foundation
import Testing

/// Runs the built `margin` binary (`runMargin`) and checks stdout, stderr and the exit code.
@Suite("Diff: margin diff command")
struct DiffCommandTests {
    static func margin(_ arguments: [String], in directory: String) throws -> CLIResult {
        try runMargin(arguments, in: directory)
    }

    @Test func referencesIntoTheFolderShowPricesThenMargins() throws {
        let folder = try DiffFixtureFolder()
        let run = try Self.margin(
            ["diff", "osg@10", "osg@11", "--cards", "cards"], in: folder.root)
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let out = run.stdout
        #expect(out.hasPrefix("osg@10 → osg@11: OSG credits (diff fixture, V11)\n"))
        #expect(
            out.contains("asr        second        1 per 3 s, up           1 per 2 s, up    +50.0%")
        )
        #expect(
            out.contains(
                "llm        removed-without-retiring  removed without retiring: keys are never renamed"
            ))
        #expect(out.contains("translate  retired"))
        #expect(out.contains("ocr        added"))
        #expect(out.contains("3000tks  USD           3,000  2.99 → 3.99      +33.4%"))
        #expect(
            out.contains(
                "3000tks  CNY              15%        28.00  11.25 → 7.50  12.55 → 16.30  44.8% → 58.2%     +3.75   +13.4 pts  asr"
            ))
        #expect(
            out.contains(
                "3000tks  CNY              30%        28.00  11.25 → 7.50   8.35 → 12.10  29.8% → 43.2%     +3.75   +13.4 pts  asr"
            ))
        #expect(
            out.contains(
                "6000tks  CNY              15%    — → 48.00     — → 15.00      — → 25.80      — → 53.8%         —           —  — → asr"
            ))
        // Price and feature changes come before the margin table.
        let prices = try #require(out.range(of: "Feature prices"))
        let margins = try #require(out.range(of: "Worst-case margin per pack"))
        #expect(prices.lowerBound < margins.lowerBound)
    }

    @Test func cardFilesWorkAndMatchReferences() throws {
        let folder = try DiffFixtureFolder()
        let byRef = try Self.margin(
            ["diff", "osg@10", "osg@11", "--cards", "cards", "--format", "csv"], in: folder.root)
        let byFile = try Self.margin(
            [
                "diff", "cards/osg-v10.json", "./cards/osg-v11.json", "--cards=cards", "--format",
                "csv",
            ], in: folder.root)
        #expect(byFile.status == 0 && byFile.stderr == "")
        #expect(byFile.stdout == byRef.stdout)
        #expect(
            byFile.stdout.contains(
                "margin,3000tks,CNY,0.15,margin,12.55,16.3,3.75,0.298804780876,\n"))
    }

    @Test func jsonIsDeterministicAcrossRuns() throws {
        let folder = try DiffFixtureFolder()
        let a = try Self.margin(
            ["diff", "osg@10", "osg@11", "--cards", "cards", "--format", "json"], in: folder.root)
        let b = try Self.margin(
            ["diff", "osg@10", "osg@11", "--cards", "cards", "--format", "json"], in: folder.root)
        #expect(a.status == 0 && a.stderr == "")
        #expect(a.stdout == b.stdout)
        #expect(a.stdout.contains("\"marginChange\": \"3.75\""))
        _ = try JSONSerialization.jsonObject(with: Data(a.stdout.utf8))
    }

    @Test func markdownAndCommissionOverride() throws {
        let folder = try DiffFixtureFolder()
        try expectMargin(
            [
                "diff", "osg@10", "osg@11", "--cards", "cards", "--format", "markdown",
                "--commission", "20%",
            ], in: folder.root,
            exits: 0,
            stdout: .all(
                .hasPrefix("## osg@10 → osg@11"),
                .contains("### Worst-case margin per pack, before and after"),
                // 28 × 0.8 = 22.40; less 11.25 and 7.50.
                .contains("| 3000tks | CNY | 20% | 28.00 | 11.25 → 7.50 | 11.15 → 14.90 |"),
                .lacks("| 15% |")),
            stderr: .empty)
    }

    @Test func fxOverrideChangesUSDCosts() throws {
        let folder = try DiffFixtureFolder()
        // 7.50 / 7.5 = 1.00 USD of worst case for 3000tks under V11.
        try expectMargin(
            ["diff", "osg@10", "osg@11", "--cards", "cards", "--fx", "USD/CNY=7.5"],
            in: folder.root, exits: 0,
            stdout: .contains("3000tks  USD              15%  2.99 → 3.99   1.50 → 1.00"))
    }

    @Test(arguments: [
        (["diff", "osg@10"], "expected two cards, OLD and NEW"),
        (["diff", "osg@10", "osg@11", "osg@12"], "expected two cards, OLD and NEW"),
        (["diff", "osg@10", "osg@11", "--format", "yaml"], "unknown format 'yaml'"),
        (["diff", "osg@10", "osg@11", "--commision", "0.1"], "did you mean '--commission'?"),
        (
            ["diff", "osg@10", "osg@11", "--commission", "1.5"],
            "--commission 1.5: '1.5' must be from 0 to below 1"
        ),
        (
            ["diff", "osg@10", "osg@12"],
            "osg@12:1:1: error: no card 'osg@12' in the rate-card folder (cards: osg@10, osg@11)"
        ),
        (["diff", "osg@10", "missing.json"], "missing.json:1:1: error: cannot read the file"),
    ])
    func badUsageAndUnreadableInputExit2(arguments: [String], message: String) throws {
        let folder = try DiffFixtureFolder()
        try expectMargin(
            arguments + ["--cards", "cards"], in: folder.root, exits: 2, stdout: .empty,
            stderr: .contains(message))
    }

    @Test func missingCardFolderExits2() throws {
        let folder = try DiffFixtureFolder()
        try expectMargin(
            ["diff", "osg@10", "osg@11", "--cards", "nowhere"], in: folder.root, exits: 2,
            stdout: .empty,
            stderr: .contains("nowhere:1:1: error: no such file or folder"))
    }

    @Test func helpGoesToStdout() throws {
        let folder = try DiffFixtureFolder()
        try expectMargin(
            ["diff", "--help"], in: folder.root, exits: 0,
            stdout: .contains("Usage: margin diff OLD NEW"), stderr: .empty)
    }
}
