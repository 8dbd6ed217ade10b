import Foundation
import Testing

/// A feature none of whose charges could be re-priced (NEW removes it), and an empty
/// export: their credits, costs and margins are of no request, so the table shows "—"
/// rather than 0 credits and 0.00 (which would read as "free under NEW").
@Suite("Replay: a row with nothing re-priced shows —, not 0")
struct ReplayUnpricedRowTests {
    @Test("a candidate without llm: the llm row is — from credits to margin, declines counted")
    func removedFeature() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("osg-v11.json", try ReplayGateCLITests.candidateWithoutLLM())
        let dash = Array(repeating: "—", count: 12).joined(separator: " ")
        let r = try expectMargin(
            [
                "replay", ReplayGateCLITests.ledger, "--card", dir.path + "/osg-v11.json",
                "--credit-value", "CNY 0.01",
            ], exits: 0,
            stderr: .contains("after: osg@11 has no feature \"llm\" [replay-not-repriced]"))
        let rows = tableRows(r.stdout)
        #expect(rows.contains("llm 3 3 \(dash) 0 0"))
        #expect(rows.contains { $0.hasPrefix("asr 5 1 526 316 −210 −39.9% 1.98 1.98 5.26 3.16") })
    }

    @Test("an empty export: the total row is —, and the heading says 0 charges")
    func emptyExport() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("empty.jsonl", "")
        let dash = Array(repeating: "—", count: 12).joined(separator: " ")
        let r = try expectMargin(
            [
                "replay", dir.path + "/empty.jsonl", "--card", ReplayGateCLITests.candidate,
                "--credit-value", "CNY 0.01",
            ], exits: 0,
            stdout: .contains("0 charges, 0 re-priced, 0 not (0 credits of 0 charged)"))
        let rows = tableRows(r.stdout)
        #expect(rows.contains("total 0 0 \(dash) 0 0"))
    }
}
