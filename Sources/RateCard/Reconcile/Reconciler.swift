/// Matches the ledger's top-ups and revokes to Apple's transactions.
///
/// The rules (docs/reconcile.md):
/// - Apple's records of one `transactionId` (from history pages, notifications, single
///   transactions) are one purchase; the record Apple signed last says how it stands (a
///   refund, then its reversal). Records that disagree on the product, quantity or
///   environment are an error.
/// - A top-up matches the transaction its `paymentRef` names; the first by time (then id)
///   is the match, every further one a duplicate. The credits it should grant are
///   quantity × the credits of the pack in force at the purchase date.
/// - Money is the customer's price from Apple's transaction (milliunits, exact), shared
///   pro rata by credits where a finding concerns part of a purchase.
struct Reconciler {
    let catalogue: ProductCatalogue
    let family: String
    /// The providers' currency the spending since a refund is costed in (nil: not costed).
    var currency: Currency? = nil
    /// The storefront table that turns a transaction's alpha-3 `storefront` into the
    /// reports' alpha-2 country, for Apple's figures by country (nil: by currency).
    var storefronts: StorefrontTable? = nil
    /// Sales report days are Pacific time (App Store Connect's worldwide reports); the
    /// standard offset is used all year.
    static let pacificOffsetMinutes = -8 * 60

    struct Purchase {
        var current: AppleTransaction
        var refundRequested = false
    }

    /// The whole reconciliation in memory: every record matched as one partition.
    func reconcile(
        ledger: ReconcileLedger, apple: AppleRecords, sales: [SummarySalesReport],
        financial: [FinancialReport]
    ) throws -> Reconciliation {
        var matched = Matched(units: TransactionUnits(storefronts: storefronts))
        try match(
            topups: ledger.topups, revokes: ledger.revokes, apple: apple,
            spending: ledger.spending, into: &matched)
        return try assemble(
            matched, reading: Self.summary(of: ledger, apple), sales: sales,
            financial: financial, ledgerWarnings: ledger.warnings,
            ledgerWarningsNotShown: ledger.warningsNotShown,
            emptyFiles: apple.emptyFileWarnings)
    }

    /// What matching found, over one partition or added up over several: the counts of
    /// matching, the findings, the problems that stop the run (conflicting records,
    /// unknown products), the repeated ids, the transactions' units for Apple's figures,
    /// and the findings whose *spent since* waits for the devices' spending.
    struct Matched {
        var summary = Reconciliation.Summary()
        var findings: [ReconcileFinding] = []
        var conflicts: [Diagnostic] = []
        var unknownProducts: [Diagnostic] = []
        /// The first `repeatsShown` repeated ids by place; all are counted in `summary`.
        var repeats: [Diagnostic] = []
        var units: TransactionUnits
        /// `refund-not-taken-back` findings (by index in `findings`) whose spending since is
        /// worked out after every partition (`spending` not given to `match`).
        var pendingSpent: [PendingSpent] = []

        /// Adds another partition's results (its findings after these).
        mutating func absorb(_ other: Matched) {
            summary.addMatching(other.summary)
            let offset = findings.count
            findings += other.findings
            conflicts += other.conflicts
            unknownProducts += other.unknownProducts
            repeats = Array((repeats + other.repeats).sorted().prefix(Reconciler.repeatsShown))
            units.add(other.units)
            pendingSpent += other.pendingSpent.map {
                PendingSpent(finding: $0.finding + offset, topup: $0.topup, notBack: $0.notBack)
            }
        }
    }

    /// A finding whose credits spent since its top-up are still to be counted.
    struct PendingSpent {
        let finding: Int
        let topup: ReconcileLedger.Credit
        let notBack: Int128
    }

