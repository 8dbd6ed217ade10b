#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proceeds pass under a memory cap: while the ledger is read, entries go to
/// temporary partitions by account (`TakingsSpill`'s private directory, removed after the
/// run and on a signal); each partition is then read back as a ledger of its own.
///
/// An account's entries all fall in one partition (by the hash of `device`; the entries
/// that name none are one account), so de-duplication by id and first in, first out per
/// account are the same as in memory for every entry whose copies name one device. Two
/// entries of one id that name different devices fall in different partitions and are not
/// seen as a conflict; a refund is matched to a charge of its own partition.
extension ProceedsLedger {
    /// Entries buffered before they are written to their partitions.
    static let flushEntries = 1 << 16

    /// Bytes the in-memory pass holds per entry: the record (64), the id table slot at its
    /// load (about 40), the order of the pass (8) and the per-account state (about 40).
    static let bytesPerEntry = 150
    /// Input bytes planned per entry (as the takings spill plans: fewer than any export
    /// line but the barest).
    static let inputBytesPerEntry = 100

    /// How many partitions the pass uses for `inputBytes` under `memoryLimit`: 1 (in
    /// memory) when the planned state fits; else enough that each partition's state
    /// takes at most half of the cap.
    static func partitions(inputBytes: Int?, memoryLimit: Int?) -> Int {
        guard let limit = memoryLimit else { return 1 }
        guard let inputBytes else { return TakingsRun.unknownSizePartitions }
        let state = (inputBytes / inputBytesPerEntry + 1) * bytesPerEntry
        guard state > limit else { return 1 }
        let half = max(1, limit / 2)
        return min(TakingsSpill.maxPartitions, max(2, (state + half - 1) / half))
    }

    /// Writes the entries read so far to their partitions.
    func flushPending() {
        guard let spill else { return }
        var w = SpillWriter()
        for s in pending {
            w.bytes.removeAll(keepingCapacity: true)
            s.write(to: &w)
            let p = TakingsSpill.partition(of: s.deviceHash, count: spill.partitions)
            w.bytes.withUnsafeBytes { spill.append(p, .records, $0) }
        }
        spilled += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    /// Ends the reading: what is buffered is written and the files closed.
    func finishPartitions() throws(TakingsInputError) {
        flushPending()
        try spill?.finish(.records)
    }

    /// Partition `p` read back as an in-memory ledger (its file is deleted); its counts
    /// and warnings are added to this ledger's.
    func partition(_ p: Int) throws -> ProceedsLedger {
        guard let spill else { return self }
        let bytes = try spill.take(p, .records)
        let part = ProceedsLedger(paths: paths)
        part.features = features
        var r = SpillReader(bytes)
        while !r.atEnd {
            guard let s = SpilledEntry.read(&r) else {
                throw TakingsInputError(
                    path: spill.path(p, .records), message: "a partition file is damaged")
            }
            part.insert(s)
        }
        keptInPartitions += part.entries.count
        duplicates += part.duplicates
        conflicts += part.conflicts
        rejected += part.rejected
        for d in part.rejections where rejections.count < Self.shown { rejections.append(d) }
        return part
    }

    /// Keeps an entry read back from a partition, as `add` keeps one read from the input.
    func insert(_ s: SpilledEntry) {
        let e = s.entry
        guard isNew(s.id, content: e.content, input: Int(e.input), line: e.line) else { return }
        var device = ProceedsEntry.none
        if let d = s.device {
            device = d.withUnsafeBufferPointer { b in
                devices.intern(
                    b.baseAddress ?? UnsafePointer(bitPattern: 1)!, b.count, hash: s.deviceHash)
            }
        }
        let k = Int32(entries.count)
        entries.append(
            ProceedsEntry(
                content: e.content, idHash: e.idHash, seconds: e.seconds,
                nanoseconds: e.nanoseconds, amount: e.amount, line: e.line, feature: e.feature,
                device: device, input: e.input, kind: e.kind))
        index[s.id] = k
        if let r = s.refundOf { refunds.append((k, r)) }
        if let ref = s.paymentRef { paymentRefs[k] = ref }
        if let price = s.price { prices[k] = price }
    }
}

/// One entry on its way through a partition: the record, its id, the account's bytes and
/// hash, and what a refund, top-up or revoke carries besides.
struct SpilledEntry {
    var entry: ProceedsEntry
    let id: ReplayLedger.EntryID
    let deviceHash: UInt64
    let device: [UInt8]?
    var refundOf: ReplayLedger.EntryID? = nil
    var paymentRef: String? = nil
    var price: Money? = nil

    private static let kinds: [LedgerEntry.Kind] = LedgerEntry.Kind.allCases

    /// Fixed fields (little-endian), then the device, the payment reference and the
    /// price as length-prefixed bytes, then the refunded charge's id.
    func write(to w: inout SpillWriter) {
        w.int(entry.content)
        w.int(entry.idHash)
        w.int(entry.seconds)
        w.int(entry.nanoseconds)
        w.int(entry.amount)
        w.int(Int64(entry.line))
        w.int(entry.feature)
        w.int(entry.input)
        w.int(UInt8(Self.kinds.firstIndex(of: entry.kind) ?? 0))
        w.int(id.h0)
        w.int(id.h1)
        w.int(deviceHash)
        w.data(device)
        w.string(paymentRef)
        w.string(price.map { "\($0.currency.code) \($0.amount.decimalText())" })
        w.flag(refundOf != nil)
        if let r = refundOf {
            w.int(r.h0)
            w.int(r.h1)
        }
    }

    /// The next entry of `r`, or nil when the bytes end early or are not one.
    static func read(_ r: inout SpillReader) -> SpilledEntry? {
        let content = r.int(UInt64.self)
        let idHash = r.int(UInt64.self)
        let seconds = r.int(Int64.self)
        let nanoseconds = r.int(UInt32.self)
        let amount = r.int(Int64.self)
        let line = r.int(Int64.self)
        let feature = r.int(UInt32.self)
        let input = r.int(UInt16.self)
        let kind = Int(r.int(UInt8.self))
        let h0 = r.int(UInt64.self)
        let h1 = r.int(UInt64.self)
        let deviceHash = r.int(UInt64.self)
        let device = r.data()
        let ref = r.string()
        let priceText = r.string()
        var refundOf: ReplayLedger.EntryID?
        if r.flag() {
            refundOf = ReplayLedger.EntryID(h0: r.int(UInt64.self), h1: r.int(UInt64.self))
        }
        guard r.ok, kind < kinds.count else { return nil }
        var price: Money?
        if let priceText {
            let parts = priceText.split(separator: " ")
            guard parts.count == 2, let c = Currency(code: String(parts[0])),
                let a = try? Exact(decimal: String(parts[1]))
            else { return nil }
            price = Money(a, c)
        }
        var s = SpilledEntry(
            entry: ProceedsEntry(
                content: content, idHash: idHash, seconds: seconds, nanoseconds: nanoseconds,
                amount: amount, line: Int(line), feature: feature, device: ProceedsEntry.none,
                input: input, kind: kinds[kind]),
            id: ReplayLedger.EntryID(h0: h0, h1: h1), deviceHash: deviceHash, device: device)
        s.refundOf = refundOf
        s.paymentRef = ref
        s.price = price
        return s
    }
}
