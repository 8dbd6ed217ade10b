/// What a streamed reading of ledger inputs fills: `ReplayLedger` (replay) and
/// `ProceedsLedger` (`pnl --proceeds`). Entries arrive one at a time with their input and
/// line; a batch of a ledger document or CSV arrives at provisional lines
/// (`ReplayLedger.provisional` + its index) that `relabel` makes real.
protocol StreamedLedger: AnyObject {
    var paths: [String] { get }
    var lines: Int { get set }
    var blank: Int { get set }
    /// How many entries are kept so far (where a batch starts, for `relabel`).
    var recordCount: Int { get }
    func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, input: Int,
        line: Int)
    func reject(_ problem: LineProblem, input: Int, line: Int)
    func relabel(input: Int, lineNumbers: [Int], fromRecord: Int)
    /// Room for about `entries` more entries, told before a file of known size is read.
    func reserve(entries: Int)
    /// The entries added since the last call are final (their lines are real): a
    /// partitioned ledger writes them out.
    func endBatch()
}

extension StreamedLedger {
    func reserve(entries: Int) {}
    func endBatch() {}
}

extension Diagnostic {
    /// This diagnostic at the real line of its entry, when it was given at a provisional
    /// line (`ReplayLedger.provisional` + the entry's index in the batch) of `path`'s
    /// batch: what `StreamedLedger.relabel` does to the diagnostics a ledger keeps.
    func relabeled(in path: String, lineNumbers: [Int]) -> Diagnostic {
        let j = location.line - ReplayLedger.provisional
        guard self.path == path, j >= 0, j < lineNumbers.count else { return self }
        return Diagnostic(
            path: path, location: SourceLocation(line: lineNumbers[j], column: location.column),
            severity: severity, message: message, rule: rule)
    }
}

/// Reads ledger inputs into a `StreamedLedger` (a replay's, or the proceeds pass's), in
/// order, with `margin pnl`'s readers: the format told by `TakingsFormatDetector`, JSON Lines streamed block by block
/// through `EntryScanner` (its fast path first, the full scan for any other line), ledger
/// documents through `LedgerDocumentReader.scan` and CSV through `CSVLedgerReader`, so
/// every line is accepted or rejected exactly as `pnl` does it. Memory holds one block
/// of the input, never the whole of it (a ledger document, one device's log, is read
/// whole as `pnl` reads it).
enum ReplayReader {
    /// Bytes read per block of JSON Lines.
    static let blockBytes = 4 << 20

    static func read(_ input: TakingsInput, index: Int, into ledger: ReplayLedger)
        throws(RunFailure)
    {
        try read(
            input, index: index, into: ledger,
            rollup:
                "a roll-up sums takings by feature and period, without the requests: replay needs the ledger's entries (JSON Lines, a ledger document or CSV)",
            failure: "cannot replay \(input.path)")
    }

    /// Reads `input` into any streamed ledger; a roll-up is refused with `rollup` (a
    /// diagnostic at the input) and `failure` (the run's message).
    static func read<L: StreamedLedger>(
        _ input: TakingsInput, index: Int, into ledger: L, rollup: String, failure: String
    ) throws(RunFailure) {
        do {
            let source = try ByteSource(input)
            // Room for the entries of a file of known size (at about 160 bytes a line), so
            // that the records and the id table do not grow by copying while read.
            if let size = source.regularFileSize { ledger.reserve(entries: size / 160) }
            let (peek, format) = try TakingsFormatDetector.peek(source, input)
            switch format {
            case .jsonLines:
                let bom = peek.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                try jsonLines(source, initial: Array(peek.dropFirst(bom)), index: index, ledger)
            case .ledgerDocument:
                var all = peek
                var block = [UInt8](repeating: 0, count: 1 << 20)
                while !source.atKnownEnd {
                    let got = try block.withUnsafeMutableBufferPointer {
                        buf throws(TakingsInputError) in
                        guard let p = buf.baseAddress else { return 0 }
                        return try source.read(into: p, count: buf.count)
                    }
                    if got == 0 { break }
                    all.append(contentsOf: block[0..<got])
                    // As `pnl` reads it: a document is one device's log, not an export.
                    if all.count > 1 << 30 {
                        throw TakingsInputError(
                            path: input.path,
                            message:
                                "larger than 1 GiB: export large takings as JSON Lines, which are streamed"
                        )
                    }
                }
                let start = ledger.recordCount
                var sink = StreamedSink(ledger: ledger, input: index)
                let numbers = LedgerDocumentReader.scan(all, into: &sink)
                ledger.lines += numbers.count
                ledger.relabel(input: index, lineNumbers: numbers, fromRecord: start)
            case .csv:
                var reader = CSVLedgerReader(
                    BufferedBytes(source, initial: peek), keepQuantity: .none)
                while true {
                    let start = ledger.recordCount
                    var sink = StreamedSink(ledger: ledger, input: index)
                    guard let rows = reader.next(records: 65_536, into: &sink) else { break }
                    ledger.lines += rows.lineNumbers.count
                    ledger.blank += rows.blank
                    ledger.relabel(input: index, lineNumbers: rows.lineNumbers, fromRecord: start)
                }
                if let failure = reader.failure { throw failure }
            case .rollupJSONLines, .rollupCSV:
                throw RunFailure(
                    [
                        Diagnostic(path: input.path, message: rollup)
                    ], message: failure)
            }
        } catch let e as TakingsInputError {
            throw RunFailure(e.description)
        } catch let e as RunFailure {
            throw e
        } catch {
            throw RunFailure("\(input.path): \(error)")
        }
    }

