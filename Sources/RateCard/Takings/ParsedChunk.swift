/// One entry reduced to what merging and aggregation need: hashes, numbers and small
/// indexes, no strings. Feature and device indexes are local to the chunk it came from.
struct TakingsRecord {
    static let none = UInt32.max

    var id0: UInt64
    var id1: UInt64
    var content: UInt64
    /// The hash of `refundOf` (refunds only).
    var ref0: UInt64 = 0
    var ref1: UInt64 = 0
    var seconds: Int64
    var amount: Int64
    var balanceAfter: Int64 = 0
    /// 0-based line within the chunk.
    var line: UInt32
    var nanoseconds: UInt32
    var feature: UInt32 = none
    var device: UInt32 = none
    /// Index into the chunk's `extras`, or -1.
    var extra: Int32 = -1
    var kind: LedgerEntry.Kind
    var hasBalance = false
    /// The charge audit: 0 not audited, 1 passed, 2 a finding in `extra`.
    var audit: UInt8 = 0
}

/// What a record carries beyond numbers, kept only when it is needed: the quantity when
/// costs are priced, the money of a top-up (or why it is ignored), the charge id a refund
/// names (for messages).
struct RecordExtra {
    var quantity: [String: Exact] = [:]
    var price: Money?
    /// Why `price` is ignored (the entry is kept): not money, or not on a top-up.
    var priceProblem: String?
    var refundOf: String?
    /// What the charge audit found, when the charge did not pass.
    var audit: ChargeAuditOutcome?
}

/// The result of reading one chunk of whole lines: records, local feature and device
/// tables, and the lines that were rejected. Chunks are parsed in parallel and merged in
/// input order.
struct ParsedChunk {
    var records: [TakingsRecord] = []
    var extras: [RecordExtra] = []
    var features: [String] = []
    /// Devices first seen by the parser of this chunk: their names and 128-bit hashes.
    /// Record device indexes are the parser's own (see `worker`), which it keeps across
    /// chunks, so each name crosses over once per parser, not once per chunk.
    var newDevices: [(name: String, h0: UInt64, h1: UInt64)] = []
    /// Which persistent parser state made the chunk (its device indexes), or -1 for one
    /// that started from nothing.
    var worker = -1
    /// Rejected lines: 0-based line within the chunk and the problem.
    var problems: [(line: UInt32, problem: LineProblem)] = []
    /// Lines in the chunk, blank ones included.
    var lineCount = 0
    var blankCount = 0
    /// For device ledger documents: the 1-based line where each record starts, when it
    /// differs from `line + 1` (indexed like `line`).
    var lineNumbers: [Int]?

    func lineNumber(_ local: UInt32, base: Int) -> Int {
        if let lineNumbers { return lineNumbers[Int(local)] }
        return base + Int(local) + 1
    }
}

