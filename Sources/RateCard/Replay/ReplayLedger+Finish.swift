/// The end of a replay: refunds taken off the charges they give back, every device's
/// balance replayed in ledger order on both sides, the devices matched to the packs they
/// bought.
extension ReplayLedger {
    /// What a refund gives back on one side. On the ledger's side, the credits it
    /// records; on a card's side, the charge's credits there, or for a partial refund
    /// that share of them rounded down to whole credits (the one rounding of a replay).
    func givenBack(refund: ReplayRecord, charge: ReplayRecord, after side: Bool) -> Int128 {
        guard charge.priced else { return Int128(refund.amount) }
        let priced = Int128(side ? charge.after : charge.before)
        let isLedger: Bool
        if case .ledger = (side ? self.after : self.before).credits {
            isLedger = true
        } else {
            isLedger = false
        }
        if isLedger { return Int128(refund.amount) }
        let recorded = -Int128(charge.amount)
        guard recorded > 0, Int128(refund.amount) != recorded else { return priced }
        // priced ≤ 10^18·k and refund ≤ 10^18: the product fits in 128 bits.
        return priced * Int128(refund.amount) / recorded
    }

    /// Each refund's charge (record indexes), the refunds of unknown charges named, in
    /// reading order (input, then line: the first refund of a charge is the one counted).
    ///
    /// A refund's credits go back to the balance of its charge's device, whichever device
    /// (or none) recorded the refund: there, a refund dated before its charge is taken
    /// right after it, as on one device. A refund recorded on another device than its
    /// charge's is therefore carried in that balance by a copy (`ReplayRecord.copy`), and
    /// the refund itself counts in no balance (`movedRefund`). A copy brought from another
    /// shard or partition (`ReplayLedger+CrossDevice.swift`) is resolved here in the
    /// refund's place; the refund there was left out (`movedOut`).
    func resolveRefunds() -> [Int32: Int32] {
        var target: [Int32: Int32] = [:]
        var taken = Set<Int32>()
        var moved = copies > 0
        let inOrder = zip(refunds, refunds.dropFirst()).allSatisfy { a, b in
            let x = records[Int(a.record)]
            let y = records[Int(b.record)]
            return (x.input, x.line) <= (y.input, y.line)
        }
        if !inOrder {
            refunds.sort {
                let x = records[Int($0.record)]
                let y = records[Int($1.record)]
                return (x.input, x.line) < (y.input, y.line)
            }
        }
        for (refund, charge) in refunds {
            if movedOut.contains(refund) {
                target[refund] = Self.movedRefund
                continue
            }
            let r = records[Int(refund)]
            let found = index.find(charge).flatMap { records[Int($0)].kind == .charge ? $0 : nil }
            // The record that stands for the refund in a balance (none: in no balance).
            var carrier: Int32? = refund
            if r.copy {
                records[Int(refund)].device =
                    found.map { records[Int($0)].device } ?? ReplayRecord.none
            } else if let c = found, records[Int(c)].device != r.device {
                target[refund] = Self.movedRefund
                carrier = nil
                if records[Int(c)].device != ReplayRecord.none {
                    var copy = r
                    copy.device = records[Int(c)].device
                    copy.copy = true
                    copy.hasBalance = false
                    carrier = Int32(records.count)
                    records.append(copy)
                    copies += 1
                    moved = true
                }
            }
            guard let c = found, !taken.contains(c) else {
                // Added back on both sides as recorded, to the balance of the carrier.
                unknownRefunds += 1
                if partRefundFindings < 4 * Self.shown {
                    partRefundFindings += 1
                    refundFindings.append(
                        (
                            Int(r.input),
                            Diagnostic(
                                path: paths[Int(r.input)],
                                location: SourceLocation(line: Int(r.line), column: 1),
                                severity: .warning,
                                message:
                                    "refund names no charge of the ledger (or one already given back): its credits are added back on both sides as recorded",
                                rule: .replay(.refundOfUnknownCharge))
                        ))
                }
                continue
            }
            let ch = records[Int(c)]
            if let problem = impossibleRefund(r, of: ch) {
                // Nothing of it is counted: neither given back nor in a balance.
                rejectRefund(r, problem)
                target[refund] = Self.rejectedRefund
                if let carrier { target[carrier] = Self.rejectedRefund }
                continue
            }
            taken.insert(c)
            if let carrier { target[carrier] = c }
            guard ch.priced, ch.feature != ReplayRecord.none else { continue }
            let b = givenBack(refund: r, charge: ch, after: false)
            let a = givenBack(refund: r, charge: ch, after: true)
            let k = Int(ch.feature)
            tallies[k].refunded += 1
            tallies[k].creditsBefore -= b
            tallies[k].creditsAfter -= a
            let slot = DeviceFeature(device: ch.device, feature: ch.feature)
            usage[slot]?.creditsBefore -= b
            usage[slot]?.creditsAfter -= a
        }
        // The copies join their devices' entries: the order is computed again.
        if moved { sortedByDevice = nil }
        return target
    }

