import Foundation

@testable import RateCard

/// The `Fixtures/diff` folder copied into a fresh temporary folder, removed afterwards.
final class DiffFixtureFolder {
    /// `Tests/RateCardTests/Fixtures/diff` in the source tree (never written to).
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/diff").path

    let root: String
    /// The copied rate-card folder: both card versions, provider sheets, FX, commission.
    var cards: String { root + "/cards" }

    init() throws {
        root = NSTemporaryDirectory() + "margin-diff-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DiffFixtureFolder.source, toPath: cards)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func repository() throws -> CardRepository { try CardRepository.load(paths: [cards]) }

    /// Writes a copy of a fixture card outside the card folder, with text replaced.
    func variant(of name: String, as newName: String, replacing pairs: [(String, String)]) throws
        -> String
    {
        var text = try String(contentsOfFile: cards + "/" + name, encoding: .utf8)
        for (a, b) in pairs {
            precondition(text.contains(a), "fixture \(name) has no \(a)")
            text = text.replacingOccurrences(of: a, with: b)
        }
        let path = root + "/" + newName
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The diff of osg@10 → osg@11 of the fixture folder.
    static func v10v11(rates: [Exact]? = nil) throws -> CardDiff {
        let folder = try DiffFixtureFolder()
        let repo = try folder.repository()
        return try CardDiff(
            old: repo.card(reference: "osg@10")!, new: repo.card(reference: "osg@11")!,
            repository: repo, rates: rates)
    }
}
