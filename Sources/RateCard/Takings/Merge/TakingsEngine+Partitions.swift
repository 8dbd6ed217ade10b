/// The partitioned run (grace hash), for exports whose de-duplication state would not fit
/// in `TakingsOptions.memoryLimit`. While the inputs are read, every parsed record goes
/// to the temporary file of its id's partition instead of the shards (line counts,
/// rejections of unreadable lines, features and devices are kept as in a run in memory).
/// Then, partition by partition:
///
/// 1. its records are merged into fresh shards, in input order, exactly as a run in
///    memory merges them: every copy of an id is in the partition of that id, so each
///    duplicate and conflict is found and the same copy kept. The slots of the charges
///    that refunds name (asked for while reading) are saved; the refunds accepted are
///    written to the partition of the charge they name; the sums, counts, rejections and
///    balance chains are added to the run's shards, and the tables are freed.
/// 2. once every partition is merged, each partition's refunds are resolved against the
///    saved slots of its charges: every refund of one charge is in that charge's
///    partition, so "given back twice" is seen as in memory.
///
/// The report is then built by the same `finish` as a run in memory.
extension TakingsEngine {
    func finishPartitioned(_ spill: TakingsSpill, memoryLimit: Int) throws(TakingsInputError)
        -> TakingsReport
    {
        try spill.finish(.records)
        try spill.finish(.requests)
        let threads = options.threads
        let names = features
        let blockBytes = min(8 << 20, max(64 << 10, memoryLimit / 8))
        for p in 0..<spill.partitions {
            let perShard = spill.recordCount(p) / threads
            let parts = (0..<threads).map {
                TakingsShard(
                    index: $0, rejectionsShown: options.rejectionsShown,
                    expectedEntries: perShard + perShard / 10 + 16)
            }
            let settings = self.settings
            try spill.readRecords(
                p, blockBytes: blockBytes, paths: settings.paths, features: features.count,
                devices: devices.count
            ) { chunks, contexts in
                let work = MergeWork(
                    shards: parts, settings: settings, chunks: chunks, contexts: contexts,
                    features: names)
                parallel(parts.count) { s in work.run(shard: s) }
            }
            // The charges refunds name, while this partition's table is here: each one's
            // id, place and amount are saved for the refunds' own partitions.
            let found = Self.namedCharges(try spill.take(p, .requests), in: parts)
            for charge in found { spill.append(p, .chargeSlots, value: charge) }
            spill.flush(p, .chargeSlots)
            for (s, part) in parts.enumerated() {
                spill.writeRefunds(part.state.pendingRefunds, names: part.state.refundNames)
                part.state.pendingRefunds = []
                part.state.refundNames = []
                shards[s].state.absorb(part.state, features: names)
            }
        }
        try spill.finish(.chargeSlots)
        try spill.finish(.refunds)

        let resolved = TakingsShard(index: -1, rejectionsShown: 0)
        var log = RejectionLog(limit: options.rejectionsShown)
        var entries = 0
        var inWindow = 0
        for q in 0..<spill.partitions {
            var (refunds, names) = try spill.takeRefunds(q)
            let slots = try spill.take(q, .chargeSlots)
            guard !refunds.isEmpty else { continue }
            let table = Self.chargeTable(slots)
            refunds.sort {
                (SlotMeta.input($0.meta), SlotMeta.line($0.meta)) < (
                    SlotMeta.input($1.meta), SlotMeta.line($1.meta)
                )
            }
            let charges = refunds.map { table.entry(id0: $0.ref0, id1: $0.ref1) }
            resolveRefunds(
                refunds, charges: charges, names: names, into: resolved, log: &log,
                entries: &entries, inWindow: &inWindow)
        }
        rejections.merge(log)
        shards[0].state.entries += entries
        shards[0].state.inWindow += inWindow
        return finish(resolved: resolved)
    }

