/// `margin reconcile --memory SIZE` when the matching would not fit in the cap (grace hash,
/// docs/reconcile.md "Memory"): Apple's records are streamed to partitions by the hash of
/// `transactionId`, the ledger's entries to partitions by the hash of their id (for
/// de-duplication) and from there its top-ups and revokes to the partition of their
/// `paymentRef` (the same hash), so each partition holds a set of purchases with every
/// record and every credit that names them, and is matched alone. The credits a device spent
/// since a refund are added up last, from the devices' partitions, for the few findings
/// that need them. The report is the in-memory one's (`ReconcileMemoryTests`).
extension ReconcileRun {
    /// Planned bytes the matching holds per byte of input, as measured in memory (docs/
    /// reconcile.md, Memory: 774 MiB for 112 MB of ledger and 72 MB of transactions): the
    /// ledger's id table and kept records, 2.5 per byte; Apple's records parsed and kept,
    /// about 6 per byte (1–2 KB per transaction of 240 bytes).
    static let ledgerStatePerHalfByte = 5
    static let appleStatePerByte = 6

    /// 1 (in memory) when the planned state fits in `memoryLimit`; else enough partitions
    /// that each one's takes at most half of it. Inputs of unknown size stay in memory.
    static func partitions(ledgerBytes: Int?, appleBytes: Int?, memoryLimit: Int?) -> Int {
        guard let limit = memoryLimit, let ledgerBytes, let appleBytes else { return 1 }
        let state = ledgerBytes / 2 * ledgerStatePerHalfByte + appleBytes * appleStatePerByte
        guard state > limit else { return 1 }
        let half = max(1, limit / 2)
        return min(TakingsSpill.maxPartitions, max(2, (state + half - 1) / half))
    }

    static func partitioned(
        _ request: ReconcileRequest, parts: Int, reconciler: Reconciler, pricer: ReplaySide?,
        catalogue: ProductCatalogue
    ) throws -> Reconciliation {
        let spill: ReconcileSpill
        do {
            spill = try ReconcileSpill(
                partitions: parts, memoryLimit: request.memoryLimit ?? (64 << 20),
                ledgerPaths: request.ledger, applePaths: request.transactions)
        } catch { throw RunFailure(error.description) }
        defer { spill.remove() }
        var reading = Reconciliation.Summary()
        var problems: [Diagnostic] = []
        do { try streamApple(request.transactions, to: spill, counts: &reading) } catch {
            problems += error.diagnostics
        }
        let reports = try readReports(request, catalogue: catalogue, problems: problems)
        let ledger = try ReconcileLedger.read(
            paths: request.ledger, format: request.inputFormat, pricer: pricer, spill: spill)
        reading.ledgerEntries = ledger.entries
        reading.ledgerDuplicates = ledger.duplicates
        reading.ledgerRejected = ledger.rejected
        reading.topups = ledger.topupCount
        reading.revokes = ledger.revokeCount

        var matched = Reconciler.Matched(
            units: TransactionUnits(storefronts: reconciler.storefronts))
        do {
            for p in 0..<parts {
                let apple = try spill.appleRecords(p)
                let credits = try spill.credits(p)
                try reconciler.match(
                    topups: credits.topups, revokes: credits.revokes, apple: apple,
                    spending: nil, into: &matched)
            }
        } catch let error as TakingsInputError { throw RunFailure(error.description) }
        try spentSince(&matched, ledger: ledger, reconciler: reconciler)
        return try reconciler.assemble(
            matched, reading: reading, sales: reports.sales, financial: reports.financial,
            ledgerWarnings: ledger.warnings, ledgerWarningsNotShown: ledger.warningsNotShown,
            emptyFiles: emptyFileWarnings(reading.transactionFiles))
    }

    /// Every `--transactions` file streamed to the partitions, its records counted in
    /// `counts` as the in-memory run counts them; every problem in every file at once.
    static func streamApple(
        _ paths: [String], to spill: ReconcileSpill, counts: inout Reconciliation.Summary
    ) throws(AppleRecordError) {
        var records = AppleRecords()
        var problems: [Diagnostic] = []
        for path in paths {
            do {
                try AppleTransactionReader.stream(path: path, into: &records) { batch in
                    counts.transactionRecords += batch.transactions.count
                    for t in batch.transactions { spill.write(t) }
                    for n in batch.notifications {
                        counts.notifications[n.notificationType, default: 0] += 1
                        spill.write(n)
                    }
                    batch.transactions.removeAll(keepingCapacity: true)
                    batch.notifications.removeAll(keepingCapacity: true)
                }
            } catch { problems += error.diagnostics }
        }
        counts.historyPages = records.historyPages
        counts.transactionFiles = records.files
        do { try spill.finish(ReconcileSpill.apple) } catch {
            problems.append(
                Diagnostic(path: error.path, message: "cannot write a partition: \(error.message)"))
        }
        if !problems.isEmpty { throw AppleRecordError(problems) }
    }

    static func emptyFileWarnings(_ files: [AppleRecords.FileCount]) -> [Diagnostic] {
        var records = AppleRecords()
        records.files = files
        return records.emptyFileWarnings
    }

    /// The credits spent since their top-up, for the findings that wait for them: the
    /// charges and refunds of those devices only, read back from their partitions.
    static func spentSince(
        _ matched: inout Reconciler.Matched, ledger: ReconcileLedger, reconciler: Reconciler
    ) throws {
        guard matched.conflicts.isEmpty, !matched.pendingSpent.isEmpty else { return }
        let devices = Set(matched.pendingSpent.compactMap(\.topup.device))
        let spending = try ledger.spending(of: devices)
        for q in matched.pendingSpent {
            let (spent, cost) = try reconciler.spentSince(
                q.topup, notBack: q.notBack, spending: spending)
            matched.findings[q.finding].spentSince = spent
            matched.findings[q.finding].spentCost = cost
        }
    }
}
