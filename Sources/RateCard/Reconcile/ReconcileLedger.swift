/// What `margin reconcile` needs of the ledger, read by the readers `margin pnl` uses
/// (format detection, the `EntryScanner` and its rules, the CSV and ledger-document
/// rewriting): each top-up and revoke with its place, and per device the credits spent
/// (charges less refunds) with their times. Entries are de-duplicated by id as in `pnl`.
///
/// Each input is read whole into memory (about 110 MB per million JSON Lines entries, then
/// freed); what is kept is one record per top-up and revoke and 16 bytes per charge or
/// refund that names a device.
struct ReconcileLedger {
    /// Where a ledger entry was read.
    struct Place: Sendable, Hashable, Comparable, CustomStringConvertible {
        let path: String
        let line: Int
        var description: String { "\(path):\(line)" }
        static func < (a: Place, b: Place) -> Bool { (a.path, a.line) < (b.path, b.line) }
    }

    /// A top-up or a revoke.
    struct Credit: Sendable, Hashable {
        let id: String
        let at: Timestamp
        /// Positive: the credits added (a top-up) or taken back (a revoke).
        let credits: Int64
        let paymentRef: String?
        let device: String?
        let price: Money?
        let place: Place
    }

    /// A charge (negative) or refund (positive) of one device, at a time; a charge's
    /// provider cost when it could be costed (nil for a refund, or a charge not costed).
    struct Spend: Sendable, Hashable {
        let seconds: Int64
        let amount: Int64
        var cost: Exact? = nil
    }

    /// Costs each charge as `margin pnl` does (the provider sheets of the family version in
    /// force at its time); nil: charges are counted, not costed.
    var pricer: ReplaySide? = nil
    /// Charges of a named device that could not be costed.
    private(set) var notCosted = 0

    /// The top-ups and revokes kept (in memory; partitioned, they are in the spill's files).
    private(set) var topups: [Credit] = []
    private(set) var revokes: [Credit] = []
    /// Per device, charges and refunds (in input order; in the spill's files when
    /// partitioned).
    private(set) var spending: [String: [Spend]] = [:]
    private(set) var entries = 0
    private(set) var duplicates = 0
    private(set) var rejected = 0
    /// Top-ups and revokes kept, wherever they are kept.
    private(set) var topupCount = 0
    private(set) var revokeCount = 0
    /// The first rejected lines and conflicting duplicates by input order, as warnings.
    private var firstRejections: [(sequence: Int64, diagnostic: Diagnostic)] = []
    var warnings: [Diagnostic] { firstRejections.map(\.diagnostic) }
    var warningsNotShown: Int { rejected - firstRejections.count }
    static let warningsShown = 20

    /// Under `--memory` past the cap: every entry read goes to the partition of its id
    /// (`ReconcileLedger+Partitions`); nil: kept in memory.
    var spill: ReconcileSpill? = nil
    /// The place in input order of the next line read (rejected lines count too).
    private(set) var sequence: Int64 = 0
    /// The index of the file being read (among the paths read).
    var input = 0

    struct IDKey: Hashable {
        let h0: UInt64
        let h1: UInt64
    }
    private var seen: [IDKey: (content: UInt64, place: Place)] = [:]

    /// One entry as read, before de-duplication: what de-duplication compares and what the
    /// matching keeps of it.
    struct Scanned {
        enum Payload {
            case none
            case topup(Credit)
            case revoke(Credit)
            /// A charge or refund of a named device.
            case spend(String, Spend)
        }
        let sequence: Int64
        let key: IDKey
        let content: UInt64
        let input: Int
        let line: Int
        let payload: Payload
    }

    /// Reads every input; a file that cannot be read or told apart is a `RunFailure`.
    static func read(paths: [String], format: TakingsFormat?, pricer: ReplaySide? = nil)
        throws(RunFailure) -> ReconcileLedger
    {
        var ledger = ReconcileLedger()
        ledger.pricer = pricer
        for (k, path) in paths.enumerated() {
            ledger.input = k
            try ledger.read(path: path, format: format)
        }
        return ledger
    }

