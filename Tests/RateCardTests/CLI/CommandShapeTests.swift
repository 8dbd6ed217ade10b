import Foundation
import Testing

@testable import RateCard

/// Issue 25: every command reports a library error through its own diagnostics, so one
/// card gives the same located line, rule and exit code whichever command reads it.
@Suite struct CommandShapeTests {
    /// The repository with the ASR dimension rounded down: a 2 s request costs nothing.
    private func freeUsageRepository() throws -> TemporaryFolder {
        let dir = try TemporaryFolder()
        let cards = try dir.copyRepositoryCards()
        let path = cards + "/osg-v10.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingFirst(
            "\"per\": 3, \"rounding\": \"up\"", with: "\"per\": 3, \"rounding\": \"down\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return dir
    }

    private static let finding =
        "RateCards/osg-v10.json:13:9: error: osg@10: feature \"asr\", dimension \"second\": a request of 2 s is charged 0 credits"

    @Test(arguments: [
        ["packs", "osg"],
        ["diff", "osg@10", "osg@10"],
        ["report", "--out", "Out"],
        ["report", "--check", "--out", "Out"],
        ["storefronts", "osg"],
        ["check"],
    ])
    func aFreeUsageCardIsTheSameFindingInEveryCommand(arguments: [String]) throws {
        let dir = try freeUsageRepository()
        defer { dir.cleanup() }
        try expectMargin(
            arguments, in: dir.path, exits: 1, stdout: .empty,
            stderr: .contains(Self.finding, "[free-usage]"))
    }

    @Test func theLibraryErrorsKnowTheirExitClass() throws {
        #expect(UsageError("x").failureClass.exitCode == 2)
        #expect(RunFailure("x", failureClass: .findings).failureClass.exitCode == 1)
        #expect(PnLError.usage("x").failureClass == .usage)
        #expect(PnLError.valuation("x").failureClass == .unreadable)
        let d = Diagnostic(path: "a.json", message: "m")
        #expect(Diagnostics([d]).diagnostics == [d])
        #expect(RunFailure.problems([d, d], in: "the files").summary == "2 problems in the files")
    }
}
