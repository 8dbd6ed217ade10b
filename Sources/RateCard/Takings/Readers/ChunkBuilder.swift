/// What the ledger-document and CSV readers hand each scanned entry to: `ChunkBuilder`
/// for `pnl`, the replay's own sink for `replay` (the same scanner, rules and places).
/// `line` is the 0-based index of the entry in what the reader read.
protocol EntrySink {
    mutating func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, line: UInt32)
    mutating func reject(line: UInt32, _ problem: LineProblem)
}

/// Turns scanned lines into records.
struct ChunkBuilder: EntrySink {
    let keepQuantity: QuantityNeed
    /// Per local feature index: whether its charges' quantities are kept.
    private var quantityWanted: [Bool] = []
    /// Per local feature index: its charge rules (resolved once per chunk and key),
    /// unretained: `keepQuantity.chargeRules` holds them for the builder's life, and the
    /// audit of every charge in the window then takes no reference counts.
    private var rules: [Unmanaged<ChargeRules>?] = []
    var chunk = ParsedChunk()
    private var features = ByteInterner()
    var devices: DeviceInterner
    /// Whether device names stay readable at their scanned place until `finish` (true
    /// for JSON Lines, whose block outlives the chunk's parse).
    let deferDevices: Bool
    /// How many shards merge the chunk: `finish` groups the records by shard.
    let shards: Int
    private var pendingDevices: [PendingDevice] = []

    struct PendingDevice {
        var record: Int
        var h0: UInt64
        var h1: UInt64
        var name: UnsafePointer<UInt8>
        var count: Int
    }

    private var prices = PriceCache()

    /// `reusing` is an earlier chunk whose arrays' storage the new one takes over.
    init(
        keepQuantity: QuantityNeed, devices: DeviceInterner = DeviceInterner(),
        deferDevices: Bool = false, shards: Int = 1, reusing: ParsedChunk = ParsedChunk()
    ) {
        self.keepQuantity = keepQuantity
        self.shards = shards
        self.devices = devices
        self.deferDevices = deferDevices
        chunk = reusing
        chunk.clearKeepingCapacity()
    }

