/// The running sums of one feature in one period.
struct FeatureSums {
    var charges: Int64 = 0
    var charged: Int128 = 0
    var declines: Int64 = 0
    var givenBack: Int128 = 0
    var cost: Money?

    mutating func merge(_ o: FeatureSums) throws(MoneyError) {
        charges += o.charges
        charged = try checkedAdd(charged, o.charged)
        declines += o.declines
        givenBack = try checkedAdd(givenBack, o.givenBack)
        if let oc = o.cost {
            cost = try cost.map { c throws(MoneyError) in try c.adding(oc) } ?? oc
        }
    }
}

/// Adds credits exactly; false (and the sum unchanged) on overflow, never a trap.
@inline(__always)
func addChecked(_ sum: inout Int128, _ amount: Int64) -> Bool {
    let (s, o) = sum.addingReportingOverflow(Int128(amount))
    if o { return false }
    sum = s
    return true
}

@inline(__always)
func checkedAdd(_ a: Int128, _ b: Int128) throws(MoneyError) -> Int128 {
    let (s, o) = a.addingReportingOverflow(b)
    if o { throw .arithmetic(.overflow) }
    return s
}

/// What a device's balance chain needs, independent of the order entries arrive in.
///
/// In a chain sorted by time each entry's balance before (`balanceAfter − amount`) is the
/// previous entry's balance after, and the first starts from 0. So the multiset of
/// "befores" plus the final balance equals the multiset of "afters" plus 0, and the final
/// balance is the sum of the amounts. Both are checked with an additive multiset hash:
/// O(1) memory per device, whatever the number of entries or their order.
struct ChainSums {
    var count = 0
    var links: UInt64 = 0
    var total: Int128 = 0
    var latestSeconds = Int64.min
    var latestNanos: UInt32 = 0
    var latestId: (UInt64, UInt64) = (0, 0)
    var latestBalance: Int64 = 0
    var latestMeta: UInt64 = 0

    @inline(__always)
    static func mix(_ v: Int128) -> UInt64 {
        let u = UInt128(bitPattern: v)
        return TakingsHash.integer(
            UInt64(truncatingIfNeeded: u)
                ^ TakingsHash.integer(UInt64(truncatingIfNeeded: u >> 64), seed: 7), seed: 0xba1a)
    }

    mutating func add(
        amount: Int64, balanceAfter: Int64, seconds: Int64, nanos: UInt32, id: (UInt64, UInt64),
        meta: UInt64
    ) {
        count += 1
        let before = Int128(balanceAfter) - Int128(amount)
        links = links &+ ChainSums.mix(before) &- ChainSums.mix(Int128(balanceAfter))
        total &+= Int128(amount)
        if (seconds, nanos, id.0, id.1) > (latestSeconds, latestNanos, latestId.0, latestId.1) {
            latestSeconds = seconds
            latestNanos = nanos
            latestId = id
            latestBalance = balanceAfter
            latestMeta = meta
        }
    }

    mutating func merge(_ o: ChainSums) {
        guard o.count > 0 else { return }
        count += o.count
        links = links &+ o.links
        total &+= o.total
        if (o.latestSeconds, o.latestNanos, o.latestId.0, o.latestId.1) > (
            latestSeconds, latestNanos, latestId.0, latestId.1
        ) {
            latestSeconds = o.latestSeconds
            latestNanos = o.latestNanos
            latestId = o.latestId
            latestBalance = o.latestBalance
            latestMeta = o.latestMeta
        }
    }

    /// True when the amounts and balances link up into one chain from 0.
    var isUnbroken: Bool {
        links == ChainSums.mix(0) &- ChainSums.mix(total) && Int128(latestBalance) == total
    }
}

/// A refund waiting for all input to be read, when its charge can be looked up.
struct PendingRefund {
    var id0: UInt64
    var id1: UInt64
    var ref0: UInt64
    var ref1: UInt64
    var meta: UInt64
    var feature: Int
    var amount: Int64
    var seconds: Int64
    var nanos: UInt32
    var refundOf: String
}

/// Where the records of one chunk are merged: the global indexes of its features and
/// devices, and where its lines start.
struct ChunkContext {
    let input: Int
    let path: String
    let baseLine: Int
    let featureMap: [Int]
    let deviceMap: [Int]
}

