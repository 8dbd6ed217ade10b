/// Everything read from the `--transactions` files.
struct AppleRecords: Sendable, Hashable {
    /// What one `--transactions` file gave: every record is accounted for.
    struct FileCount: Sendable, Hashable {
        let path: String
        /// Transaction records (decoded, in history pages, signed), notifications excluded.
        var transactions = 0
        var notifications = 0
    }

    var transactions: [AppleTransaction] = []
    var notifications: [AppleNotification] = []
    /// Get Transaction History pages read (each up to 20 transactions).
    var historyPages = 0
    /// Per file, in the order given.
    var files: [FileCount] = []

    init() {}

    /// `path: warning: no transactions` for each file that gave no record at all (0 bytes,
    /// blanks only, an empty history page): a file given and empty is said, not ignored.
    var emptyFileWarnings: [Diagnostic] {
        files.filter { $0.transactions == 0 && $0.notifications == 0 }.map {
            Diagnostic(
                path: $0.path, location: .wholeFile, severity: .warning,
                message: "no transactions")
        }
    }
}

/// Reads App Store transactions in every shape Apple publishes them, one file at a time:
///
/// - decoded transactions (`JWSTransactionDecodedPayload` objects), one per line, or one
///   document holding an object or an array of them;
/// - Get Transaction History responses (`{"signedTransactions": [JWS…], "hasMore": …,
///   "revision": …, …}`), one page per line or a document; the pages are not fetched;
/// - decoded notifications (`responseBodyV2DecodedPayload`, `notificationType`, `data`),
///   and the body Apple posts (`{"signedPayload": JWS}`);
/// - signed JWS strings alone on a line (bare or in JSON quotes).
///
/// A JWS's payload is decoded and its signature is **not** verified (`JWSPayload`).
enum AppleTransactionReader {
    static func read(paths: [String]) throws(AppleRecordError) -> AppleRecords {
        var records = AppleRecords()
        var all: [Diagnostic] = []
        for path in paths {
            do { try read(path: path, into: &records) } catch { all += error.diagnostics }
        }
        if !all.isEmpty { throw AppleRecordError(all) }
        return records
    }

