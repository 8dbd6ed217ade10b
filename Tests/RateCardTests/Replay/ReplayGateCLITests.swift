import Foundation
import Testing

/// The replay gate through the built binary, both ways: `check --replay` passes when the
/// newest card charges the usage as the ledger did, and fails (exit 1, one finding per
/// feature, GitHub annotations) when a candidate osg@11 in the folder moves ASR and
/// DeepSeek credits past the limit; `diff --usage` shows the section and gates alike.
@Suite("Replay gate through the binary")
struct ReplayGateCLITests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/RateCardTests/Fixtures/replay")
    static let ledger = fixtures.appendingPathComponent("osg-worked.jsonl").path
    static let candidate = fixtures.appendingPathComponent("osg-v11-candidate.json").path

    /// The candidate card without its `llm` feature: a feature the usage charges, removed.
    static func candidateWithoutLLM() throws -> String {
        let text = try String(contentsOfFile: candidate, encoding: .utf8)
        let start = try #require(text.range(of: ",\n    {\n      \"key\": \"llm\""))
        let end = try #require(text.range(of: "\n  ],\n  \"grants\""))
        return String(text[..<start.lowerBound]) + String(text[end.lowerBound...])
    }

    @Test("check --replay passes when the newest version charges as the ledger did")
    func passes() throws {
        try expectMargin(
            [
                "check", "RateCards", "--replay", Self.ledger, "--max-credit-change", "10%",
                "--max-margin-drop", "5",
            ], exits: 0, stdout: .empty,
            stderr: .all(
                .lacks("replay-credit-change", "replay-margin-drop"), .contains("0 errors")))
    }

    @Test("check --replay fails once per feature past the limits, as GitHub annotations too")
    func fails() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        try FileManager.default.copyItem(atPath: Self.candidate, toPath: cards + "/osg-v11.json")
        let args = [
            "check", cards, "--replay", Self.ledger, "--max-credit-change", "10%",
            "--max-margin-drop", "1",
        ]
        let text = try expectMargin(
            args, exits: 1,
            stderr: .contains(
                "\(cards)/osg-v11.json:10:14: error: on the replayed usage, feature asr takes 526 → 316 credits under osg@11 against the ledger's own charges (-39.9% over 4 re-priced requests), past --max-credit-change 10.0% [replay-credit-change]",
                "\(cards)/osg-v11.json:20:14: error: on the replayed usage, feature llm takes 508 → 677 credits under osg@11 against the ledger's own charges (+33.3% over 3 re-priced requests), past --max-credit-change 10.0% [replay-credit-change]",
                "\(cards)/osg-v11.json:1:1: error: on the replayed usage, the overall margin falls 3.1 points under osg@11 against the ledger's own charges (25.8% → 22.8%), past --max-margin-drop 1 [replay-margin-drop]"
            ))
        #expect(text.stderr.components(separatedBy: "[replay-credit-change]").count == 3)
        try expectMargin(
            args + ["--format", "github"], exits: 1,
            stdout: .contains(
                "::error file=\(cards)/osg-v11.json,line=10,col=14,title=replay-credit-change::on the replayed usage, feature asr takes 526 → 316 credits",
                "::error file=\(cards)/osg-v11.json,line=1,col=1,title=replay-margin-drop::"))
        // Within the limits: no replay finding (the candidate's other findings remain).
        try expectMargin(
            ["check", cards, "--replay", Self.ledger, "--max-credit-change", "40%"], exits: 1,
            stderr: .lacks("[replay-credit-change]", "[replay-margin-drop]"))
    }

    @Test("check --replay without a limit is a usage error")
    func needsLimit() throws {
        try expectMargin(
            ["check", "RateCards", "--replay", Self.ledger], exits: 2,
            stderr: .contains("give --max-credit-change, --max-margin-drop or both"))
    }

    @Test("diff --usage: the replay as a section, and the gate")
    func diff() throws {
        let args = ["diff", "osg@10", Self.candidate, "--usage", Self.ledger]
        try expectMargin(
            args, exits: 0,
            stdout: .contains(
                "Usage replayed\nReplay under osg@11 against osg@10: 8 charges, 7 re-priced, 1 not")
        )
        try expectMargin(
            args + ["--max-credit-change", "10%"], exits: 1,
            stderr: .contains("feature asr takes 526 → 316 credits under osg@11 against osg@10"))
        try expectMargin(args + ["--max-credit-change", "40%"], exits: 0, stderr: .lacks("error"))
        let json = try expectMargin(
            args + ["--format", "json"], exits: 0, stdout: .hasPrefix("{\n  \"diff\": {"))
        #expect((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) != nil)
        try expectMargin(
            args + ["--format", "csv"], exits: 2, stderr: .contains("--usage has no CSV form"))
    }

    /// The same run with and without `--memory 1K` (a cap the worked ledger does not fit,
    /// so its replay is partitioned by device): equal stdout, stderr and exit status.
    private func expectSameUnderCap(_ args: [String], exits: Int32) throws {
        let whole = try runMargin(args)
        let capped = try runMargin(args + ["--memory", "1K"])
        #expect(whole.status == exits)
        #expect(capped.status == whole.status)
        #expect(capped.stdout == whole.stdout)
        #expect(capped.stderr == whole.stderr)
    }

    @Test("check --replay --memory: partitioned, the same findings, output and exit status")
    func checkUnderCap() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try dir.copyRepositoryCards()
        try FileManager.default.copyItem(atPath: Self.candidate, toPath: cards + "/osg-v11.json")
        let failing = [
            "check", cards, "--replay", Self.ledger, "--max-credit-change", "10%",
            "--max-margin-drop", "1",
        ]
        try expectSameUnderCap(failing, exits: 1)
        try expectSameUnderCap(failing + ["--format", "github"], exits: 1)
        try expectSameUnderCap(failing + ["--format", "json"], exits: 1)
        let capped = try runMargin(failing + ["--memory", "1K"])
        #expect(capped.stderr.components(separatedBy: "[replay-credit-change]").count == 3)
        #expect(capped.stderr.contains("[replay-margin-drop]"))
        try expectSameUnderCap(
            [
                "check", "RateCards", "--replay", Self.ledger, "--max-credit-change", "10%",
                "--max-margin-drop", "5",
            ], exits: 0)
        try expectMargin(
            failing + ["--memory", "lots"], exits: 2, stderr: .contains("--memory"))
    }

    @Test("diff --usage --memory: partitioned, the same section, findings and exit status")
    func diffUnderCap() throws {
        let args = ["diff", "osg@10", Self.candidate, "--usage", Self.ledger]
        try expectSameUnderCap(args, exits: 0)
        try expectSameUnderCap(args + ["--format", "json"], exits: 0)
        try expectSameUnderCap(args + ["--format", "markdown"], exits: 0)
        try expectSameUnderCap(args + ["--max-credit-change", "10%"], exits: 1)
        let capped = try runMargin(args + ["--max-credit-change", "10%", "--memory", "1K"])
        #expect(capped.stderr.contains("feature asr takes 526 → 316 credits under osg@11"))
        try expectMargin(args + ["--memory", "lots"], exits: 2, stderr: .contains("--memory"))
    }
}