    /// Matches the top-ups and revokes to Apple's records of the same transactions (all of
    /// them, or one partition's: every record of an id and every credit naming it are in
    /// one). With `spending` nil, *spent since* is left pending in `matched`.
    func match(
        topups: [ReconcileLedger.Credit], revokes: [ReconcileLedger.Credit], apple: AppleRecords,
        spending: [String: [ReconcileLedger.Spend]]?, into matched: inout Matched
    ) throws {
        let (purchases, conflicts) = mergeCollecting(apple)
        let repeats = Self.repeatedTransactions(apple.transactions)
        matched.summary.repeatedTransactions += repeats.count
        matched.repeats = Array(
            (matched.repeats + repeats).sorted().prefix(Self.repeatsShown))
        guard conflicts.isEmpty else {
            matched.conflicts += conflicts
            return
        }
        matched.summary.appleTransactions += purchases.count
        let byRef = Dictionary(grouping: topups.filter { $0.paymentRef != nil }) {
            $0.paymentRef ?? ""
        }.mapValues { $0.sorted { ($0.at, $0.id) < ($1.at, $1.id) } }
        let revokesByRef = Dictionary(grouping: revokes) { $0.paymentRef ?? "" }
        var found = Found(spending: spending)
        for id in purchases.keys.sorted() {
            guard let purchase = purchases[id] else { continue }
            let t = purchase.current
            guard let (pack, card) = catalogue.pack(t.productId, at: t.purchaseDate) else {
                if catalogue.subscriptions.contains(t.productId) {
                    matched.summary.notPacks += 1
                } else {
                    matched.unknownProducts.append(unknownProduct(t))
                }
                continue
            }
            try match(
                purchase, pack: pack, card: card, topups: byRef[id] ?? [],
                revokes: revokesByRef[id] ?? [], summary: &matched.summary, found: &found)
        }
        found.findings += unmatchedLedgerFindings(
            topups: topups, revokes: revokes, purchases: purchases)
        let offset = matched.findings.count
        matched.findings += found.findings
        matched.pendingSpent += found.pending.map {
            PendingSpent(finding: $0.finding + offset, topup: $0.topup, notBack: $0.notBack)
        }
        matched.units.add(purchases: purchases)
    }

    /// The findings of one partition as they are made, and those waiting for spending.
    struct Found {
        let spending: [String: [ReconcileLedger.Spend]]?
        var findings: [ReconcileFinding] = []
        var pending: [PendingSpent] = []
    }

    func unknownProduct(_ t: AppleTransaction) -> Diagnostic {
        Diagnostic(
            path: t.place.path,
            location: SourceLocation(line: t.place.line, column: t.place.column),
            message:
                "productId: unknown product \"\(FieldReader.excerpt(t.productId))\" of transaction \(t.transactionId): not a pack or plan of card \(family)"
        )
    }

    /// The reconciliation from what matching found and what reading counted: conflicting
    /// records, then unknown products, stop it (exit 2); else the findings in their order,
    /// the totals, Apple's figures and the warnings.
    func assemble(
        _ matched: Matched, reading: Reconciliation.Summary, sales: [SummarySalesReport],
        financial: [FinancialReport], ledgerWarnings: [Diagnostic], ledgerWarningsNotShown: Int,
        emptyFiles: [Diagnostic]
    ) throws -> Reconciliation {
        if !matched.conflicts.isEmpty { throw AppleRecordError(matched.conflicts) }
        if !matched.unknownProducts.isEmpty { throw AppleRecordError(matched.unknownProducts) }
        var summary = reading
        summary.addMatching(matched.summary)
        let findings = matched.findings.sorted(by: Self.order)
        return Reconciliation(
            family: family, summary: summary, findings: findings, totals: try totals(findings),
            sales: try salesLines(sales, transactions: matched.units),
            financial: try financialLines(financial, transactions: matched.units),
            ledgerWarnings: ledgerWarnings, ledgerWarningsNotShown: ledgerWarningsNotShown,
            appleWarnings: emptyFiles + matched.repeats)
    }

    /// Repeated transaction ids shown as warnings (all are counted).
    static let repeatsShown = 20

    /// Each transaction record (not a notification) whose id an earlier record already had,
    /// as a warning at it naming the earlier one: every record read is accounted for, and a
    /// repeat is one purchase, not two. Sorted by place.
    static func repeatedTransactions(_ transactions: [AppleTransaction]) -> [Diagnostic] {
        var first: [String: AppleTransaction] = [:]
        var out: [Diagnostic] = []
        for t in transactions {
            guard let earlier = first[t.transactionId] else {
                first[t.transactionId] = t
                continue
            }
            let same = earlier.sameRecord(as: t)
            out.append(
                Diagnostic(
                    path: t.place.path,
                    location: SourceLocation(line: t.place.line, column: t.place.column),
                    severity: .warning,
                    message:
                        "transaction \(FieldReader.excerpt(t.transactionId)) repeats \(earlier.place) (\(same ? "the same record" : "another record of the purchase")): one purchase"
                ))
        }
        return out.sorted()
    }