    /// The charges that the refund requests (`(id0, id1)` pairs, as the spill wrote them)
    /// name and that one of `parts` merged: each one's id, place and amount.
    static func namedCharges(_ requests: [UInt8], in parts: [TakingsShard]) -> [NamedCharge] {
        var found: [NamedCharge] = []
        requests.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            let size = MemoryLayout<(UInt64, UInt64)>.stride
            var at = 0
            while at + size <= b.count {
                let (ref0, ref1) = base.loadUnaligned(fromByteOffset: at, as: (UInt64, UInt64).self)
                if let e = parts[SlotMeta.shard(of: ref0, count: parts.count)].table.entry(
                    id0: ref0, id1: ref1)
                {
                    found.append(NamedCharge(id0: ref0, id1: ref1, meta: e.meta, amount: e.amount))
                }
                at += size
            }
        }
        return found
    }

    /// A table of the charges one partition saved (`NamedCharge` records), for its
    /// refunds to be resolved against.
    static func chargeTable(_ slots: [UInt8]) -> DedupTable {
        let size = MemoryLayout<NamedCharge>.stride
        let table = DedupTable(capacity: slots.count / size * 5 / 4 + 64)
        slots.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            var at = 0
            while at + size <= b.count {
                let c = base.loadUnaligned(fromByteOffset: at, as: NamedCharge.self)
                _ = table.insert(id0: c.id0, id1: c.id1, content: 0, meta: c.meta, amount: c.amount)
                at += size
            }
        }
        return table
    }
}

extension ShardState {
    /// Adds what another shard merged (one partition's) to this one: sums, counts,
    /// rejections, ignored fields, the charge audit, balance chains, errors. Not its
    /// pending refunds, which the partitioned run resolves by the partition of their
    /// charge, nor its list of charge amounts, which it has looked up.
    mutating func absorb(_ o: ShardState, features: [String]) {
        absorbSums(o, features: features)
        grants += o.grants
        granted &+= o.granted
        topups += o.topups
        toppedUp &+= o.toppedUp
        for (c, v) in o.topupMoney {
            do { topupMoney[c] = try (topupMoney[c] ?? .zero).adding(v) } catch {
                errors.append(
                    Diagnostic(path: "-", message: "top-up money: \(error)", rule: .pnl(.overflow)))
            }
        }
        outstanding &+= o.outstanding
        entries += o.entries
        inWindow += o.inWindow
        duplicates += o.duplicates
        rejections.merge(o.rejections)
        ignoredFields.merge(o.ignoredFields)
        if audit.count < o.audit.count {
            audit.append(
                contentsOf: repeatElement(AuditTally(), count: o.audit.count - audit.count))
        }
        for (f, t) in o.audit.enumerated() { audit[f].merge(t) }
        outsideSeries += o.outsideSeries
        if o.outsideSeriesFirst != .max,
            outsideSeriesFirst == .max
                || SlotMeta.precedes(o.outsideSeriesFirst, outsideSeriesFirst)
        {
            outsideSeriesFirst = o.outsideSeriesFirst
        }
        absorbChains(o.chains)
        errors.append(contentsOf: o.errors)
    }

    /// Adds another shard's sums per period and feature, and the first place of each
    /// feature, to this one's: the one place shard sums are added, whether the shards of
    /// a run at its end (`TakingsEngine.finish`) or a partition's after it is merged. An
    /// overflow is an error, never a trap.
    mutating func absorbSums(_ o: ShardState, features: [String]) {
        for (b, list) in o.sums {
            var into = sums[b] ?? []
            if into.count < list.count {
                into.append(
                    contentsOf: repeatElement(FeatureSums(), count: list.count - into.count))
            }
            for (f, s) in list.enumerated() {
                do { try into[f].merge(s) } catch {
                    errors.append(
                        Diagnostic(
                            path: "-", message: "\(features[f]): \(error)", rule: .pnl(.cost)))
                }
            }
            sums[b] = into
        }
        for (f, m) in o.firstSeen.enumerated() where m != .max {
            noteFirstSeen(feature: f, meta: m)
        }
    }

    /// Adds balance chains (by global device index) to this one's.
    mutating func absorbChains(_ other: [ChainSums]) {
        if chains.count < other.count {
            chains.append(contentsOf: repeatElement(ChainSums(), count: other.count - chains.count))
        }
        for (d, c) in other.enumerated() { chains[d].merge(c) }
    }
}

/// An entry a refund names, as the partitioned run saves it for the refund's partition.
struct NamedCharge {
    var id0: UInt64
    var id1: UInt64
    var meta: UInt64
    var amount: Int64
}
