import Foundation
import Testing

@testable import RateCard

/// `margin check` and `margin publish` on the repository's own cards and on copies of them.
@Suite struct CheckRepositoryTests {
    @Test func theRepositoryCardsPass() throws {
        let result = try runMargin(["check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error:"))
        #expect(!result.stderr.contains("warning:"))
        #expect(result.stderr.hasSuffix("0 errors, 0 warnings in 7 files\n"))
    }

    @Test func everyRepositoryCardIsPublished() throws {
        let lock = try PublishLock.load(path: repositoryCards + "/" + PublishLock.fileName)
        #expect(lock.entries.map(\.reference) == ["osg@10", "voice-debrief@1"])
    }

    @Test func editingOneNumberOfAPublishedCardFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let file = cards + "/osg-v10.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\"credits\": 3000,", with: "\"credits\": 3100,")
        #expect(edited != text)
        try edited.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "RateCards/osg-v10.json:4:14: error: card osg@10 was published with sha256"))
        #expect(result.stderr.contains("publish a new version instead [published-card-edited]"))
    }

    @Test func reformattingAPublishedCardPasses() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let file = cards + "/osg-v10.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        // Another key order, blank lines, tabs and other indentation.
        let reformatted =
            text
            .replacingOccurrences(
                of: "\"kind\": \"card\",\n  \"id\": \"osg\",",
                with: "\"id\":\"osg\",\n\n\t\"kind\"  :  \"card\","
            )
            .replacingOccurrences(of: "\n    ", with: "\n        ")
            .replacingOccurrences(
                of: "{ \"currency\": \"USD\", \"amount\": \"0.99\" }",
                with: "{\"amount\":\"0.99\",\"currency\":\"USD\"}")
        #expect(reformatted != text)
        try reformatted.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("published-card-edited"))
    }

    @Test func renumberingAPublishedCardFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let file = cards + "/osg-v10.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "\"version\": 10,", with: "\"version\": 11,").write(
            toFile: file, atomically: true, encoding: .utf8)
        let result = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "RateCards/osg-v10.json:4:14: error: osg-v10.json was published as osg@10 but now holds osg@11"
            ))
    }

    @Test func publishRefusesAnEditedPublishedVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let lockPath = cards + "/published.lock"
        let lockBefore = try Data(contentsOf: URL(fileURLWithPath: lockPath))
        let file = cards + "/osg-v10.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "\"amount\": \"2.99\"", with: "\"amount\": \"3.99\"")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runMargin(["publish", "RateCards/osg-v10.json"], in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "RateCards/osg-v10.json:4:14: error: card osg@10 is already published with a different digest; publish a new version instead [already-published]"
            ))
        #expect(try Data(contentsOf: URL(fileURLWithPath: lockPath)) == lockBefore)
    }

    @Test func publishRecordsANewVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let text = try String(contentsOfFile: cards + "/osg-v10.json", encoding: .utf8)
        let v11 =
            text
            .replacingOccurrences(of: "\"version\": 10,", with: "\"version\": 11,")
            .replacingOccurrences(
                of: "2026-08-18T00:00:00+08:00", with: "2026-12-01T00:00:00+08:00"
            )
            .replacingOccurrences(of: "\"amount\": \"2.99\"", with: "\"amount\": \"3.99\"")
        try v11.write(toFile: cards + "/osg-v11.json", atomically: true, encoding: .utf8)

        let before = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(before.status == 0)
        #expect(
            before.stderr.contains(
                "RateCards/osg-v11.json:4:14: warning: card osg@11 is not published in RateCards/published.lock; run 'margin publish RateCards/osg-v11.json' once it is final [unpublished-card]"
            ))

        let publish = try runMargin(["publish", "RateCards/osg-v11.json"], in: folder.path)
        #expect(publish.status == 0, "\(publish.stderr)")
        let lock = try PublishLock.load(path: cards + "/published.lock")
        #expect(lock.entries.map(\.reference) == ["osg@10", "osg@11", "voice-debrief@1"])
        #expect(lock.entry(card: "osg", version: 11)?.file == "osg-v11.json")

        let again = try runMargin(["publish", "RateCards/osg-v11.json"], in: folder.path)
        #expect(again.status == 0)
        #expect(again.stderr.contains("already published with this content"))

        let after = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(after.status == 0)
        #expect(after.stderr == "0 errors, 0 warnings in 8 files\n")
    }

    @Test func publishRefusesACardWithFindings() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        let text = try String(contentsOfFile: cards + "/osg-v10.json", encoding: .utf8)
        let v11 =
            text
            .replacingOccurrences(of: "\"version\": 10,", with: "\"version\": 11,")
            .replacingOccurrences(of: "\"amount\": \"2.99\"", with: "\"amount\": \"2.999\"")
        try v11.write(toFile: cards + "/osg-v11.json", atomically: true, encoding: .utf8)
        let result = try runMargin(["publish", "RateCards/osg-v11.json"], in: folder.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("[currency-decimals]"))
        #expect(result.stderr.contains("[version-order]"))
        #expect(
            try PublishLock.load(path: cards + "/published.lock").entry(card: "osg", version: 11)
                == nil)
    }

    @Test func removingAPublishedCardFileFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let cards = try folder.copyRepositoryCards()
        try FileManager.default.removeItem(atPath: cards + "/voice-debrief-v1.json")
        let result = try runMargin(["check", "RateCards"], in: folder.path)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "RateCards/published.lock:5:5: error: card voice-debrief@1 is published as voice-debrief-v1.json but that file is gone"
            ))
    }
}
