import Foundation

/// The publish-lock rules: a published card never changes, never disappears, and every
/// card is published before it ships.
extension CardChecker {
    /// `published-card-edited`, `published-card-missing`, `unpublished-card` and
    /// `lock-missing`. A lock that cannot be read or parsed is a load problem (exit 2), and so
    /// is a lock named explicitly (`--lock`) that does not exist: a mistyped path must never
    /// switch the guard off. With no lock at the default place, cards not yet in force are
    /// drafts (warnings), but a card already in force at `now` is an error: it is live, so
    /// its content must be frozen.
    static func lockFindings(
        _ cards: [LoadedCard], loaded: [LoadedFile], lockPath: String, explicit: Bool,
        now: Timestamp,
        problems: inout [Diagnostic]
    ) -> [Diagnostic] {
        var out: [Diagnostic] = []
        guard FileManager.default.fileExists(atPath: lockPath) else {
            if explicit {
                problems.append(
                    Diagnostic(
                        path: lockPath,
                        message:
                            "the lock file given with --lock does not exist: without it no published card is guarded against edits; check the path (the first 'margin publish' creates a lock)"
                    ))
                return out
            }
            for c in cards {
                if now < c.card.effective {
                    out.append(
                        Diagnostic(
                            path: c.file.path, location: c.versionLocation, severity: .warning,
                            message:
                                "card \(c.card.reference) is not published (there is no lock file \(lockPath) yet); run 'margin publish \(c.file.path)' once it is final",
                            rule: .check(.unpublishedCard)))
                } else {
                    out.append(
                        Diagnostic(
                            path: c.file.path, location: c.versionLocation,
                            message:
                                "card \(c.card.reference) is in force since \(c.card.effective.rfc3339UTC) but there is no lock file \(lockPath): nothing stops an edit of a live card; run 'margin publish \(c.file.path)' and commit the lock (or pass --lock PATH)",
                            rule: .check(.lockMissing)))
                }
            }
            return out
        }
        let lock: PublishLock
        do {
            lock = try PublishLock.load(path: lockPath)
        } catch {
            problems.append(contentsOf: error.items)
            return out
        }

        for c in cards {
            guard lock.entry(card: c.card.id, version: c.card.version) != nil else {
                out.append(
                    Diagnostic(
                        path: c.file.path, location: c.versionLocation, severity: .warning,
                        message:
                            "card \(c.card.reference) is not published in \(lockPath); run 'margin publish \(c.file.path)' once it is final",
                        rule: .check(.unpublishedCard)))
                continue
            }
            do {
                let digest = try CanonicalJSON.sha256(ofFile: c.file.bytes, path: c.file.path)
                if let finding = lock.verify(
                    card: c.card.id, version: c.card.version, sha256: digest, path: c.file.path,
                    at: c.versionLocation)
                {
                    out.append(finding)
                }
            } catch {
                problems.append(error)
            }
        }

        // Every published version stays in its file: history is priced by it.
        let lockFolder = FilePath.folder(of: lockPath)
        var loadedByPath: [String: LoadedFile] = [:]
        for file in loaded { loadedByPath[FilePath.canonical(file.path)] = file }
        for entry in lock.entries {
            let file = FilePath.join(lockFolder, entry.file)
            let location = lock.location(card: entry.card, version: entry.version) ?? .start
            guard FileManager.default.fileExists(atPath: file) else {
                out.append(
                    Diagnostic(
                        path: lockPath, location: location,
                        message:
                            "card \(entry.reference) is published as \(entry.file) but that file is gone: a published version stays in the folder (history is priced by it); restore it and publish a new version instead",
                        rule: .check(.publishedCardMissing)))
                continue
            }
            guard let now = loadedByPath[FilePath.canonical(file)] else { continue }
            let holds: String
            if case .card(let card) = now.content {
                if card.id == entry.card && card.version == entry.version { continue }
                holds = "now holds \(card.reference)"
            } else {
                holds = "no longer holds a card"
            }
            out.append(
                Diagnostic(
                    path: now.path, location: now.root["version"]?.location ?? now.root.location,
                    message:
                        "\(entry.file) was published as \(entry.reference) but \(holds): a published card never changes; restore it and publish a new version in a new file instead",
                    rule: .check(.publishedCardEdited)))
        }
        return out
    }
}
