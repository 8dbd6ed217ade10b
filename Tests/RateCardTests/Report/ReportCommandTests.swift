import Foundation
import Testing

@testable import RateCard

/// `margin report` end to end: the built binary on temporary copies of `RateCards/`.
@Suite("margin report command", .serialized)
struct ReportCommandTests {
    @Test func writesTheCommittedReportsAndCheckPasses() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        let write = try ReportFixtures.margin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: root)
        #expect(write.status == 0, "\(write.stderr)")
        #expect(write.stdout.contains("wrote Reports/osg-v10.md\n"))
        // Byte-identical to the repository's committed reports.
        #expect(
            ReportFixtures.files(in: root + "/Reports")
                == ReportFixtures.files(in: ReportFixtures.reportsDirectory))
        let check = try ReportFixtures.margin(
            ["report", "--cards", "RateCards", "--out", "Reports", "--check"], in: root)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == "")
        // A second run rewrites nothing.
        let again = try ReportFixtures.margin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: root)
        #expect(again.status == 0)
        #expect(again.stdout == "")
    }

    @Test func checkFailsNamingTheStaleFilesAfterACardChanges() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        #expect(try ReportFixtures.margin(["report", "--out", "Reports"], in: root).status == 0)
        let before = ReportFixtures.files(in: root + "/Reports")
        try ReportFixtures.edit(
            root + "/RateCards/osg-v10.json", replacing: #""currency": "CNY", "amount": "28""#,
            with: #""currency": "CNY", "amount": "30""#)
        let check = try ReportFixtures.margin(["report", "--check"], in: root)
        #expect(check.status == 1)
        #expect(
            check.stderr.contains(
                "Reports/osg-v10.md:1:1: error: report is stale; run 'margin report' [report-stale]\n"
            ))
        #expect(
            check.stderr.contains(
                "Reports/osg-v10.svg:1:1: error: report is stale; run 'margin report' [report-stale]\n"
            ))
        #expect(!check.stderr.contains("voice-debrief"))
        #expect(check.stdout == "")
        // --check wrote nothing.
        #expect(ReportFixtures.files(in: root + "/Reports") == before)
    }

    @Test func checkNamesMissingAndUnexpectedFilesAndWriteRemovesOnlyGeneratedOnes() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        #expect(try ReportFixtures.margin(["report"], in: root).status == 0)
        try FileManager.default.removeItem(atPath: root + "/Reports/voice-debrief-v1.svg")
        try "<!-- \(CardReport.generatedMarker) from RateCards/old-v1.json -->\n# old\n".write(
            toFile: root + "/Reports/old-v1.md", atomically: true, encoding: .utf8)
        try "# Notes kept by hand\n".write(
            toFile: root + "/Reports/README.md", atomically: true, encoding: .utf8)
        let check = try ReportFixtures.margin(["report", "--check"], in: root)
        #expect(check.status == 1)
        #expect(
            check.stderr.contains(
                "Reports/voice-debrief-v1.svg:1:1: error: report is missing; run 'margin report' [report-missing]"
            ))
        #expect(
            check.stderr.contains(
                "Reports/old-v1.md:1:1: error: generated report has no card any more; run 'margin report' to remove it [report-unexpected]"
            ))
        #expect(!check.stderr.contains("README.md"))
        let write = try ReportFixtures.margin(["report"], in: root)
        #expect(write.status == 0)
        #expect(write.stdout == "wrote Reports/voice-debrief-v1.svg\nremoved Reports/old-v1.md\n")
        #expect(FileManager.default.fileExists(atPath: root + "/Reports/README.md"))
        #expect(try ReportFixtures.margin(["report", "--check"], in: root).status == 0)
    }

    @Test func checkOfAMissingFolderCreatesNothing() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        let check = try ReportFixtures.margin(["report", "--check", "--out", "Nowhere"], in: root)
        #expect(check.status == 1)
        #expect(check.stderr.contains("Nowhere/index.md:1:1: error: report is missing"))
        #expect(!FileManager.default.fileExists(atPath: root + "/Nowhere"))
    }

    @Test func unreadableCardsExitTwo() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        try "{ \"kind\": \"card\", ".write(
            toFile: root + "/RateCards/broken.json", atomically: true, encoding: .utf8)
        for arguments in [["report"], ["report", "--check"]] {
            let run = try ReportFixtures.margin(arguments, in: root)
            #expect(run.status == 2)
            #expect(run.stderr.contains("RateCards/broken.json:"))
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/Reports"))
    }

    @Test func badUsageExitsTwoAndHelpGoesToStdout() throws {
        let root = try ReportFixtures.temporaryCopy()
        defer { ReportFixtures.cleanUp(root) }
        #expect(try ReportFixtures.margin(["report", "--chek"], in: root).status == 2)
        #expect(try ReportFixtures.margin(["report", "extra"], in: root).status == 2)
        let help = try ReportFixtures.margin(["report", "--help"], in: root)
        #expect(help.status == 0)
        #expect(help.stdout.contains("--check"))
    }
}
