extension TakingsEngine {
    /// Resolves refunds, checks balance chains, adds the shards up and builds the report.
    /// `resolved` holds what refunds already resolved elsewhere added (the partitioned
    /// run resolves them partition by partition).
    func finish(resolved: TakingsShard? = nil) -> TakingsReport {
        var log = rejections
        for shard in shards { log.merge(shard.state.rejections) }
        let final = resolved ?? TakingsShard(index: -1, rejectionsShown: 0)
        var entries = shards.reduce(0) { $0 + $1.state.entries }
        var inWindow = shards.reduce(0) { $0 + $1.state.inWindow }

        // Refunds: every input is read, so the charge each names can be looked up.
        let refunds = Self.inInputOrder(shards.map(\.state.pendingRefunds))
        resolveRefunds(
            refunds, charges: lookUpCharges(refunds),
            names: RefundNames(lists: shards.map(\.state.refundNames)), into: final, log: &log,
            entries: &entries, inWindow: &inWindow)
        errors.append(contentsOf: final.state.errors)

        checkBalanceChains(final)
        reportIgnoredFields()
        let (buckets, firstSeen) = addUpShards(final)
        var whole: [FeatureSums] = Array(repeating: FeatureSums(), count: features.count)
        for list in buckets.values {
            for (f, s) in list.enumerated() {
                do { try whole[f].merge(s) } catch {
                    errors.append(
                        Diagnostic(
                            path: "-", message: "\(features[f]): \(error)", rule: .pnl(.cost)))
                }
            }
        }
        let tableRows = rows(whole)
        let periods = seriesPeriods(buckets, final)
        let unknown = reportUnknownFeatures(tableRows, firstSeen: firstSeen, final)
        let audit = chargeAudit()
        let below = belowTheLine(final)
        let input = TakingsReport.Input(
            lines: lines, entries: entries,
            duplicates: shards.reduce(0) { $0 + $1.state.duplicates },
            rejected: log.count, blank: blank, rejectedByClass: log.byClass, inWindow: inWindow)
        if !input.isBalanced {
            errors.append(
                Diagnostic(
                    path: "-",
                    message:
                        "internal: the input accounting does not balance: \(input.lines) lines ≠ \(input.entries) entries + \(input.duplicates) duplicates + \(input.rejected) rejected + \(input.blank) blank",
                    rule: .pnl(.accounting)))
        }
        var costCurrency: Currency?
        for row in tableRows { if let c = row.cost?.currency { costCurrency = c } }
        return TakingsReport(
            window: options.window, series: options.series, rows: tableRows,
            totals: total(tableRows), periods: periods,
            belowTheLine: below, input: input, rejections: log.first, unknownFeatures: unknown,
            warnings: warnings.sorted(), errors: errors.sorted(), costCurrency: costCurrency,
            chargeAudit: audit)
    }

    /// The shards' refunds as one list in input order. Each shard's list is already in
    /// input order (chunks are merged in order), so they are merged, not sorted; a list
    /// out of order is sorted first.
    static func inInputOrder(_ lists: [[PendingRefund]]) -> [PendingRefund] {
        @inline(__always) func before(_ a: PendingRefund, _ b: PendingRefund) -> Bool {
            SlotMeta.precedes(a.meta, b.meta)
        }
        var lists = lists.filter { !$0.isEmpty }
        for k in lists.indices
        where zip(lists[k], lists[k].dropFirst()).contains(where: {
            before($1, $0)
        }) {
            lists[k].sort(by: before)
        }
        if lists.count <= 1 { return lists.first ?? [] }
        var out: [PendingRefund] = []
        out.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        var next = [Int](repeating: 0, count: lists.count)
        while true {
            var pick = -1
            for k in lists.indices where next[k] < lists[k].count {
                if pick < 0 || before(lists[k][next[k]], lists[pick][next[pick]]) { pick = k }
            }
            guard pick >= 0 else { break }
            out.append(lists[pick][next[pick]])
            next[pick] += 1
        }
        return out
    }

