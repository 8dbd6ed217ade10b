import Foundation

/// `margin check`: runs every rule over a set of rate-card files and collects every
/// finding before anything is reported.
///
/// The rules and their ids are listed in `CheckRule` and documented in `docs/check.md`.
/// Each finding points at the JSON value that is wrong (the `credits` number, the price's
/// `amount`, the card's `version`), so an editor or CI annotation lands on it.
///
/// Files that cannot be read, parsed or loaded are reported as rule-less diagnostics and
/// make the report `unreadable` (exit 2); the rules still run over every file that loaded,
/// except those that need the whole repository (free usage, margins) when a file is missing
/// from it.
enum CardChecker {
    /// What to check besides the files themselves.
    struct Options: Sendable, Hashable {
        /// The lowest acceptable worst-case margin, as a share of the pack price, at the
        /// highest commission rate: 0 (the default) means "never a loss", 0.2 means 20%.
        var minMargin: Exact = .zero
        /// An Xcode StoreKit configuration file to compare with the newest card's packs.
        var storeKitPath: String? = nil
        /// The publish lock; nil for `defaultLockPath(for:)`. A lock named here must exist.
        var lockPath: String? = nil
        /// The time "in force now" is judged at: which versions the margin floor applies to
        /// and whether a card with no lock file is already live. Nil: the current time.
        var now: Timestamp? = nil
        /// Apply the margin floor to every version, also those a newer version has replaced
        /// (`--all-versions`). By default only the version in force at `now` and later ones.
        var allVersions = false
        /// FX rates given on the command line (`--fx`), replacing the file's for the same pair.
        var fxOverrides: [FXRate] = []
        /// Commission rates for every currency (`--commission`), instead of the commission file.
        var commissionRates: [Exact]? = nil
        /// Sales-tax rates removed from tax-inclusive prices before commission (`--tax`).
        var taxRates: [Currency: Exact] = [:]
        /// More StoreKit configuration files (`--storekit` is repeatable); each is compared
        /// on its own. `storeKitPath`, when set, comes first.
        var storeKitPaths: [String] = []
        /// StoreKit product ids that are not packs (a voluntary tip), besides those a card
        /// lists in `storeKitIgnore`: never compared with the packs.
        var storeKitIgnore: Set<String> = []
        /// Apple's price points, the date and the program of the storefront rules; nil:
        /// storefronts are not checked.
        var storefronts: StorefrontArguments? = nil

        /// Every StoreKit file to compare, each once, in the order given.
        var allStoreKitPaths: [String] {
            var out: [String] = []
            for p in (storeKitPath.map { [$0] } ?? []) + storeKitPaths where !out.contains(p) {
                out.append(p)
            }
            return out
        }

        /// `now`, or the current time.
        var instant: Timestamp { now ?? Timestamp(seconds: Int64(Date().timeIntervalSince1970)) }
    }

    /// One file as read: its bytes (for the digest), its JSON (for locations) and what it holds.
    struct LoadedFile {
        let path: String
        let bytes: [UInt8]
        let root: JSONNode
        let content: CardFile
    }

    /// A card with the file it came from.
    struct LoadedCard {
        let card: RateCard
        let file: LoadedFile

        /// Where the card's `version` value is written: where findings about the card as a
        /// whole point.
        var versionLocation: SourceLocation { file.root["version"]?.location ?? file.root.location }
    }

