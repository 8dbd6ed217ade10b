/// The state of one replay while its inputs are read: every entry once (by id, as `margin
/// pnl` de-duplicates), each charge priced by both sides as it is read, and what the
/// balance replay and the per-pack figures need kept per entry (`ReplayRecord`, 64
/// bytes, no strings).
final class ReplayLedger: StreamedLedger {
    /// How many entries of each kind of finding are named in full (all are counted).
    static let shown = 20

    let before: ReplaySide
    let after: ReplaySide
    let paths: [String]

    var records: [ReplayRecord] = []
    /// The record of each id.
    var index: [EntryID: Int32] = [:]
    /// Refunds: their record and the id of the charge they name.
    var refunds: [(record: Int32, charge: EntryID)] = []
    var features = ByteInterner()
    var devices = ByteInterner()
    var tallies: [ReplayTally] = []
    /// The packs top-ups were matched to, by product id.
    var packs: [String] = []
    var packIndex: [String: UInt32] = [:]
    /// Per device and feature: what the per-pack figures add up (credits and cost).
    var usage: [DeviceFeature: ReplayUsage] = [:]

    var lines = 0
    var blank = 0
    var recordCount: Int { records.count }
    var duplicates = 0
    var rejected = 0
    var rejections: [Diagnostic] = []
    var conflicts = 0
    var unknownRefunds = 0
    var findings: [Diagnostic] = []
    var overflowed = false

    init(before: ReplaySide, after: ReplaySide, paths: [String]) {
        self.before = before
        self.after = after
        self.paths = paths
    }

    struct EntryID: Hashable {
        let h0: UInt64
        let h1: UInt64
    }

    struct DeviceFeature: Hashable {
        let device: UInt32
        let feature: UInt32
    }