    /// Balance chains, device by device: a warning (an error under `--strict`) for each
    /// device whose `balanceAfter` values do not follow from its amounts.
    private func checkBalanceChains(_ final: TakingsShard) {
        let devices = self.devices
        var total = ShardState(rejectionsShown: 0)
        total.chains = Array(repeating: ChainSums(), count: devices.count)
        for shard in shards { total.absorbChains(shard.state.chains) }
        for (d, chain) in total.chains.enumerated() where chain.count > 0 && !chain.isUnbroken {
            let p = final.place(chain.latestMeta, settings)
            let message: String
            if !chain.latestTied, Int128(chain.latestBalance) != chain.total {
                message =
                    "device \"\(devices[d])\": balance chain broken: its latest entry says balanceAfter \(chain.latestBalance), but its \(chain.count) amounts sum to \(chain.total)"
            } else {
                message =
                    "device \"\(devices[d])\": balance chain broken: the balanceAfter values of its \(chain.count) entries do not follow from their amounts (an entry is missing, repeated or wrong)"
            }
            let diagnostic = Diagnostic(
                path: p.path, location: SourceLocation(line: p.line, column: 1),
                severity: options.strict ? .error : .warning, message: message,
                rule: .pnl(.balanceChain))
            if options.strict { errors.append(diagnostic) } else { warnings.append(diagnostic) }
        }
    }

    /// Fields ignored on entries that were kept: the first by place, then a count.
    private func reportIgnoredFields() {
        var ignored = RejectionLog(limit: settings.rejectionsShown)
        for shard in shards { ignored.merge(shard.state.ignoredFields) }
        var ignoredDiagnostics = ignored.first.map { r in
            Diagnostic(
                path: r.place.path, location: SourceLocation(line: r.place.line, column: 1),
                severity: options.strict ? .error : .warning, message: r.message,
                rule: .pnl(.ignoredField))
        }
        if ignored.count > ignored.first.count, let last = ignored.first.last {
            ignoredDiagnostics.append(
                Diagnostic(
                    path: last.place.path,
                    location: SourceLocation(line: last.place.line, column: 1),
                    severity: options.strict ? .error : .warning,
                    message:
                        "\(ignored.count - ignored.first.count) more entries with an ignored price after this one (\(ignored.count) in all)",
                    rule: .pnl(.ignoredField)))
        }
        if options.strict { errors += ignoredDiagnostics } else { warnings += ignoredDiagnostics }
    }

    /// The shards' sums added up bucket by bucket (with what `final` holds), and each
    /// feature's first place.
    private func addUpShards(_ final: TakingsShard) -> (
        buckets: [Int64: [FeatureSums]], firstSeen: [UInt64]
    ) {
        var total = ShardState(rejectionsShown: 0)
        total.sums = final.state.sums
        for shard in shards { total.absorbSums(shard.state, features: features) }
        errors.append(contentsOf: total.errors)
        return (total.sums, total.firstSeen)
    }

    /// The table's rows of features with a charge or a decline, by feature key.
    private func rows(_ list: [FeatureSums]) -> [TakingsReport.Row] {
        list.enumerated()
            .filter { $0.element.charges > 0 || $0.element.declines > 0 }
            .map {
                TakingsReport.Row(
                    feature: features[$0.offset], charges: Int($0.element.charges),
                    charged: $0.element.charged,
                    declines: Int($0.element.declines), givenBack: $0.element.givenBack,
                    cost: $0.element.cost)
            }
            .sorted { $0.feature.utf8.lexicographicallyPrecedes($1.feature.utf8) }
    }

