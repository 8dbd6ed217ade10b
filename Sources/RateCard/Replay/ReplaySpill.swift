/// The temporary files of a replay whose entries would not fit in its memory cap
/// (`--memory`): every prepared entry (`ReplayEntry`, then its id's bytes) goes to the
/// partition of its device while the inputs are read, and each partition is then replayed
/// on its own (`ReplayLedger+Partitions.swift`). The directory, its signal clean-up and the
/// buffered writes are `margin pnl`'s (`TakingsSpill`, one `.rec` file per partition).
final class ReplaySpill {
    let files: TakingsSpill
    var partitions: Int { files.partitions }
    /// Entries written per partition.
    private var counts: [Int]

    /// Bytes of state per entry kept in memory: an 80-byte record and a 24-byte id slot
    /// at most 70% full, measured at about 130.
    static let stateBytesPerEntry = 130
    /// Bytes per entry while a partition is replayed: its state and its file's bytes
    /// (an entry of about 200 bytes and its id), read whole.
    static let partitionBytesPerEntry = 360

    init(partitions: Int, memoryLimit: Int) throws(TakingsInputError) {
        files = try TakingsSpill(
            partitions: partitions,
            bufferBytes: min(1 << 20, max(16 << 10, memoryLimit / (16 * partitions))))
        counts = Array(repeating: 0, count: partitions)
    }

    /// How many partitions a replay uses: 1 (in memory) when its planned state fits in
    /// the cap; else enough that the `threads` partitions replayed at once take at most
    /// half of it. Entries are
    /// planned at `TakingsRun.inputBytesPerEntry` bytes of input each, as `pnl` plans;
    /// standard input (no size) is partitioned only under a cap.
    static func partitions(inputBytes: Int?, memoryLimit: Int?, threads: Int = 1) -> Int {
        guard let limit = memoryLimit else { return 1 }
        guard let inputBytes else { return TakingsRun.unknownSizePartitions }
        let entries = inputBytes / TakingsRun.inputBytesPerEntry + 1
        guard entries * stateBytesPerEntry > limit else { return 1 }
        // `threads` partitions are replayed at once, each in its share of half the cap.
        let half = max(1, limit / (2 * max(1, threads)))
        let need = entries * partitionBytesPerEntry
        return min(TakingsSpill.maxPartitions, max(2, (need + half - 1) / half))
    }

    /// Writes one entry and its id to its partition. A charge's place (its id and
    /// partition) also goes to the bucket of its id, and a refund, with its place, to the
    /// bucket of its charge's id, for `joinRefunds` (buckets are partition numbers too).
    func write(_ e: ReplayEntry, id: UnsafeRawBufferPointer) {
        let p = TakingsSpill.partition(of: e.partitionKey, count: partitions)
        let sequence = UInt32(truncatingIfNeeded: counts[p])
        counts[p] += 1
        files.append(p, .records, value: e)
        files.append(p, .records, value: UInt32(id.count))
        files.append(p, .records, id)
        switch e.record.kind {
        case .charge:
            files.append(
                TakingsSpill.partition(of: e.id.h0, count: partitions), .requests,
                value: ReplayPlace(id: e.id, partition: UInt32(p), sequence: sequence))
        case .refund:
            let q = TakingsSpill.partition(of: e.refundOf.h0, count: partitions)
            files.append(q, .refunds, value: e)
            files.append(
                q, .refunds, value: ReplayPlace(id: e.id, partition: UInt32(p), sequence: sequence))
        default: break
        }
    }

    /// Every buffered write on disk, the files closed.
    func finishWriting() throws(TakingsInputError) {
        try files.finish(.records)
        try files.finish(.requests)
        try files.finish(.refunds)
    }

    /// Per partition, the entries (by their place in it, rising) that are refunds kept
    /// in the partition of their charge instead (`joinRefunds`).
    private(set) var movedOut: [[UInt32]] = []

