import Foundation
import Testing

@testable import RateCard

/// The repository's real rate cards, temporary copies of them, and the built `margin` binary.
enum ReportFixtures {
    /// The package root, derived from this file's path.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Report, RateCardTests, Tests, file
        return url.path
    }()

    static var cardsDirectory: String { packageRoot + "/RateCards" }
    static var reportsDirectory: String { packageRoot + "/Reports" }

    /// The real cards' report set, generated in memory.
    static func realSet() throws -> ReportSet {
        try ReportSet(
            repository: CardRepository.load(paths: [cardsDirectory]), cardsDirectory: cardsDirectory
        )
    }

    static func text(_ set: ReportSet, _ name: String) throws -> String {
        let file = try #require(set.files.first { $0.name == name })
        return String(decoding: file.bytes, as: UTF8.self)
    }

    /// A new temporary folder holding a copy of `RateCards/`; removed by `cleanUp`.
    static func temporaryCopy() throws -> String {
        let root = NSTemporaryDirectory() + "margin-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cardsDirectory, toPath: root + "/RateCards")
        return root
    }

    static func cleanUp(_ root: String) {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The built `margin` executable: beside the test bundle, else `.build/debug/margin`.
    static func marginBinary() throws -> String {
        var candidates: [String] = []
        for url in [Bundle.main.executableURL, Bundle.main.bundleURL].compactMap({ $0 }) {
            candidates.append(url.deletingLastPathComponent().appendingPathComponent("margin").path)
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(
                bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("margin").path)
        }
        candidates.append(packageRoot + "/.build/debug/margin")
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "no built margin binary among \(candidates)")
    }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `margin` with `arguments` in `directory`; reads both pipes before waiting.
    static func margin(_ arguments: [String], in directory: String) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try marginBinary())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errData = DispatchQueue(label: "stderr")
        nonisolated(unsafe) var errBytes = Data()
        let group = DispatchGroup()
        errData.async(group: group) { errBytes = err.fileHandleForReading.readDataToEndOfFile() }
        let outBytes = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outBytes, as: UTF8.self),
            stderr: String(decoding: errBytes, as: UTF8.self))
    }

    static func files(in directory: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            out[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return out
    }

    /// Replaces the first occurrence of `old` in the file at `path`.
    static func edit(_ path: String, replacing old: String, with new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let range = try #require(text.range(of: old), "\(old) not in \(path)")
        try text.replacingCharacters(in: range, with: new).write(
            toFile: path, atomically: true, encoding: .utf8)
    }
}
