/// Tells the format of an input from its first bytes.
///
/// - first non-blank byte `{`: if the first line is one object with a `rollup` member,
///   roll-up JSON Lines; with an `entries` array and nothing else after it nor entry
///   fields of its own (or when the first line is not a whole object but the start of
///   one that opens an `"entries": [` array), a device ledger document; otherwise JSON
///   Lines (malformed lines are then rejected one by one). When it could be either (an
///   `entries` array on a first line that other lines follow, or beside `id`, `at`,
///   `kind`, `amount`), detection stops with an error asking for `--input-format`, since
///   a wrong guess loses entries;
/// - otherwise a CSV header row: with a `period` column, a roll-up CSV; with `id` or
///   `kind`, a ledger CSV.
/// - empty input: JSON Lines with no lines.
enum TakingsFormatDetector {
    /// `complete` says the peek holds the whole input.
    static func detect(_ peek: [UInt8], path: String, complete: Bool = true)
        throws(TakingsInputError) -> TakingsFormat
    {
        var k = 0
        if peek.starts(with: [0xEF, 0xBB, 0xBF]) { k = 3 }
        while k < peek.count, [0x20, 0x09, 0x0D, 0x0A].contains(peek[k]) { k += 1 }
        guard k < peek.count else { return .jsonLines }
        let lineEnd = peek[k...].firstIndex(of: 0x0A) ?? peek.count
        let firstLine = Array(peek[k..<lineEnd])
        switch peek[k] {
        case UInt8(ascii: "{"):
            let rest = peek[min(lineEnd + 1, peek.count)...]
            // More non-blank content after the first line (or a first line that fills
            // the peek, so more may follow).
            let moreFollows =
                rest.contains { ![0x20, 0x09, 0x0D, 0x0A].contains($0) }
                || (lineEnd == peek.count && !complete)
            if let node = try? JSONParser.parse(firstLine), let members = node.members {
                if members.contains(where: { $0.key == "rollup" }) { return .rollupJSONLines }
                guard let e = members.first(where: { $0.key == "entries" }),
                    case .array = e.value.value
                else { return .jsonLines }
                // A whole object with an `entries` array: a ledger document on one line,
                // or a JSON Lines entry that carries an (ignored) `entries` field. Reading
                // it the wrong way loses entries, so when either could be meant, stop.
                let entryKeys: Set<String> = ["id", "at", "kind", "amount"]
                if moreFollows || members.contains(where: { entryKeys.contains($0.key) }) {
                    throw unsure(
                        path,
                        moreFollows
                            ? "its first line is a whole object with an \"entries\" array, as a ledger document is, but more lines follow, as in JSON Lines"
                            : "its only line is an object with an \"entries\" array, as a ledger document is, and entry fields (id, at, kind, amount), as a JSON Lines entry has"
                    )
                }
                return .ledgerDocument
            }
            // The first line is not a whole object: a document that opens an `entries`
            // array (pretty-printed, or longer than the peek) is a ledger document, even
            // when its first entry starts on the same line.
            return opensEntriesArray(Array(peek[k...])) ? .ledgerDocument : .jsonLines
        case UInt8(ascii: "["):
            throw TakingsInputError(
                path: path,
                message:
                    "a JSON array is not a takings export: write JSON Lines (one entry per line) or a ledger document {\"entries\": [...]}"
            )
        default:
            let header = String(decoding: firstLine, as: UTF8.self)
                .split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: "\" \r") }
            if header.contains("period") { return .rollupCSV }
            if header.contains("id") || header.contains("kind") { return .csv }
            throw TakingsInputError(
                path: path,
                message:
                    "cannot tell the format: not JSON Lines, a ledger document, or a CSV with an id or period column; use --input-format"
            )
        }
    }
}

extension TakingsFormatDetector {
    /// The input could be read two ways that count different entries: the run stops.
    static func unsure(_ path: String, _ why: String) -> TakingsInputError {
        TakingsInputError(
            path: path,
            message:
                "cannot tell the format: \(why); say which with --input-format ledger or --input-format jsonl"
        )
    }

    /// True when `"entries"` is followed, after blanks, by `:` and `[`.
    static func opensEntriesArray(_ bytes: [UInt8]) -> Bool {
        let key = Array("\"entries\"".utf8)
        var i = 0
        while i + key.count <= bytes.count {
            if bytes[i] == key[0], bytes[i..<i + key.count].elementsEqual(key) {
                var j = i + key.count
                func skip() {
                    while j < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[j]) { j += 1 }
                }
                skip()
                if j < bytes.count, bytes[j] == UInt8(ascii: ":") {
                    j += 1
                    skip()
                    if j < bytes.count, bytes[j] == UInt8(ascii: "[") { return true }
                }
            }
            i += 1
        }
        return false
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

extension TakingsFormatDetector {
    /// The first 64 KiB of `source` (fewer when the input is smaller) and the format they
    /// tell, unless `input` names it: the one start of every reader of ledger exports
    /// (`margin pnl`, `margin replay`).
    static func peek(_ source: ByteSource, _ input: TakingsInput) throws
        -> (bytes: [UInt8], format: TakingsFormat)
    {
        let peekSize = min(64 << 10, source.remaining ?? (64 << 10))
        var peek = [UInt8](repeating: 0, count: peekSize)
        let n = try peek.withUnsafeMutableBufferPointer { buf throws(TakingsInputError) in
            guard let p = buf.baseAddress else { return 0 }
            return try source.fill(p, count: peekSize)
        }
        peek.removeSubrange(n...)
        let format =
            try input.format
            ?? detect(peek, path: input.path, complete: n < peekSize || source.atKnownEnd)
        return (peek, format)
    }
}
