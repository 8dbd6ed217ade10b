#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record of every published rate-card version: `RateCards/published.lock`.
///
/// Each entry pins a card version to the SHA-256 of its canonical content
/// (`CanonicalJSON`), so that `margin check` can tell an edit of a published card from a
/// reformatting, and `margin publish` can refuse to record a version twice. The file is
/// JSON written one entry per line, sorted by card id (UTF-8 byte order) then version, so
/// a publish shows in a pull request as one added line:
///
/// ```json
/// {
///   "kind": "lock",
///   "published": [
///     {"card": "osg", "version": 10, "file": "osg-v10.json", "sha256": "9f86d0…"}
///   ]
/// }
/// ```
///
/// `file` is the card's path relative to the lock file's folder.
struct PublishLock: Sendable {
    /// The lock's file name, beside the cards.
    static let fileName = "published.lock"

    /// One published card version.
    struct Entry: Sendable, Hashable {
        /// The card id (e.g. "osg").
        let card: String
        /// The published version, 1 or more.
        let version: Int
        /// The card file, relative to the lock file's folder (e.g. "osg-v10.json").
        let file: String
        /// SHA-256 of the card's canonical JSON, 64 lowercase hex digits.
        let sha256: String

        init(card: String, version: Int, file: String, sha256: String) {
            self.card = card
            self.version = version
            self.file = file
            self.sha256 = sha256
        }

        /// "osg@10"
        var reference: String { "\(card)@\(version)" }

        fileprivate var key: Key { Key(card: card, version: version) }
    }

    fileprivate struct Key: Hashable, Sendable {
        let card: String
        let version: Int
    }

    /// The entries in file order: by card id (UTF-8 byte order), then version.
    private(set) var entries: [Entry]
    /// Where each loaded entry was written, for messages that point into the lock.
    private var locations: [Key: SourceLocation]

    /// An empty lock: nothing published yet.
    init() {
        entries = []
        locations = [:]
    }

    /// The entry recorded for `card` at `version`, if that version is published.
    func entry(card: String, version: Int) -> Entry? {
        entries.first { $0.card == card && $0.version == version }
    }

    /// Where the entry for `card`@`version` is written in the loaded lock file, if it was
    /// loaded from one.
    func location(card: String, version: Int) -> SourceLocation? {
        locations[Key(card: card, version: version)]
    }

    // MARK: Verifying

    /// A finding when `card`@`version` is published with a different digest than
    /// `sha256`, the digest of the card's current content; nil when it matches or the
    /// version was never published (a draft may still change).
    ///
    /// The finding is rule `published-card-edited`, located at `location` in the card
    /// file `path` (its `version` field is a good place).
    func verify(
        card: String, version: Int, sha256: String, path: String, at location: SourceLocation
    ) -> Diagnostic? {
        guard let recorded = entry(card: card, version: version),
            recorded.sha256 != sha256.lowercased()
        else { return nil }
        return Diagnostic(
            path: path, location: location,
            message:
                "card \(recorded.reference) was published with sha256 \(recorded.sha256.prefix(12))… but its content now hashes to \(sha256.lowercased().prefix(12))…; a published card never changes: publish a new version instead",
            rule: .check(.publishedCardEdited))
    }

    // MARK: Publishing

    /// Records `entry`, keeping the entries sorted.
    ///
    /// Returns false, changing nothing, when the identical entry is already recorded (a
    /// publish run twice). Throws a diagnostic with rule `already-published`, located at
    /// the existing entry in the lock file `path`, when the version is recorded with a
    /// different digest or file: a published version is never overwritten.
    @discardableResult
    mutating func add(_ entry: Entry, path: String) throws(Diagnostic) -> Bool {
        if let existing = self.entry(card: entry.card, version: entry.version) {
            if existing == entry { return false }
            throw Diagnostic(
                path: path, location: locations[entry.key] ?? .start,
                message:
                    "card \(entry.reference) is already published (sha256 \(existing.sha256.prefix(12))…, file \(existing.file)); publish a new version instead",
                rule: .check(.alreadyPublished))
        }
        if let problem = PublishLock.problem(with: entry) {
            throw Diagnostic(path: path, message: "cannot record \(entry.reference): \(problem)")
        }
        let index = entries.firstIndex { PublishLock.precedes(entry, $0) } ?? entries.endIndex
        entries.insert(entry, at: index)
        return true
    }

