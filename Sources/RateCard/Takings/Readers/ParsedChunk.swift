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
    /// Whether `extra` says why the entry's price is ignored (so that the merge reads the
    /// extra only then, not for every record that has one).
    var priceProblem = false
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
    /// The records' indexes grouped by the shard that owns each id, in input order within
    /// a shard: shard `s` has `byShard[shardEnds[s - 1]..<shardEnds[s]]` (`groupByShard`;
    /// a chunk is merged only as a `GroupedChunk`).
    var byShard: [Int32] = []
    var shardEnds: [Int] = []
    /// Rejected lines: 0-based line within the chunk and the problem.
    var problems: [(line: UInt32, problem: LineProblem)] = []
    /// Lines in the chunk, blank ones included.
    var lineCount = 0
    var blankCount = 0
    /// For device ledger documents: the 1-based line where each record starts, when it
    /// differs from `line + 1` (indexed like `line`).
    var lineNumbers: [Int]?

    /// Empties the chunk but keeps its arrays' storage, so that the next block's parse
    /// writes into memory already mapped instead of pages the kernel must zero again.
    mutating func clearKeepingCapacity() {
        records.removeAll(keepingCapacity: true)
        extras.removeAll(keepingCapacity: true)
        features.removeAll(keepingCapacity: true)
        newDevices.removeAll(keepingCapacity: true)
        problems.removeAll(keepingCapacity: true)
        byShard.removeAll(keepingCapacity: true)
        shardEnds.removeAll(keepingCapacity: true)
        worker = -1
        lineCount = 0
        blankCount = 0
        lineNumbers = nil
    }

    /// Groups the records' indexes by the shard that owns each id (a counting sort), so
    /// that each shard's merge reads only its own.
    mutating func groupByShard(_ shards: Int) {
        let n = records.count
        var ends = [Int](repeating: 0, count: shards)
        records.withUnsafeBufferPointer { rs in
            for r in rs { ends[SlotMeta.shard(of: r.id0, count: shards)] += 1 }
        }
        var next = [Int](repeating: 0, count: shards)
        for s in 1..<max(1, shards) { next[s] = next[s - 1] + ends[s - 1] }
        for s in 0..<shards { ends[s] += next[s] }
        byShard.removeAll(keepingCapacity: true)
        byShard.append(contentsOf: repeatElement(0, count: n))
        records.withUnsafeBufferPointer { rs in
            byShard.withUnsafeMutableBufferPointer { order in
                for j in 0..<n {
                    let s = SlotMeta.shard(of: rs[j].id0, count: shards)
                    order[next[s]] = Int32(truncatingIfNeeded: j)
                    next[s] += 1
                }
            }
        }
        shardEnds = ends
    }

    func lineNumber(_ local: UInt32, base: Int) -> Int {
        if let lineNumbers { return lineNumbers[Int(local)] }
        return base + Int(local) + 1
    }
}

/// A chunk whose records are grouped by shard. It is made only by grouping (or by finding
/// the parser's grouping for the same number of shards), so a merge takes its shard's
/// records from it without a check that could fail.
struct GroupedChunk {
    let chunk: ParsedChunk

    init(_ chunk: ParsedChunk, shards: Int) {
        if chunk.shardEnds.count == shards, chunk.shardEnds.last == chunk.records.count {
            self.chunk = chunk
        } else {
            var grouped = chunk
            grouped.groupByShard(shards)
            self.chunk = grouped
        }
    }

    /// The indexes of shard `s`'s records (`s` below the shard count it was grouped for),
    /// in input order.
    func records(ofShard s: Int) -> ArraySlice<Int32> {
        chunk.byShard[(s > 0 ? chunk.shardEnds[s - 1] : 0)..<chunk.shardEnds[s]]
    }
}