/// The read-only facts every shard needs while merging.
struct MergeSettings: @unchecked Sendable {
    let window: TakingsWindow
    let series: TakingsSeries?
    let pricing: (any TakingsPricing)?
    let shards: Int
    let rejectionsShown: Int
    let paths: [String]
    /// Which charges' quantities the readers keep.
    let quantities: QuantityNeed
    /// The keys `pricing` can cost (nil: any).
    let meteredKeys: Set<String>?

    init(
        window: TakingsWindow, series: TakingsSeries?, pricing: (any TakingsPricing)?, shards: Int,
        rejectionsShown: Int, paths: [String]
    ) {
        self.window = window
        self.series = series
        self.pricing = pricing
        self.shards = shards
        self.rejectionsShown = rejectionsShown
        self.paths = paths
        quantities = QuantityNeed(pricing, window: window)
        meteredKeys = pricing?.meteredFeatureKeys
    }
}

/// One shard of the merge: the entries whose id hash falls in it. Shards share nothing
/// while merging, so each runs on its own thread; their sums are added at the end, which
/// does not depend on the order.
/// The mutable sums of one shard. A shard moves it into a local while merging, so the
/// hot loop touches a plain value instead of class properties (which Swift checks for
/// exclusive access at run time).
struct ShardState {
    var sums: [Int64: [FeatureSums]] = [:]
    /// Per global feature: the first place a charge of it was seen (packed meta).
    var firstSeen: [UInt64] = []
    var grants: Int64 = 0
    var granted: Int128 = 0
    var topups: Int64 = 0
    var toppedUp: Int128 = 0
    var topupMoney: [Currency: Exact] = [:]
    var outstanding: Int128 = 0
    var entries = 0
    var inWindow = 0
    var duplicates = 0
    var rejections: RejectionLog
    var pendingRefunds: [PendingRefund] = []
    var chains: [ChainSums] = []
    var errors: [Diagnostic] = []
    /// Per global feature: 0 not yet known, 1 its charges are priced, 2 they cannot cost
    /// anything (so the pricing is not asked per charge).
    var priced: [UInt8] = []
    /// Entries in the window whose series period has no label (`TakingsSeries.outside`),
    /// and the first of them by place.
    var outsideSeries = 0
    /// Per global feature: the charge audit of its charges in the window.
    var audit: [AuditTally] = []
    /// Fields ignored on entries that are kept (a `price` that is not money).
    var ignoredFields: RejectionLog
    var outsideSeriesFirst = UInt64.max

    mutating func noteOutsideSeries(_ meta: UInt64) {
        outsideSeries += 1
        if outsideSeriesFirst == .max || SlotMeta.precedes(meta, outsideSeriesFirst) {
            outsideSeriesFirst = meta
        }
    }

    init(rejectionsShown: Int) {
        rejections = RejectionLog(limit: rejectionsShown)
        ignoredFields = RejectionLog(limit: rejectionsShown)
    }

    mutating func reject(_ place: TakingsPlace, _ reason: RejectionClass, _ message: String) {
        rejections.add(TakingsRejection(place: place, reason: reason, message: message))
    }

    mutating func overflow(_ ctx: ChunkContext, _ line: Int) {
        errors.append(
            Diagnostic(
                path: ctx.path, location: SourceLocation(line: line, column: 1),
                message: "a sum of credits overflows 128 bits at this entry", rule: "overflow"))
    }
}

/// One shard of the merge: the entries whose id hash falls in it. Shards share nothing
/// while merging, so each runs on its own thread; their sums are added at the end, which
/// does not depend on the order.
final class TakingsShard: @unchecked Sendable {
    let index: Int
    let table: DedupTable
    var state: ShardState

    init(index: Int, rejectionsShown: Int, expectedEntries: Int = 0) {
        self.index = index
        table = DedupTable(capacity: expectedEntries * 5 / 4 + 64)
        state = ShardState(rejectionsShown: rejectionsShown)
    }

    func place(_ meta: UInt64, _ settings: MergeSettings) -> TakingsPlace {
        let input = SlotMeta.input(meta)
        return TakingsPlace(
            input: input, path: input < settings.paths.count ? settings.paths[input] : "?",
            line: SlotMeta.line(meta))
    }

