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

    func reconcile(
        ledger: ReconcileLedger, apple: AppleRecords, sales: [SummarySalesReport],
        financial: [FinancialReport]
    ) throws -> Reconciliation {
        var summary = Self.summary(of: ledger, apple)
        let purchases = try merge(apple)
        summary.appleTransactions = purchases.count
        let repeats = Self.repeatedTransactions(apple.transactions)
        summary.repeatedTransactions = repeats.count
        let topups = Dictionary(grouping: ledger.topups.filter { $0.paymentRef != nil }) {
            $0.paymentRef ?? ""
        }.mapValues { $0.sorted { ($0.at, $0.id) < ($1.at, $1.id) } }
        let revokes = Dictionary(grouping: ledger.revokes) { $0.paymentRef ?? "" }

        var findings: [ReconcileFinding] = []
        var unknownProducts: [Diagnostic] = []
        for id in purchases.keys.sorted() {
            guard let purchase = purchases[id] else { continue }
            let t = purchase.current
            let tops = topups[id] ?? []
            guard let (pack, card) = catalogue.pack(t.productId, at: t.purchaseDate) else {
                if catalogue.subscriptions.contains(t.productId) {
                    summary.notPacks += 1
                } else {
                    unknownProducts.append(
                        Diagnostic(
                            path: t.place.path,
                            location: SourceLocation(line: t.place.line, column: t.place.column),
                            message:
                                "productId: unknown product \"\(FieldReader.excerpt(t.productId))\" of transaction \(t.transactionId): not a pack or plan of card \(family)"
                        ))
                }
                continue
            }
            try match(
                purchase, pack: pack, card: card, topups: tops, revokes: revokes[id] ?? [],
                spending: ledger.spending, summary: &summary, findings: &findings)
        }
        if !unknownProducts.isEmpty { throw AppleRecordError(unknownProducts) }

        findings += unmatchedLedgerFindings(ledger, purchases: purchases)
        findings.sort(by: Self.order)
        let units = TransactionUnits(purchases: purchases, storefronts: storefronts)
        return Reconciliation(
            family: family, summary: summary, findings: findings, totals: try totals(findings),
            sales: try salesLines(sales, transactions: units),
            financial: try financialLines(financial, transactions: units),
            ledgerWarnings: ledger.warnings, ledgerWarningsNotShown: ledger.warningsNotShown,
            appleWarnings: apple.emptyFileWarnings + Array(repeats.prefix(Self.repeatsShown)))
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

    /// Matches one purchase of a pack to its top-ups (`topups`, first by time) and revokes:
    /// the findings about it, and its counts in `summary`.
    func match(
        _ purchase: Purchase, pack: Pack, card: RateCard, topups tops: [ReconcileLedger.Credit],
        revokes: [ReconcileLedger.Credit], spending: [String: [ReconcileLedger.Spend]],
        summary: inout Reconciliation.Summary, findings: inout [ReconcileFinding]
    ) throws {
        let t = purchase.current
        let takenBack = revokes.reduce(Int128(0)) { $0 + Int128($1.credits) }
        let expected = Int128(t.quantity) * pack.credits
        let total = try t.price.map { p throws(MoneyError) in
            try p.multiplied(by: Exact(integer: Int128(t.quantity)))
        }
        func share(_ credits: Int128) throws -> Money? {
            guard let total, expected != 0 else { return nil }
            return try total.multiplied(by: Exact(credits, over: expected))
        }
        func finding(
            _ kind: ReconcileFinding.Kind, _ credit: ReconcileLedger.Credit?,
            credits: Int128, spent: Int128? = nil, money: Money?, _ detail: String
        ) -> ReconcileFinding {
            ReconcileFinding(
                kind: kind, ledger: credit?.place, ledgerId: credit?.id, apple: t.place,
                transactionId: t.transactionId, productId: t.productId, credits: credits,
                spentSince: spent, money: money, detail: detail)
        }

        guard t.environment == .production else {
            summary.otherEnvironments += 1
            for top in tops {
                findings.append(
                    finding(
                        .sandboxInProduction, top, credits: Int128(top.credits), money: nil,
                        "\(t.environment.rawValue) transaction: Apple charged nothing"))
            }
            return
        }
        summary.production += 1
        if purchase.refundRequested, !t.isRevoked { summary.refundRequestsOpen += 1 }

        if let f = try priceFinding(
            t, pack: pack, card: card, credits: expected, summary: &summary)
        {
            findings.append(
                finding(f.kind, tops.first, credits: expected, money: f.money, f.detail))
        }

        guard let first = tops.first else {
            if t.isRevoked {
                summary.refundedUncredited += 1
            } else {
                findings.append(
                    finding(
                        .neverCredited, nil, credits: expected, money: total,
                        "\(t.quantity) × \(pack.credits) credits of \(t.productId)"))
            }
            if takenBack > 0, let revoke = revokes.first {
                findings.append(
                    finding(
                        .revokedWithoutRefund, revoke, credits: takenBack, money: nil,
                        "credits taken back for a purchase never credited"))
            }
            return
        }
        summary.matched += 1
        if Int128(first.credits) != expected {
            let short = expected - Int128(first.credits)
            findings.append(
                finding(
                    .creditsDiffer, first, credits: short, money: try share(short),
                    "granted \(first.credits), expected \(t.quantity) × \(pack.credits) = \(expected)"
                ))
        }
        for extra in tops.dropFirst() {
            findings.append(
                finding(
                    .duplicateCredit, extra, credits: Int128(extra.credits),
                    money: try share(Int128(extra.credits)),
                    "a second top-up for the transaction credited at \(first.place)"))
        }
        let credited = tops.reduce(Int128(0)) { $0 + Int128($1.credits) }
        if t.isRevoked {
            let notBack = credited - takenBack
            if notBack > 0 {
                let (spent, spentCost) = try spentSince(
                    first, notBack: notBack, spending: spending)
                let revoked = t.revocationDate.map { $0.rfc3339UTC } ?? ""
                var f = finding(
                    .refundNotTakenBack, first, credits: notBack, spent: spent,
                    money: try share(notBack),
                    "revoked \(revoked) (reason \(t.revocationReason.map(String.init) ?? "not given")); granted \(credited), taken back \(takenBack)"
                )
                f.spentCost = spentCost
                findings.append(f)
            } else {
                summary.refundsTakenBack += 1
            }
        } else if takenBack > 0, let revoke = revokes.first {
            findings.append(
                finding(
                    .revokedWithoutRefund, revoke, credits: takenBack,
                    money: try share(takenBack),
                    "Apple has not refunded this purchase (or reversed the refund)"))
        }
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

    /// The ledger's top-ups and revokes that name no transaction Apple knows of.
    func unmatchedLedgerFindings(_ ledger: ReconcileLedger, purchases: [String: Purchase])
        -> [ReconcileFinding]
    {
        var findings: [ReconcileFinding] = []
        for top in ledger.topups where top.paymentRef.map({ purchases[$0] == nil }) ?? true {
            findings.append(
                ReconcileFinding(
                    kind: .noAppleTransaction, ledger: top.place, ledgerId: top.id, apple: nil,
                    transactionId: top.paymentRef, productId: nil, credits: Int128(top.credits),
                    spentSince: nil, money: top.price,
                    detail: top.paymentRef.map { "paymentRef \($0) is no transaction of Apple's" }
                        ?? "the top-up has no paymentRef"))
        }
        for revoke in ledger.revokes where purchases[revoke.paymentRef ?? ""] == nil {
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
        if !conflicts.isEmpty { throw AppleRecordError(conflicts) }
        for id in requested { byID[id]?.refundRequested = true }
        return byID
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
