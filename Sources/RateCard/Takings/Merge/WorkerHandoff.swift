import Synchronization

// What the worker threads are handed: batches of work, pointers into blocks that one
// worker fills or all only read, and slots for their results. Everything that crosses to
// a worker thread is declared here; where Sendable is asserted rather than checked, the
// assertion and the rule that makes it true are in `WorkerHandoff+Sendable.swift`.

/// One batch of shard merges, handed to the worker threads: each runs one shard over
/// every chunk in order.
struct MergeWork: Sendable {
    let shards: [TakingsShard]
    let settings: MergeSettings
    /// The chunks as read, for a partitioned run's spill.
    let chunks: [ParsedChunk]
    /// The same chunks grouped by shard, for the merges (none in a partitioned run).
    let grouped: [GroupedChunk]
    let contexts: [ChunkContext]
    let features: [String]
    /// In a partitioned run: task `s` writes its partitions' records instead.
    var spill: TakingsSpill?

    /// Chunks not yet grouped by shard (of a CSV file or a ledger document, or read back
    /// from a partition) are grouped here, once for all shards, so that every merge reads
    /// only its shard's.
    init(
        shards: [TakingsShard], settings: MergeSettings, chunks: [ParsedChunk],
        contexts: [ChunkContext], features: [String], spill: TakingsSpill? = nil
    ) {
        self.shards = shards
        self.settings = settings
        self.chunks = chunks
        grouped = spill != nil ? [] : chunks.map { GroupedChunk($0, shards: shards.count) }
        self.contexts = contexts
        self.features = features
        self.spill = spill
    }

    func run(shard s: Int) {
        if let spill {
            spill.write(chunks, contexts, task: s, of: shards.count)
            return
        }
        for (chunk, ctx) in zip(grouped, contexts) {
            shards[s].merge(chunk, ctx, settings, features: features)
        }
    }
}

/// A block handed to the one worker that fills it.
struct SendableMutablePointer {
    let pointer: UnsafeMutablePointer<UInt8>
}

/// The input, handed to the one worker that reads ahead.
struct SendableSource {
    let source: ByteSource
}

/// A pointer handed to worker threads that only read through it.
struct SendablePointer {
    let pointer: UnsafePointer<UInt8>
}

/// Hands out the pieces of a step one by one to the threads that ask, in order.
final class PieceCursor: Sendable {
    private let next = Atomic<Int>(0)

    /// The next piece's index (past the last one when all are taken).
    func take() -> Int {
        next.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}

/// Slots that concurrent workers fill, one index each. Every slot starts as `empty`, so
/// reading a slot a worker has not filled gives that value, never a trap.
final class ResultSlots<T: Sendable>: Sendable {
    private let storage: Mutex<[T]>
    private let empty: T

    init(count: Int, empty: T) {
        self.empty = empty
        storage = Mutex(Array(repeating: empty, count: count))
    }

    subscript(k: Int) -> T {
        get { storage.withLock { $0[k] } }
        set { storage.withLock { $0[k] = newValue } }
    }

    /// Moves the value out (leaving `empty`), so that the caller holds the only reference
    /// and mutates it in place.
    func take(_ k: Int) -> T {
        storage.withLock { slots in
            let v = slots[k]
            slots[k] = empty
            return v
        }
    }

    var values: [T] { storage.withLock { $0 } }

    /// Moves every value out (leaving `empty` in each slot).
    func takeAll() -> [T] {
        storage.withLock { slots in
            let all = slots
            slots = Array(repeating: empty, count: slots.count)
            return all
        }
    }
}

/// Per-refund results, each written by the one worker that owns its shard.
struct SendableSlots {
    let pointer: UnsafeMutablePointer<StoredEntry?>?
}

/// Refunds that the workers only read.
struct SendableRefunds {
    let pointer: UnsafePointer<PendingRefund>?
}
