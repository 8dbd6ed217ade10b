import Foundation
import Testing

@testable import RateCard

@Suite struct PublishLockTests {
    static let digestA = String(repeating: "a", count: 64)
    static let digestB = String(repeating: "b", count: 64)
    static let digestC = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

    static let valid = """
        {
          "kind": "lock",
          "published": [
            {"card": "osg", "version": 9, "file": "osg-v9.json", "sha256": "\(digestA)"},
            {"card": "osg", "version": 10, "file": "osg-v10.json", "sha256": "\(digestB)"},
            {"card": "voice", "version": 1, "file": "voice/voice-v1.json", "sha256": "\(digestC)"}
          ]
        }

        """

    private func load(_ text: String) throws(Diagnostics) -> PublishLock {
        try PublishLock.load(bytes: Array(text.utf8), path: "RateCards/published.lock")
    }

    /// A fresh empty folder under the system temporary folder.
    private func temporaryFolder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "margin-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    @Test func loadsAndReserializesByteForByte() throws {
        let lock = try load(Self.valid)
        #expect(lock.entries.map(\.reference) == ["osg@9", "osg@10", "voice@1"])
        #expect(lock.entry(card: "osg", version: 10)?.file == "osg-v10.json")
        #expect(lock.entry(card: "osg", version: 11) == nil)
        #expect(String(decoding: lock.serialized(), as: UTF8.self) == Self.valid)
    }

    @Test func emptyLockRoundTrips() throws {
        let text = String(decoding: PublishLock().serialized(), as: UTF8.self)
        #expect(text == "{\n  \"kind\": \"lock\",\n  \"published\": []\n}\n")
        #expect(try load(text).entries.isEmpty)
    }

    /// Each bad lock gives a diagnostic at the offending place naming the field.
    @Test(
        arguments: [
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 10, "file": "a.json"}]}"#,
                1, 32, "published[0].sha256: missing required field"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 10, "file": "a.json", "sha256": "ABC"}]}"#,
                1, 91, "published[0].sha256: \"ABC\" is not a SHA-256 digest"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 10, "file": "a.json", "sha256": "\#(String(repeating: "A", count: 64))"}]}"#,
                1, 91, "is not a SHA-256 digest (64 lowercase hex digits)"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 0, "file": "a.json", "sha256": "\#(digestA)"}]}"#,
                1, 59, "published[0].version: 0 is out of range"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 2.5, "file": "a.json", "sha256": "\#(digestA)"}]}"#,
                1, 59, "published[0].version: 2.5 is not a whole number"
            ),
            (
                #"{"kind": "lock", "published": [{"card": 7, "version": 1, "file": "a.json", "sha256": "\#(digestA)"}]}"#,
                1, 41, "published[0].card: expected a string, found a number"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 1, "file": "/etc/a.json", "sha256": "\#(digestA)"}]}"#,
                1, 70, "published[0].file: must be relative"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 1, "file": "../a.json", "sha256": "\#(digestA)"}]}"#,
                1, 70, "published[0].file: must not leave"
            ),
            (
                #"{"kind": "lock", "published": [{"card": "osg", "version": 1, "files": "a.json", "sha256": "\#(digestA)"}]}"#,
                1, 62, "published[0].files: unknown field; did you mean \"file\"?"
            ),
            (
                #"{"kind": "card", "published": []}"#, 1, 10,
                "kind: expected \"lock\", found \"card\""
            ),
            (#"{"kind": "lock"}"#, 1, 1, "published: missing required field"),
            (
                #"{"kind": "lock", "published": {}}"#, 1, 31,
                "published: expected an array, found an object"
            ),
            (#"[]"#, 1, 1, "expected a JSON object at the top level, found an array"),
            (
                "{\"kind\": \"lock\", \"published\": [\n  {\"card\": \"osg\", \"ver", 2, 19,
                "unterminated string"
            ),
            ("", 1, 1, "the file is empty"),
        ] as [(String, Int, Int, String)])
    func badLocks(text: String, line: Int, column: Int, message: String) throws {
        let error = try #require(throws: Diagnostics.self) { try load(text) }
        #expect(error.items.allSatisfy { $0.path == "RateCards/published.lock" })
        #expect(
            error.items.contains {
                $0.location == SourceLocation(line: line, column: column)
                    && $0.message.contains(message)
            },
            "\(error)")
    }

    @Test func duplicateCardVersionPointsAtTheSecondAndNamesTheFirst() throws {
        let text = """
            {"kind": "lock", "published": [
              {"card": "osg", "version": 10, "file": "osg-v10.json", "sha256": "\(Self.digestA)"},
              {"card": "osg", "version": 10, "file": "osg-v10b.json", "sha256": "\(Self.digestB)"}
            ]}
            """
        let error = try #require(throws: Diagnostics.self) { try load(text) }
        #expect(
            error.items.map(\.rendered) == [
                "RateCards/published.lock:3:3: error: published[1]: osg@10 is recorded twice (first at line 2, column 3)"
            ])
    }

    @Test func outOfOrderEntriesAreAnError() throws {
        let text = """
            {"kind": "lock", "published": [
              {"card": "osg", "version": 10, "file": "osg-v10.json", "sha256": "\(Self.digestA)"},
              {"card": "osg", "version": 9, "file": "osg-v9.json", "sha256": "\(Self.digestB)"}
            ]}
            """
        let error = try #require(throws: Diagnostics.self) { try load(text) }
        #expect(error.items.map(\.location) == [SourceLocation(line: 3, column: 3)])
        #expect(error.items.first?.message.contains("out of order") == true)
    }

    @Test func everyProblemIsCollected() throws {
        let text = """
            {"kind": "lock", "published": [
              {"card": "", "version": 1, "file": "a.json", "sha256": "\(Self.digestA)"},
              {"card": "b", "version": -1, "file": "b.json", "sha256": "xyz"},
              {"card": "c", "file": "c.json", "sha256": "\(Self.digestA)", "extra": 1}
            ]}
            """
        let error = try #require(throws: Diagnostics.self) { try load(text) }
        #expect(
            error.items.map { "\($0.location.line):\($0.location.column)" } == [
                "2:12", "3:28", "3:60", "4:3", "4:113",
            ])
    }

    @Test func verifyFlagsAnEditedPublishedCard() throws {
        let lock = try load(Self.valid)
        #expect(
            lock.verify(
                card: "osg", version: 10, sha256: Self.digestB, path: "RateCards/osg-v10.json",
                at: .start) == nil)
        #expect(
            lock.verify(
                card: "osg", version: 11, sha256: Self.digestA, path: "RateCards/osg-v11.json",
                at: .start) == nil)
        let finding = try #require(
            lock.verify(
                card: "osg", version: 10, sha256: Self.digestA, path: "RateCards/osg-v10.json",
                at: SourceLocation(line: 3, column: 14)))
        #expect(finding.rule?.id == "published-card-edited")
        #expect(finding.severity == .error)
        #expect(finding.message.hasSuffix("publish a new version instead"))
        #expect(
            finding.rendered.hasPrefix(
                "RateCards/osg-v10.json:3:14: error: card osg@10 was published with sha256 bbbbbbbbbbbb…"
            ))
    }

    @Test func addKeepsOrderAndRefusesToOverwrite() throws {
        var lock = try load(Self.valid)
        let v11 = PublishLock.Entry(
            card: "osg", version: 11, file: "osg-v11.json", sha256: Self.digestC)
        #expect(try lock.add(v11, path: "published.lock"))
        let alpha = PublishLock.Entry(
            card: "alpha", version: 3, file: "alpha.json", sha256: Self.digestC)
        #expect(try lock.add(alpha, path: "published.lock"))
        #expect(
            lock.entries.map(\.reference) == ["alpha@3", "osg@9", "osg@10", "osg@11", "voice@1"])
        // The same entry again is a no-op, not an error.
        #expect(try lock.add(v11, path: "published.lock") == false)
        // A different digest for a published version is refused, at the recorded entry.
        let edited = PublishLock.Entry(
            card: "osg", version: 10, file: "osg-v10.json", sha256: Self.digestC)
        let error = try #require(throws: Diagnostic.self) {
            try lock.add(edited, path: "RateCards/published.lock")
        }
        #expect(error.rule?.id == "already-published")
        #expect(error.location == SourceLocation(line: 5, column: 5))
        #expect(error.message.hasSuffix("publish a new version instead"))
        #expect(lock.entry(card: "osg", version: 10)?.sha256 == Self.digestB)
    }

    @Test(arguments: [
        PublishLock.Entry(card: "", version: 1, file: "a.json", sha256: digestA),
        PublishLock.Entry(card: "a", version: 0, file: "a.json", sha256: digestA),
        PublishLock.Entry(card: "a", version: Int(Int32.max) + 1, file: "a.json", sha256: digestA),
        PublishLock.Entry(card: "a", version: 1, file: "../a.json", sha256: digestA),
        PublishLock.Entry(card: "a", version: 1, file: "", sha256: digestA),
        PublishLock.Entry(card: "a", version: 1, file: "a.json", sha256: "ABCD"),
    ])
    func addRejectsMalformedEntries(entry: PublishLock.Entry) {
        var lock = PublishLock()
        #expect(throws: Diagnostic.self) { try lock.add(entry, path: "published.lock") }
        #expect(lock.entries.isEmpty)
    }

    @Test func outputDoesNotDependOnInsertionOrder() throws {
        let entries = [
            PublishLock.Entry(card: "osg", version: 10, file: "osg-v10.json", sha256: Self.digestB),
            PublishLock.Entry(
                card: "voice", version: 1, file: "voice/voice-v1.json", sha256: Self.digestC),
            PublishLock.Entry(card: "osg", version: 9, file: "osg-v9.json", sha256: Self.digestA),
        ]
        var forward = PublishLock()
        for e in entries { try forward.add(e, path: "p") }
        var backward = PublishLock()
        for e in entries.reversed() { try backward.add(e, path: "p") }
        #expect(forward.serialized() == backward.serialized())
        #expect(String(decoding: forward.serialized(), as: UTF8.self) == Self.valid)
    }

    @Test func writesAtomicallyAndReadsBack() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + PublishLock.fileName
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
        let lock = try load(Self.valid)
        try lock.write(to: path)
        #expect(FileManager.default.contents(atPath: path) == Data(Self.valid.utf8))
        #expect(try PublishLock.load(path: path).entries == lock.entries)
        // Only the lock is left: the temporary file was renamed, not copied.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder) == [PublishLock.fileName])
    }

    @Test func unwritableFolderIsADiagnosticNotACrash() throws {
        let path = "/nonexistent-margin-folder/\(UUID().uuidString)/published.lock"
        let error = try #require(throws: Diagnostic.self) { try PublishLock().write(to: path) }
        #expect(error.path == path)
        #expect(error.message.contains("cannot create a temporary file"))
    }

    @Test func missingLockIsAnError() throws {
        let error = try #require(throws: Diagnostics.self) {
            try PublishLock.load(path: "/nonexistent-margin-\(UUID().uuidString).lock")
        }
        #expect(error.items.first?.message.contains("cannot read the publish lock") == true)
    }

    /// The whole flow: a card's digest recorded, the card reformatted (still clean), then
    /// one number edited (flagged).
    @Test func reformattingPassesAndEditingFails() throws {
        let card =
            #"{"id": "osg", "version": 10, "packs": [{"productId": "3000tks", "credits": 3000}]}"#
        let reformatted =
            "{\n  \"version\": 10,\n  \"packs\": [{\"credits\": 3.0e3, \"productId\": \"3000tks\"}],\n  \"id\": \"osg\"\n}\n"
        let edited =
            #"{"id": "osg", "version": 10, "packs": [{"productId": "3000tks", "credits": 3001}]}"#
        var lock = PublishLock()
        try lock.add(
            .init(
                card: "osg", version: 10, file: "osg-v10.json",
                sha256: try CanonicalJSON.sha256(ofFile: Array(card.utf8), path: "osg-v10.json")),
            path: "published.lock")
        let clean = try CanonicalJSON.sha256(ofFile: Array(reformatted.utf8), path: "osg-v10.json")
        #expect(
            lock.verify(card: "osg", version: 10, sha256: clean, path: "osg-v10.json", at: .start)
                == nil)
        let dirty = try CanonicalJSON.sha256(ofFile: Array(edited.utf8), path: "osg-v10.json")
        #expect(
            lock.verify(card: "osg", version: 10, sha256: dirty, path: "osg-v10.json", at: .start)?
                .rule?.id == "published-card-edited")
    }
}
