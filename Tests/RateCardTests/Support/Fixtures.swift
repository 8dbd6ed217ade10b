import Foundation
import Testing

@testable import RateCard

/// The package root, found from this file's place in `Tests/RateCardTests/Support/`.
let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The repository's own rate-card folder.
let repositoryCards = packageRoot.appendingPathComponent("RateCards").path

/// Loads a repository from in-memory files (path → JSON text).
func repository(_ files: [String: String]) throws -> CardRepository {
    var loaded: [(path: String, file: CardFile)] = []
    for path in files.keys.sorted() {
        loaded.append((path, try CardFileLoader.load(bytes: Array(files[path]!.utf8), path: path)))
    }
    return try CardRepository.assemble(loaded)
}

/// The diagnostics loading `text` as `path` produces (empty when it loads).
func loadDiagnostics(_ text: String, path: String = "card.json") -> [Diagnostic] {
    do {
        _ = try CardFileLoader.load(bytes: Array(text.utf8), path: path)
        return []
    } catch {
        return error.items
    }
}

func exact(_ s: String) -> Exact { try! Exact(decimal: s) }

/// A temporary folder, removed by the caller with `cleanup()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "margin-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    func write(_ name: String, _ text: String) throws {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    /// Copies the repository's `RateCards/` into `name` here.
    func copyRepositoryCards(as name: String = "RateCards") throws -> String {
        let dest = url.appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: repositoryCards, toPath: dest.path)
        return dest.path
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: url)
    }
}