    /// JSON Lines, block by block: whole lines of each block are scanned; the rest moves
    /// to the start of the buffer for the next read.
    private static func jsonLines<L: StreamedLedger>(
        _ source: ByteSource, initial: [UInt8], index: Int, _ ledger: L
    ) throws {
        var capacity = max(initial.count + 1, blockBytes)
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        initial.withUnsafeBufferPointer {
            if let p = $0.baseAddress { buffer.update(from: p, count: $0.count) }
        }
        var filled = initial.count
        var eof = false
        var scanner = EntryScanner()
        defer { scanner.release() }
        var fields = EntryScanner.Fields()
        var line = 0
        while true {
            if !eof, filled < capacity {
                let n = try source.fill(buffer + filled, count: capacity - filled)
                if n < capacity - filled { eof = true }
                filled += n
            }
            if filled == 0 { break }
            var usable = filled
            if !eof {
                guard let last = lastNewline(buffer, filled) else {
                    guard capacity < TakingsRun.maxLineBytes else {
                        throw TakingsInputError(
                            path: ledger.paths[index],
                            message:
                                "line \(line + 1) is longer than \(TakingsRun.maxLineBytes >> 20) MiB: is this JSON Lines?"
                        )
                    }
                    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                    bigger.update(from: buffer, count: filled)
                    buffer.deallocate()
                    buffer = bigger
                    capacity *= 2
                    continue
                }
                usable = last + 1
            }
            var start = 0
            while start < usable {
                if buffer[start] == UInt8(ascii: "{"),
                    let n = scanner.scanLine(buffer + start, usable - start, into: &fields)
                {
                    line += 1
                    ledger.add(fields, scanner, input: index, line: line)
                    start += n + 1
                    continue
                }
                let nl = JSONLinesChunkParser.memchrIndex(buffer + start, usable - start)
                let lineEnd = nl.map { start + $0 } ?? usable
                line += 1
                var k = start
                while k < lineEnd, buffer[k] == 0x20 || buffer[k] == 0x09 || buffer[k] == 0x0D {
                    k += 1
                }
                if k == lineEnd {
                    ledger.blank += 1
                } else {
                    do {
                        try scanner.scan(
                            buffer + start, lineEnd - start, truncatedAtEnd: eof && nl == nil,
                            into: &fields)
                        ledger.add(fields, scanner, input: index, line: line)
                    } catch {
                        ledger.reject(error, input: index, line: line)
                    }
                }
                start = lineEnd + 1
            }
            ledger.endBatch()
            let rest = filled - min(usable, filled)
            if rest > 0 { buffer.update(from: buffer + usable, count: rest) }
            filled = rest
            if eof && filled == 0 { break }
        }
        ledger.lines += line
    }

    private static func lastNewline(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int? {
        var k = n - 1
        while k >= 0 {
            if p[k] == 0x0A { return k }
            k -= 1
        }
        return nil
    }
}

/// Hands a ledger document's or a CSV batch's entries to a streamed ledger, each at a
/// provisional line (`ReplayLedger.provisional` + its index in the batch) that
/// `relabel` makes real once the reader has said where each entry starts.
struct StreamedSink<L: StreamedLedger>: EntrySink {
    let ledger: L
    let input: Int

    mutating func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, line: UInt32
    ) {
        ledger.add(f, scanner, input: input, line: ReplayLedger.provisional + Int(line))
    }

    mutating func reject(line: UInt32, _ problem: LineProblem) {
        ledger.reject(problem, input: input, line: ReplayLedger.provisional + Int(line))
    }
}
