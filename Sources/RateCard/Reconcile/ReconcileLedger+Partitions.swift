/// The ledger of `margin reconcile --memory SIZE` past its cap: read as a stream (JSON Lines
/// line by line, CSV record by record; a device's ledger document, one device's log, whole),
/// every entry to the partition of its id; then each partition de-duplicated on its own
/// (every copy of an id is in it, in input order, so the first is kept as in memory), its
/// top-ups and revokes passed on to the partition of their `paymentRef` and the charges and
/// refunds of named devices to the partition of the device.
extension ReconcileLedger {
    /// Bytes of the head of a file the format is told from.
    static let peekBytes = 64 << 10

    /// Reads every input into `spill`'s partitions, then de-duplicates them.
    static func read(
        paths: [String], format: TakingsFormat?, pricer: ReplaySide?, spill: ReconcileSpill
    ) throws(RunFailure) -> ReconcileLedger {
        var ledger = ReconcileLedger()
        ledger.pricer = pricer
        ledger.spill = spill
        for (k, path) in paths.enumerated() {
            ledger.input = k
            try ledger.stream(path: path, format: format)
        }
        do { try spill.finish(ReconcileSpill.entries) } catch {
            throw RunFailure(error.description)
        }
        try ledger.deduplicatePartitions()
        return ledger
    }

    /// One input, not held whole (but for a ledger document).
    mutating func stream(path: String, format forced: TakingsFormat?) throws(RunFailure) {
        let source: ByteSource
        var peek = [UInt8](repeating: 0, count: Self.peekBytes)
        let n: Int
        do {
            source = try ByteSource(TakingsInput(path: path))
            n = try peek.withUnsafeMutableBufferPointer { b throws(TakingsInputError) in
                try source.fill(b.baseAddress!, count: b.count)
            }
        } catch { throw RunFailure(error.description) }
        peek.removeLast(peek.count - n)
        var format = TakingsFormat.jsonLines
        if let forced {
            format = forced
        } else {
            do {
                format = try TakingsFormatDetector.detect(
                    peek, path: path, complete: n < Self.peekBytes)
            } catch { throw RunFailure(error.description) }
        }
        var scanner = EntryScanner()
        defer { scanner.release() }
        switch format {
        case .jsonLines:
            if peek.starts(with: [0xEF, 0xBB, 0xBF]) { peek.removeFirst(3) }
            var lines = BufferedBytes(source, initial: peek)
            var line = 0
            while let (text, newline) = lines.nextLine() {
                line += 1
                let bytes = text
                guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else {
                    continue
                }
                bytes.withUnsafeBufferPointer { buf in
                    scan(
                        buf.baseAddress ?? JSONScanner.emptyBase, buf.count, &scanner,
                        Place(path: path, line: line), truncatedAtEnd: !newline)
                }
            }
            if let failure = lines.failure { throw RunFailure(failure.description) }
        case .ledgerDocument:
            let bytes: [UInt8]
            do { bytes = try FileBytes.read(path, what: "the ledger export") } catch {
                throw RunFailure([error])
            }
            scanDocument(bytes, path: path, &scanner)
        case .csv:
            scanCSV(CSVRecordReader(BufferedBytes(source, initial: peek)), path: path, &scanner)
        case .rollupJSONLines, .rollupCSV:
            throw Self.rollup(path)
        }
    }

    /// Each partition of entries de-duplicated on its own, its kept entries passed on.
    private mutating func deduplicatePartitions() throws(RunFailure) {
        guard let spill else { return }
        do {
            for p in 0..<spill.partitions {
                for e in try spill.entries(p) {
                    keep(e, place: Place(path: spill.ledgerPaths[e.input], line: e.line))
                }
                forgetIDs()
            }
            try spill.finish(ReconcileSpill.credits)
            try spill.finish(ReconcileSpill.spending)
        } catch { throw RunFailure(error.description) }
    }

    /// The charges and refunds of `devices`, from every partition that holds one.
    func spending(of devices: Set<String>) throws(RunFailure) -> [String: [Spend]] {
        guard let spill else { return spending.filter { devices.contains($0.key) } }
        let wanted = Set(devices.map { spill.partition(of: $0) })
        var out: [String: [Spend]] = [:]
        do {
            for p in 0..<spill.partitions {
                guard wanted.contains(p) else { continue }
                out.merge(try spill.spending(p, of: devices)) { $0 + $1 }
            }
        } catch { throw RunFailure(error.description) }
        return out
    }
}