    /// `published.lock` in the first path when it is a folder, else beside the first file;
    /// `RateCards/published.lock` when no path is given.
    static func defaultLockPath(for paths: [String]) -> String {
        let first = paths.first ?? "RateCards"
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: first, isDirectory: &isDir), isDir.boolValue {
            return FilePath.join(first, PublishLock.fileName)
        }
        return FilePath.join(FilePath.folder(of: first), PublishLock.fileName)
    }

    /// Checks every `*.json` file under `paths` (files or folders, recursively).
    static func check(paths: [String], options: Options = Options()) -> CheckReport {
        var findings: [Diagnostic] = []
        var problems: [Diagnostic] = []
        let files = enumerate(paths, problems: &problems)
        var loaded: [LoadedFile] = []
        for path in files {
            do { loaded.append(try read(path)) } catch { problems.append(contentsOf: error.items) }
        }

        // One file per card version; a second one is a finding, and is left out of the rest.
        var cards: [LoadedCard] = []
        var assemblyInput: [(path: String, file: CardFile)] = []
        for file in loaded {
            if case .card(let card) = file.content {
                let entry = LoadedCard(card: card, file: file)
                if let first = cards.first(where: {
                    $0.card.id == card.id && $0.card.version == card.version
                }) {
                    findings.append(
                        Diagnostic(
                            path: file.path, location: entry.versionLocation,
                            message:
                                "card \(card.reference) is already defined in \(first.file.path): each version is one file, and a change is a new version",
                            rule: .check(.versionOrder)))
                    continue
                }
                cards.append(entry)
            }
            assemblyInput.append((file.path, file.content))
        }

        for card in cards { findings.append(contentsOf: cardFindings(card)) }
        for card in cards { findings.append(contentsOf: planFindings(card)) }
        findings.append(contentsOf: familyFindings(cards))
        for file in loaded {
            if case .provider(let sheet) = file.content {
                findings.append(contentsOf: scheduleFindings(sheet, path: file.path))
            }
        }
        let lockPath = options.lockPath ?? defaultLockPath(for: paths)
        // A lock that cannot be read is unreadable input, but it does not keep the rules that
        // need the whole repository from running.
        var lockProblems: [Diagnostic] = []
        findings.append(
            contentsOf: lockFindings(
                cards, loaded: loaded, lockPath: lockPath, explicit: options.lockPath != nil,
                now: options.instant, problems: &lockProblems))

        // Free usage and margins need every provider sheet and the FX table: only when
        // everything loaded.
        if problems.isEmpty {
            do {
                let repository = try CardRepository.assemble(assemblyInput, files: files)
                let floored = flooredVersions(cards, options: options)
                for card in cards {
                    findings.append(
                        contentsOf: worstCaseFindings(
                            card, repository: repository, options: options,
                            applyFloor: floored.contains(card.card.reference)))
                    findings.append(
                        contentsOf: planMarginFindings(
                            card, repository: repository, options: options,
                            applyFloor: floored.contains(card.card.reference)))
                }
                if let arguments = options.storefronts {
                    do {
                        let lists = try ApplePriceList.load(arguments.bindings)
                        findings.append(
                            contentsOf: storefrontFindings(
                                cards, repository: repository, lists: lists, arguments: arguments,
                                floor: options.minMargin,
                                fx: repository.fx.overriding(with: options.fxOverrides)))
                    } catch {
                        problems.append(contentsOf: error.items)
                    }
                }
            } catch {
                problems.append(contentsOf: error.items)
            }
        }
        problems.append(contentsOf: lockProblems)
        for storeKitPath in options.allStoreKitPaths {
            findings.append(
                contentsOf: storeKitFindings(
                    storeKitPath, cards: cards, ignore: options.storeKitIgnore, problems: &problems)
            )
            findings.append(
                contentsOf: storeKitSubscriptionFindings(
                    storeKitPath, cards: cards, ignore: options.storeKitIgnore, problems: &problems)
            )
        }
        return CheckReport(
            diagnostics: findings + problems, files: files, unreadable: !problems.isEmpty)
    }

    /// The references of the versions the margin floor applies to: per card id, the
    /// version in force at `now` (the newest one already effective) and every later one;
    /// every version with `allVersions`. A superseded published version can be neither
    /// edited nor removed, so a floor on it could never pass again.
    static func flooredVersions(_ cards: [LoadedCard], options: Options) -> Set<String> {
        if options.allVersions { return Set(cards.map(\.card.reference)) }
        let now = options.instant
        var out = Set<String>()
        for id in Set(cards.map(\.card.id)) {
            let versions = cards.map(\.card).filter { $0.id == id }.sorted {
                $0.version < $1.version
            }
            let inForce = versions.last { !(now < $0.effective) }
            for v in versions where inForce.map({ v.version >= $0.version }) ?? true {
                out.insert(v.reference)
            }
        }
        return out
    }

    // MARK: Reading

    /// Every `*.json` file under `paths`, sorted, each once (however it was spelt).
    static func enumerate(_ paths: [String], problems: inout [Diagnostic]) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                problems.append(Diagnostic(path: path, message: "no such file or folder"))
                continue
            }
            if isDir.boolValue {
                let found =
                    (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".json") }
                    .sorted()
                files.append(contentsOf: found.map { FilePath.join(path, $0) })
            } else {
                files.append(path)
            }
        }
        // The same file named twice (`RateCards/x.json`, `./RateCards/x.json`) is read once.
        var seen = Set<String>()
        return files.sorted().filter { seen.insert(FilePath.canonical($0)).inserted }
    }

    static func read(_ path: String) throws(Diagnostics) -> LoadedFile {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the file") } catch {
            throw Diagnostics([error])
        }
        let root = try JSONParser.parseDocument(bytes, path: path)
        let content = try CardFileLoader.load(root: root, path: path)
        return LoadedFile(path: path, bytes: bytes, root: root, content: content)
    }
}

extension JSONNode {
    /// The `index`th element when this is an array.
    subscript(index: Int) -> JSONNode? {
        guard case .array(let items) = value, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

extension CardChecker.Options {
    /// The margin floor from `--min-margin` text: a percentage, "20" or "20%" (0.2), from
    /// -100 to 100; negative floors allow a bounded worst-case loss.
    static func marginFloor(percent text: String) throws(UsageError) -> Exact {
        var s = Substring(text)
        if s.hasSuffix("%") { s = s.dropLast() }
        guard let value = try? Exact(decimal: s), let share = try? value.divided(by: Exact(100)),
            !(share < Exact(-1)), !(Exact.one < share)
        else {
            throw UsageError(
                "--min-margin \(text): expected a percentage from -100 to 100, e.g. 20 or 20%")
        }
        return share
    }
}