    /// The counts the ledger and Apple's records give before any matching.
    static func summary(of ledger: ReconcileLedger, _ apple: AppleRecords)
        -> Reconciliation.Summary
    {
        var summary = Reconciliation.Summary()
        summary.historyPages = apple.historyPages
        summary.transactionRecords = apple.transactions.count
        summary.transactionFiles = apple.files
        summary.ledgerEntries = ledger.entries
        summary.ledgerDuplicates = ledger.duplicates
        summary.ledgerRejected = ledger.rejected
        summary.topups = ledger.topups.count
        summary.revokes = ledger.revokes.count
        for n in apple.notifications { summary.notifications[n.notificationType, default: 0] += 1 }
        return summary
    }

    /// The price Apple charged for `t` against the card in force at the purchase date: a
    /// `priceDiffers` finding's kind, money and detail when they differ; nil when they
    /// agree, when Apple gives no price, or when the card has no price there (counted in
    /// `summary.noCardPrice`).
    func priceFinding(
        _ t: AppleTransaction, pack: Pack, card: RateCard, credits expected: Int128,
        summary: inout Reconciliation.Summary
    ) throws -> (kind: ReconcileFinding.Kind, money: Money, detail: String)? {
        guard let price = t.price else { return nil }
        let version = catalogue.version(at: t.purchaseDate) ?? card
        let inForce = version.packs.first { $0.productId == t.productId } ?? pack
        guard
            let cardPrice = ProductCatalogue.price(
                of: inForce, currency: price.currency, storefront: t.storefront)
        else {
            summary.noCardPrice += 1
            return nil
        }
        guard cardPrice.amount != price.amount else { return nil }
        let difference = try price.subtracting(cardPrice)
            .multiplied(by: Exact(integer: Int128(t.quantity)))
        return (
            .priceDiffers, difference,
            "Apple \(price) per unit, card \(version.reference) \(cardPrice)"
        )
    }

    /// What the device of `first` spent after it was credited, at most `notBack` credits,
    /// and the cost of those charges (nil when not costed: no device, no currency, or a
    /// charge that could not be costed).
    func spentSince(
        _ first: ReconcileLedger.Credit, notBack: Int128,
        spending: [String: [ReconcileLedger.Spend]]
    ) throws -> (spent: Int128?, cost: Money?) {
        var spent: Int128?
        var spentCost: Money?
        if let device = first.device {
            let after = (spending[device] ?? []).filter {
                $0.seconds >= first.at.seconds
            }
            let since = after.reduce(Int128(0)) { $0 - Int128($1.amount) }
            spent = min(notBack, max(0, since))
            // The cost of the charges since, for the share of their net credits
            // counted as spent; nil when one of them could not be costed.
            let charges = after.filter { $0.amount < 0 }
            if let currency, charges.allSatisfy({ $0.cost != nil }) {
                var cost = Exact.zero
                for c in charges { cost = try cost.adding(c.cost ?? .zero) }
                if since > 0, let s = spent, s < since {
                    cost = try cost.multiplied(by: Exact(s, over: since))
                }
                spentCost = Money(since > 0 ? cost : .zero, currency)
            }
        }
        return (spent, spentCost)
    }

