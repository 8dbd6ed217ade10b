import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The temporary files of a run whose de-duplication state would not fit in its memory
/// cap (grace hash): every parsed record goes to the partition of its id hash, every
/// refund also asks the partition of its charge's id for that charge, and each partition
/// is then merged on its own. All files live in one private directory (mode 0700) that
/// `remove` deletes, and that a signal handler can delete too (`removeForSignal`).
///
/// Per partition `p` the directory holds `p.rec` (records, in input order), `p.req`
/// (the charge ids refunds name, which live in `p`), `p.cs` (the table slots of those
/// charges, written when `p` is merged) and `p.rf` (the accepted refunds that name a
/// charge in `p`, written as the partitions of their own ids are merged). Shared with the
/// workers as `TakingsSpill+Sendable` says.
final class TakingsSpill {
    enum File: Int, CaseIterable {
        case records, requests, chargeSlots, refunds
        var suffix: String { [".rec", ".req", ".cs", ".rf"][rawValue] }
    }

    /// The most partitions one run uses (four files each must be open at once).
    static let maxPartitions = 200

    let directory: String
    /// This run's directory is the one the signal handler removes (the first partitioned
    /// run of the process; a concurrent one in the same process makes its own, unregistered).
    private let ownsSignalPath: Bool
    let partitions: Int
    let bufferBytes: Int
    /// One per partition, each written by one task at a time.
    private let parts: [Partition]
    /// The first failure, and whether the files are removed.
    private let shared = Mutex<(failure: TakingsInputError?, removed: Bool)>((nil, false))
    /// The charge audit's findings, kept in memory (only charges that fail the audit
    /// have one, like warnings); records name them by index.
    let outcomes = AuditOutcomes()

    /// The open files, write buffers and counts of one partition.
    final class Partition {
        var fds: [Int32] = Array(repeating: -1, count: File.allCases.count)
        var buffers: [[UInt8]] = Array(repeating: [], count: File.allCases.count)
        var records = 0
        var requests = 0
        var refunds = 0
    }

    init(partitions: Int, bufferBytes: Int) throws(TakingsInputError) {
        self.partitions = partitions
        self.bufferBytes = bufferBytes
        let base = TakingsSpill.temporaryBase()
        // The directory is made in the buffer the signal handler reads, registered before
        // it exists: a signal between its creation and the first file still removes it
        // (issue 24 case 18: a signal during the creation of the partitions left them).
        let (made, owns) = TakingsSpill.register(
            base + "/margin-pnl-XXXXXX", partitions: partitions
        ) { mkdtemp($0) }
        guard let made else {
            throw TakingsInputError(
                path: base,
                message:
                    "cannot create a temporary directory for the partitions: \(String(cString: strerror(errno)))"
            )
        }
        directory = made
        ownsSignalPath = owns
        parts = (0..<partitions).map { _ in Partition() }
    }

    func recordCount(_ p: Int) -> Int { parts[p].records }
    func requestCount(_ p: Int) -> Int { parts[p].requests }

    deinit {
        remove()
    }

    static func temporaryBase() -> String {
        if let t = getenv("TMPDIR"), t.pointee != 0 { return String(cString: t) }
        return "/tmp"
    }

    func path(_ p: Int, _ file: File) -> String { "\(directory)/\(p)\(file.suffix)" }

