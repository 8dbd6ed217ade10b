#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state of one replay while its inputs are read: every entry once (by id, as `margin
/// pnl` de-duplicates), each charge priced by both sides as it is read, and what the
/// balance replay and the per-pack figures need kept per entry (`ReplayRecord`, 80
/// bytes, no strings).
final class ReplayLedger: StreamedLedger {
    /// How many entries of each kind of finding are named in full (all are counted).
    static let shown = 20

    let before: ReplaySide
    let after: ReplaySide
    let paths: [String]

    var records: [ReplayRecord] = []
    /// The record of each id.
    var index = ReplayIDIndex()
    /// Refunds: their record and the id of the charge they name.
    var refunds: [(record: Int32, charge: EntryID)] = []
    /// Refunds resolved in another shard or partition, where their charge is: they count
    /// here in nothing (`ReplayLedger+CrossDevice.swift`).
    var movedOut = Set<Int32>()
    /// Records that are copies of refunds (`ReplayRecord.copy`).
    var copies = 0
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
    /// The entries kept so far (over every partition).
    var kept = 0
    var recordCount: Int { holds ? pending.count : records.count }
    /// Entries are held until their batch's lines are known, then written to partitions
    /// or handed to shards, instead of kept as they are read.
    var holds: Bool { spill != nil || shards != nil }
    var duplicates = 0
    var rejected = 0
    var rejections: [Diagnostic] = []
    var conflicts = 0
    var unknownRefunds = 0
    /// Conflicting duplicates and refunds of unknown charges, each with its input: the
    /// first `4 × shown` in reading order are kept (`findings`).
    var conflictFindings: [(input: Int, diagnostic: Diagnostic)] = []
    var refundFindings: [(input: Int, diagnostic: Diagnostic)] = []
    var partConflicts = 0
    var partRefundFindings = 0
    /// The family replayed on the ledger's side (nil for a card side), and the `card`
    /// fields that name another id (`checkCard`).
    let familyID: String?
    var foreignCards: [ReplayForeignCard] = []
    /// Charge lines read on the ledger's side (copies included), the base `foreignCards`'
    /// line counts are of (`ReplayReport.usageOfAnotherCard`).
    var chargeLines = 0
    var cardIndex: [[UInt8]: Int] = [:]
    var lastCard: [UInt8] = []
    var lastCardVerdict = -1
    /// The entry `add` keeps one entry late (`keepDeferred`), and its id's bytes.
    var deferred: ReplayEntry?
    var deferredID: [UInt8] = []
    /// Why charges were not priced, each reason once.
    var messages: [String] = []
    var messageIndex: [String: UInt32] = [:]
    /// A partitioned run (`--memory`): the partition files, and the entries of the batch
    /// being read (held until their lines are known).
    var spill: ReplaySpill?
    /// A run on several threads in memory: the shards the entries are handed to
    /// (`ReplayShards`); nil on one thread or under `--memory`.
    var shards: ReplayShards?
    /// Threads a partitioned run finishes its partitions on (`finish`).
    var threads = 1
    /// A shard: its charges not re-priced are named by the run's ledger (`absorb`), which
    /// has the reasons and the features' names.
    var deferNames = false
    /// Charges priced by each `ReplayPriceCache` entry (both sides priced), for the costs.
    var hits: [Int] = []
    /// A shard's balance replay (`finishPartition`), added into the run's by `absorb`.
    var balances = ReplayBalanceTally()
    var pending: [(entry: ReplayEntry, id: Range<Int>)] = []
    var pendingIDs: [UInt8] = []
    var overflowed = false
    /// The records with a device in ledger order, once computed (`deviceOrder`).
    var sortedByDevice: (order: [Int32], starts: [Int])?
    /// The cache entries' costs, once worked out (`cachedCostTable`).
    var costTable: ReplayCostTable?
    /// The buyers of each pack, summed over the partitions replayed (`partBuyers`).
    var bought: (byPack: [UInt32: Set<UInt32>], topups: [UInt32: Int], mixed: Int) = ([:], [:], 0)
    /// Each distinct request priced once (`ReplayPriceCache`).
    var cache: ReplayPriceCache
    /// The family versions the ledger's side prices by (empty for a card side).
    let ledgerVersions: [Int]
    let ledgerEffective: [Timestamp]
    /// The before side is the ledger's own charges.
    let isLedger: Bool