    /// Adds credits exactly; an overflow is an error naming the line, never a trap.
    func add(_ sum: inout Int128, _ amount: Int64, _ ctx: ChunkContext, _ line: Int) {
        let (s, o) = sum.addingReportingOverflow(Int128(amount))
        if o { state.overflow(ctx, line) } else { sum = s }
    }

    /// Merges the records of one chunk that belong to this shard, in line order.
    func merge(
        _ chunk: ParsedChunk, _ ctx: ChunkContext, _ settings: MergeSettings, features: [String]
    ) {
        var run = ShardMerge(
            index: index, st: state, table: table.storage, chunk: chunk, ctx: ctx,
            settings: settings, features: features)
        state = ShardState(rejectionsShown: 0)
        run.mergeAll()
        state = run.st
        table.storage = run.table
    }
}

/// One chunk's merge into one shard, as a value: the hot loop works on its own stored
/// properties, which Swift checks for exclusive access at compile time, not at run time.
struct ShardMerge {
    let index: Int
    var st: ShardState
    var table: DedupSlots
    let chunk: ParsedChunk
    let ctx: ChunkContext
    let settings: MergeSettings
    let features: [String]
    var currentBucket: Int64 = 0
    var current: [FeatureSums]
    var currentDirty = false

    init(
        index: Int, st: ShardState, table: DedupSlots, chunk: ParsedChunk, ctx: ChunkContext,
        settings: MergeSettings, features: [String]
    ) {
        self.index = index
        self.st = st
        self.table = table
        self.chunk = chunk
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

    /// Touches the table slots (and chain sums) of the next group of records while
    /// handling this one, so that their cache misses overlap with useful work instead of
    /// coming one after another.
    mutating func mergeAll() {
        let records = chunk.records
        let mine = ownRecords(records)
        let group = 48
        touch(records, mine, 0..<min(group, mine.count))
        var g = 0
        while g < mine.count {
            let groupEnd = min(g + group, mine.count)
            touch(records, mine, groupEnd..<min(groupEnd + group, mine.count))
            for j in g..<groupEnd {
                handle(records[Int(mine[j])])
            }
            g = groupEnd
        }
        flush()
    }

    /// The indexes of this shard's records, in input order. Ids fall into shards at
    /// random, so a branch per record would be mispredicted half the time: the index is
    /// written for every record and the count moves on only for this shard's.
    func ownRecords(_ records: [TakingsRecord]) -> [Int32] {
        let shards = settings.shards
        let index = self.index
        return [Int32](unsafeUninitializedCapacity: records.count) { buffer, count in
            var c = 0
            records.withUnsafeBufferPointer { rs in
                for j in 0..<rs.count {
                    buffer[c] = Int32(truncatingIfNeeded: j)
                    c &+= SlotMeta.shard(of: rs[j].id0, count: shards) == index ? 1 : 0
                }
            }
            count = c
        }
    }

    @inline(__always)
    mutating func touch(_ records: [TakingsRecord], _ mine: [Int32], _ range: Range<Int>) {
        var sink: UInt64 = 0
        for j in range {
            let r = records[Int(mine[j])]
            sink ^= table.touch(id0: r.id0, id1: r.id1)
            if r.device != TakingsRecord.none {
                let d = ctx.deviceMap[Int(r.device)]
                if d < st.chains.count { sink ^= UInt64(truncatingIfNeeded: st.chains[d].count) }
            }
        }
        table.sink ^= sink
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

    mutating func handle(_ r: TakingsRecord) {
        let window = settings.window
        let line = chunk.lineNumber(r.line, base: ctx.baseLine)
        let feature = r.feature == TakingsRecord.none ? -1 : ctx.featureMap[Int(r.feature)]
        let meta = SlotMeta.pack(
            line: line, input: ctx.input, kind: r.kind,
            feature: feature < 0 ? UInt32.max : UInt32(feature))
        switch table.insert(
            id0: r.id0, id1: r.id1, content: r.content, meta: meta, amount: r.amount)
        {
        case .duplicate:
            st.duplicates += 1
            return
        case .conflict(let existing):
            let first = place(existing)
            st.reject(
                TakingsPlace(input: ctx.input, path: ctx.path, line: line), .conflictingDuplicate,
                "conflicting duplicate: the same id as \(first.path):\(first.line) with different content"
            )
            return
        case .inserted:
            break
        }
        st.entries += 1
        if r.extra >= 0, let problem = chunk.extras[Int(r.extra)].priceProblem {
            st.ignoredFields.add(
                TakingsRejection(
                    place: TakingsPlace(input: ctx.input, path: ctx.path, line: line),
                    reason: .badValue, message: problem))
        }
        if r.hasBalance, r.device != TakingsRecord.none {
            let d = ctx.deviceMap[Int(r.device)]
            if st.chains.count <= d {
                st.chains.append(
                    contentsOf: repeatElement(ChainSums(), count: d + 1 - st.chains.count))
            }
            st.chains[d].add(
                amount: r.amount, balanceAfter: r.balanceAfter, seconds: r.seconds,
                nanos: r.nanoseconds, id: (r.id0, r.id1), meta: meta)
        }
        if r.kind == .refund {
            st.pendingRefunds.append(
                PendingRefund(
                    id0: r.id0, id1: r.id1, ref0: r.ref0, ref1: r.ref1, meta: meta,
                    feature: feature, amount: r.amount,
                    seconds: r.seconds, nanos: r.nanoseconds,
                    refundOf: r.extra >= 0 ? chunk.extras[Int(r.extra)].refundOf ?? "" : ""))
            return
        }
        if window.beforeEnd(seconds: r.seconds, nanoseconds: r.nanoseconds) {
            if !addChecked(&st.outstanding, r.amount) { st.overflow(ctx, line) }
        }
        guard window.contains(seconds: r.seconds, nanoseconds: r.nanoseconds) else { return }
        st.inWindow += 1
        switch r.kind {
        case .charge:
            if let series = settings.series {
                let b = series.bucket(seconds: r.seconds)
                if b == TakingsSeries.outside { st.noteOutsideSeries(meta) }
                select(b)
            }
            if current.count <= feature {
                current.append(
                    contentsOf: repeatElement(FeatureSums(), count: feature + 1 - current.count))
            }
            currentDirty = true
            current[feature].charges += 1
            let (charged, o) = current[feature].charged.addingReportingOverflow(Int128(-r.amount))
            if o { st.overflow(ctx, line) } else { current[feature].charged = charged }
            if st.firstSeen.count <= feature {
                st.firstSeen.append(
                    contentsOf: repeatElement(UInt64.max, count: feature + 1 - st.firstSeen.count))
            }
            let seen = st.firstSeen[feature]
            if seen == .max
                || (SlotMeta.input(meta), SlotMeta.line(meta)) < (
                    SlotMeta.input(seen), SlotMeta.line(seen)
                )
            {
                st.firstSeen[feature] = meta
            }
            if r.audit != 0 {
                if st.audit.count <= feature {
                    st.audit.append(
                        contentsOf: repeatElement(AuditTally(), count: feature + 1 - st.audit.count)
                    )
                }
                if r.audit == 1 {
                    st.audit[feature].checked += 1
                } else {
                    if let outcome = chunk.extras[Int(r.extra)].audit {
                        let place = TakingsPlace(input: ctx.input, path: ctx.path, line: line)
                        st.audit[feature].add(outcome, charged: -Int128(r.amount), place: place)
                    }
                }
            }
            if isPriced(feature), let pricing = settings.pricing {
                let quantity = r.extra >= 0 ? chunk.extras[Int(r.extra)].quantity : [:]
                let at = Timestamp(seconds: r.seconds, nanoseconds: Int32(r.nanoseconds))
                do {
                    if let cost = try pricing.cost(
                        feature: features[feature], quantity: quantity, at: at)
                    {
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
                            rule: "cost"))
                }
            }
        case .grant:
            st.grants += 1
            if !addChecked(&st.granted, r.amount) { st.overflow(ctx, line) }
        case .topup:
            st.topups += 1
            if !addChecked(&st.toppedUp, r.amount) { st.overflow(ctx, line) }
            if r.extra >= 0, let price = chunk.extras[Int(r.extra)].price {
                do {
                    st.topupMoney[price.currency] = try (st.topupMoney[price.currency] ?? .zero)
                        .adding(price.amount)
                } catch {
                    st.errors.append(
                        Diagnostic(
                            path: ctx.path, location: SourceLocation(line: line, column: 1),
                            message: "top-up money: \(error)", rule: "overflow"))
                }
            }
        case .refund:
            break
        }
    }
}