    /// Brings every refund whose charge is in another partition (a refund recorded on
    /// another device than its charge) to that partition, before any partition is kept:
    /// bucket by bucket (each holds the places of the charges whose ids fall in it, and
    /// the refunds naming them), each refund of a charge kept elsewhere is written to that
    /// partition's moved-in file (`.cs`), and its own place is noted in `movedOut`. Only
    /// the first copy of a refund id is moved (the one a partition keeps). What this holds
    /// in memory: one bucket's charge places, and 4 bytes per refund moved.
    func joinRefunds() throws(TakingsInputError) {
        movedOut = Array(repeating: [], count: partitions)
        let placeSize = MemoryLayout<ReplayPlace>.size
        let entrySize = MemoryLayout<ReplayEntry>.size
        for q in 0..<partitions {
            let refunds = try files.take(q, .refunds)
            let places = try files.take(q, .requests)
            guard !refunds.isEmpty else { continue }
            // Each charge id's partition (the first place of an id), in the replay's own id
            // table; then each refund id once.
            var charges = ReplayIDIndex(capacity: places.count / placeSize)
            places.withUnsafeBytes { b in
                var at = 0
                while at + placeSize <= b.count {
                    let c = b.loadUnaligned(fromByteOffset: at, as: ReplayPlace.self)
                    if charges.find(c.id) == nil {
                        charges.insert(c.id, record: Int32(truncatingIfNeeded: c.partition))
                    }
                    at += placeSize
                }
            }
            var seen = ReplayIDIndex(capacity: refunds.count / (entrySize + placeSize))
            refunds.withUnsafeBytes { b in
                var at = 0
                while at + entrySize + placeSize <= b.count {
                    let e = b.loadUnaligned(fromByteOffset: at, as: ReplayEntry.self)
                    let own = b.loadUnaligned(fromByteOffset: at + entrySize, as: ReplayPlace.self)
                    at += entrySize + placeSize
                    guard seen.find(e.id) == nil else { continue }
                    seen.insert(e.id, record: 0)
                    guard let p = charges.find(e.refundOf), UInt32(p) != own.partition else {
                        continue
                    }
                    files.append(Int(p), .chargeSlots, value: e)
                    movedOut[Int(own.partition)].append(own.sequence)
                }
            }
        }
        for p in movedOut.indices { movedOut[p].sort() }
        try files.finish(.chargeSlots)
    }

    /// The refunds `joinRefunds` brought to partition `p`, in reading order; the file is
    /// deleted once read.
    func forEachMovedIn(_ p: Int, _ body: (ReplayEntry) -> Void) throws(TakingsInputError) {
        let bytes = try files.take(p, .chargeSlots)
        bytes.withUnsafeBytes { b in
            let size = MemoryLayout<ReplayEntry>.size
            var at = 0
            while at + size <= b.count {
                body(b.loadUnaligned(fromByteOffset: at, as: ReplayEntry.self))
                at += size
            }
        }
    }

    /// The entries of partition `p` in the order they were read, each with its id's
    /// bytes; the file is deleted once read.
    func forEach(
        _ p: Int, _ body: (ReplayEntry, UnsafeRawBufferPointer) -> Void
    ) throws(TakingsInputError) {
        let bytes = try files.take(p, .records)
        bytes.withUnsafeBytes { b in
            let size = MemoryLayout<ReplayEntry>.size
            var at = 0
            while at + size + 4 <= b.count {
                let e = b.loadUnaligned(fromByteOffset: at, as: ReplayEntry.self)
                let n = Int(b.loadUnaligned(fromByteOffset: at + size, as: UInt32.self))
                let start = at + size + 4
                body(e, UnsafeRawBufferPointer(rebasing: b[start..<min(b.count, start + n)]))
                at = start + n
            }
        }
    }

    /// The entries in partition `p` (for sizing its tables).
    func entryCount(_ p: Int) -> Int { counts[p] }

    func remove() { files.remove() }
}

/// Where a prepared entry went (`ReplaySpill.write`): its id, its partition and its place
/// among that partition's entries.
struct ReplayPlace {
    let id: ReplayLedger.EntryID
    let partition: UInt32
    let sequence: UInt32
}
