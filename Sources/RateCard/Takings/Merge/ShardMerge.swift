/// One chunk's merge into one shard, as a value: the hot loop works on its own stored
/// properties, which Swift checks for exclusive access at compile time, not at run time.
struct ShardMerge {
    let index: Int
    var st: ShardState
    var table: DedupSlots
    let chunk: ParsedChunk
    /// The indexes of this shard's records in `chunk`, in input order.
    let mine: ArraySlice<Int32>
    let ctx: ChunkContext
    let settings: MergeSettings
    let features: [String]
    var currentBucket: Int64 = 0
    var current: [FeatureSums]
    var currentDirty = false

    init(
        index: Int, st: ShardState, table: DedupSlots, chunk: ParsedChunk,
        mine: ArraySlice<Int32>, ctx: ChunkContext, settings: MergeSettings, features: [String]
    ) {
        self.index = index
        self.st = st
        self.table = table
        self.chunk = chunk
        self.mine = mine
        self.ctx = ctx
        self.settings = settings
        self.features = features
        current = st.sums[0] ?? []
        self.st.sums[0] = nil
    }

    mutating func flush() {
        if currentDirty || st.sums[currentBucket] == nil, !current.isEmpty {
            st.sums[currentBucket] = current
        }
        currentDirty = false
    }

    mutating func select(_ b: Int64) {
        if b == currentBucket { return }
        flush()
        currentBucket = b
        current = st.sums[b] ?? []
        st.sums[b] = nil
    }

    func place(_ meta: UInt64) -> TakingsPlace {
        let input = SlotMeta.input(meta)
        return TakingsPlace(
            input: input, path: input < settings.paths.count ? settings.paths[input] : "?",
            line: SlotMeta.line(meta))
    }

    /// Prefetches the table slots (and chain sums) of the next group of records while
    /// handling this one, so that their cache misses overlap with useful work instead of
    /// coming one after another.
    mutating func mergeAll() {
        let records = chunk.records
        let (first, last) = (mine.startIndex, mine.endIndex)
        // Sixteen records at a time: with more, the burst of prefetches waits for the
        // processor's miss buffers (48 took 10% more CPU on the plain 10M export).
        let group = 16
        prefetch(records, mine, first..<min(first + group, last))
        var g = first
        while g < last {
            let groupEnd = min(g + group, last)
            prefetch(records, mine, groupEnd..<min(groupEnd + group, last))
            for j in g..<groupEnd {
                handle(records[Int(mine[j])])
            }
            g = groupEnd
        }
        flush()
    }

    @inline(__always)
    func prefetch(_ records: [TakingsRecord], _ mine: ArraySlice<Int32>, _ range: Range<Int>) {
        st.chains.withUnsafeBufferPointer { chains in
            for j in range {
                let r = records[Int(mine[j])]
                table.prefetch(id0: r.id0, id1: r.id1)
                if r.device != TakingsRecord.none {
                    let d = ctx.deviceMap[Int(r.device)]
                    // Both ends: a chain's 80 bytes often straddle two cache lines.
                    if d < chains.count, let base = chains.baseAddress {
                        let chain = UnsafeRawPointer(base + d)
                        Prefetch.read(chain)
                        Prefetch.read(chain + (MemoryLayout<ChainSums>.size - 1))
                    }
                }
            }
        }
    }

    /// Whether charges of global `feature` go to the pricing: with a pricing, when it
    /// names no metered keys or names this one (decided once per feature).
    @inline(__always)
    mutating func isPriced(_ feature: Int) -> Bool {
        if feature < st.priced.count, st.priced[feature] != 0 { return st.priced[feature] == 1 }
        if st.priced.count <= feature {
            st.priced.append(contentsOf: repeatElement(0, count: feature + 1 - st.priced.count))
        }
        let priced =
            settings.pricing != nil
            && (settings.meteredKeys.map { $0.contains(features[feature]) } ?? true)
        st.priced[feature] = priced ? 1 : 2
        return priced
    }

    /// One record: de-duplicated, then counted by its stages (each inlined: the merge's
    /// hot loop, split for reading, not for calls).
    mutating func handle(_ r: TakingsRecord) {
        let line = chunk.lineNumber(r.line, base: ctx.baseLine)
        let feature = r.feature == TakingsRecord.none ? -1 : ctx.featureMap[Int(r.feature)]
        let meta = SlotMeta.pack(
            line: line, input: ctx.input, kind: r.kind,
            feature: feature < 0 ? UInt32.max : UInt32(feature))
        guard insertNew(r, meta: meta, line: line) else { return }
        st.entries += 1
        if r.priceProblem, let problem = chunk.extras[Int(r.extra)].priceProblem {
            st.ignoredFields.add(
                TakingsRejection(
                    place: TakingsPlace(input: ctx.input, path: ctx.path, line: line),
                    reason: .badValue, message: problem))
        }
        if r.hasBalance, r.device != TakingsRecord.none { addToChain(r, meta: meta) }
        if r.kind == .refund {
            keepRefund(r, meta: meta, feature: feature)
            return
        }
        let window = settings.window
        if window.beforeEnd(seconds: r.seconds, nanoseconds: r.nanoseconds) {
            if !st.addOutstanding(Int128(r.amount)) { st.overflow(ctx, line) }
        }
        guard window.contains(seconds: r.seconds, nanoseconds: r.nanoseconds) else { return }
        st.inWindow += 1
        switch r.kind {
        case .charge:
            countCharge(r, meta: meta, feature: feature, line: line)
        case .grant:
            if !st.countBelowTheLine(grants: 1, granted: Int128(r.amount)) {
                st.overflow(ctx, line)
            }
        case .topup:
            countTopup(r, line: line)
        case .refund, .revoke:
            // A revoke takes credits back: it is in the outstanding balance (above) only.
            break
        }
    }

