/// Tells the format of an input from its first bytes.
///
/// - first non-blank byte `{`: if the first line is one object with a `rollup` member,
///   roll-up JSON Lines; with an `entries` array (or when the first line is not a whole
///   object but the start of one that opens an `"entries": [` array), a device ledger
///   document;
///   otherwise JSON Lines (malformed lines are then rejected one by one);
/// - otherwise a CSV header row: with a `period` column, a roll-up CSV; with `id` or
///   `kind`, a ledger CSV.
/// - empty input: JSON Lines with no lines.
enum TakingsFormatDetector {
    static func detect(_ peek: [UInt8], path: String) throws(TakingsInputError) -> TakingsFormat {
        var k = 0
        if peek.starts(with: [0xEF, 0xBB, 0xBF]) { k = 3 }
        while k < peek.count, [0x20, 0x09, 0x0D, 0x0A].contains(peek[k]) { k += 1 }
        guard k < peek.count else { return .jsonLines }
        let lineEnd = peek[k...].firstIndex(of: 0x0A) ?? peek.count
        let firstLine = Array(peek[k..<lineEnd])
        switch peek[k] {
        case UInt8(ascii: "{"):
            if let node = try? JSONParser.parse(firstLine), let members = node.members {
                if members.contains(where: { $0.key == "rollup" }) { return .rollupJSONLines }
                if let e = members.first(where: { $0.key == "entries" }), case .array = e.value.value { return .ledgerDocument }
                return .jsonLines
            }
            // The first line is not a whole object: a document that opens an `entries`
            // array (pretty-printed, or longer than the peek) is a ledger document, even
            // when its first entry starts on the same line.
            return opensEntriesArray(Array(peek[k...])) ? .ledgerDocument : .jsonLines
        case UInt8(ascii: "["):
            throw TakingsInputError(path: path, message: "a JSON array is not a takings export: write JSON Lines (one entry per line) or a ledger document {\"entries\": [...]}")
        default:
            let header = String(decoding: firstLine, as: UTF8.self)
                .split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: "\" \r") }
            if header.contains("period") { return .rollupCSV }
            if header.contains("id") || header.contains("kind") { return .csv }
            throw TakingsInputError(path: path, message: "cannot tell the format: not JSON Lines, a ledger document, or a CSV with an id or period column; use --input-format")
        }
    }
}

extension TakingsFormatDetector {
    /// True when `"entries"` is followed, after blanks, by `:` and `[`.
    static func opensEntriesArray(_ bytes: [UInt8]) -> Bool {
        let key = Array("\"entries\"".utf8)
        var i = 0
        while i + key.count <= bytes.count {
            if bytes[i] == key[0], bytes[i..<i + key.count].elementsEqual(key) {
                var j = i + key.count
                func skip() { while j < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[j]) { j += 1 } }
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
