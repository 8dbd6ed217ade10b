/// Reads ledger entries from CSV with a header row naming the entry fields.
///
/// Columns: `id`, `at`, `kind`, `amount`, `feature`, `refundOf`, `reason`, `device`,
/// `note`, `card`, `balanceAfter`, `paymentRef`, `price`, and `quantity.<dimension>` for
/// each dimension; other columns are ignored, an empty cell is an absent field. Each row
/// is rewritten as a JSON object of strings and checked by the same `EntryScanner` as
/// JSON Lines (which accepts amounts and quantities written as strings), so the rules and
/// the content hash are the same in every format. A row of one empty cell is blank.
struct CSVLedgerReader {
    static let fields: Set<String> = [
        "id", "at", "kind", "amount", "feature", "refundOf", "reason", "device",
        "note", "card", "balanceAfter", "paymentRef", "price",
    ]
    private var records: CSVRecordReader
    private let keepQuantity: QuantityNeed
    private var header: [String]?
    private var recordIndex = 0
    private(set) var failure: TakingsInputError?

    init(_ bytes: BufferedBytes, keepQuantity: QuantityNeed) {
        records = CSVRecordReader(bytes)
        self.keepQuantity = keepQuantity
    }

    /// The row as the JSON object of strings the `EntryScanner` reads (the one rewriting
    /// of a CSV row, shared with `margin reconcile`): known columns only, empty cells
    /// absent, `quantity.<dimension>` cells gathered into `quantity`.
    static func entryText(header: [String], fields: [[UInt8]], into text: inout [UInt8]) {
        text.removeAll(keepingCapacity: true)
        text.append(UInt8(ascii: "{"))
        var first = true
        var quantity: [(String, [UInt8])] = []
        for (name, cell) in zip(header, fields) where !cell.isEmpty {
            if name.hasPrefix("quantity.") {
                quantity.append((String(name.dropFirst("quantity.".count)), cell))
                continue
            }
            guard CSVLedgerReader.fields.contains(name) else { continue }
            if !first { text.append(UInt8(ascii: ",")) }
            first = false
            TakingsJSONWriter.string(name, into: &text)
            text.append(UInt8(ascii: ":"))
            TakingsJSONWriter.string(String(decoding: cell, as: UTF8.self), into: &text)
        }
        if !quantity.isEmpty {
            if !first { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: "\"quantity\":{".utf8)
            for (j, (dimension, cell)) in quantity.enumerated() {
                if j > 0 { text.append(UInt8(ascii: ",")) }
                TakingsJSONWriter.string(dimension, into: &text)
                text.append(UInt8(ascii: ":"))
                TakingsJSONWriter.string(String(decoding: cell, as: UTF8.self), into: &text)
            }
            text.append(UInt8(ascii: "}"))
        }
        text.append(UInt8(ascii: "}"))
    }

    /// The next chunk of up to `limit` rows, or nil at the end.
    mutating func next(records limit: Int) -> ParsedChunk? {
        var builder = ChunkBuilder(keepQuantity: keepQuantity)
        guard let rows = next(records: limit, into: &builder) else { return nil }
        var chunk = builder.finish()
        chunk.lineCount = rows.lineNumbers.count
        chunk.blankCount = rows.blank
        chunk.lineNumbers = rows.lineNumbers
        return chunk
    }

    /// Hands the next up to `limit` rows to `sink`, each with its 0-based index in the
    /// batch as the line; returns each row's 1-based line and how many were blank, or nil
    /// at the end.
    mutating func next<Sink: EntrySink>(records limit: Int, into builder: inout Sink) -> (
        lineNumbers: [Int], blank: Int
    )? {
        if header == nil {
            guard let first = records.next() else { return nil }
            header = first.fields.map {
                String(decoding: $0, as: UTF8.self).trimmingWhitespaceString
            }
        }
        guard let header else { return nil }
        var scanner = EntryScanner()
        defer { scanner.release() }
        var lineNumbers: [Int] = []
        var blank = 0
        var text: [UInt8] = []
        while lineNumbers.count < limit, let record = records.next() {
            let k = UInt32(lineNumbers.count)
            lineNumbers.append(record.line)
            if record.fields.count == 1,
                record.fields[0].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
            {
                blank += 1
                continue
            }
            if let problem = record.problem {
                builder.reject(line: k, problem)
                continue
            }
            guard record.fields.count == header.count else {
                builder.reject(
                    line: k,
                    LineProblem(
                        .malformedJSON,
                        "the row has \(record.fields.count) fields, the header has \(header.count)")
                )
                continue
            }
            CSVLedgerReader.entryText(header: header, fields: record.fields, into: &text)
            do {
                let f = try text.withUnsafeBufferPointer { buf throws(LineProblem) in
                    try scanner.scan(buf.baseAddress ?? JSONScanner.emptyBase, buf.count)
                }
                builder.add(f, scanner, line: k)
            } catch {
                builder.reject(line: k, LineProblem(error.reason, error.message))
            }
        }
        failure = records.bytes.failure
        guard !lineNumbers.isEmpty else { return nil }
        return (lineNumbers, blank)
    }
}

extension String {
    var trimmingWhitespaceString: String { String(trimmingWhitespace) }
}
