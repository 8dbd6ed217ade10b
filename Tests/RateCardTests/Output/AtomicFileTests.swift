import Foundation
import Testing

@testable import RateCard

@Suite("AtomicFile")
struct AtomicFileTests {
    /// A fresh folder for one test, removed afterwards.
    final class Folder {
        let path = NSTemporaryDirectory() + "atomic-file-\(UUID().uuidString)"
        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var entries: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }
    }

    /// File content named by its size, so that `swift test` does not print 3 MB of bytes.
    struct Content: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        var testDescription: String { "\(bytes.count) bytes" }
    }

    @Test(arguments: [
        Content(bytes: []), Content(bytes: Array("hello\n".utf8)),
        Content(bytes: Array(repeating: UInt8(ascii: "x"), count: 3_000_000)),
    ])
    func writesTheBytesAndLeavesNoTemporaryFile(content: Content) throws {
        let bytes = content.bytes
        let folder = try Folder()
        let path = folder.path + "/report.md"
        try AtomicFile.write(bytes, to: path)
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        #expect(folder.entries == ["report.md"])
    }

    @Test func replacesAnExistingFileAndKeepsItsMode() throws {
        let folder = try Folder()
        let path = folder.path + "/chart.svg"
        try AtomicFile.write(Array("old, longer content".utf8), to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(folder.entries == ["chart.svg"])
    }

    @Test func missingFolderIsAnErrorNamingThePath() throws {
        let folder = try Folder()
        let path = folder.path + "/no-such-folder/report.md"
        let error = #expect(throws: AtomicFileError.self) {
            try AtomicFile.write([1, 2, 3], to: path)
        }
        let message = try #require(error).description
        #expect(message.hasPrefix("cannot write '\(path)': "))
        #expect(message.contains("no such file or directory"))
    }

    @Test func aDirectoryIsNeverReplaced() throws {
        let folder = try Folder()
        let path = folder.path + "/Reports"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = #expect(throws: AtomicFileError.self) { try AtomicFile.write([1], to: path) }
        #expect(error?.description == "cannot write '\(path)': it is a directory")
        #expect(folder.entries == ["Reports"])
    }

    @Test(arguments: [
        ("a/b/c.md", "a/b", "c.md"), ("c.md", ".", "c.md"), ("/c.md", "/", "c.md"),
        ("./c.md", ".", "c.md"),
    ])
    func splitsPaths(path: String, directory: String, name: String) {
        #expect(AtomicFile.directoryName(of: path) == directory)
        #expect(AtomicFile.baseName(of: path) == name)
    }
}
