/// The temporary files of `margin reconcile --memory SIZE` past its cap: `TakingsSpill`'s
/// private directory (mode 0700, under `TMPDIR`), removed after the run and on SIGINT or
/// SIGTERM. Of the four files it keeps per partition, reconcile writes:
///
/// - `.rec`: every ledger entry read, by the hash of its `id` (so every copy of an id meets
///   its first in one partition, for de-duplication), in input order;
/// - `.req`: the top-ups and revokes kept, by the hash of their `paymentRef`;
/// - `.cs`: Apple's transaction records and the notifications that carry one, by the hash
///   of `transactionId` (the same hash and count as `.req`: a purchase and every credit
///   that names it are in one partition);
/// - `.rf`: the charges and refunds of named devices, by the hash of the device.
final class ReconcileSpill {
    let files: TakingsSpill
    /// The input paths, by index (a record names its file by index).
    let ledgerPaths: [String]
    let applePaths: [String]

    static let entries = TakingsSpill.File.records
    static let credits = TakingsSpill.File.requests
    static let apple = TakingsSpill.File.chargeSlots
    static let spending = TakingsSpill.File.refunds

    init(partitions: Int, memoryLimit: Int, ledgerPaths: [String], applePaths: [String])
        throws(TakingsInputError)
    {
        // Four files per partition are buffered at once: together at most an eighth of the
        // cap, and never more than 1 MiB a file.
        files = try TakingsSpill(
            partitions: partitions,
            bufferBytes: min(1 << 20, max(4 << 10, memoryLimit / (32 * partitions))))
        self.ledgerPaths = ledgerPaths
        self.applePaths = applePaths
    }

    var partitions: Int { files.partitions }

    /// The partition of a key (an id, a payment reference, a transaction id, a device).
    func partition(of key: String) -> Int {
        TakingsSpill.partition(of: TakingsHash.id(key).0, count: partitions)
    }

    func append(_ p: Int, _ file: TakingsSpill.File, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { files.append(p, file, $0) }
    }

    /// The whole of one partition's file (empty when none was written), then deletes it.
    func take(_ p: Int, _ file: TakingsSpill.File) throws(TakingsInputError) -> [UInt8] {
        try files.take(p, file)
    }

    func finish(_ file: TakingsSpill.File) throws(TakingsInputError) { try files.finish(file) }

    func remove() { files.remove() }

    func damaged(_ p: Int, _ file: TakingsSpill.File) -> TakingsInputError {
        TakingsInputError(path: files.path(p, file), message: "a partition file is damaged")
    }
}

/// Little-endian bytes of a spilled record: integers, optional integers and strings
/// (length-prefixed; `UInt32.max` for nil), exact numbers as two `Int128`s.
struct SpillWriter {
    var bytes: [UInt8] = []

    mutating func int<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int128(_ v: Int128) {
        int(UInt64(truncatingIfNeeded: v))
        int(UInt64(truncatingIfNeeded: v >> 64))
    }

    mutating func flag(_ b: Bool) { int(UInt8(b ? 1 : 0)) }

    mutating func string(_ s: String?) {
        guard let s else {
            int(UInt32.max)
            return
        }
        let utf8 = Array(s.utf8)
        int(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func optional<T: FixedWidthInteger>(_ v: T?) {
        flag(v != nil)
        if let v { int(v) }
    }

    mutating func exact(_ e: Exact?) {
        flag(e != nil)
        if let e {
            int128(e.numerator)
            int128(e.denominator)
        }
    }

    mutating func timestamp(_ t: Timestamp?) {
        flag(t != nil)
        if let t {
            int(t.seconds)
            int(t.nanoseconds)
            int(Int32(t.offsetMinutes))
        }
    }
}

/// Reads what `SpillWriter` wrote; `ok` turns false (and stays) at bytes that end early.
struct SpillReader {
    let bytes: [UInt8]
    var at = 0
    private(set) var ok = true

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at >= bytes.count }

    mutating func int<T: FixedWidthInteger>(_: T.Type) -> T {
        let n = MemoryLayout<T>.size
        guard ok, at + n <= bytes.count else {
            ok = false
            return 0
        }
        var v: T = 0
        for k in 0..<n { v |= T(truncatingIfNeeded: bytes[at + k]) << (8 * k) }
        at += n
        return v
    }

    mutating func int128() -> Int128 {
        let low = int(UInt64.self)
        let high = int(UInt64.self)
        return Int128(truncatingIfNeeded: high) << 64 | Int128(low)
    }

    mutating func flag() -> Bool { int(UInt8.self) == 1 }

    mutating func string() -> String? {
        let n = int(UInt32.self)
        guard ok, n != .max else { return nil }
        guard at + Int(n) <= bytes.count else {
            ok = false
            return nil
        }
        defer { at += Int(n) }
        return String(decoding: bytes[at..<(at + Int(n))], as: UTF8.self)
    }

    mutating func optional<T: FixedWidthInteger>(_ t: T.Type) -> T? {
        flag() ? int(t) : nil
    }

    mutating func exact() -> Exact? {
        guard flag() else { return nil }
        let n = int128()
        let d = int128()
        guard ok, d > 0 else {
            ok = false
            return nil
        }
        return try? Exact(n, over: d)
    }

    mutating func timestamp() -> Timestamp? {
        guard flag() else { return nil }
        let s = int(Int64.self)
        let ns = int(Int32.self)
        let offset = int(Int32.self)
        return Timestamp(seconds: s, nanoseconds: ns, offsetMinutes: Int(offset))
    }
}