    /// The de-duplication stage: true when the record is new; a repeat is counted, a
    /// conflicting one rejected, and neither goes further.
    @inline(__always)
    mutating func insertNew(_ r: TakingsRecord, meta: UInt64, line: Int) -> Bool {
        switch table.insert(
            id0: r.id0, id1: r.id1, content: r.content, meta: meta, amount: r.amount)
        {
        case .duplicate:
            st.duplicates += 1
            return false
        case .conflict(let existing):
            let first = place(existing)
            st.reject(
                TakingsPlace(input: ctx.input, path: ctx.path, line: line), .conflictingDuplicate,
                "conflicting duplicate: the same id as \(first.path):\(first.line) with different content"
            )
            return false
        case .inserted:
            return true
        }
    }

    /// A record with `balanceAfter` joins its device's balance chain.
    @inline(__always)
    mutating func addToChain(_ r: TakingsRecord, meta: UInt64) {
        let d = ctx.deviceMap[Int(r.device)]
        if st.chains.count <= d {
            st.chains.append(
                contentsOf: repeatElement(ChainSums(), count: d + 1 - st.chains.count))
        }
        st.chains[d].add(
            amount: r.amount, balanceAfter: r.balanceAfter, seconds: r.seconds,
            nanos: r.nanoseconds, id: (r.id0, r.id1), meta: meta)
    }

    /// A refund is kept, its `refundOf` as bytes, to be checked against its charge at the
    /// end.
    @inline(__always)
    mutating func keepRefund(_ r: TakingsRecord, meta: UInt64, feature: Int) {
        let name = RefundNames.add(
            (r.extra >= 0 ? chunk.extras[Int(r.extra)].refundOf ?? "" : "").utf8,
            to: &st.refundNames)
        st.pendingRefunds.append(
            PendingRefund(
                id0: r.id0, id1: r.id1, ref0: r.ref0, ref1: r.ref1, meta: meta,
                feature: feature, amount: r.amount,
                seconds: r.seconds, nanos: r.nanoseconds,
                nameAt: name.at, nameCount: name.count, nameList: Int32(index)))
    }

    /// A charge in the window: its feature's sums (in its series bucket), the audit, and
    /// its provider cost when the feature is priced.
    @inline(__always)
    mutating func countCharge(_ r: TakingsRecord, meta: UInt64, feature: Int, line: Int) {
        if let series = settings.series {
            let b = series.bucket(seconds: r.seconds)
            if b == TakingsSeries.outside { st.noteOutsideSeries(meta) }
            select(b)
        }
        currentDirty = true
        if !FeatureSums.count(
            into: &current, feature: feature, charges: 1, charged: Int128(-r.amount))
        {
            st.overflow(ctx, line)
        }
        st.noteFirstSeen(feature: feature, meta: meta)
        if r.audit != 0 { audit(r, feature: feature, line: line) }
        if isPriced(feature), let pricing = settings.pricing {
            price(r, feature: feature, line: line, by: pricing)
        }
    }

    /// The charge audit's tally of one charge (`r.audit` is 1 when it checked out).
    @inline(__always)
    mutating func audit(_ r: TakingsRecord, feature: Int, line: Int) {
        if st.audit.count <= feature {
            st.audit.append(
                contentsOf: repeatElement(AuditTally(), count: feature + 1 - st.audit.count))
        }
        if r.audit == 1 {
            st.audit[feature].checked += 1
        } else if let outcome = chunk.extras[Int(r.extra)].audit {
            let place = TakingsPlace(input: ctx.input, path: ctx.path, line: line)
            st.audit[feature].add(outcome, charged: -Int128(r.amount), place: place)
        }
    }

    /// A priced charge's provider cost, added to its feature's; a pricing error names the
    /// line.
    @inline(__always)
    mutating func price(_ r: TakingsRecord, feature: Int, line: Int, by pricing: any TakingsPricing)
    {
        let quantity = r.extra >= 0 ? chunk.extras[Int(r.extra)].quantity : [:]
        let at = Timestamp(seconds: r.seconds, nanoseconds: Int32(r.nanoseconds))
        do {
            if let cost = try pricing.cost(feature: features[feature], quantity: quantity, at: at) {
                current[feature].cost =
                    try current[feature].cost.map { c throws(MoneyError) in
                        try c.adding(cost)
                    } ?? cost
            }
        } catch {
            st.errors.append(
                Diagnostic(
                    path: ctx.path, location: SourceLocation(line: line, column: 1),
                    message: "cost of this \(features[feature]) charge: \(error)",
                    rule: .pnl(.cost)))
        }
    }

    /// A top-up in the window: below the line, and its money when it records a price.
    @inline(__always)
    mutating func countTopup(_ r: TakingsRecord, line: Int) {
        if !st.countBelowTheLine(topups: 1, toppedUp: Int128(r.amount)) {
            st.overflow(ctx, line)
        }
        guard r.extra >= 0, let price = chunk.extras[Int(r.extra)].price else { return }
        do {
            st.topupMoney[price.currency] = try (st.topupMoney[price.currency] ?? .zero)
                .adding(price.amount)
        } catch {
            st.errors.append(
                Diagnostic(
                    path: ctx.path, location: SourceLocation(line: line, column: 1),
                    message: "top-up money: \(error)", rule: .pnl(.overflow)))
        }
    }
}