    init(before: ReplaySide, after: ReplaySide, paths: [String]) {
        self.before = before
        self.after = after
        self.paths = paths
        cache = ReplayPriceCache(providers: before.costing.providers)
        if case .ledger(let versions) = before.credits {
            ledgerVersions = versions.map(\.card.version)
            ledgerEffective = versions.map(\.card.effective)
            familyID = versions.first?.card.id
            isLedger = true
        } else {
            isLedger = false
            familyID = nil
            ledgerVersions = []
            ledgerEffective = []
        }
    }

    func reserve(entries n: Int) {
        if let shards {
            shards.reserve(entries: n)
            return
        }
        guard spill == nil else { return }
        let n = min(n, 1 << 28)
        records.reserveCapacity(records.count + n)
        index.reserve(index.count + n)
    }

    struct EntryID: Hashable, BitwiseCopyable {
        let h0: UInt64
        let h1: UInt64
    }

    struct DeviceFeature: Hashable {
        let device: UInt32
        let feature: UInt32
    }

    /// One scanned entry at 1-based `line` of input `input`: prepared (`prepare`), then
    /// kept at once, or in a partitioned run written to its partition and kept when that
    /// partition is replayed (`ReplayLedger+Partitions.swift`).
    func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, input: Int,
        line: Int
    ) {
        let e = prepare(f, scanner, input: input, line: line)
        if let shards, line < Self.provisional {
            // Its line is final (JSON Lines): straight to its shard's batch.
            shards.add(
                e, id: UnsafeRawBufferPointer(start: scanner.pointer(f.id), count: Int(f.id.count)))
            return
        }
        if holds {
            hold(e, id: scanner.pointer(f.id), count: Int(f.id.count))
            return
        }
        // Kept one entry late: its id's slot is asked for now and read once the next line
        // is scanned, so that the probe does not wait on memory.
        index.prefetch(e.id)
        keepDeferred()
        deferred = e
        deferredID.removeAll(keepingCapacity: true)
        deferredID.append(
            contentsOf: UnsafeBufferPointer(start: scanner.pointer(f.id), count: Int(f.id.count)))
    }

    /// Keeps the entry `add` deferred, if any (before a batch is relabelled, at the end
    /// of a block, at the end).
    func keepDeferred() {
        guard let e = deferred else { return }
        deferred = nil
        deferredID.withUnsafeBytes { apply(e, id: $0) }
    }

    /// What an entry is, apart from the other entries: its id, content and record, a
    /// charge priced by both sides (from the cache, or afresh), the pack a top-up bought.
    private func prepare(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, input: Int,
        line: Int
    ) -> ReplayEntry {
        let (id0, id1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        var featureHash: UInt64 = 0
        var deviceHash: UInt64 = 0
        let content = f.contentHash(scanner, featureHash: &featureHash, deviceHash: &deviceHash)
        let feature =
            f.feature.isPresent
            ? features.intern(scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
            : ReplayRecord.none
        let device =
            f.device.isPresent
            ? devices.intern(scanner.pointer(f.device), Int(f.device.count), hash: deviceHash)
            : ReplayRecord.none
        var e = ReplayEntry(
            id: EntryID(h0: id0, h1: id1),
            record: ReplayRecord(
                content: content, seconds: f.seconds, amount: f.amount,
                balanceAfter: f.balanceAfter ?? 0, nanoseconds: f.nanoseconds,
                line: UInt32(truncatingIfNeeded: line), feature: feature, device: device,
                input: UInt16(truncatingIfNeeded: input), kind: f.kind,
                hasBalance: f.balanceAfter != nil),
            line: line, partitionKey: f.device.isPresent ? deviceHash : id0)
        switch f.kind {
        case .charge:
            if isLedger { chargeLines += 1 }
            if f.card.isPresent, isLedger {
                checkCard(scanner.pointer(f.card), Int(f.card.count), input: input, line: line)
            }
            price(&e, f, scanner)
        case .refund:
            let (r0, r1) = TakingsHash.id(scanner.pointer(f.refundOf), Int(f.refundOf.count))
            e.refundOf = EntryID(h0: r0, h1: r1)
            // Without a device, a refund goes where the charge it names goes.
            if !f.device.isPresent { e.partitionKey = r0 }
        case .topup:
            // Which pack it bought, by the "before" side's card at its time (the feature
            // slot of a top-up holds the pack).
            let at = Timestamp(seconds: f.seconds, nanoseconds: Int32(f.nanoseconds))
            let price = f.price.isPresent ? scanner.parsePrice(f.price) : nil
            if let id = before.pack(credits: f.amount, price: price, at: at) {
                if let k = packIndex[id] {
                    e.record.feature = k
                } else {
                    e.record.feature = UInt32(packs.count)
                    packIndex[id] = e.record.feature
                    packs.append(id)
                }
            }
        case .grant, .revoke: break
        }
        return e
    }

    /// Keeps a prepared entry: the first copy of its id is kept (a later copy is a
    /// duplicate, or a conflict when its content differs), a charge added to its feature's
    /// tally, a refund listed for the end. `id` is the id's bytes, for a conflict's warning.
    func apply(_ e: ReplayEntry, id: UnsafeRawBufferPointer) {
        let r = e.record
        if let k = index.find(e.id) {
            let first = records[Int(k)]
            if first.content == r.content {
                duplicates += 1
            } else {
                conflicts += 1
                if partConflicts < 4 * Self.shown {
                    partConflicts += 1
                    conflictFindings.append(
                        (
                            Int(r.input),
                            Diagnostic(
                                path: paths[Int(r.input)],
                                location: SourceLocation(line: e.line, column: 1),
                                severity: .warning,
                                message:
                                    "id \"\(String(decoding: id, as: UTF8.self))\" is also at \(paths[Int(first.input)]):\(first.line) with other content: the first is kept",
                                rule: .replay(.conflictingDuplicate))
                        ))
                }
            }
            return
        }
        switch r.kind {
        case .charge: tally(e)
        case .refund: refunds.append((Int32(records.count), e.refundOf))
        default: break
        }
        index.insert(e.id, record: Int32(records.count))
        records.append(r)
        kept += 1
    }

    /// Prices a charge on both sides: from the cache when the same request was priced
    /// before, else by `ReplaySide.price` (and kept).
    private func price(
        _ e: inout ReplayEntry, _ f: borrowing EntryScanner.Fields,
        _ scanner: borrowing EntryScanner
    ) {
        let k = Int(e.record.feature)
        while tallies.count <= k { tallies.append(ReplayTally()) }
        let recorded = -Int128(f.amount)
        let at = Timestamp(
            seconds: f.seconds, nanoseconds: Int32(f.nanoseconds), offsetMinutes: f.offsetMinutes)
        let key = cacheKey(e.record.feature, f, scanner, at: at)
        var slot = UInt32.max
        let b: ReplaySide.Outcome
        let a: ReplaySide.Outcome
        if let key, let c = cache.index[key] {
            slot = c
            b = cache.entries[Int(c)].before
            a = cache.entries[Int(c)].after
        } else {
            let name = String(decoding: features.bytes[k], as: UTF8.self)
            let quantity = f.quantity(scanner)
            var version: Int?
            if f.card.isPresent, case .ledger = before.credits, let ref = scanner.string(f.card),
                let at = ref.lastIndex(of: "@")
            {
                version = Int(ref[ref.index(after: at)...])
            }
            b = before.price(
                feature: name, quantity: quantity, recorded: recorded, at: at, version: version)
            a = after.price(feature: name, quantity: quantity, recorded: recorded, at: at)
            if let key, cache.entries.count < ReplayPriceCache.limit {
                slot = UInt32(cache.entries.count)
                cache.entries.append(.init(feature: e.record.feature, before: b, after: a))
                cache.index[key] = slot
            }
        }
        guard case .priced(let pb, let kb) = b, case .priced(let ca, let ka) = a,
            let cb64 = Int64(exactly: isLedger ? recorded : pb), let ca64 = Int64(exactly: ca)
        else {
            if case .notPriced(let m) = b { e.whyBefore = message(m) }
            if case .notPriced(let m) = a { e.whyAfter = message(m) }
            return
        }
        e.record.before = cb64
        e.record.after = ca64
        e.record.priced = true
        e.record.price = slot
        if slot == .max {
            e.costBefore = kb
            e.costAfter = ka
        }
    }

    /// Counts a charge whose `card` field names a version of another card id than the
    /// family replayed (`cardOfAnotherID`), by the field's text, at its first line. The
    /// field of the line before is remembered, so that a run of one text costs a compare.
    private func checkCard(_ p: UnsafePointer<UInt8>, _ n: Int, input: Int, line: Int) {
        let same =
            n == lastCard.count
            && lastCard.withUnsafeBufferPointer { b in
                b.baseAddress.map { memcmp($0, p, n) == 0 } ?? (n == 0)
            }
        if !same {
            lastCard = Array(UnsafeBufferPointer(start: p, count: n))
            if let k = cardIndex[lastCard] {
                lastCardVerdict = k
            } else {
                let text = String(decoding: lastCard, as: UTF8.self)
                var verdict = -1
                if let family = familyID, let at = text.lastIndex(of: "@"),
                    text[..<at] != family
                {
                    verdict = foreignCards.count
                    foreignCards.append(
                        ReplayForeignCard(
                            text: text, id: String(text[..<at]), input: input, line: line))
                }
                cardIndex[lastCard] = verdict
                lastCardVerdict = verdict
            }
        }
        if lastCardVerdict >= 0 { foreignCards[lastCardVerdict].lines += 1 }
    }

    /// The warnings of `checkCard`, one per `card` text.
    var foreignCardFindings: [Diagnostic] {
        foreignCards.map { c in
            let version = c.text[c.text.index(after: c.text.lastIndex(of: "@")!)...]
            return Diagnostic(
                path: paths[c.input], location: SourceLocation(line: c.line, column: 1),
                severity: .warning,
                message:
                    "card \"\(c.text)\" names card \(c.id), not \(familyID ?? ""), the card replayed: its number (\(version)) is read as a version of \(familyID ?? "") (\(c.lines) charge line\(c.lines == 1 ? "" : "s") with this card field, this the first)",
                rule: .replay(.cardOfAnotherID))
        }
    }

    /// The index of a reason a charge is not re-priced (`messages`).
    private func message(_ text: String) -> UInt32 {
        if let k = messageIndex[text] { return k }
        let k = UInt32(messages.count)
        messages.append(text)
        messageIndex[text] = k
        return k
    }

    /// Adds a kept charge to its feature's tally (and, priced afresh, its costs to the
    /// tally and to its device's usage; cached costs are summed at the end).
    private func tally(_ e: ReplayEntry) {
        let r = e.record
        let k = Int(r.feature)
        let recorded = -Int128(r.amount)
        while tallies.count <= k { tallies.append(ReplayTally()) }
        tallies[k].requests += 1
        tallies[k].ledgerCredits += recorded
        guard r.priced else {
            notRepriced(k, e, recorded: recorded)
            return
        }
        tallies[k].repriced += 1
        tallies[k].creditsBefore += Int128(r.before)
        tallies[k].creditsAfter += Int128(r.after)
        if r.price != ReplayRecord.none {
            // Costs of cached requests are summed at the end (`finishPrices`).
            hits(Int(r.price), add: 1)
            return
        }
        do {
            tallies[k].costBefore = try tallies[k].costBefore.adding(e.costBefore)
            tallies[k].costAfter = try tallies[k].costAfter.adding(e.costAfter)
            let slot = DeviceFeature(device: r.device, feature: r.feature)
            var u = usage[slot] ?? ReplayUsage()
            u.requests += 1
            u.creditsBefore += Int128(r.before)
            u.creditsAfter += Int128(r.after)
            u.costBefore = try u.costBefore.adding(e.costBefore)
            u.costAfter = try u.costAfter.adding(e.costAfter)
            usage[slot] = u
        } catch {
            overflowed = true
        }
    }

    /// Adds `n` charges priced by cache entry `slot`.
    func hits(_ slot: Int, add n: Int) {
        if slot >= hits.count {
            hits.append(contentsOf: repeatElement(0, count: max(1024, slot + 1 - hits.count)))
        }
        hits[slot] += n
    }

    /// Counts and names a charge that is not re-priced (the first `shown` per feature in
    /// reading order are named; a shard keeps them unnamed for the run's ledger).
    private func notRepriced(_ k: Int, _ e: ReplayEntry, recorded: Int128) {
        tallies[k].notRepriced += 1
        tallies[k].notRepricedCredits += recorded
        guard tallies[k].namedInPart < Self.shown else { return }
        tallies[k].namedInPart += 1
        let u = ReplayUnnamed(
            input: Int(e.record.input), line: e.line, whyBefore: e.whyBefore,
            whyAfter: e.whyAfter)
        if deferNames {
            tallies[k].unnamed.append(u)
        } else {
            tallies[k].named.append((u.input, notRepricedWarning(k, u)))
        }
    }

    /// The warning naming a charge of feature `k` that is not re-priced.
    func notRepricedWarning(_ k: Int, _ u: ReplayUnnamed) -> Diagnostic {
        var why: [String] = []
        if u.whyBefore != .max { why.append("before: \(messages[Int(u.whyBefore)])") }
        if u.whyAfter != .max { why.append("after: \(messages[Int(u.whyAfter)])") }
        if why.isEmpty { why.append("the credits do not fit in 64 bits") }
        let name = String(decoding: features.bytes[k], as: UTF8.self)
        return Diagnostic(
            path: paths[u.input],
            location: SourceLocation(line: u.line, column: 1),
            severity: .warning,
            message: "charge of \(name) not re-priced: " + why.joined(separator: "; "),
            rule: .replay(.notRepriced))
    }

    /// The cache key of a charge (`ReplayPriceCache.Key`), or nil when it has more
    /// quantity members than a key holds or the schedules cannot be packed.
    private func cacheKey(
        _ feature: UInt32, _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner,
        at: Timestamp
    ) -> ReplayPriceCache.Key? {
        guard cache.schedules != nil, scanner.dimensions.count <= ReplayPriceCache.maxDimensions
        else { return nil }
        var key = ReplayPriceCache.Key(
            feature: feature, named: -1, inForce: 0, windows: cache.windows(at: at.seconds),
            dimensions: UInt8(scanner.dimensions.count))
        if !ledgerVersions.isEmpty {
            var v = 0
            while v + 1 < ledgerEffective.count, ledgerEffective[v + 1] <= at { v += 1 }
            key.inForce = Int32(v)
            if f.card.isPresent,
                let n = Self.versionNumber(scanner.pointer(f.card), Int(f.card.count)),
                let i = ledgerVersions.firstIndex(of: n)
            {
                key.named = Int32(i)
            }
        }
        for (j, d) in scanner.dimensions.enumerated() {
            let name = cache.names.intern(scanner.pointer(d.key), Int(d.key.count), hash: d.keyHash)
            let m = ReplayPriceCache.Key.Member(
                name: name, significand: d.significand, scale: d.scale)
            switch j {
            case 0: key.d0 = m
            case 1: key.d1 = m
            case 2: key.d2 = m
            default: key.d3 = m
            }
        }
        return key
    }

    /// The version a `card` field names, as `Int(text after its last "@")` reads it: an
    /// optional sign and decimal digits; nil for anything else or without an `@`.
    static func versionNumber(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var at = n - 1
        while at >= 0, p[at] != UInt8(ascii: "@") { at -= 1 }
        guard at >= 0 else { return nil }
        var k = at + 1
        var negative = false
        if k < n, p[k] == UInt8(ascii: "+") || p[k] == UInt8(ascii: "-") {
            negative = p[k] == UInt8(ascii: "-")
            k += 1
        }
        guard k < n else { return nil }
        var v = 0
        while k < n {
            let c = p[k]
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) =
                negative
                ? m.subtractingReportingOverflow(Int(c - UInt8(ascii: "0")))
                : m.addingReportingOverflow(Int(c - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            v = s
            k += 1
        }
        return v
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
        func real(_ line: inout UInt32) {
            let j = Int(line)
            if j < lineNumbers.count { line = UInt32(truncatingIfNeeded: lineNumbers[j]) }
        }
        keepDeferred()
        if holds {
            // A partitioned or sharded run holds the batch until its lines are known.
            for k in fromRecord..<pending.count {
                real(&pending[k].entry.record.line)
                pending[k].entry.line = Int(pending[k].entry.record.line)
            }
            flushHeld()
        } else {
            for k in fromRecord..<records.count { real(&records[k].line) }
        }
        func fix(_ d: inout Diagnostic) {
            d = d.relabeled(in: paths[input], lineNumbers: lineNumbers)
        }
        for k in rejections.indices { fix(&rejections[k]) }
        for k in foreignCards.indices where foreignCards[k].input == input {
            let j = foreignCards[k].line - Self.provisional
            if j >= 0, j < lineNumbers.count { foreignCards[k].line = lineNumbers[j] }
        }
        for k in conflictFindings.indices { fix(&conflictFindings[k].diagnostic) }
        for k in refundFindings.indices { fix(&refundFindings[k].diagnostic) }
        for t in tallies.indices {
            for k in tallies[t].named.indices { fix(&tallies[t].named[k].diagnostic) }
        }
    }
}

/// A `card` field naming a version of another card id (`ReplayLedger.checkCard`).
struct ReplayForeignCard {
    let text: String
    let id: String
    let input: Int
    /// Its first line.
    var line: Int
    var lines = 0
}

/// One entry prepared (`ReplayLedger.prepare`): what keeping it needs, without the
/// scanner. A partitioned run writes it to its partition as it is (`ReplaySpill`), so it
/// holds plain values only.
struct ReplayEntry {
    var id: ReplayLedger.EntryID
    /// The charge a refund names.
    var refundOf = ReplayLedger.EntryID(h0: 0, h1: 0)
    var record: ReplayRecord
    /// A charge priced afresh (not from the cache): its provider cost on each side.
    var costBefore = Exact.zero
    var costAfter = Exact.zero
    /// Why a charge is not priced on each side (`ReplayLedger.messages`), or `.max`.
    var whyBefore = UInt32.max
    var whyAfter = UInt32.max
    /// Its 1-based line, or in a batch whose lines are not known yet its provisional
    /// line (`ReplayLedger.provisional` + its index), which the record keeps the low 32
    /// bits of.
    var line: Int
    /// Picks the partition: the device's hash, else (no device) the id's, or for a
    /// refund the hash of the charge it names, so that a device's entries and a refund
    /// with its charge meet in one partition.
    var partitionKey: UInt64
}

/// One entry as the replay keeps it.
struct ReplayRecord: BitwiseCopyable {
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
    /// A refund's stand-in in the balance of its charge's device, when the refund is
    /// recorded on another device (or none): added by `resolveRefunds` or brought from
    /// another shard or partition (`ReplayLedger+CrossDevice.swift`). It counts in that
    /// balance only: it is no entry, line or device of its own.
    var copy = false
    /// Its `ReplayPriceCache` entry, or `none` when it was priced afresh (its costs are
    /// then in the tallies and `usage` already).
    var price = ReplayRecord.none
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
    /// The charges named (input, warning): the first `ReplayLedger.shown` in reading
    /// order, of each partition until the run keeps the first of all.
    var named: [(input: Int, diagnostic: Diagnostic)] = []
    /// How many were named in the partition being replayed.
    var namedInPart = 0
    /// In a shard: the charges to name, named by the run's ledger (`absorb`).
    var unnamed: [ReplayUnnamed] = []

    /// Adds another shard's counts, credits and costs of the same feature (not its named
    /// charges: the run's ledger chooses those). Throws when a cost overflows.
    mutating func addSums(of o: ReplayTally) throws {
        requests += o.requests
        repriced += o.repriced
        notRepriced += o.notRepriced
        notRepricedCredits += o.notRepricedCredits
        ledgerCredits += o.ledgerCredits
        creditsBefore += o.creditsBefore
        creditsAfter += o.creditsAfter
        refunded += o.refunded
        costBefore = try costBefore.adding(o.costBefore)
        costAfter = try costAfter.adding(o.costAfter)
    }
}

/// A charge not re-priced, to be named (`ReplayLedger.notRepricedWarning`).
struct ReplayUnnamed {
    let input: Int
    let line: Int
    let whyBefore: UInt32
    let whyAfter: UInt32
}

/// What one device spent on one feature, over its re-priced charges.
struct ReplayUsage {
    var requests = 0
    var creditsBefore: Int128 = 0
    var creditsAfter: Int128 = 0
    var costBefore = Exact.zero
    var costAfter = Exact.zero

    /// Adds another device's or shard's spending. Throws when a cost overflows.
    mutating func add(_ o: ReplayUsage) throws {
        requests += o.requests
        creditsBefore += o.creditsBefore
        creditsAfter += o.creditsAfter
        costBefore = try costBefore.adding(o.costBefore)
        costAfter = try costAfter.adding(o.costAfter)
    }
}
