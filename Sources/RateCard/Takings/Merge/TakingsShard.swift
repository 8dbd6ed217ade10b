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

extension FeatureSums {
    /// Counts takings of one feature into `list`, one period's sums (grown as needed):
    /// `charges` charges of `charged` credits and `declines` declines giving back
    /// `givenBack`. The one counting function of the takings: an entry's charge (one at a
    /// time, while merging), a kept refund (one decline, once every input is read) and a
    /// roll-up row (a period's four sums at once) all count here. False, and the sums
    /// unchanged, when a sum would overflow; never a trap.
    @inline(__always)
    static func count(
        into list: inout [FeatureSums], feature: Int, charges: Int64 = 0, charged: Int128 = 0,
        declines: Int64 = 0, givenBack: Int128 = 0
    ) -> Bool {
        if list.count <= feature {
            list.append(contentsOf: repeatElement(FeatureSums(), count: feature + 1 - list.count))
        }
        let (c, o1) = list[feature].charged.addingReportingOverflow(charged)
        let (g, o2) = list[feature].givenBack.addingReportingOverflow(givenBack)
        if o1 || o2 { return false }
        list[feature].charges += charges
        list[feature].charged = c
        list[feature].declines += declines
        list[feature].givenBack = g
        return true
    }
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
    /// Another entry is at the latest instant too: which of them ends the chain is not
    /// told by time, so the final balance is checked by the links alone (they hold only
    /// when the chain ends at the sum of the amounts).
    var latestTied = false
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
        if (seconds, nanos) == (latestSeconds, latestNanos) { latestTied = true }
        if (seconds, nanos) > (latestSeconds, latestNanos) { latestTied = false }
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
        if (o.latestSeconds, o.latestNanos) == (latestSeconds, latestNanos) {
            latestTied = true
        } else if (o.latestSeconds, o.latestNanos) > (latestSeconds, latestNanos) {
            latestTied = o.latestTied
        }
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
        links == ChainSums.mix(0) &- ChainSums.mix(total)
            && (latestTied || Int128(latestBalance) == total)
    }
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
struct MergeSettings: Sendable {
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
    /// The `refundOf` texts of `pendingRefunds` (`PendingRefund.nameAt`).
    var refundNames: [UInt8] = []
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

    /// Counts grants and top-ups in the window (below the line), for entries (one at a
    /// time) and roll-up rows alike. False, and the sums unchanged, on overflow.
    @inline(__always)
    mutating func countBelowTheLine(
        grants: Int64 = 0, granted: Int128 = 0, topups: Int64 = 0, toppedUp: Int128 = 0
    ) -> Bool {
        let (g, o1) = self.granted.addingReportingOverflow(granted)
        let (t, o2) = self.toppedUp.addingReportingOverflow(toppedUp)
        if o1 || o2 { return false }
        self.grants += grants
        self.granted = g
        self.topups += topups
        self.toppedUp = t
        return true
    }

    /// Adds credits to the outstanding balance (entries, kept refunds and roll-ups before
    /// the window's end). False, and the balance unchanged, on overflow.
    @inline(__always)
    mutating func addOutstanding(_ credits: Int128) -> Bool {
        let (s, o) = outstanding.addingReportingOverflow(credits)
        if o { return false }
        outstanding = s
        return true
    }

    /// Keeps `meta` as the first place of `feature` when it comes before the one kept.
    @inline(__always)
    mutating func noteFirstSeen(feature: Int, meta: UInt64) {
        if firstSeen.count <= feature {
            firstSeen.append(
                contentsOf: repeatElement(UInt64.max, count: feature + 1 - firstSeen.count))
        }
        let seen = firstSeen[feature]
        if seen == .max
            || (SlotMeta.input(meta), SlotMeta.line(meta)) < (
                SlotMeta.input(seen), SlotMeta.line(seen)
            )
        {
            firstSeen[feature] = meta
        }
    }

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
                message: "a sum of credits overflows 128 bits at this entry", rule: .pnl(.overflow))
        )
    }
}

/// One shard of the merge: the entries whose id hash falls in it. Shards share nothing
/// while merging, so each runs on its own thread; their sums are added at the end, which
/// does not depend on the order. Shared with the workers as `TakingsShard+Sendable` says.
final class TakingsShard {
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

    /// Merges the records of one chunk that belong to this shard, in line order.
    func merge(
        _ grouped: GroupedChunk, _ ctx: ChunkContext, _ settings: MergeSettings,
        features: [String]
    ) {
        var run = ShardMerge(
            index: index, st: state, table: table.storage, chunk: grouped.chunk,
            mine: grouped.records(ofShard: index), ctx: ctx, settings: settings,
            features: features)
        state = ShardState(rejectionsShown: 0)
        run.mergeAll()
        state = run.st
        table.storage = run.table
    }
}