    /// The target of a refund rejected by `impossibleRefund`: the balance replay skips it.
    static let rejectedRefund: Int32 = -1

    /// Why a refund of charge `ch` cannot have happened, or nil: it gives back more than
    /// the charge took, or it is of another feature. Such a refund is rejected as `pnl`
    /// rejects it (`refund-exceeds-charge`, `bad-value`), not summed. A refund dated before
    /// its charge is counted, as `pnl` counts it (two services' clocks; docs/proceeds.md).
    func impossibleRefund(_ r: ReplayRecord, of ch: ReplayRecord) -> (String, DiagnosticRule)? {
        let place = "\(paths[Int(ch.input)]):\(ch.line)"
        let charged = -Int128(ch.amount)
        if Int128(r.amount) > charged {
            return (
                "amount: the refund gives back \(r.amount) credits, but the charge it names (\(place)) charged \(charged)",
                .rejected(.refundExceedsCharge)
            )
        }
        if r.feature != ReplayRecord.none, ch.feature != ReplayRecord.none, r.feature != ch.feature
        {
            let name = { (k: UInt32) in String(decoding: self.features.bytes[Int(k)], as: UTF8.self)
            }
            return (
                "feature: the refund is for \"\(name(r.feature))\" but the charge it names (\(place)) was for \"\(name(ch.feature))\"",
                .rejected(.badValue)
            )
        }
        return nil
    }

    /// Counts a refund rejected at the end as a rejected line (it is no longer an entry
    /// kept) and names it among the refund findings, as an error.
    func rejectRefund(_ r: ReplayRecord, _ problem: (message: String, rule: DiagnosticRule)) {
        rejected += 1
        kept -= 1
        guard partRefundFindings < 4 * Self.shown else { return }
        partRefundFindings += 1
        refundFindings.append(
            (
                Int(r.input),
                Diagnostic(
                    path: paths[Int(r.input)],
                    location: SourceLocation(line: Int(r.line), column: 1), severity: .error,
                    message: problem.message, rule: problem.rule)
            ))
    }

