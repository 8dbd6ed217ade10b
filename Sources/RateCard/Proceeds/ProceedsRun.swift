#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Apple's records `margin pnl --proceeds` values credits from: Summary Sales Reports and
/// financial reports (`--proceeds`, told apart by their header row) and, optionally, App
/// Store transactions and notifications (`--transactions`) that tie a top-up's
/// `paymentRef` to its product, currency and purchase date.
struct ProceedsSources: Sendable, Hashable {
    var reports: [String]
    var transactions: [String]

    init(reports: [String], transactions: [String] = []) {
        self.reports = reports
        self.transactions = transactions
    }
}

/// The library entry point of the proceeds pass: Apple's records read (every problem in
/// every file at once), the ledger read in a pass of its own with `pnl`'s readers
/// (`ReplayReader`), the credits valued first in, first out (`ProceedsValuer`), the report.
enum ProceedsRun {
    static func run(
        _ sources: ProceedsSources, plan: PnLPlan, inputs: [TakingsInput], now: Timestamp,
        memoryLimit: Int? = nil, series: TakingsSeries? = nil
    ) throws -> ProceedsReport {
        let versions = plan.repository.versions(of: plan.family).sorted {
            $0.effective < $1.effective
        }
        let catalogue = ProductCatalogue(versions: versions)

        let (sales, financial, records) = try readApple(sources, catalogue: catalogue)
        let purchases = try Reconciler(catalogue: catalogue, family: plan.family).merge(records)
        let rates = try ProceedsRates(
            sales: sales, financial: financial, catalogue: catalogue, fx: plan.repository.fx,
            currency: plan.currency)

        let ledger = ProceedsLedger(paths: inputs.map(\.path))
        let parts = ProceedsLedger.partitions(
            inputBytes: inputBytes(inputs), memoryLimit: memoryLimit)
        if parts > 1, let limit = memoryLimit {
            ledger.spill = try TakingsSpill(
                partitions: parts, bufferBytes: min(1 << 20, max(16 << 10, limit / (16 * parts))))
        }
        defer { ledger.spill?.remove() }
        for (k, input) in inputs.enumerated() {
            try ReplayReader.read(
                input, index: k, into: ledger,
                rollup:
                    "a roll-up sums takings by feature and period, without the accounts: --proceeds needs the ledger's entries (JSON Lines, a ledger document or CSV)",
                failure: "cannot value \(input.path) at Apple's proceeds")
        }
        var valuer = ProceedsValuer(
            rates: rates, catalogue: catalogue, purchases: purchases,
            storefronts: plan.repository.storefronts, window: plan.window,
            now: now, modelledPerCredit: plan.credit.perCredit.amount)
        valuer.series = series
        var tally = ProceedsValuer.Tally()
        if ledger.spill != nil {
            try ledger.finishPartitions()
            for p in 0..<parts { try valuer.run(try ledger.partition(p), into: &tally) }
        } else {
            try valuer.run(ledger, into: &tally)
        }
        let appleWarnings =
            records.emptyFileWarnings
            + Reconciler.repeatedTransactions(records.transactions).prefix(
                Reconciler.repeatsShown)
        var report = try report(
            tally, valuer.rates, ledger: ledger, plan: plan, catalogue: catalogue, now: now,
            appleWarnings: appleWarnings)
        if let series {
            report.series = series.period.rawValue
            report.periods = try periodLines(
                tally, RateSum(rates: valuer.rates, currency: plan.currency), series: series,
                ledger: ledger, plan: plan)
        }
        try report.checkSums()
        return report
    }

    /// Apple's reports (told apart by their header) and transactions: every problem in every
    /// file at once.
    static func readApple(_ sources: ProceedsSources, catalogue: ProductCatalogue)
        throws(AppleRecordError) -> (
            sales: [SummarySalesReport], financial: [FinancialReport], records: AppleRecords
        )
    {
        var problems: [Diagnostic] = []
        var sales: [SummarySalesReport] = []
        var financial: [FinancialReport] = []
        for path in sources.reports {
            do throws(AppleRecordError) {
                let bytes = try AppleProblems.gunzipped(
                    try readReport(path), path: path)
                if isFinancial(bytes) {
                    financial.append(
                        try FinancialReport.read(bytes, path: path, products: catalogue.products))
                } else {
                    sales.append(
                        try SummarySalesReport.read(
                            bytes, path: path, products: catalogue.products))
                }
            } catch { problems += error.diagnostics }
        }
        var records = AppleRecords()
        do { records = try AppleTransactionReader.read(paths: sources.transactions) } catch {
            problems += error.diagnostics
        }
        if !problems.isEmpty { throw AppleRecordError(problems) }
        return (sales, financial, records)
    }