/// Interns byte strings (feature keys, device names) into small indexes for one chunk.
///
/// Keyed by a 64-bit hash the caller already has, in a small open-addressing table, and
/// confirmed by comparing the bytes, so a hash collision can never merge two names.
struct ByteInterner {
    private var keys: [UInt64] = Array(repeating: 0, count: 64)
    private var values: [UInt32] = Array(repeating: .max, count: 64)
    private var lastHash: UInt64 = 0
    private var lastIndex: UInt32 = .max
    private(set) var bytes: [[UInt8]] = []
    private(set) var hashes: [UInt64] = []

    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64) -> UInt32 {
        if h == lastHash, lastIndex != .max, equal(Int(lastIndex), p, n) { return lastIndex }
        let mask = keys.count - 1
        var k = Int(truncatingIfNeeded: h) & mask
        while values[k] != .max {
            if keys[k] == h, equal(Int(values[k]), p, n) {
                lastHash = h
                lastIndex = values[k]
                return values[k]
            }
            k = (k + 1) & mask
        }
        let index = UInt32(bytes.count)
        bytes.append(Array(UnsafeBufferPointer(start: p, count: n)))
        hashes.append(h)
        keys[k] = h
        values[k] = index
        lastHash = h
        lastIndex = index
        if bytes.count * 2 > keys.count { grow() }
        return index
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: .max, count: oldKeys.count * 2)
        let mask = keys.count - 1
        for j in oldKeys.indices where oldValues[j] != .max {
            var k = Int(truncatingIfNeeded: oldKeys[j]) & mask
            while values[k] != .max { k = (k + 1) & mask }
            keys[k] = oldKeys[j]
            values[k] = oldValues[j]
        }
    }

    @inline(__always)
    private func equal(_ k: Int, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        bytes[k].withUnsafeBufferPointer { buf in
            buf.count == n && (n == 0 || memcmp(buf.baseAddress!, p, n) == 0)
        }
    }

    var strings: [String] { bytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// Device names keyed by a 128-bit hash of their bytes (two independent 64-bit lanes):
/// with that many bits two names never share a key in practice, so no bytes are compared
/// and a parser can look up thousands of devices per chunk cheaply.
struct DeviceInterner: Sendable {
    struct Slot {
        var h0: UInt64 = 0
        var h1: UInt64 = 0
        var value: UInt32 = .max
    }

    private var slots: [Slot]
    private(set) var names: [String] = []
    private var hashes: [(UInt64, UInt64)] = []
    /// How many names `taken()` has already handed out.
    private var handedOut = 0

    var count: Int { names.count }

    /// `capacity` is rounded up to a power of two.
    init(capacity: Int = 64) {
        var n = 1
        while n < capacity { n <<= 1 }
        slots = Array(repeating: Slot(), count: n)
    }

    /// Loads the home slot of a hash so that a later `intern` finds it in cache.
    @inline(__always)
    mutating func touch(_ h0: UInt64) {
        sink ^= slots[Int(truncatingIfNeeded: h0) & (slots.count - 1)].h0
    }

    private var sink: UInt64 = 0

    @inline(__always)
    mutating func intern(_ h0: UInt64, _ h1: UInt64, name: () -> String) -> UInt32 {
        let mask = slots.count - 1
        var k = Int(truncatingIfNeeded: h0) & mask
        while true {
            let s = slots[k]
            if s.value == .max { break }
            if s.h0 == h0, s.h1 == h1 { return s.value }
            k = (k + 1) & mask
        }
        let index = UInt32(names.count)
        names.append(name())
        hashes.append((h0, h1))
        slots[k] = Slot(h0: h0, h1: h1, value: index)
        if names.count * 2 > slots.count { grow() }
        return index
    }

    private mutating func grow() {
        slots = Array(repeating: Slot(), count: slots.count * 2)
        let mask = slots.count - 1
        for (index, (h0, h1)) in hashes.enumerated() {
            var k = Int(truncatingIfNeeded: h0) & mask
            while slots[k].value != .max { k = (k + 1) & mask }
            slots[k] = Slot(h0: h0, h1: h1, value: UInt32(index))
        }
    }

    /// The names added since the last call, in index order.
    mutating func taken() -> [(name: String, h0: UInt64, h1: UInt64)] {
        defer { handedOut = names.count }
        return (handedOut..<names.count).map { (names[$0], hashes[$0].0, hashes[$0].1) }
    }
}

/// Turns scanned lines into records.
struct ChunkBuilder {
    let keepQuantity: QuantityNeed
    /// Per local feature index: whether its charges' quantities are kept.
    private var quantityWanted: [Bool] = []
    /// Per local feature index: its charge rules (resolved once per chunk and key).
    private var rules: [ChargeRules?] = []
    var chunk = ParsedChunk()
    private var features = ByteInterner()
    var devices: DeviceInterner
    /// Whether device names stay readable at their scanned place until `finish` (true
    /// for JSON Lines, whose block outlives the chunk's parse).
    let deferDevices: Bool
    private var pendingDevices: [PendingDevice] = []

    struct PendingDevice {
        var record: Int
        var h0: UInt64
        var h1: UInt64
        var name: UnsafePointer<UInt8>
        var count: Int
    }

    init(
        keepQuantity: QuantityNeed, devices: DeviceInterner = DeviceInterner(),
        deferDevices: Bool = false
    ) {
        self.keepQuantity = keepQuantity
        self.devices = devices
        self.deferDevices = deferDevices
    }

    /// Adds the entry the scanner just read, at 0-based local `line`.
    mutating func add(_ f: EntryScanner.Fields, _ scanner: EntryScanner, line: UInt32) {
        let (id0, id1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        var featureHash: UInt64 = 0
        var deviceHash: UInt64 = 0
        let content = f.contentHash(scanner, featureHash: &featureHash, deviceHash: &deviceHash)
        let feature =
            f.feature.isPresent
            ? features.intern(scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
            : TakingsRecord.none
        // The charge audit into locals, so that the record is built in one go.
        var audit: UInt8 = 0
        var finding: ChargeAuditOutcome?
        if f.kind == .charge,
            keepQuantity.auditWindow.contains(seconds: f.seconds, nanoseconds: f.nanoseconds),
            let rules = chargeRules(feature),
            let rule = rules.rule(seconds: f.seconds, nanoseconds: f.nanoseconds)
        {
            if var outcome = rule.audit(f.amount, scanner.dimensions) {
                if case .unknownDimension(let k) = outcome {
                    outcome = .unchecked(
                        ChargeErrorBox(
                            .unknownDimension(
                                feature: rule.feature.key,
                                dimension: scanner.string(scanner.dimensions[k].key) ?? "")))
                }
                finding = outcome
                audit = 2
            } else {
                audit = 1
            }
        }
        var r = TakingsRecord(
            id0: id0, id1: id1, content: content, seconds: f.seconds,
            amount: f.amount, line: line, nanoseconds: f.nanoseconds, feature: feature,
            kind: f.kind, audit: audit)
        if f.device.isPresent, let balance = f.balanceAfter {
            let p = scanner.pointer(f.device)
            let n = Int(f.device.count)
            let h1 = TakingsHash.bytes(p, n, seed: 0xde71_ce00_0000_0002)
            if deferDevices, !f.device.inScratch {
                // Looked up in `finish`, a few records ahead of use, so misses overlap.
                pendingDevices.append(
                    PendingDevice(
                        record: chunk.records.count, h0: deviceHash, h1: h1, name: p, count: n))
            } else {
                r.device = devices.intern(deviceHash, h1) {
                    String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
                }
            }
            r.balanceAfter = balance
            r.hasBalance = true
        }
        var extra: RecordExtra?
        if f.kind == .refund {
            (r.ref0, r.ref1) = TakingsHash.id(scanner.pointer(f.refundOf), Int(f.refundOf.count))
            extra = RecordExtra(refundOf: scanner.string(f.refundOf))
        }
        if f.price.isPresent {
            if extra == nil { extra = RecordExtra() }
            extra!.price = scanner.parsePrice(f.price)
            if f.kind != .topup || extra!.price == nil {
                extra!.priceProblem = scanner.priceProblem(f)
            }
        }
        if let finding {
            if extra == nil { extra = RecordExtra() }
            extra!.audit = finding
        }
        if f.kind == .charge, !scanner.dimensions.isEmpty, wantsQuantity(r.feature) {
            if extra == nil { extra = RecordExtra() }
            extra!.quantity = f.quantity(scanner)
        }
        if let extra {
            r.extra = Int32(chunk.extras.count)
            chunk.extras.append(extra)
        }
        chunk.records.append(r)
    }

    /// Whether the quantities of a charge of local feature `feature` are kept, asked of
    /// the pricing once per feature key.
    @inline(__always)
    private mutating func wantsQuantity(_ feature: UInt32) -> Bool {
        guard keepQuantity.any, feature != TakingsRecord.none else { return false }
        if keepQuantity.all { return true }
        let k = Int(feature)
        while quantityWanted.count <= k {
            quantityWanted.append(
                keepQuantity.wants(
                    String(decoding: features.bytes[quantityWanted.count], as: UTF8.self)))
        }
        return quantityWanted[k]
    }

    /// The charge rules of local feature `feature`, looked up once per feature key.
    @inline(__always)
    private mutating func chargeRules(_ feature: UInt32) -> ChargeRules? {
        guard !keepQuantity.chargeRules.isEmpty, feature != TakingsRecord.none else { return nil }
        let k = Int(feature)
        while rules.count <= k {
            rules.append(
                keepQuantity.chargeRules[
                    String(decoding: features.bytes[rules.count], as: UTF8.self)])
        }
        return rules[k]
    }

    mutating func reserve(_ n: Int) {
        chunk.records.reserveCapacity(n)
    }

    mutating func reject(line: UInt32, _ problem: LineProblem) {
        chunk.problems.append((line, problem))
    }

    mutating func finish() -> ParsedChunk {
        let ahead = 16
        for (k, d) in pendingDevices.enumerated() {
            if k + ahead < pendingDevices.count { devices.touch(pendingDevices[k + ahead].h0) }
            chunk.records[d.record].device = devices.intern(d.h0, d.h1) {
                String(decoding: UnsafeBufferPointer(start: d.name, count: d.count), as: UTF8.self)
            }
        }
        pendingDevices = []
        chunk.features = features.strings
        chunk.newDevices = devices.taken()
        return chunk
    }
}

/// Parses a buffer of whole JSON Lines into a `ParsedChunk`.
enum JSONLinesChunkParser {
    /// `final` says this is the end of the input, so a last line without a newline may be
    /// a truncated one.
    static func parse(
        _ base: UnsafePointer<UInt8>, _ count: Int, final: Bool, keepQuantity: QuantityNeed,
        devices: inout DeviceInterner, worker: Int
    ) -> ParsedChunk {
        var builder = ChunkBuilder(keepQuantity: keepQuantity, devices: devices, deferDevices: true)
        devices = DeviceInterner(capacity: 1)  // the builder now holds the only reference
        defer { devices = builder.devices }
        builder.reserve(count / 128 + 16)
        var scanner = EntryScanner()
        defer { scanner.release() }
        var start = 0
        var line: UInt32 = 0
        var blank = 0
        var fields = EntryScanner.Fields()
        while start < count {
            let rest = count - start
            let nl = memchrIndex(base + start, rest)
            let lineEnd = nl.map { start + $0 } ?? count
            let noNewline = nl == nil
            var k = start
            while k < lineEnd, base[k] == 0x20 || base[k] == 0x09 || base[k] == 0x0D { k += 1 }
            if k == lineEnd {
                blank += 1
            } else {
                do {
                    try scanner.scan(
                        base + start, lineEnd - start, truncatedAtEnd: final && noNewline,
                        into: &fields)
                    builder.add(fields, scanner, line: line)
                } catch {
                    builder.reject(line: line, error)
                }
            }
            line += 1
            start = lineEnd + 1
        }
        var chunk = builder.finish()
        chunk.worker = worker
        chunk.lineCount = Int(line)
        chunk.blankCount = blank
        return chunk
    }

    @inline(__always)
    static func memchrIndex(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard let hit = memchr(p, 0x0A, n) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(p)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