    /// Replays every device's balance in ledger order (its entries by time, then by
    /// input and line) on both sides, from the same opening balance (the first entry's
    /// `balanceAfter` less its amount, else zero), with the same grants and top-ups. A
    /// charge the balance does not cover is declined on that side and takes nothing; a
    /// refund gives back only what its charge took there, in the balance of the charge's
    /// device (`resolveRefunds`). A refund dated before its charge (two services' clocks)
    /// is taken right after the charge, as the proceeds pass takes it (docs/proceeds.md).
    /// A charge not re-priced is charged as recorded on both sides.
    func replayBalances(refundTargets: [Int32: Int32], into out: inout ReplayBalanceTally) {
        let order = deviceOrder()
        // Copies are no entries of their own (in a balance or, their charge without a
        // device, in none).
        out.withoutDevice +=
            copies == 0
            ? records.count - order.count
            : records.reduce(0) { $0 + ($1.device == ReplayRecord.none && !$1.copy ? 1 : 0) }
        // Whether each charge took its credits on each side (bit 0 before, bit 1 after),
        // and whether the replay has reached it (bit 2).
        var taken = [UInt8](repeating: 0, count: records.count)
        // The refund met before its charge, by the charge (record indexes): taken with it.
        var early: [Int32: Int32] = [:]
        var start = 0
        while start < order.count {
            let dev = records[Int(order[start])].device
            var end = start
            while end < order.count, records[Int(order[end])].device == dev { end += 1 }
            // The opening balance is the device's own first entry's (never a copy's:
            // the device's charge is among its entries).
            let own = order[start..<end].first { !records[Int($0)].copy } ?? order[start]
            let first = records[Int(own)]
            let opening = first.hasBalance ? Int128(first.balanceAfter) - Int128(first.amount) : 0
            var bal = (opening, opening)
            var device = ReplayBalanceTally.Device(
                name: String(decoding: devices.bytes[Int(dev)], as: UTF8.self))
            /// Gives back on each side what charge `c` took there.
            func give(refund r: ReplayRecord, of c: Int32) {
                let ch = records[Int(c)]
                if taken[Int(c)] & 1 != 0 {
                    bal.0 += givenBack(refund: r, charge: ch, after: false)
                }
                if taken[Int(c)] & 2 != 0 {
                    bal.1 += givenBack(refund: r, charge: ch, after: true)
                }
            }
            for j in start..<end {
                let k = order[j]
                let r = records[Int(k)]
                switch r.kind {
                case .grant, .topup, .revoke:
                    // A revoke's amount is negative: credits taken back after an Apple
                    // refund leave both sides' balances alike.
                    bal.0 += Int128(r.amount)
                    bal.1 += Int128(r.amount)
                case .charge:
                    let b = r.priced ? Int128(r.before) : -Int128(r.amount)
                    let a = r.priced ? Int128(r.after) : -Int128(r.amount)
                    let okBefore = bal.0 >= b
                    let okAfter = bal.1 >= a
                    if okBefore {
                        bal.0 -= b
                        taken[Int(k)] |= 1
                    } else {
                        device.counts.declinedBefore += 1
                    }
                    if okAfter {
                        bal.1 -= a
                        taken[Int(k)] |= 2
                    } else {
                        device.counts.declinedAfter += 1
                    }
                    if okBefore && !okAfter { device.counts.newlyDeclined += 1 }
                    if r.feature != ReplayRecord.none {
                        let f = Int(r.feature)
                        while out.perFeature.count <= f { out.perFeature.append((0, 0, 0)) }
                        if !okBefore { out.perFeature[f].before += 1 }
                        if !okAfter { out.perFeature[f].after += 1 }
                        if okBefore && !okAfter { out.perFeature[f].newly += 1 }
                    }
                    taken[Int(k)] |= 4
                    if let refund = early.removeValue(forKey: k) {
                        give(refund: records[Int(refund)], of: k)
                    }
                case .refund:
                    guard let c = refundTargets[k] else {
                        bal.0 += Int128(r.amount)
                        bal.1 += Int128(r.amount)
                        continue
                    }
                    if c == Self.rejectedRefund || c == Self.movedRefund { continue }
                    // Its charge is on this device (`resolveRefunds`): not reached yet, it
                    // is dated before it, and taken right after it.
                    if taken[Int(c)] & 4 == 0 {
                        early[c] = k
                        continue
                    }
                    give(refund: r, of: c)
                }
            }
            device.counts.leftBefore = bal.0
            device.counts.leftAfter = bal.1
            out.add(device)
            start = end
        }
    }

    /// The records that have a device, in ledger order per device: by device, then time,
    /// input and line. A stable counting sort by device keeps the reading order (inputs
    /// in turn, lines rising), so a device's entries need sorting only when the export
    /// is not in time order (checked per device). Computed once.
    func deviceOrder() -> [Int32] {
        if let sorted = sortedByDevice { return sorted.order }
        var starts = [Int](repeating: 0, count: devices.bytes.count + 1)
        for r in records where r.device != ReplayRecord.none { starts[Int(r.device) + 1] += 1 }
        for k in 1..<starts.count { starts[k] += starts[k - 1] }
        var next = starts
        var order = [Int32](repeating: 0, count: starts[starts.count - 1])
        for k in records.indices where records[k].device != ReplayRecord.none {
            let d = Int(records[k].device)
            order[next[d]] = Int32(k)
            next[d] += 1
        }
        func before(_ x: Int32, _ y: Int32) -> Bool {
            let a = records[Int(x)]
            let b = records[Int(y)]
            return (a.seconds, a.nanoseconds, a.input, a.line)
                < (b.seconds, b.nanoseconds, b.input, b.line)
        }
        for d in 0..<(starts.count - 1) where starts[d + 1] - starts[d] > 1 {
            let slice = starts[d]..<starts[d + 1]
            var inOrder = true
            for j in slice.dropFirst() where before(order[j], order[j - 1]) {
                inOrder = false
                break
            }
            if !inOrder { order[slice].sort(by: before) }
        }
        sortedByDevice = (order, starts)
        return order
    }

