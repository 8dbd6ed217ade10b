/// What the proceeds pass keeps of the ledger, read by `ReplayReader` with `margin pnl`'s
/// readers and rules: every entry once (by id, as `pnl` de-duplicates), as a compact
/// record (`ProceedsEntry`, no strings but the payment reference of a top-up or revoke),
/// with the feature and the account (`device`) interned.
///
/// Under a memory cap too small for the whole ledger (`ProceedsLedger+Partitions`), the
/// entries go while read to temporary partitions by account (the hash of `device`), and
/// each partition is then read back as a ledger of its own and valued on its own: an
/// account's entries are all in one partition, so first in, first out per account is the
/// same.
final class ProceedsLedger: StreamedLedger {
    /// How many rejected lines are named in full (all are counted).
    static let shown = 20

    let paths: [String]
    var entries: [ProceedsEntry] = []
    var index: [ReplayLedger.EntryID: Int32] = [:]
    /// Each refund's record and the charge it names.
    var refunds: [(entry: Int32, charge: ReplayLedger.EntryID)] = []
    /// The payment references of top-ups and revokes, by entry.
    var paymentRefs: [Int32: String] = [:]
    /// The recorded price of top-ups that carry one, by entry.
    var prices: [Int32: Money] = [:]
    var features = ByteInterner()
    var devices = ByteInterner()
    /// The partitions entries go to while read (nil: every entry is kept here).
    var spill: TakingsSpill?
    /// Entries read and not yet written to their partition (in input order), and how many
    /// of them are at a provisional line (a batch not yet relabelled).
    var pending: [SpilledEntry] = []
    var provisionalPending = 0
    /// Entries written to the partitions, and the entries kept once they were read back.
    var spilled = 0
    var keptInPartitions = 0

    var lines = 0
    var blank = 0
    var recordCount: Int { spill == nil ? entries.count : spilled + pending.count }
    /// The entries kept (each id once), here or in the partitions.
    var keptEntries: Int { spill == nil ? entries.count : keptInPartitions }
    var duplicates = 0
    var conflicts = 0
    var rejected = 0
    var rejections: [Diagnostic] = []

    init(paths: [String]) { self.paths = paths }