    /// What is wrong with an entry's fields, if anything.
    private static func problem(with entry: Entry) -> String? {
        if entry.card.isEmpty { return "the card id is empty" }
        if entry.version < 1 || entry.version > Int(Int32.max) {
            return "the version must be between 1 and \(Int32.max)"
        }
        if let problem = fileProblem(entry.file) { return problem }
        if !isDigest(entry.sha256) { return "sha256 must be 64 lowercase hex digits" }
        return nil
    }

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if a.card != b.card { return a.card.utf8.lexicographicallyPrecedes(b.card.utf8) }
        return a.version < b.version
    }

    // MARK: Writing

    /// The file's bytes: deterministic, one entry per line, keys in a fixed order, ending
    /// with a newline.
    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        func text(_ s: String) { out.append(contentsOf: s.utf8) }
        func quoted(_ s: String) { CanonicalJSON.writeString(s, to: &out) }
        text("{\n  \"kind\": \"lock\",\n  \"published\": [")
        for (i, e) in entries.enumerated() {
            text(i == 0 ? "\n    {\"card\": " : ",\n    {\"card\": ")
            quoted(e.card)
            text(", \"version\": \(e.version), \"file\": ")
            quoted(e.file)
            text(", \"sha256\": ")
            quoted(e.sha256)
            text("}")
        }
        text(entries.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return out
    }

    /// Writes the lock to `path` atomically: the bytes go to a temporary file in the same
    /// folder, are flushed to disk, and the temporary file is renamed over `path`, so a
    /// reader sees the old lock or the new one, never half of one.
    func write(to path: String) throws(Diagnostic) {
        let bytes = serialized()
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        var template = Array((folder + ".\(PublishLock.fileName).XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw Diagnostic(
                path: path,
                message:
                    "cannot create a temporary file in \(folder.isEmpty ? "." : folder): \(FileBytes.reason())"
            )
        }
        let temporary = String(
            decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String?
        _ = fchmod(fd, 0o644)
        var written = 0
        while written < bytes.count, failure == nil {
            let n = bytes.withUnsafeBytes {
                systemWrite(fd, $0.baseAddress! + written, bytes.count - written)
            }
            if n > 0 {
                written += n
            } else if n < 0, errno != EINTR {
                failure = "cannot write \(temporary): \(FileBytes.reason())"
            }
        }
        if failure == nil, fsync(fd) != 0 {
            failure = "cannot flush \(temporary): \(FileBytes.reason())"
        }
        if close(fd) != 0, failure == nil {
            failure = "cannot close \(temporary): \(FileBytes.reason())"
        }
        if failure == nil, rename(temporary, path) != 0 {
            failure = "cannot rename \(temporary) to \(path): \(FileBytes.reason())"
        }
        if let failure {
            _ = unlink(temporary)
            throw Diagnostic(path: path, message: failure)
        }
    }

    // MARK: Loading

    /// Reads and checks the lock file at `path`. A missing or unreadable file is an error:
    /// a lock that silently disappeared would let any published card change.
    static func load(path: String) throws(Diagnostics) -> PublishLock {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the publish lock") } catch {
            throw Diagnostics([error])
        }
        return try load(bytes: bytes, path: path)
    }

    /// Parses and checks lock-file bytes read from `path`, collecting every problem:
    /// wrong types, missing or unknown fields, malformed digests, a card version recorded
    /// twice, entries out of order.
    static func load(bytes: [UInt8], path: String) throws(Diagnostics) -> PublishLock {
        let root = try JSONParser.parseDocument(bytes, path: path)
        guard case .object = root.value else {
            throw Diagnostics([
                Diagnostic(
                    path: path, location: root.location,
                    message: "expected a JSON object at the top level, found \(root.value.kindName)"
                )
            ])
        }
        let reader = FieldReader(path: path)
        var lock = PublishLock()
        if let top = reader.object(root, "", allowed: ["kind", "published"]) {
            if let kindNode = reader.required(top, "kind", in: "", at: root.location),
                let kind = reader.string(kindNode, "kind"), kind != "lock"
            {
                reader.error("kind: expected \"lock\", found \"\(kind)\"", at: kindNode.location)
            }
            if let listNode = reader.required(top, "published", in: "", at: root.location),
                let list = reader.array(listNode, "published")
            {
                var previous: Entry?
                for (i, node) in list.enumerated() {
                    let field = "published[\(i)]"
                    guard let entry = readEntry(node, field, reader) else { continue }
                    if let first = lock.locations[entry.key] {
                        reader.error(
                            "\(field): \(entry.reference) is recorded twice (first at line \(first.line), column \(first.column))",
                            at: node.location)
                        continue
                    }
                    if let previous, !precedes(previous, entry) {
                        reader.error(
                            "\(field): \(entry.reference) is out of order: entries are sorted by card, then version (after \(previous.reference))",
                            at: node.location)
                    }
                    lock.locations[entry.key] = node.location
                    lock.entries.append(entry)
                    previous = entry
                }
                lock.entries.sort(by: precedes)
            }
        }
        guard reader.diagnostics.isEmpty else { throw Diagnostics(reader.diagnostics) }
        return lock
    }

    private static func readEntry(_ node: JSONNode, _ field: String, _ reader: FieldReader)
        -> Entry?
    {
        guard let m = reader.object(node, field, allowed: ["card", "version", "file", "sha256"])
        else { return nil }
        var card: String?
        var version: Int?
        var file: String?
        var sha256: String?
        if let n = reader.required(m, "card", in: field, at: node.location) {
            card = reader.nonEmptyString(n, "\(field).card")
        }
        if let n = reader.required(m, "version", in: field, at: node.location),
            let v = reader.integer(n, "\(field).version", range: 1...Int128(Int32.max))
        {
            version = Int(v)
        }
        if let n = reader.required(m, "file", in: field, at: node.location),
            let s = reader.string(n, "\(field).file")
        {
            if let problem = fileProblem(s) {
                reader.error("\(field).file: \(problem)", at: n.location)
            } else {
                file = s
            }
        }
        if let n = reader.required(m, "sha256", in: field, at: node.location),
            let s = reader.string(n, "\(field).sha256")
        {
            if isDigest(s) {
                sha256 = s
            } else {
                reader.error(
                    "\(field).sha256: \"\(s.prefix(80))\" is not a SHA-256 digest (64 lowercase hex digits)",
                    at: n.location)
            }
        }
        guard let card, let version, let file, let sha256 else { return nil }
        return Entry(card: card, version: version, file: file, sha256: sha256)
    }

    private static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64
            && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func fileProblem(_ file: String) -> String? {
        if file.isEmpty { return "must not be empty" }
        if file.hasPrefix("/") {
            return "must be relative to the lock file's folder, not an absolute path"
        }
        if file.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
            return "must not leave the lock file's folder (\"..\")"
        }
        return nil
    }
}

/// POSIX `write`, under a name that `PublishLock.write(to:)` does not shadow.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
