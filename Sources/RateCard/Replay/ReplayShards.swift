import Dispatch

/// A replay on several threads (`ReplayRequest.threads` > 1, as `margin pnl` parses on
/// `TakingsOptions.threads`). A device's balances depend on its own entries only, so the
/// devices are split into shards, one per thread, by the same key that picks a
/// partition under `--memory` (`ReplayEntry.partitionKey`: the device's hash, else the
/// id's, or for a refund the charge's). The reading thread scans and prepares every entry
/// as a one-thread run does; each block's prepared entries go to their shards, and while
/// the next block is read the shard threads keep the last one (`ReplayLedger.apply`, in
/// reading order within each shard). At the end every shard is finished on its own
/// thread as a partition is (buyers, pack usage, refunds, balances), and the shards are
/// added into the run's ledger in shard order (`ReplayLedger.absorb`).
///
/// Why the report is the one of a one-thread run: it is the partitioned run's argument
/// (`ReplayLedger+Partitions.swift`), with the shards as partitions held in memory. Every
/// sum is exact, so the order of additions does not change it; the named findings are
/// chosen by input and line at the end; the devices with the most new declines are
/// ordered by their count and name.
///
/// Sendable is asserted, not checked: `ReplayShards+Sendable.swift` says why it holds.
final class ReplayShards {
    /// The entries of one shard's batch, and their ids' bytes.
    struct Bucket {
        var entries: [ReplayEntry] = []
        var idEnds: [Int] = []
        var ids: [UInt8] = []

        mutating func removeAll() {
            entries.removeAll(keepingCapacity: true)
            idEnds.removeAll(keepingCapacity: true)
            ids.removeAll(keepingCapacity: true)
        }
    }

    let ledgers: [ReplayLedger]
    private var filling: [Bucket]
    private var applying: [Bucket]
    private let group = DispatchGroup()

    init(count: Int, before: ReplaySide, after: ReplaySide, paths: [String]) {
        ledgers = (0..<count).map { _ in
            let l = ReplayLedger(before: before, after: after, paths: paths)
            l.deferNames = true
            return l
        }
        filling = Array(repeating: Bucket(), count: count)
        applying = filling
    }

    /// The shard of a partition key.
    func shard(of key: UInt64) -> Int {
        TakingsSpill.partition(of: key, count: ledgers.count)
    }

    /// Adds one prepared entry to its shard's batch.
    func add(_ e: ReplayEntry, id: UnsafeRawBufferPointer) {
        let s = shard(of: e.partitionKey)
        filling[s].entries.append(e)
        filling[s].ids.append(contentsOf: id)
        filling[s].idEnds.append(filling[s].ids.count)
    }

    /// Waits for the batch being kept, then starts keeping the one filled.
    func handOff() {
        guard filling.contains(where: { !$0.entries.isEmpty }) else { return }
        wait()
        swap(&filling, &applying)
        for s in filling.indices { filling[s].removeAll() }
        DispatchQueue.global().async(group: group) {
            DispatchQueue.concurrentPerform(iterations: self.ledgers.count) { s in
                self.keep(shard: s)
            }
        }
    }

    private func keep(shard s: Int) {
        let ledger = ledgers[s]
        let b = applying[s]
        b.ids.withUnsafeBytes { ids in
            var start = 0
            for (k, e) in b.entries.enumerated() {
                let end = b.idEnds[k]
                ledger.apply(e, id: UnsafeRawBufferPointer(rebasing: ids[start..<end]))
                start = end
            }
        }
    }

    /// Waits until the shards have kept every batch handed to them.
    func wait() { group.wait() }

    /// Room for about `n` more entries over all shards.
    func reserve(entries n: Int) {
        wait()
        let each = n / ledgers.count + n / (8 * ledgers.count) + 1
        for l in ledgers { l.reserve(entries: each) }
    }

    /// Runs `body` for each shard on its own thread.
    func parallel(_ body: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: ledgers.count, execute: body)
    }
}

extension ReplayLedger {
    /// Gives each shard what reading built and finishing reads: the interned features and
    /// devices, the price cache and its cost table.
    func share(with shards: [ReplayLedger]) {
        let table = cachedCostTable()
        for s in shards {
            s.features = features
            s.devices = devices
            s.cache = cache
            s.costTable = table
            s.messages = messages
        }
    }

    /// Adds a finished shard (or the partitions one thread finished) into this ledger:
    /// counts, tallies, cache hits, usage, buyers and findings. Its charges named are made
    /// warnings here, where the reasons and the features' names are.
    func absorb(_ s: ReplayLedger, balances: inout ReplayBalanceTally) {
        kept += s.kept
        rejected += s.rejected
        duplicates += s.duplicates
        conflicts += s.conflicts
        unknownRefunds += s.unknownRefunds
        overflowed = overflowed || s.overflowed
        conflictFindings += s.conflictFindings
        refundFindings += s.refundFindings
        for k in s.tallies.indices {
            while tallies.count <= k { tallies.append(ReplayTally()) }
            let o = s.tallies[k]
            do { try tallies[k].addSums(of: o) } catch { overflowed = true }
            tallies[k].named += o.named
            for u in o.unnamed {
                tallies[k].named.append((u.input, notRepricedWarning(k, u)))
            }
        }
        for (k, n) in s.hits.enumerated() where n > 0 { hits(k, add: n) }
        if usage.isEmpty {
            usage = s.usage
            s.usage = [:]
        }
        for (slot, u) in s.usage {
            var v = usage[slot] ?? ReplayUsage()
            do { try v.add(u) } catch { overflowed = true }
            usage[slot] = v
        }
        for (pack, devices) in s.bought.byPack {
            bought.byPack[pack, default: []].formUnion(devices)
        }
        for (pack, n) in s.bought.topups { bought.topups[pack, default: 0] += n }
        bought.mixed += s.bought.mixed
        balances.absorb(s.balances)
    }
}

extension ReplayBalanceTally {
    /// Adds another shard's or partition's counts (its devices are not in this one).
    mutating func absorb(_ o: ReplayBalanceTally) {
        devices += o.devices
        withoutDevice += o.withoutDevice
        devicesNewlyDeclined += o.devicesNewlyDeclined
        counts.add(o.counts)
        for (f, d) in o.perFeature.enumerated() {
            while perFeature.count <= f { perFeature.append((0, 0, 0)) }
            perFeature[f].before += d.before
            perFeature[f].after += d.after
            perFeature[f].newly += d.newly
        }
        worst += o.worst
        Self.keepWorst(&worst)
    }
}