    /// The total row of `rows`.
    private func total(_ rows: [TakingsReport.Row]) -> TakingsReport.Row {
        var s = FeatureSums()
        for r in rows {
            do {
                try s.merge(
                    FeatureSums(
                        charges: Int64(r.charges), charged: r.charged,
                        declines: Int64(r.declines), givenBack: r.givenBack, cost: r.cost))
            } catch {
                errors.append(Diagnostic(path: "-", message: "total: \(error)", rule: .pnl(.cost)))
            }
        }
        return TakingsReport.Row(
            feature: "total", charges: Int(s.charges), charged: s.charged,
            declines: Int(s.declines), givenBack: s.givenBack, cost: s.cost)
    }

    /// The series' periods with their rows and totals; entries in a period without a
    /// label are an error.
    private func seriesPeriods(_ buckets: [Int64: [FeatureSums]], _ final: TakingsShard)
        -> [TakingsReport.Period]
    {
        guard let series = options.series else { return [] }
        var periods: [TakingsReport.Period] = []
        for (b, sums) in buckets.sorted(by: { $0.key < $1.key }) where b != TakingsSeries.outside {
            let r = rows(sums)
            let period = series.calendarPeriod(b)
            guard !r.isEmpty, let label = period.label else { continue }
            periods.append(
                TakingsReport.Period(
                    label: label, since: period.since, until: period.until, rows: r,
                    totals: total(r)))
        }
        let outside = shards.reduce(final.state.outsideSeries) { $0 + $1.state.outsideSeries }
        if outside > 0 {
            let first =
                (shards.map(\.state.outsideSeriesFirst) + [final.state.outsideSeriesFirst])
                .filter { $0 != .max }.min { SlotMeta.precedes($0, $1) }
            let p =
                first.map { final.place($0, settings) }
                ?? TakingsPlace(input: 0, path: "-", line: 1)
            errors.append(
                Diagnostic(
                    path: p.path, location: SourceLocation(line: p.line, column: 1),
                    message:
                        "\(outside) \(outside == 1 ? "entry falls" : "entries fall") in a \(series.name) outside the years 0001 to 9999, which has no label: counted in the table, not in the series (the periods do not add up to the table)",
                    rule: .pnl(.seriesRange)))
        }
        return periods
    }

    /// Feature keys the card does not know: a warning each, at its first place.
    private func reportUnknownFeatures(
        _ tableRows: [TakingsReport.Row], firstSeen: [UInt64], _ final: TakingsShard
    ) -> [String] {
        guard let pricing = settings.pricing else { return [] }
        var unknown: [String] = []
        for row in tableRows where !pricing.isKnownFeature(row.feature) {
            unknown.append(row.feature)
            let f = featureIndex[Array(row.feature.utf8)] ?? firstSeen.count
            let p =
                f < firstSeen.count && firstSeen[f] != .max
                ? final.place(firstSeen[f], settings)
                : TakingsPlace(input: 0, path: "-", line: 1)
            warnings.append(
                Diagnostic(
                    path: p.path, location: SourceLocation(line: p.line, column: 1),
                    severity: .warning,
                    message:
                        "unknown feature key \"\(FieldReader.excerpt(row.feature))\": not on the card (\(row.charges) charges, kept in the table)",
                    rule: .pnl(.unknownFeature)))
        }
        return unknown
    }

    /// Below the line: grants, top-ups (credits and money) and the outstanding balance;
    /// the shards' own errors are collected on the way.
    private func belowTheLine(_ final: TakingsShard) -> TakingsReport.BelowTheLine {
        var grants: Int64 = 0
        var topups: Int64 = 0
        var granted: Int128 = 0
        var toppedUp: Int128 = 0
        var outstanding: Int128 = final.state.outstanding
        var money: [Currency: Exact] = [:]
        for shard in shards {
            grants += shard.state.grants
            topups += shard.state.topups
            granted &+= shard.state.granted
            toppedUp &+= shard.state.toppedUp
            outstanding &+= shard.state.outstanding
            errors.append(contentsOf: shard.state.errors)
            for (c, v) in shard.state.topupMoney {
                do { money[c] = try (money[c] ?? .zero).adding(v) } catch {
                    errors.append(
                        Diagnostic(
                            path: "-", message: "top-up money: \(error)", rule: .pnl(.overflow)))
                }
            }
        }
        return TakingsReport.BelowTheLine(
            grants: Int(grants), granted: granted, topups: Int(topups), toppedUp: toppedUp,
            topupMoney: money.sorted { $0.key < $1.key }.map { Money($0.value, $0.key) },
            outstanding: outstanding)
    }
}

