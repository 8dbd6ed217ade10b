/// Roll-ups: rows that count a period's charges, declines, grants and top-ups at once.
extension TakingsEngine {
    func addRollups(_ rows: [RollupReader.Row], input: Int, path: String) {
        for row in rows {
            lines += 1
            let place = TakingsPlace(input: input, path: path, line: row.line)
            guard let r = rollup(row, input: input, path: path),
                withinRollupCap(r, place: place),
                isNewRollup(r, row: row, input: input, place: place)
            else { continue }
            rollupCounts += r.charges + r.declines + r.grants + r.topups
            addRollup(r, row: row, input: input, path: path, place: place)
        }
    }

    /// The row's roll-up, or nil for a blank row or one rejected (the rejection noted).
    private func rollup(_ row: RollupReader.Row, input: Int, path: String)
        -> RollupReader.Rollup?
    {
        switch row.result {
        case nil:
            blank += 1
            return nil
        case .failure(let problem):
            rejections.add(
                TakingsRejection(
                    place: TakingsPlace(
                        input: input, path: path, line: row.line, column: problem.column),
                    reason: problem.reason, message: problem.message))
            return nil
        case .success(let value):
            return value
        }
    }

    /// Whether the row's counts still fit the run's exact total (else it is rejected).
    private func withinRollupCap(_ r: RollupReader.Rollup, place: TakingsPlace) -> Bool {
        let counts = r.charges + r.declines + r.grants + r.topups
        guard rollupCounts + counts <= TakingsRun.maxRollupCounts else {
            rejections.add(
                TakingsRejection(
                    place: place, reason: .amountOutOfRange,
                    message:
                        "the roll-ups count more than 10^18 charges, declines, grants and top-ups in all: the counts of this row (\(counts)) are beyond what one run can add exactly"
                ))
            return false
        }
        return true
    }

    /// Whether a row with an id is new: a repeat is counted, a conflicting one rejected.
    /// A row without an id is always new.
    private func isNewRollup(
        _ r: RollupReader.Rollup, row: RollupReader.Row, input: Int, place: TakingsPlace
    ) -> Bool {
        guard let id = r.id else { return true }
        let (id0, id1) = TakingsHash.id("rollup:" + id)
        let target = shards[SlotMeta.shard(of: id0, count: shards.count)]
        switch target.table.insert(
            id0: id0, id1: id1, content: r.contentHash,
            meta: SlotMeta.pack(line: row.line, input: input, kind: .grant, feature: UInt32.max))
        {
        case .duplicate:
            target.state.duplicates += 1
            return false
        case .conflict(let existing):
            let first = target.place(existing, settings)
            rejections.add(
                TakingsRejection(
                    place: place, reason: .conflictingDuplicate,
                    message:
                        "conflicting duplicate: the same roll-up id as \(first.path):\(first.line) with different content"
                ))
            return false
        case .inserted:
            return true
        }
    }

    /// A new row's sums: the outstanding balance, and when its period starts in the
    /// window, below the line and its feature's charges.
    private func addRollup(
        _ r: RollupReader.Rollup, row: RollupReader.Row, input: Int, path: String,
        place: TakingsPlace
    ) {
        let shard = shards[0]
        shard.state.entries += 1
        let window = options.window
        let cut =
            (window.since.map { r.since < $0 && $0 < r.until } ?? false)
            || (window.until.map { r.since < $0 && $0 < r.until } ?? false)
        let counted = window.contains(
            seconds: r.since.seconds, nanoseconds: UInt32(r.since.nanoseconds))
        if cut {
            warnings.append(
                Diagnostic(
                    path: path, location: SourceLocation(line: row.line, column: 1),
                    severity: .warning,
                    message:
                        "the window (\(window.name)) cuts roll-up period \(r.period): a roll-up can only be windowed by its period; \(counted ? "counted in full, as it starts inside the window" : "not counted, as it starts before the window")",
                    rule: .pnl(.rollupCut)))
        }
        if window.until.map({ r.since < $0 }) ?? true {
            // What the row leaves outstanding: granted + topped up + given back − charged
            // (each at most 10^18, so the net cannot overflow).
            let net = r.granted + r.toppedUp + r.givenBack - r.charged
            if !shard.state.addOutstanding(net) { rollupOverflow(row, path: path) }
        }
        guard counted else { return }
        shard.state.inWindow += 1
        guard
            shard.state.countBelowTheLine(
                grants: Int64(r.grants), granted: r.granted, topups: Int64(r.topups),
                toppedUp: r.toppedUp)
        else {
            rollupOverflow(row, path: path)
            return
        }
        guard let name = r.feature else { return }
        addRollupCharges(r, feature: name, row: row, input: input, path: path, place: place)
    }