    /// The bytes of the ledger inputs, nil when one has no size to plan by (standard input).
    static func inputBytes(_ inputs: [TakingsInput]) -> Int? {
        var total = 0
        for input in inputs {
            switch input.source {
            case .file(let path):
                var st = stat()
                guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
                total += Int(st.st_size)
            case .bytes(let b): total += b.count
            case .standardInput: return nil
            }
        }
        return total
    }

    /// The last day Apple's reports at `paths` cover (nil when they have no rows).
    static func lastDay(of paths: [String], products: Set<String>) throws(AppleRecordError)
        -> CalendarDate?
    {
        var last: CalendarDate?
        for path in paths {
            let bytes = try AppleProblems.gunzipped(try readReport(path), path: path)
            let ends =
                isFinancial(bytes)
                ? try FinancialReport.read(bytes, path: path, products: products).rows.map(\.end)
                : try SummarySalesReport.read(bytes, path: path, products: products).rows.map(
                    \.end)
            for e in ends where last.map({ e > $0 }) ?? true { last = e }
        }
        return last
    }

    private static func readReport(_ path: String) throws(AppleRecordError) -> [UInt8] {
        do { return try FileBytes.read(path, what: "Apple's report") } catch {
            throw AppleRecordError([error])
        }
    }

    /// A financial report's header has `Partner Share`; a Summary Sales Report's has not.
    static func isFinancial(_ bytes: [UInt8]) -> Bool {
        let header = bytes.prefix { $0 != 0x0A }
        return String(decoding: header, as: UTF8.self).split(separator: "\t").contains {
            String($0).trimmingWhitespaceString == "Partner Share"
        }
    }

    /// The section from what the pass added up: each figure computed once, in its own step.
    static func report(
        _ tally: ProceedsValuer.Tally, _ rates: ProceedsRates, ledger: ProceedsLedger,
        plan: PnLPlan, catalogue: ProductCatalogue, now: Timestamp,
        appleWarnings: [Diagnostic] = []
    ) throws -> ProceedsReport {
        let sum = RateSum(rates: rates, currency: plan.currency)
        return ProceedsReport(
            family: plan.family, window: plan.window.name, currency: plan.currency,
            modelledPerCredit: plan.credit.perCredit,
            features: try featureLines(tally.used, sum, ledger: ledger, plan: plan),
            rates: rateLines(tally, sum), liability: try liability(tally, sum, now: now),
            breakage: try breakage(tally, sum, catalogue: catalogue, now: now),
            apple: appleLines(sum), takenBack: tally.takenBack,
            takenBackBeyond: tally.takenBackBeyond, accounts: tally.accounts,
            ledgerEntries: ledger.keptEntries, ledgerDuplicates: ledger.duplicates,
            ledgerRejected: ledger.rejected, refundsIgnored: tally.refundsIgnored,
            refundsBeforeCharge: tally.refundsBeforeCharge,
            reportRowsNotCredits: rates.rowsNotCredits, fxUsed: rates.fxUsed.map { "\($0)" },
            ledgerWarnings: ledger.rejections, appleWarnings: appleWarnings)
    }

    /// Credits by rate valued at their rates, in the reporting currency.
    struct RateSum {
        let rates: ProceedsRates
        let currency: Currency

        func money(_ e: Exact) -> Money { Money(e, currency) }

        func value(_ byRate: [Int: Int128]) throws -> Exact {
            var sum = Exact.zero
            for (r, c) in byRate where c != 0 {
                sum = try sum.adding(rates.rates[r].perCredit.multiplied(by: Exact(integer: c)))
            }
            return sum
        }

        func value(_ byRate: [Int: Exact]) throws -> Exact {
            var sum = Exact.zero
            for (r, c) in byRate {
                sum = try sum.adding(rates.rates[r].perCredit.multiplied(by: c))
            }
            return sum
        }

        func isFree(_ r: Int) -> Bool { rates.rates[r].basis == .free }
    }