    /// The costs of the charges priced from the cache, each entry's costs times its
    /// charges, into the features' tallies. Run once, after every entry is kept.
    func finishCachedCosts() {
        do {
            for (slot, count) in hits.enumerated() where count > 0 {
                let e = cache.entries[slot]
                guard case .priced(_, let kb) = e.before, case .priced(_, let ka) = e.after
                else { continue }
                let n = Exact(integer: Int128(count))
                let k = Int(e.feature)
                tallies[k].costBefore = try tallies[k].costBefore.adding(kb.multiplied(by: n))
                tallies[k].costAfter = try tallies[k].costAfter.adding(ka.multiplied(by: n))
            }
        } catch {
            overflowed = true
        }
    }

    /// The cache entries' costs, and the same as integer numerators over one common
    /// denominator when they have one that fits (else `common` is nil). Worked out once.
    func cachedCostTable() -> ReplayCostTable {
        if let t = costTable { return t }
        let costs: [(Exact, Exact)] = cache.entries.map {
            guard case .priced(_, let kb) = $0.before, case .priced(_, let ka) = $0.after else {
                return (.zero, .zero)
            }
            return (kb, ka)
        }
        // One denominator for every entry's cost, when it has at most 24 digits (each
        // numerator then leaves room for the sums of a billion charges).
        var common: Int128? = 1
        for (b, a) in costs {
            for x in [b.denominator, a.denominator] {
                guard let d = common else { break }
                let g = Int128(Exact.gcd(d.magnitude, x.magnitude))
                let (p, o) = (d / g).multipliedReportingOverflow(by: x)
                common = !o && p < 1_000_000_000_000_000_000_000_000 ? p : nil
            }
        }
        var scaled: [(Int128, Int128)] = []
        if let d = common {
            let dx = Exact(integer: d)
            for (b, a) in costs {
                guard let nb = try? b.multiplied(by: dx).integerValue,
                    let na = try? a.multiplied(by: dx).integerValue
                else {
                    common = nil
                    break
                }
                scaled.append((nb, na))
            }
        }
        let t = ReplayCostTable(costs: costs, common: common, scaled: scaled)
        costTable = t
        return t
    }

    /// The costs of the cached charges per device and feature into `usage`, for the
    /// devices of the kept records that bought one pack (the per-pack figures, the only
    /// reader of `usage`): as integer numerators over the table's common denominator, else
    /// as exact fractions one by one. Run per partition, before refunds are taken off.
    func finishUsage(buyers byPack: [UInt32: Set<UInt32>]) {
        let table = cachedCostTable()
        let costs = table.costs
        let common = table.common
        let scaled = table.scaled
        // Per device (and the entries without one), its features' sums, then into `usage`.
        struct Sum {
            var requests = 0
            var creditsBefore: Int128 = 0
            var creditsAfter: Int128 = 0
            var numBefore: Int128 = 0
            var numAfter: Int128 = 0
            var costBefore = Exact.zero
            var costAfter = Exact.zero
        }
        var sums = [Sum](repeating: Sum(), count: features.bytes.count)
        var touched: [Int] = []
        func add(_ r: ReplayRecord) {
            guard r.priced, r.price != ReplayRecord.none else { return }
            let f = Int(r.feature)
            if sums[f].requests == 0 { touched.append(f) }
            sums[f].requests += 1
            sums[f].creditsBefore += Int128(r.before)
            sums[f].creditsAfter += Int128(r.after)
            let e = Int(r.price)
            if common != nil {
                let (b, o1) = sums[f].numBefore.addingReportingOverflow(scaled[e].0)
                let (a, o2) = sums[f].numAfter.addingReportingOverflow(scaled[e].1)
                if o1 || o2 { overflowed = true }
                sums[f].numBefore = b
                sums[f].numAfter = a
            } else {
                do {
                    sums[f].costBefore = try sums[f].costBefore.adding(costs[e].0)
                    sums[f].costAfter = try sums[f].costAfter.adding(costs[e].1)
                } catch {
                    overflowed = true
                }
            }
        }
        func flush(_ device: UInt32) {
            for f in touched {
                let s = sums[f]
                let slot = DeviceFeature(device: device, feature: UInt32(f))
                var u = usage[slot] ?? ReplayUsage()
                u.requests += s.requests
                u.creditsBefore += s.creditsBefore
                u.creditsAfter += s.creditsAfter
                do {
                    var cb = s.costBefore
                    var ca = s.costAfter
                    if let d = common {
                        cb = try Exact(s.numBefore, over: d)
                        ca = try Exact(s.numAfter, over: d)
                    }
                    u.costBefore = try u.costBefore.adding(cb)
                    u.costAfter = try u.costAfter.adding(ca)
                } catch {
                    overflowed = true
                }
                usage[slot] = u
                sums[f] = Sum()
            }
            touched.removeAll(keepingCapacity: true)
        }
        // Only the devices that bought one pack are in a pack's row (`ReplayPacks`).
        let order = deviceOrder()
        guard let starts = sortedByDevice?.starts else { return }
        var wanted = Set<UInt32>()
        for (_, devices) in byPack { wanted.formUnion(devices) }
        for device in wanted.sorted() where Int(device) + 1 < starts.count {
            for j in starts[Int(device)]..<starts[Int(device) + 1] { add(records[Int(order[j])]) }
            flush(device)
        }
    }