    /// The row's credits go through the same checked additions as entries' sums: an
    /// overflow is an error naming the row, never a trap.
    private func rollupOverflow(_ row: RollupReader.Row, path: String) {
        errors.append(
            Diagnostic(
                path: path, location: SourceLocation(line: row.line, column: 1),
                message: "roll-up: the sums overflow 128 bits", rule: .pnl(.overflow)))
    }

    /// A counted row's charges, declines and given-back credits, in its feature's sums (in
    /// the series bucket its period starts in), and in the audit when the feature is
    /// metered.
    private func addRollupCharges(
        _ r: RollupReader.Rollup, feature name: String, row: RollupReader.Row, input: Int,
        path: String, place: TakingsPlace
    ) {
        let shard = shards[0]
        let bucket = rollupBucket(r, row: row, input: input, path: path)
        let feature: Int
        if let k = featureIndex[Array(name.utf8)] {
            feature = k
        } else {
            feature = features.count
            featureIndex[Array(name.utf8)] = feature
            features.append(name)
        }
        // A roll-up carries no quantities: of a feature metered by the version in force
        // at the period's start, its charges have no provider cost, so the feature's
        // metered cost is incomplete, as for entries without a quantity.
        if r.charges > 0, let rules = settings.quantities.chargeRules[name],
            let rule = rules.rule(
                seconds: r.since.seconds, nanoseconds: UInt32(r.since.nanoseconds)),
            rule.metered
        {
            if shard.state.audit.count <= feature {
                shard.state.audit.append(
                    contentsOf: repeatElement(
                        AuditTally(), count: feature + 1 - shard.state.audit.count))
            }
            shard.state.audit[feature].addRollup(
                charges: Int(r.charges), charged: r.charged, place: place)
        }
        var list = shard.state.sums[bucket] ?? []
        if !FeatureSums.count(
            into: &list, feature: feature, charges: Int64(r.charges), charged: r.charged,
            declines: Int64(r.declines), givenBack: r.givenBack)
        {
            rollupOverflow(row, path: path)
        }
        shard.state.sums[bucket] = list
        shard.state.noteFirstSeen(
            feature: feature,
            meta: SlotMeta.pack(
                line: row.line, input: input, kind: .charge,
                feature: UInt32(min(feature, 0xFFFE))))
    }

    /// The series bucket a row's period starts in (0 without a series); a period outside
    /// the series is noted, one longer than the series' period warned about.
    private func rollupBucket(
        _ r: RollupReader.Rollup, row: RollupReader.Row, input: Int, path: String
    ) -> Int64 {
        guard let series = options.series else { return 0 }
        let bucket = series.bucket(seconds: r.since.seconds)
        if bucket == TakingsSeries.outside {
            shards[0].state.noteOutsideSeries(
                SlotMeta.pack(line: row.line, input: input, kind: .charge, feature: UInt32.max))
        } else if series.calendarPeriod(bucket).endSeconds < r.until.seconds {
            warnings.append(
                Diagnostic(
                    path: path, location: SourceLocation(line: row.line, column: 1),
                    severity: .warning,
                    message:
                        "roll-up period \(r.period) is longer than a \(series.period.rawValue) of the series: counted in the \(series.period.rawValue) it starts in",
                    rule: .pnl(.rollupCut)))
        }
        return bucket
    }
}
