/// Apple's transactions read as a stream, for `margin reconcile --memory`: a file of one
/// record per line (decoded transactions, history pages, notifications or JWS, one a line)
/// is read line by line and handed on in batches, so it is never held whole; a document
/// (pretty-printed, or an array) and a gzip'd file are read whole, as in memory. The
/// records, their places and every problem are the same as `read(path:into:)`'s.
extension AppleTransactionReader {
    /// Lines read before their records are handed on.
    static let batchLines = 4096

    /// Reads `path`, giving `batch` the transaction records and notifications read so far
    /// (then dropped from `records`; the pages and the file's counts stay in it).
    static func stream(
        path: String, into records: inout AppleRecords, batch: (inout AppleRecords) -> Void
    ) throws(AppleRecordError) {
        var counted = FileCounter()
        defer { counted.close(&records, path: path) }
        let source: ByteSource
        var peek = [UInt8](repeating: 0, count: 64 << 10)
        do {
            source = try ByteSource(TakingsInput(path: path))
            let n = try peek.withUnsafeMutableBufferPointer { b throws(TakingsInputError) in
                try source.fill(b.baseAddress!, count: b.count)
            }
            peek.removeLast(peek.count - n)
        } catch {
            throw AppleRecordError(path: path, line: 1, column: 1, error.message)
        }
        if peek.starts(with: [0xEF, 0xBB, 0xBF]) { peek.removeFirst(3) }
        var lines = BufferedBytes(source, initial: Gzip.isGzip(peek) ? [] : peek)
        var number = 0
        let (head, isDocument) =
            Gzip.isGzip(peek) ? ([], true) : Self.head(&lines, number: &number)
        if isDocument {
            try read(path: path, into: &records)
            counted.readWhole()
            batch(&records)
            return
        }
        var problems = AppleProblems(path: path)
        for h in head { line(h.text, number: h.number, path: path, &records, &problems) }
        var sinceBatch = head.count
        while let (text, _) = lines.nextLine() {
            number += 1
            let line = text.last == 0x0D ? Array(text.dropLast()) : text
            guard !line.allSatisfy(isBlank) else { continue }
            self.line(line, number: number, path: path, &records, &problems)
            sinceBatch += 1
            if sinceBatch >= batchLines {
                counted.count(records)
                batch(&records)
                sinceBatch = 0
            }
        }
        if let failure = lines.failure {
            problems.add(line: number + 1, column: 1, failure.message)
        }
        counted.count(records)
        batch(&records)
        try problems.check()
    }

    /// The first two lines not blank, and whether the file is one document: when the first
    /// is a JSON object or array that is not a whole value on its own line followed by
    /// another (else one record per line, JWS lines included), as `read` decides.
    private static func head(_ lines: inout BufferedBytes, number: inout Int) -> (
        [(text: [UInt8], number: Int)], Bool
    ) {
        var head: [(text: [UInt8], number: Int)] = []
        while head.count < 2, let (text, _) = lines.nextLine() {
            number += 1
            let line = text.last == 0x0D ? Array(text.dropLast()) : text
            if !line.allSatisfy(isBlank) { head.append((line, number)) }
        }
        let first = head.first.flatMap { $0.text.first(where: { !isBlank($0) }) }
        let isDocument =
            (first == UInt8(ascii: "{") || first == UInt8(ascii: "["))
            && !(head.count > 1 && (try? JSONParser.parse(head[0].text)) != nil)
        return (head, isDocument)
    }

    /// Counts the records of one file as they pass in batches.
    private struct FileCounter {
        var transactions = 0
        var notifications = 0
        var wholeFileCounted = false

        mutating func count(_ records: AppleRecords) {
            transactions += records.transactions.count
            notifications += records.notifications.count
        }

        /// `read(path:into:)` appended its own count of the file.
        mutating func readWhole() { wholeFileCounted = true }

        func close(_ records: inout AppleRecords, path: String) {
            guard !wholeFileCounted else { return }
            records.files.append(
                AppleRecords.FileCount(
                    path: path, transactions: transactions, notifications: notifications))
        }
    }
}
