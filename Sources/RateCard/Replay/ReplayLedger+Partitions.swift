/// The end of a replay, in memory or partitioned (`--memory`).
///
/// In memory, every entry was kept as it was read, and the run is one partition. In a
/// partitioned run, every prepared entry went to the file of its device's partition
/// (`ReplaySpill`); each partition is now kept entry by entry in reading order, by the
/// same `apply`, and finished on its own: its buyers, its devices' pack usage, its refunds
/// and its balances. Its records and id table are then freed. Tallies, costs, counts and
/// the named findings add up over the partitions; the named ones are cut to the first in
/// reading order at the end, so the report is the one a run in memory makes.
///
/// Why it is the same: a device's entries are all in one partition, in reading order, so
/// its balance replay, its pack and its usage are those of the run in memory; copies of
/// an id with the same content name the same device, so they meet and the first is
/// kept; a refund meets the charge it names when both have the device (or, without one,
/// by the charge's id). What a partition cannot see is an id whose copies name two
/// devices (each copy is kept in its own partition). A refund on another device than its
/// charge may be in another partition than it: `ReplaySpill.joinRefunds` brings a copy
/// of it to its charge's partition before any partition is kept, and leaves it out of
/// its own (`ReplayLedger+CrossDevice.swift`).
extension ReplayLedger {
    /// Holds a prepared entry of a partitioned run until its batch's lines are known.
    func hold(_ e: ReplayEntry, id: UnsafePointer<UInt8>, count: Int) {
        let start = pendingIDs.count
        pendingIDs.append(contentsOf: UnsafeBufferPointer(start: id, count: count))
        pending.append((e, start..<pendingIDs.count))
    }

    func endBatch() {
        keepDeferred()
        flushHeld()
    }

    /// Writes the held entries to their partitions, or hands them to their shards.
    func flushHeld() {
        guard holds else { return }
        defer { shards?.handOff() }
        guard !pending.isEmpty else { return }
        pendingIDs.withUnsafeBytes { ids in
            for (e, range) in pending {
                let id = UnsafeRawBufferPointer(rebasing: ids[range])
                if let spill {
                    spill.write(e, id: id)
                } else {
                    shards?.add(e, id: id)
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        pendingIDs.removeAll(keepingCapacity: true)
    }

    /// Everything after the inputs are read: each partition kept and finished, the cached
    /// costs summed, the named findings chosen. Returns the balance replay's counts.
    func finish() throws(RunFailure) -> ReplayBalanceTally {
        var balances = ReplayBalanceTally()
        keepDeferred()
        if let shards {
            flushHeld()
            shards.wait()
            Self.moveCrossShardRefunds(shards.ledgers)
            share(with: shards.ledgers)
            shards.parallel { s in
                let l = shards.ledgers[s]
                l.finishPartition(into: &l.balances)
            }
            for l in shards.ledgers { absorb(l, balances: &balances) }
            self.shards = nil
        } else if let spill {
            defer { spill.remove() }
            flushHeld()
            do {
                try spill.finishWriting()
                try spill.joinRefunds()
                if threads > 1 {
                    try finishPartitionsInParallel(spill, into: &balances)
                } else {
                    for p in 0..<spill.partitions {
                        try keepPartition(p, of: spill)
                        finishPartition(into: &balances)
                    }
                }
            } catch {
                throw RunFailure(error.description)
            }
            startPartition(entries: 0)
        } else {
            finishPartition(into: &balances)
        }
        finishCachedCosts()
        chooseNamed()
        return balances
    }

    /// The partitions kept and finished on `threads` threads: thread `t` takes partitions
    /// `t`, `t + threads`, … in turn, into a ledger of its own, added into this one at the
    /// end in thread order (`absorb`; the report is the same, `ReplayShards` says why).
    private func finishPartitionsInParallel(
        _ spill: ReplaySpill, into balances: inout ReplayBalanceTally
    ) throws(TakingsInputError) {
        let n = min(threads, spill.partitions)
        let shards = ReplayShards(count: n, before: before, after: after, paths: paths)
        share(with: shards.ledgers)
        let failures = ResultSlots<TakingsInputError?>(count: n, empty: nil)
        // Each thread reads only its own partitions' files (`TakingsSpill.take`).
        nonisolated(unsafe) let spill = spill
        shards.parallel { t in
            let l = shards.ledgers[t]
            do throws(TakingsInputError) {
                for p in stride(from: t, to: spill.partitions, by: n) {
                    try l.keepPartition(p, of: spill)
                    l.finishPartition(into: &l.balances)
                }
            } catch {
                failures[t] = error
            }
        }
        for t in 0..<n { if let e = failures[t] { throw e } }
        for l in shards.ledgers { absorb(l, balances: &balances) }
    }

    /// Fresh per-partition state for a partition of `entries` entries.
    func startPartition(entries: Int) {
        records = []
        records.reserveCapacity(entries)
        index = ReplayIDIndex(capacity: entries)
        refunds = []
        movedOut = []
        copies = 0
        sortedByDevice = nil
        partConflicts = 0
        partRefundFindings = 0
        for k in tallies.indices { tallies[k].namedInPart = 0 }
    }

    /// One partition's buyers, pack usage, refunds and balances.
    func finishPartition(into balances: inout ReplayBalanceTally) {
        let b = partBuyers()
        for (pack, devices) in b.byPack { bought.byPack[pack, default: []].formUnion(devices) }
        for (pack, n) in b.topups { bought.topups[pack, default: 0] += n }
        bought.mixed += b.mixed
        finishUsage(buyers: b.byPack)
        let targets = resolveRefunds()
        replayBalances(refundTargets: targets, into: &balances)
    }

    /// The findings named: per feature the first `shown` charges not re-priced, and the
    /// first `4 × shown` conflicts then refunds of unknown charges, in reading order.
    private func chooseNamed() {
        func first(
            _ list: [(input: Int, diagnostic: Diagnostic)], _ n: Int
        ) -> [(input: Int, diagnostic: Diagnostic)] {
            // Shards and partitions add theirs in their own order: always sorted.
            return Array(
                list.sorted {
                    ($0.input, $0.diagnostic.location.line)
                        < ($1.input, $1.diagnostic.location.line)
                }.prefix(n))
        }
        for k in tallies.indices { tallies[k].named = first(tallies[k].named, Self.shown) }
        conflictFindings = first(conflictFindings, 4 * Self.shown)
        refundFindings = first(refundFindings, 4 * Self.shown - conflictFindings.count)
    }

    /// The conflicts and refunds of unknown charges named, once `finish` has run.
    var findings: [Diagnostic] {
        conflictFindings.map(\.diagnostic) + refundFindings.map(\.diagnostic)
    }
}