    /// The top-ups and revokes that name no transaction Apple knows of.
    func unmatchedLedgerFindings(
        topups: [ReconcileLedger.Credit], revokes: [ReconcileLedger.Credit],
        purchases: [String: Purchase]
    ) -> [ReconcileFinding] {
        var findings: [ReconcileFinding] = []
        for top in topups where top.paymentRef.map({ purchases[$0] == nil }) ?? true {
            findings.append(
                ReconcileFinding(
                    kind: .noAppleTransaction, ledger: top.place, ledgerId: top.id, apple: nil,
                    transactionId: top.paymentRef, productId: nil, credits: Int128(top.credits),
                    spentSince: nil, money: top.price,
                    detail: top.paymentRef.map { "paymentRef \($0) is no transaction of Apple's" }
                        ?? "the top-up has no paymentRef"))
        }
        for revoke in revokes where purchases[revoke.paymentRef ?? ""] == nil {
            findings.append(
                ReconcileFinding(
                    kind: .revokedWithoutRefund, ledger: revoke.place, ledgerId: revoke.id,
                    apple: nil, transactionId: revoke.paymentRef, productId: nil,
                    credits: Int128(revoke.credits), spentSince: nil, money: nil,
                    detail: "paymentRef \(revoke.paymentRef ?? "") is no transaction of Apple's"))
        }
        return findings
    }

    /// Apple's records by transaction id, each standing as Apple signed it last.
    func merge(_ apple: AppleRecords) throws(AppleRecordError) -> [String: Purchase] {
        let (purchases, conflicts) = mergeCollecting(apple)
        if !conflicts.isEmpty { throw AppleRecordError(conflicts) }
        return purchases
    }

    /// `merge`, with the records that disagree with an earlier one of their id returned
    /// instead of thrown (a partition's, to be reported with every other partition's).
    func mergeCollecting(_ apple: AppleRecords) -> ([String: Purchase], [Diagnostic]) {
        var all = apple.transactions
        var requested: Set<String> = []
        for n in apple.notifications {
            guard let t = n.transaction else { continue }
            all.append(t)
            if n.notificationType == "CONSUMPTION_REQUEST" { requested.insert(t.transactionId) }
        }
        var byID: [String: Purchase] = [:]
        var conflicts: [Diagnostic] = []
        for t in all {
            guard var p = byID[t.transactionId] else {
                byID[t.transactionId] = Purchase(current: t)
                continue
            }
            let c = p.current
            if c.productId != t.productId || c.quantity != t.quantity
                || c.environment != t.environment || c.purchaseDate != t.purchaseDate
            {
                conflicts.append(
                    Diagnostic(
                        path: t.place.path,
                        location: SourceLocation(line: t.place.line, column: t.place.column),
                        message:
                            "transaction \(t.transactionId) disagrees with \(c.place) on its product, quantity, purchase date or environment"
                    ))
                continue
            }
            let (a, b) = (t.signedDate ?? t.purchaseDate, c.signedDate ?? c.purchaseDate)
            if a > b || (a == b && t.isRevoked && !c.isRevoked) { p.current = t }
            byID[t.transactionId] = p
        }
        for id in requested { byID[id]?.refundRequested = true }
        return (byID, conflicts)
    }

    static func order(_ a: ReconcileFinding, _ b: ReconcileFinding) -> Bool {
        let ka = ReconcileFinding.Kind.allCases.firstIndex(of: a.kind) ?? 0
        let kb = ReconcileFinding.Kind.allCases.firstIndex(of: b.kind) ?? 0
        if ka != kb { return ka < kb }
        if a.transactionId != b.transactionId {
            return (a.transactionId ?? "") < (b.transactionId ?? "")
        }
        return (a.ledger?.path ?? "", a.ledger?.line ?? 0) < (
            b.ledger?.path ?? "", b.ledger?.line ?? 0
        )
    }

    private func totals(_ findings: [ReconcileFinding]) throws -> [Reconciliation.Total] {
        var out: [Reconciliation.Total] = []
        for kind in ReconcileFinding.Kind.allCases {
            let these = findings.filter { $0.kind == kind }
            guard !these.isEmpty else { continue }
            var money: [Currency: Money] = [:]
            var credits: Int128 = 0
            for f in these {
                let (c, o) = credits.addingReportingOverflow(f.credits)
                if o { throw RunFailure("the credits of \(kind.rawValue) findings overflow") }
                credits = c
                if let m = f.money {
                    money[m.currency] = try money[m.currency].map { try $0.adding(m) } ?? m
                }
            }
            out.append(
                Reconciliation.Total(
                    kind: kind, count: these.count, credits: credits,
                    money: money.keys.sorted().compactMap { money[$0] }))
        }
        return out
    }
}