    /// Per feature: its credits, their modelled value and their value at proceeds, and
    /// the credits per basis; sorted by key.
    static func featureLines(
        _ used: [UInt32: [Int: Int128]], _ sum: RateSum, ledger: ProceedsLedger, plan: PnLPlan
    ) throws -> [ProceedsReport.FeatureLine] {
        let modelled = plan.credit.perCredit.amount
        var features: [ProceedsReport.FeatureLine] = []
        for (f, byRate) in used {
            let credits = byRate.values.reduce(0, +)
            var byBasis: [String: Int128] = [:]
            for (r, c) in byRate where c != 0 {
                byBasis[sum.rates.rates[r].basis.rawValue, default: 0] += c
            }
            features.append(
                ProceedsReport.FeatureLine(
                    key: ledger.feature(f), credits: credits,
                    modelled: sum.money(try modelled.multiplied(by: Exact(integer: credits))),
                    proceeds: sum.money(try sum.value(byRate)), byBasis: byBasis))
        }
        return features.sorted {
            Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8))
        }
    }

    /// With `--by`: the feature lines of each period that has any, in time order.
    static func periodLines(
        _ tally: ProceedsValuer.Tally, _ sum: RateSum, series: TakingsSeries,
        ledger: ProceedsLedger, plan: PnLPlan
    ) throws -> [ProceedsReport.PeriodLine] {
        try tally.usedByPeriod.keys.sorted().map { n in
            let period = CalendarPeriod(
                length: series.period, number: n, offsetMinutes: series.offsetMinutes)
            return ProceedsReport.PeriodLine(
                period: period.label ?? "",
                features: try featureLines(
                    tally.usedByPeriod[n] ?? [:], sum, ledger: ledger, plan: plan))
        }
    }

    /// The values of a credit that lots were opened at or credits were used at, by basis.
    static func rateLines(_ tally: ProceedsValuer.Tally, _ sum: RateSum)
        -> [ProceedsReport.RateLine]
    {
        var used: [Int: Int128] = [:]
        for (_, byRate) in tally.used { for (r, c) in byRate { used[r, default: 0] += c } }
        var lines: [ProceedsReport.RateLine] = []
        for (k, rate) in sum.rates.rates.enumerated() {
            let opened = tally.opened[k]
            guard opened != nil || (used[k] ?? 0) != 0 || (tally.unbacked[k] ?? 0) != 0 else {
                continue
            }
            lines.append(
                ProceedsReport.RateLine(
                    basis: rate.basis.rawValue, label: rate.label,
                    perCredit: sum.money(rate.perCredit), lots: opened?.lots ?? 0,
                    credits: opened?.credits ?? 0, used: used[k] ?? 0,
                    unbacked: tally.unbacked[k] ?? 0))
        }
        func rank(_ basis: String) -> Int {
            ProceedsRate.Basis.allCases.firstIndex { $0.rawValue == basis } ?? 0
        }
        return lines.sorted { (rank($0.basis), $0.label) < (rank($1.basis), $1.label) }
    }

    /// The paid credits left at `now`, their value, the breakage already recognised on them
    /// and the contract liability; the free credits apart.
    static func liability(_ tally: ProceedsValuer.Tally, _ sum: RateSum, now: Timestamp) throws
        -> ProceedsReport.Liability
    {
        let paidLeft = tally.liabilityLeft.filter { !sum.isFree($0.key) }
        let left = try sum.value(paidLeft)
        let ahead = try sum.value(tally.liabilityBreakage)
        return ProceedsReport.Liability(
            at: now, paidCredits: paidLeft.values.reduce(0, +), lots: tally.liabilityLots,
            value: sum.money(left), breakageRecognised: sum.money(ahead),
            deferred: sum.money(try left.subtracting(ahead)),
            freeCredits: tally.liabilityFreeLeft)
    }

    /// The breakage recognised in the window, the rule it follows, the credits that lapsed.
    static func breakage(
        _ tally: ProceedsValuer.Tally, _ sum: RateSum, catalogue: ProductCatalogue,
        now: Timestamp
    ) throws -> ProceedsReport.Breakage {
        let recognised = try sum.value(tally.breakageAtEnd).subtracting(
            sum.value(tally.breakageAtStart))
        let rule =
            catalogue.version(at: now)?.creditExpiry.map {
                "credits lapse \($0.days) days after the top-up or grant that added them; expected breakage \($0.expectedBreakage.decimalText()) of credits sold"
                    + ($0.note.map { " (\($0))" } ?? "")
            } ?? "the card has no creditExpiry: credits never lapse and no breakage is recognised"
        return ProceedsReport.Breakage(
            rule: rule, recognised: sum.money(recognised),
            lapsedPaid: tally.lapsed.filter { !sum.isFree($0.key) }.values.reduce(0, +),
            lapsedFree: tally.lapsed.filter { sum.isFree($0.key) }.values.reduce(0, +))
    }

    /// Apple's proceeds per report, product, country, currency and period.
    static func appleLines(_ sum: RateSum) -> [ProceedsReport.AppleLine] {
        sum.rates.lines.map { l in
            ProceedsReport.AppleLine(
                source: l.source.rawValue, begin: "\(l.begin)", end: "\(l.end)",
                productId: l.productId, country: l.country,
                customerCurrency: l.customerCurrency.code,
                unitsSold: l.unitsSold, unitsRefunded: l.unitsRefunded,
                proceeds: l.proceeds.keys.sorted().compactMap { l.proceeds[$0] },
                credits: l.credits,
                perCredit: l.credits > 0
                    ? (try? l.proceedsReporting.divided(by: Exact(integer: l.credits))).map(
                        sum.money)
                    : nil)
        }.sorted {
            ($0.source, $0.begin, $0.productId, $0.customerCurrency, $0.country)
                < ($1.source, $1.begin, $1.productId, $1.customerCurrency, $1.country)
        }
    }
}
