import Foundation

/// `margin publish`: records a card version's canonical digest in the publish lock, after
/// which `margin check` fails on any edit of that version.
enum CardPublisher {
    /// What publishing did.
    enum Outcome: Sendable, Hashable {
        /// The entry was added and the lock written.
        case recorded(PublishLock.Entry)
        /// The identical entry was already there; nothing was written.
        case alreadyRecorded(PublishLock.Entry)
    }

    /// Why a card was not published.
    enum Failure: DiagnosedError, Sendable, Hashable {
        /// The card may not be published as it is (exit 1): the version is already
        /// published with other content, or the card has error findings.
        case refused([Diagnostic])
        /// The card or the lock cannot be read, or the card is not in the lock's folder
        /// (exit 2).
        case unreadable([Diagnostic])

        var diagnostics: [Diagnostic] {
            switch self {
            case .refused(let d), .unreadable(let d): d.sorted()
            }
        }

        var summary: String? {
            if case .refused = self { return "the card was not published" }
            return nil
        }

        var failureClass: FailureClass {
            if case .refused = self { return .findings }
            return .unreadable
        }
    }

    /// Publishes the card file `cardPath`: checks it (with the rest of `cardsDirectory`,
    /// which the family rules need), refuses it when any rule other than the lock's finds an
    /// error in it, and records `card@version`, its file relative to the lock's folder and
    /// its SHA-256 in the lock at `lockPath`, written atomically. A published version is
    /// never overwritten.
    /// `options` carries what the check of the card uses besides the files (`--fx`,
    /// `--commission`, `--tax`); its lock path is replaced by `lockPath`.
    static func publish(
        cardPath: String, cardsDirectory: String, lockPath: String,
        options: CardChecker.Options = .init()
    ) throws(Failure) -> Outcome {
        let file: CardChecker.LoadedFile
        do { file = try CardChecker.read(cardPath) } catch { throw .unreadable(error.items) }
        guard case .card(let card) = file.content else {
            throw .unreadable([
                Diagnostic(
                    path: cardPath,
                    message:
                        "not a rate card (only cards are published; provider, FX and commission files are not)"
                )
            ])
        }
        let versionLocation = file.root["version"]?.location ?? file.root.location

        let lockFolder = FilePath.canonical(FilePath.folder(of: lockPath))
        let absolute = FilePath.canonical(cardPath)
        let prefix = lockFolder.hasSuffix("/") ? lockFolder : lockFolder + "/"
        guard absolute.hasPrefix(prefix) else {
            throw .unreadable([
                Diagnostic(
                    path: cardPath,
                    message:
                        "the card must be in the lock's folder \(FilePath.folder(of: lockPath)) (or below it) so that the lock can name it; pass --lock or --cards"
                )
            ])
        }
        let relative = String(absolute.dropFirst(prefix.count))

        let digest: String
        do { digest = try CanonicalJSON.sha256(ofFile: file.bytes, path: cardPath) } catch {
            throw .unreadable([error])
        }
        var lock = PublishLock()
        if FileManager.default.fileExists(atPath: lockPath) {
            do { lock = try PublishLock.load(path: lockPath) } catch {
                throw .unreadable(error.items)
            }
        }
        let entry = PublishLock.Entry(
            card: card.id, version: card.version, file: relative, sha256: digest)
        if let existing = lock.entry(card: card.id, version: card.version) {
            if existing == entry { return .alreadyRecorded(entry) }
            if existing.sha256 != digest {
                throw .refused([
                    Diagnostic(
                        path: cardPath, location: versionLocation,
                        message:
                            "card \(card.reference) is already published with a different digest; publish a new version instead",
                        rule: .check(.alreadyPublished))
                ])
            }
        }

        // The card must pass every content rule before it is frozen.
        var checkOptions = options
        checkOptions.lockPath = lockPath
        let report = CardChecker.check(paths: [cardsDirectory, cardPath], options: checkOptions)
        let blocking = report.diagnostics.filter { d in
            d.severity == .error && FilePath.canonical(d.path) == absolute
                && !d.isLockRule
        }
        if !blocking.isEmpty { throw .refused(blocking) }

        do {
            try lock.add(entry, path: lockPath)
        } catch {
            throw .refused([error])
        }
        do { try lock.write(to: lockPath) } catch { throw .unreadable([error]) }
        return .recorded(entry)
    }
}

extension Diagnostic {
    /// Whether it reports one of `CheckRule.lockRules`.
    fileprivate var isLockRule: Bool {
        if case .check(let rule) = rule { CheckRule.lockRules.contains(rule) } else { false }
    }
}