    mutating func read(path: String, format forced: TakingsFormat?) throws(RunFailure) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the ledger export") } catch {
            throw RunFailure([error])
        }
        try read(bytes, path: path, format: forced)
    }

    mutating func read(_ bytes: [UInt8], path: String, format forced: TakingsFormat?)
        throws(RunFailure)
    {
        var format = TakingsFormat.jsonLines
        if let forced {
            format = forced
        } else {
            do {
                format = try TakingsFormatDetector.detect(bytes, path: path, complete: true)
            } catch {
                throw RunFailure(error.description)
            }
        }
        var scanner = EntryScanner()
        defer { scanner.release() }
        switch format {
        case .jsonLines: scanLines(bytes, path: path, &scanner)
        case .ledgerDocument: scanDocument(bytes, path: path, &scanner)
        case .csv:
            // The bytes are the reader's buffer, over an empty source: the CSV reader's look
            // for a byte-order mark reads ahead on a copy, and a copy that pulled the whole
            // input from a shared source into its own buffer left the reader nothing (a CSV
            // ledger gave 0 entries without a word).
            let source: ByteSource
            do { source = try ByteSource(TakingsInput(name: path, bytes: [])) } catch {
                throw RunFailure(error.description)
            }
            scanCSV(CSVRecordReader(BufferedBytes(source, initial: bytes)), path: path, &scanner)
        case .rollupJSONLines, .rollupCSV:
            throw Self.rollup(path)
        }
    }

    static func rollup(_ path: String) -> RunFailure {
        RunFailure(
            "\(path): error: a roll-up carries no single top-ups: margin reconcile reads ledger entries (JSON Lines, ledger documents, CSV)"
        )
    }

    /// JSON Lines held whole: each line not blank is an entry.
    private mutating func scanLines(_ bytes: [UInt8], path: String, _ scanner: inout EntryScanner) {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 0
        bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            while start < buf.count {
                line += 1
                var end = start
                while end < buf.count, buf[end] != 0x0A { end += 1 }
                let isBlank = buf[start..<end].allSatisfy {
                    $0 == 0x20 || $0 == 0x09 || $0 == 0x0D
                }
                if !isBlank {
                    scan(
                        base + start, end - start, &scanner, Place(path: path, line: line),
                        truncatedAtEnd: end == buf.count)
                }
                start = end + 1
            }
        }
    }

    /// A device's ledger document: its `entries`, each with the document's device.
    mutating func scanDocument(_ bytes: [UInt8], path: String, _ scanner: inout EntryScanner) {
        switch LedgerDocumentReader.entries(bytes) {
        case .failure(let f):
            reject(Place(path: path, line: f.line), f.problem)
        case .success(let document):
            var text: [UInt8] = []
            for element in document.elements {
                LedgerDocumentReader.entryText(element, device: document.device, into: &text)
                text.withUnsafeBufferPointer { buf in
                    scan(
                        buf.baseAddress ?? JSONScanner.emptyBase, buf.count, &scanner,
                        Place(path: path, line: element.location.line),
                        column: element.location.column)
                }
            }
        }
    }

    /// CSV with a header row naming the fields, record by record.
    mutating func scanCSV(
        _ records: CSVRecordReader, path: String, _ scanner: inout EntryScanner
    ) {
        var records = records
        guard let first = records.next() else { return }
        let header = first.fields.map {
            String(decoding: $0, as: UTF8.self).trimmingWhitespaceString
        }
        var text: [UInt8] = []
        while let record = records.next() {
            let place = Place(path: path, line: record.line)
            if record.fields.count == 1,
                record.fields[0].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
            {
                continue
            }
            if let problem = record.problem {
                reject(place, problem)
                continue
            }
            guard record.fields.count == header.count else {
                reject(
                    place,
                    LineProblem(
                        .malformedJSON,
                        "the row has \(record.fields.count) fields, the header has \(header.count)"
                    ))
                continue
            }
            CSVLedgerReader.entryText(header: header, fields: record.fields, into: &text)
            text.withUnsafeBufferPointer { buf in
                scan(buf.baseAddress ?? JSONScanner.emptyBase, buf.count, &scanner, place)
            }
        }
    }

    mutating func scan(
        _ base: UnsafePointer<UInt8>, _ count: Int, _ scanner: inout EntryScanner, _ place: Place,
        column: Int = 0, truncatedAtEnd: Bool = false
    ) {
        let f: EntryScanner.Fields
        do { f = try scanner.scan(base, count, truncatedAtEnd: truncatedAtEnd) } catch {
            reject(
                place,
                LineProblem(error.reason, error.message, column: column > 0 ? column : error.column)
            )
            return
        }
        let (h0, h1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        let scanned = Scanned(
            sequence: sequence, key: IDKey(h0: h0, h1: h1), content: f.contentHash(scanner),
            input: input, line: place.line, payload: payload(f, scanner, place))
        sequence += 1
        if let spill { spill.write(scanned) } else { keep(scanned, place: place) }
    }

    /// What the matching keeps of an entry: a top-up or revoke whole, a named device's
    /// charge (costed when it can be) or refund; nothing of a grant.
    private mutating func payload(
        _ f: EntryScanner.Fields, _ scanner: EntryScanner, _ place: Place
    ) -> Scanned.Payload {
        switch f.kind {
        case .topup, .revoke:
            let credit = Credit(
                id: scanner.string(f.id) ?? "",
                at: Timestamp(seconds: f.seconds, nanoseconds: Int32(f.nanoseconds)),
                credits: f.amount < 0 ? -f.amount : f.amount,
                paymentRef: scanner.string(f.paymentRef), device: scanner.string(f.device),
                price: f.kind == .topup && f.price.isPresent ? scanner.parsePrice(f.price) : nil,
                place: place)
            return f.kind == .topup ? .topup(credit) : .revoke(credit)
        case .charge, .refund:
            guard let device = scanner.string(f.device) else { return .none }
            var spend = Spend(seconds: f.seconds, amount: f.amount)
            if f.kind == .charge, let pricer {
                let at = Timestamp(
                    seconds: f.seconds, nanoseconds: Int32(f.nanoseconds),
                    offsetMinutes: f.offsetMinutes)
                if case .priced(_, let cost) = pricer.price(
                    feature: scanner.string(f.feature) ?? "", quantity: f.quantity(scanner),
                    recorded: -Int128(f.amount), at: at)
                {
                    spend.cost = cost
                } else {
                    notCosted += 1
                }
            }
            return .spend(device, spend)
        case .grant:
            return .none
        }
    }

    /// De-duplicates an entry by id (the same content: a duplicate; other content: a
    /// conflicting duplicate, rejected) and keeps what the matching needs of it.
    mutating func keep(_ e: Scanned, place: Place) {
        if let earlier = seen[e.key] {
            if earlier.content == e.content {
                duplicates += 1
            } else {
                reject(
                    place,
                    LineProblem(
                        .conflictingDuplicate,
                        "conflicting duplicate: the same id as \(earlier.place) with different content"
                    ), at: e.sequence)
            }
            return
        }
        seen[e.key] = (e.content, place)
        entries += 1
        switch e.payload {
        case .topup(let c):
            topupCount += 1
            if let spill {
                spill.write(credit: c, isTopup: true, sequence: e.sequence)
            } else {
                topups.append(c)
            }
        case .revoke(let c):
            revokeCount += 1
            if let spill {
                spill.write(credit: c, isTopup: false, sequence: e.sequence)
            } else {
                revokes.append(c)
            }
        case .spend(let device, let s):
            if let spill {
                spill.write(spend: s, device: device)
            } else {
                spending[device, default: []].append(s)
            }
        case .none:
            break
        }
    }

    /// Forgets the ids of one partition once it is de-duplicated.
    mutating func forgetIDs() { seen = [:] }

    /// A line not read: counted, and among the first `warningsShown` by input order kept
    /// as a warning (`at`: its place in input order, the next line's when not given).
    private mutating func reject(_ place: Place, _ problem: LineProblem, at: Int64? = nil) {
        let at = at ?? sequence
        if at == sequence { sequence += 1 }
        rejected += 1
        if firstRejections.count == Self.warningsShown {
            guard let last = firstRejections.last, at < last.sequence else { return }
            firstRejections.removeLast()
        }
        let d = Diagnostic(
            path: place.path, location: SourceLocation(line: place.line, column: problem.column),
            severity: .warning, message: "ledger line not read: \(problem.message)",
            rule: .rejected(problem.reason))
        let k = firstRejections.firstIndex { $0.sequence > at } ?? firstRejections.count
        firstRejections.insert((at, d), at: k)
    }
}
