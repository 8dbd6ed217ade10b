import Foundation
import Testing

@testable import RateCard

/// Regressions of issue 24's P&L cases 13, 14, 15, 16 and 19, through the library and
/// through the built `margin pnl` (case 17 is in `SQLSemanticsTests`, 18 in
/// `TakingsSignalTests`).
@Suite("P&L: the edges of roll-ups, conflicts and messages", .serialized)
struct PnLEdgeTests {
    static let osg = TakingsTrustTests.osg

    // MARK: 13. Roll-ups of metered features

    static let rollup =
        #"{"rollup": {"period": "2026-11", "feature": "asr", "charges": 10, "charged": "260"}}"#

    @Test(
        "a roll-up of a metered feature carries no quantity: its cost is incomplete, an error under --strict"
    )
    func rollupCostIncomplete() throws {
        let report = try Takings.run([("r.jsonl", Self.rollup)], pricing: Self.osg)
        let asr = try #require(report.chargeAudit?.features.first { $0.feature == "asr" })
        #expect(asr.missingQuantity == 10 && asr.costIncomplete && asr.checked == 0)
        #expect(asr.findings.map(\.place.description) == ["r.jsonl:1"])
        #expect(report.warnings.contains { $0.rule?.id == "missing-quantity" })
        let strict = try Takings.run([("r.jsonl", Self.rollup)], strict: true, pricing: Self.osg)
        #expect(strict.hasFindings(strict: true))
        // A roll-up of a feature that is not metered (none on osg here: an unknown key) is
        // not incomplete.
        let other = try Takings.run(
            [("r.jsonl", Self.rollup.replacingOccurrences(of: "\"asr\"", with: "\"zzz\""))],
            pricing: Self.osg)
        #expect(other.chargeAudit?.features.first { $0.feature == "zzz" } == nil)

        let r = try TakingsTrustTests.pnl(
            Self.rollup, ["--strict", "--credit-value", "CNY 0.01"], name: "r.jsonl")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("metered cost incomplete (charges without a quantity): asr"))
        #expect(r.stderr.contains("[missing-quantity]"))
        let plain = try TakingsTrustTests.pnl(
            Self.rollup, ["--credit-value", "CNY 0.01", "--format", "json"], name: "r.jsonl")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("\"costIncomplete\": true"), "\(plain.stdout)")
    }

    // MARK: 14. A conflict after the cap of listed rejections

    @Test("a conflicting duplicate after 20 other rejections is still listed", arguments: [1, 2])
    func conflictAfterCap(threads: Int) throws {
        var lines = (0..<25).map { Takings.line(id: "bad\($0)", at: "2026-11-20") }
        lines.append(Takings.line(id: "c", amount: "-30000"))
        lines.append(Takings.line(id: "c", amount: "-40000"))
        let text = lines.joined(separator: "\n") + "\n"
        let report = try Takings.run([("t.jsonl", text)], threads: threads)
        #expect(report.input.rejected == 26)
        #expect(report.rejections.count == 21)
        #expect(
            report.rejections.contains { $0.reason == .conflictingDuplicate && $0.place.line == 27 }
        )
        #expect(report.hasFindings(strict: false))
        let r = try TakingsTrustTests.pnl(text, ["--format", "json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("t.jsonl:27:1: error: conflicting duplicate"), "\(r.stderr)")
        // The count of lines not shown counts the conflict as shown.
        #expect(r.stderr.contains("5 more rejected lines not shown"), "\(r.stderr)")
    }

    // MARK: 15. costIncomplete is a JSON boolean

    @Test("chargeAudit.features[].costIncomplete is a JSON boolean")
    func costIncompleteIsBoolean() throws {
        let text = TakingsTrustTests.audited.joined(separator: "\n") + "\n"
        let r = try TakingsTrustTests.pnl(text, ["--format", "json", "--credit-value", "CNY 0.01"])
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let features) = root["chargeAudit"]?["features"]?.value else {
            Issue.record("no chargeAudit.features: \(r.stdout)")
            return
        }
        #expect(!features.isEmpty)
        for f in features {
            guard case .bool = f["costIncomplete"]?.value else {
                Issue.record(
                    "costIncomplete is not a boolean: \(String(describing: f["costIncomplete"]?.value))"
                )
                continue
            }
        }
        #expect(r.stdout.contains("\"costIncomplete\": true"))
        #expect(r.stdout.contains("\"costIncomplete\": false"))
        #expect(!r.stdout.contains("\"costIncomplete\": \""))
    }

    // MARK: 19. Messages: compiler-style places, exact floors

    @Test("an input that cannot be read at all is named compiler style, path:line:column")
    func inputErrorsAreLocated() throws {
        let r = try TakingsTrustTests.pnl("xx\n", [], name: "bad.txt")
        #expect(r.status == 2)
        #expect(r.stderr.contains("/bad.txt:1:1: error: cannot tell the format"), "\(r.stderr)")
        #expect(!r.stderr.contains("margin: error:"), "\(r.stderr)")
        // TMPDIR that cannot hold the partitions.
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("t.jsonl", Takings.line(id: "a") + "\n")
        // Standard input with --memory is always partitioned.
        let t = try runMargin(
            ["pnl", "-", "--cards", repositoryCards, "--card", "osg", "--memory", "1K"],
            environment: ["TMPDIR": dir.path + "/missing"], stdin: Takings.line(id: "a") + "\n")
        #expect(t.status == 2)
        #expect(t.stderr.contains(dir.path + "/missing"), "\(t.stderr)")
        #expect(
            t.stderr.contains(
                dir.path + "/missing:1:1: error: cannot create a temporary directory"),
            "\(t.stderr)")
        // The library: the error is a located diagnostic.
        let e = TakingsInputError(path: "x.jsonl", message: "line 3 is longer", line: 3)
        #expect(e.diagnostics.map(\.rendered) == ["x.jsonl:3:1: error: line 3 is longer"])
    }

    @Test("a floor is printed exactly as given, not rounded")
    func floorIsExact() throws {
        #expect(Format.floor(try Exact(1691, over: 10000)) == "16.91%")
        #expect(Format.floor(try Exact(2, over: 10)) == "20.0%")
        let r = try runMargin(["check", "--min-margin", "99.91"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("below the 99.91% floor"), "\(r.stderr)")
        #expect(!r.stderr.contains("below the 99.9% floor"))
    }
}
