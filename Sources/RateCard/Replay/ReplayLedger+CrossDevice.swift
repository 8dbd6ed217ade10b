/// A refund recorded on another device than its charge (or on none). Its credits go back
/// to the balance of its charge's device (`resolveRefunds`), so it must meet its charge
/// where that device's entries are: on one thread it does; on several, or past the memory
/// cap, the two may be in different shards or partitions (each is picked by the device).
/// There a copy of the refund is brought to its charge's shard (`moveCrossShardRefunds`)
/// or partition (`ReplaySpill.joinRefunds`, `keepPartition`) and resolved there in its
/// place, in reading order; the refund itself is left out where it was (`movedOut`), so
/// it is counted once, as a run on one thread counts it.
extension ReplayLedger {
    /// What a refund resolved in another shard or partition is here: nothing (the copy
    /// there counts it).
    static let movedRefund: Int32 = -2

    /// Adds a copy of refund record `r` (naming `charge`) brought from another shard or
    /// partition; `resolveRefunds` gives it its charge's device.
    func addCopy(_ r: ReplayRecord, of charge: EntryID) {
        var c = r
        c.copy = true
        c.hasBalance = false
        refunds.append((Int32(records.count), charge))
        records.append(c)
        copies += 1
    }

    /// Before the shards are finished: each refund whose charge is not in its own shard
    /// but is a charge of another is moved there (a copy added, the refund left out).
    static func moveCrossShardRefunds(_ ledgers: [ReplayLedger]) {
        guard ledgers.count > 1 else { return }
        for s in ledgers {
            for (k, charge) in s.refunds where s.index.find(charge) == nil {
                for t in ledgers where t !== s {
                    guard let c = t.index.find(charge), t.records[Int(c)].kind == .charge
                    else { continue }
                    t.addCopy(s.records[Int(k)], of: charge)
                    s.movedOut.insert(k)
                    break
                }
            }
        }
    }

    /// Keeps partition `p` of a partitioned run: its entries in reading order (the
    /// refunds kept in their charge's partition instead left out), then the refunds
    /// brought to it from other partitions (`ReplaySpill.joinRefunds`).
    func keepPartition(_ p: Int, of spill: ReplaySpill) throws(TakingsInputError) {
        startPartition(entries: spill.entryCount(p))
        let moved = spill.movedOut[p]
        var sequence: UInt32 = 0
        var next = 0
        try spill.forEach(p) { e, id in
            let before = records.count
            apply(e, id: id)
            if next < moved.count, moved[next] == sequence {
                next += 1
                if records.count > before { movedOut.insert(Int32(before)) }
            }
            sequence += 1
        }
        try spill.forEachMovedIn(p) { e in addCopy(e.record, of: e.refundOf) }
    }
}