extension TakingsEngine {
    /// Resolves `refunds` (in input order) against the table slots of the charges they
    /// name (`charges[j]` for `refunds[j]`, nil when there is none) by `checkRefunds`,
    /// and adds the refunds kept to `final`'s sums and outstanding balance. Every refund
    /// of one charge must be in the same call.
    func resolveRefunds(
        _ refunds: [PendingRefund], charges: [StoredEntry?], names: RefundNames,
        into final: TakingsShard, log: inout RejectionLog, entries: inout Int, inWindow: inout Int
    ) {
        let window = options.window
        let keep = checkRefunds(refunds, charges, names: names, log: &log)
        entries -= keep.filter { !$0 }.count
        var sumsByBucket = final.state.sums
        final.state.sums = [:]
        // Bucket 0 (the whole window without a series) is kept out of the dictionary.
        let hadZero = sumsByBucket[0] != nil
        var zero = sumsByBucket.removeValue(forKey: 0) ?? []
        var zeroUsed = false
        for j in refunds.indices where keep[j] {
            let r = (
                meta: refunds[j].meta, seconds: refunds[j].seconds, nanos: refunds[j].nanos,
                amount: refunds[j].amount, feature: refunds[j].feature
            )
            var place: TakingsPlace { final.place(r.meta, settings) }
            func overflow() {
                let p = place
                final.state.overflow(
                    ChunkContext(
                        input: p.input, path: p.path, baseLine: 0, featureMap: [], deviceMap: []),
                    p.line)
            }
            if window.beforeEnd(seconds: r.seconds, nanoseconds: r.nanos) {
                if !final.state.addOutstanding(Int128(r.amount)) { overflow() }
            }
            guard window.contains(seconds: r.seconds, nanoseconds: r.nanos) else { continue }
            inWindow += 1
            let bucket = options.series?.bucket(seconds: r.seconds) ?? 0
            if bucket == TakingsSeries.outside { final.state.noteOutsideSeries(r.meta) }
            // Mutated in place, not copied out of the dictionary and back per refund.
            func give(_ list: inout [FeatureSums]) {
                if !FeatureSums.count(
                    into: &list, feature: r.feature, declines: 1, givenBack: Int128(r.amount))
                {
                    overflow()
                }
            }
            if bucket == 0 {
                zeroUsed = true
                give(&zero)
            } else {
                give(&sumsByBucket[bucket, default: []])
            }
        }
        if hadZero || zeroUsed { sumsByBucket[0] = zero }
        final.state.sums = sumsByBucket
    }

