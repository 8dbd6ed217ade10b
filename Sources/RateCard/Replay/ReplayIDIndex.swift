/// The record of each entry id a replay has kept: an open-addressing table keyed by the
/// id's 128-bit hash (`TakingsHash.id`, never (0, 0)), whose first word already mixes
/// every byte of the id, so it picks the slot directly (no second hash, as a `Dictionary`
/// would compute). 24 bytes a slot, grown by doubling at 70% full.
///
/// The 128-bit hash stands for the id, as it does in `margin pnl`'s `DedupSlots`: for a
/// billion distinct ids the chance that two share it is below 10^-20.
struct ReplayIDIndex {
    private struct Slot {
        var h0: UInt64
        var h1: UInt64
        var record: Int32
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 16) {
        var n = 64
        while n < capacity * 2 { n <<= 1 }
        slots = Array(repeating: Slot(h0: 0, h1: 0, record: -1), count: n)
        mask = n - 1
    }

    /// The record of `id`, if it was inserted.
    func find(_ id: ReplayLedger.EntryID) -> Int32? {
        var k = Int(truncatingIfNeeded: id.h0) & mask
        while true {
            let s = slots[k]
            if s.record < 0 { return nil }
            if s.h0 == id.h0 && s.h1 == id.h1 { return s.record }
            k = (k + 1) & mask
        }
    }

    /// Asks for the cache line of `id`'s first slot, which `find` or `insert` will read
    /// soon (`Prefetch`): the table is far larger than the caches, so each probe would
    /// otherwise wait on memory.
    func prefetch(_ id: ReplayLedger.EntryID) {
        let k = Int(truncatingIfNeeded: id.h0) & mask
        slots.withUnsafeBufferPointer { b in
            if let p = b.baseAddress { Prefetch.read(UnsafeRawPointer(p + k)) }
        }
    }

    /// Room for `n` ids in all without growing.
    mutating func reserve(_ n: Int) {
        while n * 10 > slots.count * 7 { grow() }
    }

    /// Inserts `id` → `record`; `id` must not be in the table.
    mutating func insert(_ id: ReplayLedger.EntryID, record: Int32) {
        if (count + 1) * 10 > slots.count * 7 { grow() }
        place(id.h0, id.h1, record)
        count += 1
    }

    private mutating func place(_ h0: UInt64, _ h1: UInt64, _ record: Int32) {
        var k = Int(truncatingIfNeeded: h0) & mask
        while slots[k].record >= 0 { k = (k + 1) & mask }
        slots[k] = Slot(h0: h0, h1: h1, record: record)
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(h0: 0, h1: 0, record: -1), count: old.count * 2)
        mask = slots.count - 1
        for s in old where s.record >= 0 { place(s.h0, s.h1, s.record) }
    }
}