    /// Adds the entry the scanner just read, at 0-based local `line`. Inlined into the
    /// parsers' loops: 2% fewer instructions on the plain 1M export (callgrind).
    @inline(__always)
    mutating func add(
        _ f: borrowing EntryScanner.Fields, _ scanner: borrowing EntryScanner, line: UInt32
    ) {
        let (id0, id1) = TakingsHash.id(scanner.pointer(f.id), Int(f.id.count))
        var featureHash: UInt64 = 0
        var deviceHash: UInt64 = 0
        let price = f.price.isPresent ? prices.read(f, scanner) : nil
        let content = f.contentHash(
            scanner, featureHash: &featureHash, deviceHash: &deviceHash, priceHash: price?.hash)
        let feature =
            f.feature.isPresent
            ? features.intern(scanner.pointer(f.feature), Int(f.feature.count), hash: featureHash)
            : TakingsRecord.none
        // The charge audit into locals, so that the record is built in one go.
        var audit: UInt8 = 0
        var finding: ChargeAuditOutcome?
        // Only charges in the window are audited and priced.
        let (kind, seconds, nanoseconds) = (f.kind, f.seconds, f.nanoseconds)
        let chargeInWindow =
            kind == .charge
            && keepQuantity.window.contains(seconds: seconds, nanoseconds: nanoseconds)
        if chargeInWindow,
            let rules = chargeRules(feature),
            let rule = rules._withUnsafeGuaranteedRef({
                $0.unretainedRule(seconds: seconds, nanoseconds: nanoseconds)
            })
        {
            let amount = f.amount
            let found = scanner.dimensions.withUnsafeBufferPointer { dimensions in
                rule._withUnsafeGuaranteedRef { $0.audit(amount, dimensions) }
            }
            if var outcome = found {
                if case .unknownDimension(let k) = outcome {
                    outcome = .unchecked(
                        ChargeErrorBox(
                            .unknownDimension(
                                feature: rule.takeUnretainedValue().feature.key,
                                dimension: scanner.string(scanner.dimensions[k].key) ?? "")))
                }
                finding = outcome
                audit = 2
            } else {
                audit = 1
            }
        }
        var r = TakingsRecord(
            id0: id0, id1: id1, content: content, seconds: f.seconds,
            amount: f.amount, line: line, nanoseconds: f.nanoseconds, feature: feature,
            kind: f.kind, audit: audit)
        if f.device.isPresent, let balance = f.balanceAfter {
            let p = scanner.pointer(f.device)
            let n = Int(f.device.count)
            let h1 = TakingsHash.bytes(p, n, seed: 0xde71_ce00_0000_0002)
            if deferDevices, !f.device.inScratch {
                // Looked up in `finish`, a few records ahead of use, so misses overlap.
                pendingDevices.append(
                    PendingDevice(
                        record: chunk.records.count, h0: deviceHash, h1: h1, name: p, count: n))
            } else {
                r.device = devices.intern(deviceHash, h1) {
                    String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
                }
            }
            r.balanceAfter = balance
            r.hasBalance = true
        }
        // What the record carries beyond numbers, built only when there is any.
        let quantity = chargeInWindow && !scanner.dimensions.isEmpty && wantsQuantity(r.feature)
        if f.kind == .refund || price != nil || finding != nil || quantity {
            var extra = RecordExtra()
            if f.kind == .refund {
                (r.ref0, r.ref1) = TakingsHash.id(
                    scanner.pointer(f.refundOf), Int(f.refundOf.count))
                extra.refundOf = scanner.string(f.refundOf)
            }
            if let price {
                (extra.price, extra.priceProblem) = (price.price, price.problem)
                r.priceProblem = price.problem != nil
            }
            extra.audit = finding
            if quantity { extra.quantity = f.quantity(scanner) }
            r.extra = Int32(chunk.extras.count)
            chunk.extras.append(extra)
        }
        chunk.records.append(r)
    }

    /// Whether the quantities of a charge of local feature `feature` are kept, asked of
    /// the pricing once per feature key.
    @inline(__always)
    private mutating func wantsQuantity(_ feature: UInt32) -> Bool {
        guard keepQuantity.any, feature != TakingsRecord.none else { return false }
        if keepQuantity.all { return true }
        let k = Int(feature)
        while quantityWanted.count <= k {
            quantityWanted.append(
                keepQuantity.wants(
                    String(decoding: features.bytes[quantityWanted.count], as: UTF8.self)))
        }
        return quantityWanted[k]
    }

    /// The charge rules of local feature `feature`, looked up once per feature key.
    @inline(__always)
    private mutating func chargeRules(_ feature: UInt32) -> Unmanaged<ChargeRules>? {
        guard !keepQuantity.chargeRules.isEmpty, feature != TakingsRecord.none else { return nil }
        let k = Int(feature)
        while rules.count <= k {
            rules.append(
                keepQuantity.chargeRules[
                    String(decoding: features.bytes[rules.count], as: UTF8.self)
                ].map { Unmanaged.passUnretained($0) })
        }
        return rules[k]
    }

    mutating func reserve(_ n: Int) {
        chunk.records.reserveCapacity(n)
        if deferDevices { pendingDevices.reserveCapacity(n) }
    }

    mutating func reject(line: UInt32, _ problem: LineProblem) {
        chunk.problems.append((line, problem))
    }

    mutating func finish() -> ParsedChunk {
        let ahead = 16
        for (k, d) in pendingDevices.enumerated() {
            if k + ahead < pendingDevices.count { devices.prefetch(pendingDevices[k + ahead].h0) }
            chunk.records[d.record].device = devices.intern(d.h0, d.h1) {
                String(decoding: UnsafeBufferPointer(start: d.name, count: d.count), as: UTF8.self)
            }
        }
        pendingDevices.removeAll(keepingCapacity: true)
        // While the records are still in this core's cache.
        chunk.groupByShard(shards)
        chunk.features = features.strings
        chunk.newDevices = devices.taken()
        return chunk
    }
}