    /// One scanned entry at 1-based `line` of input `input`.
    func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, input: Int,
        line: Int
    ) {
        let (id0, id1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        var featureHash: UInt64 = 0
        var deviceHash: UInt64 = 0
        let content = f.contentHash(scanner, featureHash: &featureHash, deviceHash: &deviceHash)
        let id = EntryID(h0: id0, h1: id1)
        if let k = index[id] {
            let first = records[Int(k)]
            if first.content == content {
                duplicates += 1
            } else {
                conflicts += 1
                if findings.count < 4 * Self.shown {
                    findings.append(
                        Diagnostic(
                            path: paths[input], location: SourceLocation(line: line, column: 1),
                            severity: .warning,
                            message:
                                "id \"\(scanner.string(f.id) ?? "")\" is also at \(paths[Int(first.input)]):\(first.line) with other content: the first is kept",
                            rule: .replay(.conflictingDuplicate)))
                }
            }
            return
        }
        let feature =
            f.feature.isPresent
            ? features.intern(scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
            : ReplayRecord.none
        let device =
            f.device.isPresent
            ? devices.intern(scanner.pointer(f.device), Int(f.device.count), hash: deviceHash)
            : ReplayRecord.none
        var r = ReplayRecord(
            content: content, seconds: f.seconds, amount: f.amount,
            balanceAfter: f.balanceAfter ?? 0, nanoseconds: f.nanoseconds,
            line: UInt32(truncatingIfNeeded: line), feature: feature, device: device,
            input: UInt16(truncatingIfNeeded: input), kind: f.kind,
            hasBalance: f.balanceAfter != nil)
        switch f.kind {
        case .charge:
            price(&r, f, scanner, input: input, line: line)
        case .refund:
            let (r0, r1) = TakingsHash.id(scanner.pointer(f.refundOf), Int(f.refundOf.count))
            refunds.append((Int32(records.count), EntryID(h0: r0, h1: r1)))
        case .topup:
            // Which pack it bought, by the "before" side's card at its time (the feature
            // slot of a top-up holds the pack).
            let at = Timestamp(seconds: f.seconds, nanoseconds: Int32(f.nanoseconds))
            let price = f.price.isPresent ? scanner.parsePrice(f.price) : nil
            if let id = before.pack(credits: f.amount, price: price, at: at) {
                if let k = packIndex[id] {
                    r.feature = k
                } else {
                    r.feature = UInt32(packs.count)
                    packIndex[id] = r.feature
                    packs.append(id)
                }
            }
        case .grant, .revoke: break
        }
        index[id] = Int32(records.count)
        records.append(r)
    }

    /// Prices a charge on both sides and adds it to its feature's tally.
    private func price(
        _ r: inout ReplayRecord, _ f: borrowing EntryScanner.Fields,
        _ scanner: borrowing EntryScanner, input: Int, line: Int
    ) {
        let k = Int(r.feature)
        while tallies.count <= k { tallies.append(ReplayTally()) }
        let key = String(decoding: features.bytes[k], as: UTF8.self)
        let quantity = f.quantity(scanner)
        let at = Timestamp(
            seconds: f.seconds, nanoseconds: Int32(f.nanoseconds), offsetMinutes: f.offsetMinutes)
        let recorded = -Int128(f.amount)
        var version: Int?
        if f.card.isPresent, case .ledger = before.credits, let ref = scanner.string(f.card),
            let at = ref.lastIndex(of: "@")
        {
            version = Int(ref[ref.index(after: at)...])
        }
        let b = before.price(
            feature: key, quantity: quantity, recorded: recorded, at: at, version: version)
        let a = after.price(feature: key, quantity: quantity, recorded: recorded, at: at)
        tallies[k].requests += 1
        tallies[k].ledgerCredits += recorded
        guard case .priced(let cb, let kb) = b, case .priced(let ca, let ka) = a,
            let cb64 = Int64(exactly: cb), let ca64 = Int64(exactly: ca)
        else {
            tallies[k].notRepriced += 1
            tallies[k].notRepricedCredits += recorded
            var why: [String] = []
            if case .notPriced(let m) = b { why.append("before: \(m)") }
            if case .notPriced(let m) = a { why.append("after: \(m)") }
            if why.isEmpty { why.append("the credits do not fit in 64 bits") }
            if tallies[k].named.count < Self.shown {
                tallies[k].named.append(
                    Diagnostic(
                        path: paths[input], location: SourceLocation(line: line, column: 1),
                        severity: .warning,
                        message: "charge of \(key) not re-priced: " + why.joined(separator: "; "),
                        rule: .replay(.notRepriced)))
            }
            return
        }
        r.before = cb64
        r.after = ca64
        r.priced = true
        tallies[k].repriced += 1
        tallies[k].creditsBefore += cb
        tallies[k].creditsAfter += ca
        do {
            tallies[k].costBefore = try tallies[k].costBefore.adding(kb)
            tallies[k].costAfter = try tallies[k].costAfter.adding(ka)
            let slot = DeviceFeature(device: r.device, feature: r.feature)
            var u = usage[slot] ?? ReplayUsage()
            u.requests += 1
            u.creditsBefore += cb
            u.creditsAfter += ca
            u.costBefore = try u.costBefore.adding(kb)
            u.costAfter = try u.costAfter.adding(ka)
            usage[slot] = u
        } catch {
            overflowed = true
        }
    }

    func reject(_ problem: LineProblem, input: Int, line: Int) {
        rejected += 1
        if rejections.count < Self.shown {
            rejections.append(
                Diagnostic(
                    path: paths[input],
                    location: SourceLocation(line: line, column: problem.column),
                    severity: .error, message: problem.message, rule: .rejected(problem.reason)))
        }
    }

    /// Where the provisional lines of a batch start: far above any real line, and 0 in
    /// the low 32 bits, so that a record keeps the entry's index in the batch.
    static let provisional = 1 << 40

    /// Rewrites the provisional lines of a batch (a ledger document, some CSV rows) of
    /// input `input` into the lines where its entries start (`lineNumbers`, by index);
    /// `fromRecord` is the first record of the batch.
    func relabel(input: Int, lineNumbers: [Int], fromRecord: Int) {
        for k in fromRecord..<records.count {
            let j = Int(records[k].line)
            if j < lineNumbers.count {
                records[k].line = UInt32(truncatingIfNeeded: lineNumbers[j])
            }
        }
        func fix(_ d: inout Diagnostic) {
            let j = d.location.line - Self.provisional
            guard d.path == paths[input], j >= 0, j < lineNumbers.count else { return }
            d = Diagnostic(
                path: d.path,
                location: SourceLocation(line: lineNumbers[j], column: d.location.column),
                severity: d.severity, message: d.message, rule: d.rule)
        }
        for k in rejections.indices { fix(&rejections[k]) }
        for k in findings.indices { fix(&findings[k]) }
        for t in tallies.indices {
            for k in tallies[t].named.indices { fix(&tallies[t].named[k]) }
        }
    }
}

/// One entry as the replay keeps it.
struct ReplayRecord {
    static let none = UInt32.max

    var content: UInt64
    var seconds: Int64
    /// Signed, as recorded.
    var amount: Int64
    var balanceAfter: Int64
    /// A charge's credits on each side (when `priced`).
    var before: Int64 = 0
    var after: Int64 = 0
    var nanoseconds: UInt32
    /// 1-based line in its input.
    var line: UInt32
    /// The feature of a charge or refund; the pack of a top-up (`ReplayLedger.packs`).
    var feature: UInt32
    var device: UInt32
    var input: UInt16
    var kind: LedgerEntry.Kind
    var hasBalance: Bool
    /// Both sides priced the charge.
    var priced = false
}

/// One feature's figures while reading. Credits are sums of at most 10^18 per entry in
/// 128 bits: they cannot overflow below 10^20 entries (a run takes 1,024 inputs, each far
/// smaller); costs are exact rationals whose overflow is reported (`overflowed`).
struct ReplayTally {
    var requests = 0
    var repriced = 0
    var notRepriced = 0
    /// The ledger's credits of the charges not re-priced.
    var notRepricedCredits: Int128 = 0
    /// Every charge's recorded credits.
    var ledgerCredits: Int128 = 0
    /// Over the re-priced charges; refunds are taken off at the end.
    var creditsBefore: Int128 = 0
    var creditsAfter: Int128 = 0
    var costBefore = Exact.zero
    var costAfter = Exact.zero
    /// Re-priced charges given back by a refund.
    var refunded = 0
    var named: [Diagnostic] = []
}

/// What one device spent on one feature, over its re-priced charges.
struct ReplayUsage {
    var requests = 0
    var creditsBefore: Int128 = 0
    var creditsAfter: Int128 = 0
    var costBefore = Exact.zero
    var costAfter = Exact.zero
}