    /// The charge audit over the shards, and its findings as diagnostics: warnings, or
    /// errors under `strict`. Nil when the run has no charge rules (no card).
    func chargeAudit() -> ChargeAudit? {
        guard !settings.quantities.chargeRules.isEmpty else { return nil }
        var tallies: [AuditTally] = []
        for shard in shards {
            for (f, t) in shard.state.audit.enumerated() {
                if tallies.count <= f {
                    tallies.append(
                        contentsOf: repeatElement(AuditTally(), count: f + 1 - tallies.count))
                }
                tallies[f].merge(t)
            }
        }
        var list: [ChargeAudit.Feature] = []
        let severity: Diagnostic.Severity = options.strict ? .error : .warning
        func report(_ d: Diagnostic) {
            if options.strict { errors.append(d) } else { warnings.append(d) }
        }
        func at(_ p: TakingsPlace, _ message: String, _ rule: DiagnosticRule) -> Diagnostic {
            Diagnostic(
                path: p.path, location: SourceLocation(line: p.line, column: 1), severity: severity,
                message: message, rule: rule)
        }
        for (f, t) in tallies.enumerated() where !t.isEmpty {
            let key = features[f]
            let findings = t.findings.sorted()
            list.append(
                ChargeAudit.Feature(
                    feature: key, metered: t.metered, checked: t.checked, mismatches: t.mismatches,
                    overCharged: t.overCharged, underCharged: t.underCharged,
                    missingQuantity: t.missingQuantity,
                    unchecked: t.unchecked, findings: findings))
            if t.overflowed {
                errors.append(
                    Diagnostic(
                        path: "-",
                        message:
                            "charge audit of \(key): the credits over- or under-charged overflow 128 bits",
                        rule: .pnl(.overflow)))
            }
            for finding in findings {
                report(
                    at(
                        finding.place, "\(FieldReader.excerpt(key)) charge: \(finding.message)",
                        finding.kind == .missingQuantity
                            ? .pnl(.missingQuantity) : .pnl(.chargeAudit)))
            }
            func first(_ kind: ChargeAudit.Finding.Kind) -> (TakingsPlace, Int) {
                let of = findings.filter { $0.kind == kind }
                return (of.first?.place ?? TakingsPlace(input: 0, path: "-", line: 1), of.count)
            }
            if t.mismatches > 0 {
                let (p, shown) = first(.mismatch)
                report(
                    at(
                        p,
                        "\(FieldReader.excerpt(key)): \(t.mismatches) of \(t.checked) charges differ from the card (over-charged \(t.overCharged) credits, under-charged \(t.underCharged)); the first \(shown) listed",
                        .pnl(.chargeAudit)))
            }
            if t.unchecked > 0 {
                let (p, shown) = first(.unchecked)
                report(
                    at(
                        p,
                        "\(FieldReader.excerpt(key)): \(t.unchecked) charges cannot be checked against the card; the first \(shown) listed",
                        .pnl(.chargeAudit)))
            }
            if t.missingQuantity > 0 {
                let (p, shown) = first(.missingQuantity)
                report(
                    at(
                        p,
                        "\(FieldReader.excerpt(key)): \(t.missingQuantity) charges carry no quantity: "
                            + (t.metered
                                ? "their metered cost is missing, so the cost is incomplete"
                                : "the charge audit cannot check them")
                            + "; the first \(shown) listed", .pnl(.missingQuantity)))
            }
        }
        return ChargeAudit(
            features: list.sorted { $0.feature.utf8.lexicographicallyPrecedes($1.feature.utf8) })
    }

    /// The table slot of the charge each refund names (nil when there is none), looked up
    /// shard by shard on the worker threads, with the home slots of a group of refunds
    /// loaded ahead so that their cache misses overlap instead of coming one by one.
    func lookUpCharges(_ refunds: [PendingRefund]) -> [StoredEntry?] {
        var found = [StoredEntry?](repeating: nil, count: refunds.count)
        let count = shards.count
        let shards = self.shards
        found.withUnsafeMutableBufferPointer { out in
            let results = SendableSlots(pointer: out.baseAddress)
            refunds.withUnsafeBufferPointer { rs in
                let list = SendableRefunds(pointer: rs.baseAddress)
                let n = rs.count
                parallel(count) { s in
                    guard let rs = list.pointer, let out = results.pointer else { return }
                    let table = shards[s].table.storage
                    let group = 32
                    var g = 0
                    while g < n {
                        let end = min(g + group, n)
                        let ahead = min(end + group, n)
                        for j in end..<ahead where SlotMeta.shard(of: rs[j].ref0, count: count) == s
                        {
                            table.prefetch(id0: rs[j].ref0, id1: rs[j].ref1)
                        }
                        for j in g..<end where SlotMeta.shard(of: rs[j].ref0, count: count) == s {
                            out[j] = table.entry(id0: rs[j].ref0, id1: rs[j].ref1)
                        }
                        g = end
                    }
                }
            }
        }
        return found
    }
}