    /// Which partition an id hash falls in: by the low bits of its first half, which
    /// neither the shard (its high bits) nor the table slot depends on.
    @inline(__always)
    static func partition(of id0: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: ((id0 & 0xFFFF_FFFF) &* UInt64(count)) >> 32)
    }

    // MARK: Writing

    func append(_ p: Int, _ file: File, _ bytes: UnsafeRawBufferPointer) {
        let part = parts[p]
        part.buffers[file.rawValue].append(contentsOf: bytes)
        if part.buffers[file.rawValue].count >= bufferBytes { flush(p, file) }
    }

    func append<T>(_ p: Int, _ file: File, value: T) {
        withUnsafeBytes(of: value) { append(p, file, $0) }
    }

    func flush(_ p: Int, _ file: File) {
        let k = file.rawValue
        let part = parts[p]
        guard !part.buffers[k].isEmpty else { return }
        if part.fds[k] < 0 {
            // After a signal no file is created: the handler is deleting them.
            guard !TakingsSpill.stopping.load(ordering: .acquiring) else {
                fail("stopped by a signal")
                return
            }
            part.fds[k] = open(path(p, file), O_WRONLY | O_CREAT | O_APPEND, 0o600)
            if part.fds[k] < 0 { fail("cannot create \(path(p, file))") }
        }
        let fd = part.fds[k]
        part.buffers[k].withUnsafeBytes { b in
            var done = 0
            while fd >= 0, done < b.count, let base = b.baseAddress {
                let n = Glibc.write(fd, base + done, b.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    fail("cannot write \(path(p, file))")
                    return
                }
                done += n
            }
        }
        part.buffers[k].removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered for one kind of file and closes those files.
    func finish(_ file: File) throws(TakingsInputError) {
        for p in 0..<partitions {
            flush(p, file)
            let part = parts[p]
            if part.fds[file.rawValue] >= 0 {
                close(part.fds[file.rawValue])
                part.fds[file.rawValue] = -1
            }
            part.buffers[file.rawValue] = []
        }
        if let failure = shared.withLock({ $0.failure }) { throw failure }
    }

    private func fail(_ what: String) {
        let message = "\(what): \(String(cString: strerror(errno)))"
        let directory = self.directory
        shared.withLock {
            if $0.failure == nil {
                $0.failure = TakingsInputError(path: directory, message: message)
            }
        }
    }

    /// Writes the records of `chunks` that fall in the partitions task `task` of `tasks`
    /// owns, with global feature and device indexes, their input and line; and for each
    /// refund the id of the charge it names to that charge's partition.
    func write(_ chunks: [ParsedChunk], _ contexts: [ChunkContext], task: Int, of tasks: Int) {
        for (chunk, ctx) in zip(chunks, contexts) {
            for r in chunk.records {
                let p = TakingsSpill.partition(of: r.id0, count: partitions)
                if p % tasks == task {
                    var g = r
                    if r.feature != TakingsRecord.none {
                        g.feature = UInt32(ctx.featureMap[Int(r.feature)])
                    }
                    if r.device != TakingsRecord.none {
                        g.device = UInt32(ctx.deviceMap[Int(r.device)])
                    }
                    let extra =
                        r.extra >= 0
                        ? SpillCoding.encode(chunk.extras[Int(r.extra)], outcomes: outcomes) : []
                    g.extra = extra.isEmpty ? -1 : 0
                    let header = SpilledRecord(
                        record: g, line: Int64(chunk.lineNumber(r.line, base: ctx.baseLine)),
                        input: Int32(ctx.input), extraBytes: Int32(extra.count))
                    append(p, .records, value: header)
                    if !extra.isEmpty { extra.withUnsafeBytes { append(p, .records, $0) } }
                    parts[p].records += 1
                }
                if r.kind == .refund {
                    let q = TakingsSpill.partition(of: r.ref0, count: partitions)
                    if q % tasks == task {
                        append(q, .requests, value: (r.ref0, r.ref1))
                        parts[q].requests += 1
                    }
                }
            }
        }
    }

    /// Writes refunds accepted while merging one partition to the partitions of the
    /// charges they name (on the calling thread).
    func writeRefunds(_ refunds: [PendingRefund], names: [UInt8]) {
        var bytes: [UInt8] = []
        for r in refunds {
            let q = TakingsSpill.partition(of: r.ref0, count: partitions)
            bytes.removeAll(keepingCapacity: true)
            RefundCodec.encode(r, name: RefundNames.bytes(r, in: names), into: &bytes)
            bytes.withUnsafeBytes { append(q, .refunds, $0) }
            parts[q].refunds += 1
        }
    }

    // MARK: Reading

    /// The whole of one file (empty when it was never written), then deletes it.
    func take(_ p: Int, _ file: File) throws(TakingsInputError) -> [UInt8] {
        let name = path(p, file)
        let fd = open(name, O_RDONLY)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw TakingsInputError(
                path: name, message: "cannot open a partition: \(String(cString: strerror(errno)))")
        }
        defer {
            close(fd)
            unlink(name)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw TakingsInputError(path: name, message: "cannot read a partition")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { b in
                b.baseAddress.map { read(fd, $0 + done, b.count - done) } ?? 0
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw TakingsInputError(
                    path: name,
                    message: "cannot read a partition: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        return bytes
    }

    /// Streams `p.rec` in blocks of about `blockBytes`, each as chunks of one input
    /// apiece (records keep their order), then deletes the file.
    func readRecords(
        _ p: Int, blockBytes: Int, paths: [String], features: Int, devices: Int,
        _ body: ([ParsedChunk], [ChunkContext]) -> Void
    ) throws(TakingsInputError) {
        let name = path(p, .records)
        let fd = open(name, O_RDONLY)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw TakingsInputError(
                path: name, message: "cannot open a partition: \(String(cString: strerror(errno)))")
        }
        defer {
            close(fd)
            unlink(name)
        }
        let maps = (features: Array(0..<features), devices: Array(0..<devices))
        var buffer = [UInt8](repeating: 0, count: max(blockBytes, 1 << 16))
        var filled = 0
        var atEnd = false
        while true {
            if !atEnd { atEnd = try fill(&buffer, from: fd, filled: &filled, name: name) }
            let (chunks, contexts, used) = decodeRecords(
                buffer, filled: filled, paths: paths, maps: maps)
            if !chunks.isEmpty { body(chunks, contexts) }
            if used < filled {
                buffer.withUnsafeMutableBytes { b in
                    if let base = b.baseAddress {
                        base.copyMemory(from: base + used, byteCount: filled - used)
                    }
                }
            }
            filled -= used
            if atEnd {
                guard filled == 0 else {
                    throw TakingsInputError(path: name, message: "a partition ends inside a record")
                }
                return
            }
            if used == 0 { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        }
    }

    /// Reads from `fd` behind the `filled` bytes until `buffer` is full or the file ends:
    /// true at its end.
    private func fill(_ buffer: inout [UInt8], from fd: Int32, filled: inout Int, name: String)
        throws(TakingsInputError) -> Bool
    {
        while filled < buffer.count {
            let n = buffer.withUnsafeMutableBytes { b in
                b.baseAddress.map { read(fd, $0 + filled, b.count - filled) } ?? 0
            }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                throw TakingsInputError(
                    path: name,
                    message: "cannot read a partition: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return true }
            filled += n
        }
        return false
    }

    /// The whole records among the first `filled` bytes, as chunks of one input apiece
    /// with their contexts, and how many bytes they took (a record cut by the block's end
    /// waits for the next).
    private func decodeRecords(
        _ buffer: [UInt8], filled: Int, paths: [String],
        maps: (features: [Int], devices: [Int])
    ) -> ([ParsedChunk], [ChunkContext], Int) {
        var chunks: [ParsedChunk] = []
        var contexts: [ChunkContext] = []
        var used = 0
        let headerSize = MemoryLayout<SpilledRecord>.size
        buffer.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            var chunk = ParsedChunk()
            var input = -1
            func closeChunk() {
                guard !chunk.records.isEmpty else { return }
                chunk.lineCount = chunk.records.count
                chunks.append(chunk)
                contexts.append(
                    ChunkContext(
                        input: input, path: input < paths.count ? paths[input] : "?",
                        baseLine: 0, featureMap: maps.features, deviceMap: maps.devices))
                chunk = ParsedChunk()
            }
            while used + headerSize <= filled {
                let h = base.loadUnaligned(fromByteOffset: used, as: SpilledRecord.self)
                let size = headerSize + Int(h.extraBytes)
                guard used + size <= filled else { break }
                if Int(h.input) != input {
                    closeChunk()
                    input = Int(h.input)
                    chunk.lineNumbers = []
                }
                var r = h.record
                r.line = UInt32(chunk.records.count)
                if h.extraBytes > 0 {
                    r.extra = Int32(chunk.extras.count)
                    chunk.extras.append(
                        SpillCoding.decode(
                            UnsafeRawBufferPointer(
                                start: base + used + headerSize, count: Int(h.extraBytes)),
                            outcomes: outcomes))
                }
                chunk.records.append(r)
                chunk.lineNumbers?.append(Int(h.line))
                used += size
            }
            closeChunk()
        }
        return (chunks, contexts, used)
    }

    /// The refunds written to partition `p` and their `refundOf` texts (one list), then
    /// deletes the file.
    func takeRefunds(_ p: Int) throws(TakingsInputError) -> ([PendingRefund], RefundNames) {
        let bytes = try take(p, .refunds)
        return bytes.withUnsafeBytes { RefundCodec.decodeAll($0, expected: parts[p].refunds) }
    }

    // MARK: Removal

    /// Deletes every file and the directory (idempotent).
    func remove() {
        shared.withLock { state in
            for part in parts {
                for k in part.fds.indices where part.fds[k] >= 0 {
                    close(part.fds[k])
                    part.fds[k] = -1
                }
            }
            guard !state.removed else { return }
            state.removed = true
            for p in 0..<partitions {
                for f in File.allCases { unlink(path(p, f)) }
            }
            rmdir(directory)
            if ownsSignalPath { TakingsSpill.unregister() }
        }
    }

    // The directory of the live run, kept where a signal handler can reach it without
    // allocating: a fixed buffer for the path and the partition count.
    private nonisolated(unsafe) static let signalPath = UnsafeMutablePointer<CChar>.allocate(
        capacity: 4096)
    private nonisolated(unsafe) static var signalPartitions = 0
    /// Set by the signal handler: from then on no partition file is created, so that the
    /// handler's deletion is not raced by workers still opening files.
    static let stopping = Atomic<Bool>(false)

    /// Whether a run holds the handler's buffer: one run at a time (tests run several
    /// partitioned runs at once in one process; each must keep its own directory).
    private static let signalPathTaken = Atomic<Bool>(false)

    /// Writes `template` into the handler's buffer, registers it, and lets `make` turn it
    /// into the directory's name in place (`mkdtemp`); unregistered when that fails. The
    /// name is copied before the buffer can be reused. When another run holds the buffer,
    /// or the path is too long for it, the directory is made in a buffer of its own,
    /// unregistered. Returns the directory (nil when it cannot be made) and whether this
    /// run holds the buffer.
    private static func register(
        _ template: String, partitions: Int,
        make: (UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar>?
    ) -> (String?, Bool) {
        let bytes = Array(template.utf8)
        guard bytes.count < 3000,
            signalPathTaken.compareExchange(
                expected: false, desired: true, ordering: .acquiringAndReleasing
            ).exchanged
        else {
            var own = Array(template.utf8CString)
            let made = own.withUnsafeMutableBufferPointer { b in
                b.baseAddress.flatMap { make($0).map { String(cString: $0) } }
            }
            return (made, false)
        }
        signalPartitions = 0
        for (k, b) in bytes.enumerated() { signalPath[k] = CChar(bitPattern: b) }
        signalPath[bytes.count] = 0
        signalPartitions = partitions
        guard let made = make(signalPath) else {
            unregister()
            return (nil, false)
        }
        return (String(cString: made), true)
    }

    private static func unregister() {
        signalPartitions = 0
        signalPath[0] = 0
        signalPathTaken.store(false, ordering: .releasing)
    }

    /// Deletes the temporary files of the run in progress, if any, using only
    /// async-signal-safe calls (no allocation): for a SIGINT or SIGTERM handler.
    static func removeForSignal() {
        stopping.store(true, ordering: .releasing)
        let partitions = signalPartitions
        guard partitions > 0, signalPath[0] != 0 else { return }
        var length = 0
        while signalPath[length] != 0 { length += 1 }
        let name = signalPath + length
        // A worker may have been opening a file when the flag was set: delete again until
        // the directory can be removed (each pass is a few hundred unlinks).
        for _ in 0..<100 {
            unlinkAll(partitions, name)
            name[0] = 0
            if rmdir(signalPath) == 0 || errno == ENOENT { return }
        }
    }

    /// Deletes every partition file under the registered directory, whose path ends at
    /// `name` (async-signal-safe: no allocation).
    private static func unlinkAll(_ partitions: Int, _ name: UnsafeMutablePointer<CChar>) {
        for p in 0..<partitions {
            // "/<p><suffix>" after the directory.
            var k = 0
            name[k] = 0x2F
            k += 1
            var digits: (CChar, CChar, CChar, CChar, CChar, CChar) = (0, 0, 0, 0, 0, 0)
            var n = p
            var count = 0
            withUnsafeMutableBytes(of: &digits) { d in
                repeat {
                    d[count] = UInt8(0x30 + n % 10)
                    n /= 10
                    count += 1
                } while n > 0 && count < 6
                for j in 0..<count {
                    name[k] = CChar(bitPattern: d[count - 1 - j])
                    k += 1
                }
            }
            // One call per suffix, not a loop over an array literal: an array may be
            // allocated, and a handler that calls malloc while the signal interrupted a
            // malloc holding its lock waits forever (a debug build hung so, about one run
            // in a hundred that a signal ended).
            unlinkFile(name + k, ".rec")
            unlinkFile(name + k, ".req")
            unlinkFile(name + k, ".cs")
            unlinkFile(name + k, ".rf")
        }
    }

    /// Writes `suffix` (and the terminating zero) at `at`, the end of the registered path,
    /// and deletes that file (async-signal-safe).
    private static func unlinkFile(_ at: UnsafeMutablePointer<CChar>, _ suffix: StaticString) {
        let s = suffix.utf8Start
        let n = suffix.utf8CodeUnitCount
        for j in 0..<n { at[j] = CChar(bitPattern: s[j]) }
        at[n] = 0
        unlink(signalPath)
    }
}

/// A record as it is written to a partition: the record (with global feature and device
/// indexes), its input and line, and the length of its encoded extra that follows.
struct SpilledRecord {
    var record: TakingsRecord
    var line: Int64
    var input: Int32
    var extraBytes: Int32
}

/// The charge audit's outcomes of spilled records, by index (written by the parallel
/// spill tasks, read while merging).
final class AuditOutcomes: Sendable {
    private let list = Mutex<[ChargeAuditOutcome]>([])

    func add(_ o: ChargeAuditOutcome) -> Int {
        list.withLock {
            $0.append(o)
            return $0.count - 1
        }
    }

    subscript(k: Int) -> ChargeAuditOutcome? {
        list.withLock { k >= 0 && k < $0.count ? $0[k] : nil }
    }
}

/// `RecordExtra` to bytes and back, exactly: strings as length and UTF-8, `Exact` as its
/// numerator and denominator.
enum SpillCoding {
    static func encode(_ e: RecordExtra, outcomes: AuditOutcomes) -> [UInt8] {
        var out: [UInt8] = []
        func int(_ v: Int32) { withUnsafeBytes(of: v) { out.append(contentsOf: $0) } }
        func string(_ s: String) {
            int(Int32(s.utf8.count))
            out.append(contentsOf: s.utf8)
        }
        func exact(_ x: Exact) {
            withUnsafeBytes(of: x.numerator) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: x.denominator) { out.append(contentsOf: $0) }
        }
        let flags: UInt8 =
            (e.refundOf != nil ? 1 : 0) | (e.price != nil ? 2 : 0) | (e.quantity.isEmpty ? 0 : 4)
            | (e.priceProblem != nil ? 8 : 0) | (e.audit != nil ? 16 : 0)
        guard flags != 0 else { return [] }
        out.append(flags)
        if let r = e.refundOf { string(r) }
        if let p = e.priceProblem { string(p) }
        if let a = e.audit { int(Int32(outcomes.add(a))) }
        if let p = e.price {
            string(p.currency.code)
            exact(p.amount)
        }
        if !e.quantity.isEmpty {
            int(Int32(e.quantity.count))
            for (k, v) in e.quantity.sorted(by: { $0.key < $1.key }) {
                string(k)
                exact(v)
            }
        }
        return out
    }

    static func decode(_ b: UnsafeRawBufferPointer, outcomes: AuditOutcomes) -> RecordExtra {
        var e = RecordExtra()
        var at = 0
        func int() -> Int {
            defer { at += 4 }
            return Int(b.loadUnaligned(fromByteOffset: at, as: Int32.self))
        }
        func string() -> String {
            let n = int()
            defer { at += n }
            return String(decoding: UnsafeRawBufferPointer(rebasing: b[at..<at + n]), as: UTF8.self)
        }
        func exact() -> Exact? {
            let n = b.loadUnaligned(fromByteOffset: at, as: Int128.self)
            let d = b.loadUnaligned(fromByteOffset: at + 16, as: Int128.self)
            at += 32
            return try? Exact(n, over: d)
        }
        guard b.count > 0 else { return e }
        let flags = b[0]
        at = 1
        if flags & 1 != 0 { e.refundOf = string() }
        if flags & 8 != 0 { e.priceProblem = string() }
        if flags & 16 != 0 { e.audit = outcomes[int()] }
        if flags & 2 != 0 {
            let code = string()
            if let amount = exact(), let currency = Currency(code: code) {
                e.price = Money(amount, currency)
            }
        }
        if flags & 4 != 0 {
            let n = int()
            for _ in 0..<n {
                let k = string()
                if let v = exact() { e.quantity[k] = v }
            }
        }
        return e
    }
}