    func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, input: Int,
        line: Int
    ) {
        let (id0, id1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        var featureHash: UInt64 = 0
        var deviceHash: UInt64 = 0
        let content = f.contentHash(scanner, featureHash: &featureHash, deviceHash: &deviceHash)
        let id = ReplayLedger.EntryID(h0: id0, h1: id1)
        if spill != nil {
            let feature =
                f.feature.isPresent
                ? features.intern(
                    scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
                : ProceedsEntry.none
            var s = SpilledEntry(
                entry: ProceedsEntry(
                    content: content, idHash: id0, seconds: f.seconds,
                    nanoseconds: f.nanoseconds, amount: f.amount, line: line, feature: feature,
                    device: ProceedsEntry.none, input: UInt16(truncatingIfNeeded: input),
                    kind: f.kind),
                id: id, deviceHash: deviceHash,
                device: f.device.isPresent
                    ? Array(
                        UnsafeBufferPointer(
                            start: scanner.pointer(f.device), count: Int(f.device.count)))
                    : nil)
            switch f.kind {
            case .refund:
                let (r0, r1) = TakingsHash.id(scanner.pointer(f.refundOf), Int(f.refundOf.count))
                s.refundOf = ReplayLedger.EntryID(h0: r0, h1: r1)
            case .topup, .revoke:
                if let ref = scanner.string(f.paymentRef), !ref.isEmpty { s.paymentRef = ref }
                if f.kind == .topup, f.price.isPresent { s.price = scanner.parsePrice(f.price) }
            case .grant, .charge: break
            }
            if line >= ReplayLedger.provisional { provisionalPending += 1 }
            pending.append(s)
            if provisionalPending == 0, pending.count >= Self.flushEntries { flushPending() }
            return
        }
        guard isNew(id, content: content, input: input, line: line) else { return }
        let feature =
            f.feature.isPresent
            ? features.intern(scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
            : ProceedsEntry.none
        let device =
            f.device.isPresent
            ? devices.intern(scanner.pointer(f.device), Int(f.device.count), hash: deviceHash)
            : ProceedsEntry.none
        let k = Int32(entries.count)
        entries.append(
            ProceedsEntry(
                content: content, idHash: id0, seconds: f.seconds, nanoseconds: f.nanoseconds,
                amount: f.amount, line: line, feature: feature, device: device,
                input: UInt16(truncatingIfNeeded: input), kind: f.kind))
        index[id] = k
        switch f.kind {
        case .refund:
            let (r0, r1) = TakingsHash.id(scanner.pointer(f.refundOf), Int(f.refundOf.count))
            refunds.append((k, ReplayLedger.EntryID(h0: r0, h1: r1)))
        case .topup, .revoke:
            if let ref = scanner.string(f.paymentRef), !ref.isEmpty { paymentRefs[k] = ref }
            if f.kind == .topup, f.price.isPresent, let p = scanner.parsePrice(f.price) {
                prices[k] = p
            }
        case .grant, .charge: break
        }
    }

    /// Whether the entry `id` is not kept yet; a second one is a duplicate (the same
    /// content) or, as in `pnl`, a conflicting duplicate whose later line is not read.
    func isNew(_ id: ReplayLedger.EntryID, content: UInt64, input: Int, line: Int) -> Bool {
        guard let k = index[id] else { return true }
        if entries[Int(k)].content == content {
            duplicates += 1
        } else {
            conflicts += 1
            reject(
                LineProblem(
                    .conflictingDuplicate,
                    "conflicting duplicate: the same id as \(paths[Int(entries[Int(k)].input)]):\(entries[Int(k)].line) with different content"
                ), input: input, line: line)
        }
        return false
    }

    func reject(_ problem: LineProblem, input: Int, line: Int) {
        rejected += 1
        if rejections.count < Self.shown {
            rejections.append(
                Diagnostic(
                    path: paths[input],
                    location: SourceLocation(line: line, column: problem.column),
                    severity: .warning, message: "ledger line not read: \(problem.message)",
                    rule: .rejected(problem.reason)))
        }
    }

    func relabel(input: Int, lineNumbers: [Int], fromRecord: Int) {
        if spill != nil {
            for k in max(0, fromRecord - spilled)..<pending.count {
                let j = pending[k].entry.line - ReplayLedger.provisional
                if j >= 0 {
                    provisionalPending -= 1
                    if j < lineNumbers.count { pending[k].entry.line = lineNumbers[j] }
                }
            }
        }
        for k in entries.indices where k >= fromRecord {
            let j = entries[k].line - ReplayLedger.provisional
            if j >= 0, j < lineNumbers.count { entries[k].line = lineNumbers[j] }
        }
        for k in rejections.indices {
            rejections[k] = rejections[k].relabeled(in: paths[input], lineNumbers: lineNumbers)
        }
    }

    func feature(_ k: UInt32) -> String {
        k == ProceedsEntry.none ? "" : String(decoding: features.bytes[Int(k)], as: UTF8.self)
    }
}

/// One ledger entry as the proceeds pass keeps it.
struct ProceedsEntry {
    static let none = UInt32.max

    let content: UInt64
    /// The first 64 bits of the id's hash: ties of time are broken by it, as `pnl` does.
    let idHash: UInt64
    let seconds: Int64
    let nanoseconds: UInt32
    /// Signed, as recorded.
    let amount: Int64
    /// 1-based line in its input.
    var line: Int
    let feature: UInt32
    let device: UInt32
    let input: UInt16
    let kind: LedgerEntry.Kind

    var at: Timestamp { Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds)) }
}