    /// The buyers of every pack over the run (`partBuyers`, summed per partition).
    func buyers() -> (byPack: [UInt32: Set<UInt32>], topups: [UInt32: Int], mixed: Int) {
        bought
    }

    /// The devices of the kept records that bought exactly one pack (every top-up of
    /// theirs matched to it), by pack; the devices whose top-ups match several packs, or a
    /// pack and no pack, are counted as mixed and in no pack. A device's entries are all
    /// in one partition, so the partitions' buyers add up to the run's.
    func partBuyers() -> (byPack: [UInt32: Set<UInt32>], topups: [UInt32: Int], mixed: Int) {
        var bought: [UInt32: Set<UInt32>] = [:]  // device → packs (none: UInt32.max)
        var topups: [UInt32: Int] = [:]
        for r in records where r.kind == .topup && r.device != ReplayRecord.none {
            bought[r.device, default: []].insert(r.feature)
            if r.feature != ReplayRecord.none { topups[r.feature, default: 0] += 1 }
        }
        var byPack: [UInt32: Set<UInt32>] = [:]
        var mixed = 0
        for (device, packs) in bought {
            guard packs.count == 1, let p = packs.first, p != ReplayRecord.none else {
                mixed += 1
                continue
            }
            byPack[p, default: []].insert(device)
        }
        return (byPack, topups, mixed)
    }
}

/// The cache entries' costs (`ReplayLedger.cachedCostTable`).
struct ReplayCostTable {
    let costs: [(Exact, Exact)]
    /// One denominator for every cost, when it fits (at most 24 digits).
    let common: Int128?
    /// Each cost times `common` (when `common` is set).
    let scaled: [(Int128, Int128)]
}

/// What the balance replay counts, on each side: the charges declined (before, after, and
/// covered before but declined after) and the credits left. One device's, or every
/// device's summed (`add`); the tally, the shards and the report all hold this one type.
struct ReplayBalanceCounts: Sendable, Hashable {
    var declinedBefore = 0
    var declinedAfter = 0
    var newlyDeclined = 0
    var leftBefore: Int128 = 0
    var leftAfter: Int128 = 0

    mutating func add(_ o: ReplayBalanceCounts) {
        declinedBefore += o.declinedBefore
        declinedAfter += o.declinedAfter
        newlyDeclined += o.newlyDeclined
        leftBefore += o.leftBefore
        leftAfter += o.leftAfter
    }
}

/// The balance replay's counts.
struct ReplayBalanceTally {
    /// One device's counts; the report lists those with the most new declines.
    struct Device: Sendable, Hashable {
        let name: String
        var counts = ReplayBalanceCounts()
    }

    /// How many devices are listed by name: those with the most new declines.
    static let shown = 10

    var devices = 0
    var withoutDevice = 0
    var devicesNewlyDeclined = 0
    /// Every device's counts, summed.
    var counts = ReplayBalanceCounts()
    /// Per feature index: declines before, after, and newly under the candidate.
    var perFeature: [(before: Int, after: Int, newly: Int)] = []
    var worst: [Device] = []

    mutating func add(_ d: Device) {
        devices += 1
        counts.add(d.counts)
        guard d.counts.newlyDeclined > 0 else { return }
        devicesNewlyDeclined += 1
        worst.append(d)
        Self.keepWorst(&worst)
    }

    /// The `shown` devices with the most new declines, ties by name.
    static func keepWorst(_ devices: inout [Device]) {
        devices.sort { ($1.counts.newlyDeclined, $0.name) < ($0.counts.newlyDeclined, $1.name) }
        if devices.count > shown { devices.removeLast(devices.count - shown) }
    }
}