    static func read(path: String, into records: inout AppleRecords) throws(AppleRecordError) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "Apple's transactions") } catch {
            throw AppleRecordError([error])
        }
        let (t, n) = (records.transactions.count, records.notifications.count)
        try read(bytes, path: path, into: &records)
        records.files.append(
            AppleRecords.FileCount(
                path: path, transactions: records.transactions.count - t,
                notifications: records.notifications.count - n))
    }

    static func read(_ bytes: [UInt8], path: String, into records: inout AppleRecords)
        throws(AppleRecordError)
    {
        let bytes = try AppleProblems.gunzipped(bytes, path: path)
        var problems = AppleProblems(path: path)
        let lines = splitLines(bytes)
        let nonBlank = lines.filter { !$0.bytes.allSatisfy(isBlank) }
        // One document (pretty-printed, or a single line), unless the first line is a whole
        // value of its own and more lines follow: then one record per line.
        let firstIsWhole =
            nonBlank.first.map { (try? JSONParser.parse(Array($0.bytes))) != nil } ?? false
        let first = nonBlank.first.flatMap { $0.bytes.first(where: { !isBlank($0) }) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            !(firstIsWhole && nonBlank.count > 1)
        {
            do {
                let root = try JSONParser.parse(bytes)
                let locate: @Sendable (SourceLocation) -> (line: Int, column: Int) = {
                    ($0.line, $0.column)
                }
                if case .array(let items) = root.value {
                    for item in items {
                        value(item, path: path, locate: locate, &records, &problems)
                    }
                } else {
                    value(root, path: path, locate: locate, &records, &problems)
                }
            } catch {
                problems.add(
                    line: error.location.line, column: error.location.column,
                    "not valid JSON: \(error.message)")
            }
        } else {
            for (number, line) in lines.enumerated() where !line.bytes.allSatisfy(isBlank) {
                self.line(Array(line.bytes), number: number + 1, path: path, &records, &problems)
            }
        }
        try problems.check()
    }

    /// One line of a file of one record per line: a JSON object (a transaction, a page, a
    /// notification) or a signed JWS, bare or quoted.
    static func line(
        _ text: [UInt8], number lineNumber: Int, path: String, _ records: inout AppleRecords,
        _ problems: inout AppleProblems
    ) {
        let start = (text.firstIndex(where: { !isBlank($0) }) ?? 0)
        if text[start] == UInt8(ascii: "{") {
            do {
                let node = try JSONParser.parse(text)
                value(
                    node, path: path, locate: { (lineNumber, $0.column) }, &records, &problems)
            } catch {
                problems.add(
                    line: lineNumber, column: error.location.column,
                    "not valid JSON: \(error.message)")
            }
            return
        }
        var jws = String(decoding: text, as: UTF8.self).trimmingWhitespaceString
        if jws.hasPrefix("\""), jws.hasSuffix("\""), jws.count >= 2 {
            jws = String(jws.dropFirst().dropLast())
        }
        let place = ApplePlace(path: path, line: lineNumber, column: start + 1)
        guard JWSPayload.looksLikeJWS(jws) else {
            problems.add(
                line: lineNumber, column: start + 1,
                "expected a JSON object or a signed JWS (header.payload.signature), found \"\(FieldReader.excerpt(jws))\""
            )
            return
        }
        signed(jws, place: place, &records, &problems)
    }

    /// One JSON value of a file: a history page, a notification (decoded or as Apple posts
    /// it), or a decoded transaction.
    static func value(
        _ node: JSONNode, path: String,
        locate: @escaping @Sendable (SourceLocation) -> (line: Int, column: Int),
        _ records: inout AppleRecords, _ problems: inout AppleProblems
    ) {
        let at = locate(node.location)
        let place = ApplePlace(path: path, line: at.line, column: at.column)
        guard var o = AppleJSONObject(node, place: place, locate: locate) else {
            problems.add(
                line: at.line, column: at.column,
                "expected an object of Apple's (a transaction, a history page or a notification), found \(node.value.kindName)"
            )
            return
        }
        if let page = o.node("signedTransactions") {
            guard case .array(let items) = page.value else {
                o.fail(
                    "signedTransactions",
                    "signedTransactions: expected an array of JWS strings, found \(page.value.kindName)",
                    &problems)
                return
            }
            if let more = o.node("hasMore"), case .bool = more.value {
            } else if o.has("hasMore") {
                o.fail("hasMore", "hasMore: expected a boolean", &problems)
            }
            records.historyPages += 1
            for item in items {
                let p = locate(item.location)
                let itemPlace = ApplePlace(path: path, line: p.line, column: p.column)
                guard case .string(let jws) = item.value else {
                    problems.add(
                        line: p.line, column: p.column,
                        "signedTransactions: expected a JWS string, found \(item.value.kindName)")
                    continue
                }
                if let t = transaction(jws: jws, place: itemPlace, problems: &problems) {
                    records.transactions.append(t)
                }
            }
            return
        }
        if let body = o.node("signedPayload") {
            guard case .string(let jws) = body.value else {
                o.fail("signedPayload", "signedPayload: expected a JWS string", &problems)
                return
            }
            signed(jws, place: place, &records, &problems)
            return
        }
        if o.has("notificationType") {
            if let n = AppleNotification.read(o, problems: &problems) {
                records.notifications.append(n)
            }
            return
        }
        if let t = AppleTransaction.read(o, problems: &problems) { records.transactions.append(t) }
    }

    /// A JWS alone: a transaction, or a notification when its payload has a
    /// `notificationType`.
    static func signed(
        _ jws: String, place: ApplePlace, _ records: inout AppleRecords,
        _ problems: inout AppleProblems
    ) {
        guard let o = decoded(jws, place: place, problems: &problems) else { return }
        if o.has("notificationType") {
            if let n = AppleNotification.read(o, problems: &problems) {
                records.notifications.append(n)
            }
        } else if let t = AppleTransaction.read(o, problems: &problems) {
            records.transactions.append(t)
        }
    }

    static func transaction(jws: String, place: ApplePlace, problems: inout AppleProblems)
        -> AppleTransaction?
    {
        guard let o = decoded(jws, place: place, problems: &problems) else { return nil }
        return AppleTransaction.read(o, problems: &problems)
    }

    /// The payload object of a JWS; its problems are reported at the JWS.
    static func decoded(_ jws: String, place: ApplePlace, problems: inout AppleProblems)
        -> AppleJSONObject?
    {
        let bytes: [UInt8]
        switch JWSPayload.payload(jws) {
        case .success(let b): bytes = b
        case .failure(let e):
            problems.add(line: place.line, column: place.column, e.description)
            return nil
        }
        let node: JSONNode
        do { node = try JSONParser.parse(bytes) } catch {
            problems.add(
                line: place.line, column: place.column,
                "the JWS payload is not valid JSON: \(error.message)")
            return nil
        }
        let (line, column) = (place.line, place.column)
        guard
            let o = AppleJSONObject(
                node, place: place, context: " (in the decoded JWS payload)",
                locate: { _ in (line, column) })
        else {
            problems.add(
                line: line, column: column,
                "the JWS payload is \(node.value.kindName), not an object")
            return nil
        }
        return o
    }

    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }

    /// The file's lines without their newlines (a `\r` before one removed).
    static func splitLines(_ bytes: [UInt8]) -> [(bytes: ArraySlice<UInt8>, offset: Int)] {
        var out: [(bytes: ArraySlice<UInt8>, offset: Int)] = []
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var k = start
        while k < bytes.count {
            if bytes[k] == 0x0A {
                var end = k
                if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                out.append((bytes[start..<end], start))
                start = k + 1
            }
            k += 1
        }
        if start < bytes.count {
            var end = bytes.count
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            out.append((bytes[start..<end], start))
        }
        return out
    }
}
