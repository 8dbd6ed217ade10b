/// One purchase of a pack against the top-ups that name it (first by time) and the revokes
/// that take its credits back: the findings about it, step by step (docs/reconcile.md,
/// "How they are matched"). Money is the customer's price × quantity, shared by credits.
struct PurchaseMatch {
    let purchase: Reconciler.Purchase
    let pack: Pack
    let card: RateCard
    let topups: [ReconcileLedger.Credit]
    let revokes: [ReconcileLedger.Credit]
    /// Quantity × the pack's credits.
    let expected: Int128
    /// The price × quantity; nil when Apple gives no price.
    let total: Money?
    let takenBack: Int128

    var t: AppleTransaction { purchase.current }

    init(
        _ purchase: Reconciler.Purchase, pack: Pack, card: RateCard,
        topups: [ReconcileLedger.Credit], revokes: [ReconcileLedger.Credit]
    ) throws {
        self.purchase = purchase
        self.pack = pack
        self.card = card
        self.topups = topups
        self.revokes = revokes
        let t = purchase.current
        expected = Int128(t.quantity) * pack.credits
        total = try t.price.map { p throws(MoneyError) in
            try p.multiplied(by: Exact(integer: Int128(t.quantity)))
        }
        takenBack = revokes.reduce(Int128(0)) { $0 + Int128($1.credits) }
    }

    /// The share of the purchase's money that `credits` of it carry.
    func share(_ credits: Int128) throws -> Money? {
        guard let total, expected != 0 else { return nil }
        return try total.multiplied(by: Exact(credits, over: expected))
    }

    func finding(
        _ kind: ReconcileFinding.Kind, _ credit: ReconcileLedger.Credit?, credits: Int128,
        spent: Int128? = nil, money: Money?, _ detail: String
    ) -> ReconcileFinding {
        ReconcileFinding(
            kind: kind, ledger: credit?.place, ledgerId: credit?.id, apple: t.place,
            transactionId: t.transactionId, productId: t.productId, credits: credits,
            spentSince: spent, money: money, detail: detail)
    }

    /// A sandbox, Xcode or local purchase: every top-up of it is a finding.
    func sandboxFindings() -> [ReconcileFinding] {
        topups.map {
            finding(
                .sandboxInProduction, $0, credits: Int128($0.credits), money: nil,
                "\(t.environment.rawValue) transaction: Apple charged nothing")
        }
    }

    /// A production purchase with no top-up: never credited unless refunded, and any
    /// credits taken back for it.
    func uncreditedFindings(_ summary: inout Reconciliation.Summary) -> [ReconcileFinding] {
        var out: [ReconcileFinding] = []
        if t.isRevoked {
            summary.refundedUncredited += 1
        } else {
            out.append(
                finding(
                    .neverCredited, nil, credits: expected, money: total,
                    "\(t.quantity) × \(pack.credits) credits of \(t.productId)"))
        }
        if takenBack > 0, let revoke = revokes.first {
            out.append(
                finding(
                    .revokedWithoutRefund, revoke, credits: takenBack, money: nil,
                    "credits taken back for a purchase never credited"))
        }
        return out
    }

    /// The first top-up's credits against the pack's, and every further top-up.
    func creditedFindings(first: ReconcileLedger.Credit) throws -> [ReconcileFinding] {
        var out: [ReconcileFinding] = []
        if Int128(first.credits) != expected {
            let short = expected - Int128(first.credits)
            out.append(
                finding(
                    .creditsDiffer, first, credits: short, money: try share(short),
                    "granted \(first.credits), expected \(t.quantity) × \(pack.credits) = \(expected)"
                ))
        }
        for extra in topups.dropFirst() {
            out.append(
                finding(
                    .duplicateCredit, extra, credits: Int128(extra.credits),
                    money: try share(Int128(extra.credits)),
                    "a second top-up for the transaction credited at \(first.place)"))
        }
        return out
    }

    /// A refunded purchase whose credits were not all taken back (its *spent since* filled
    /// in by the caller), or a revoke of a purchase Apple did not refund. Nil: nothing to
    /// say (all taken back, counted in `summary`, or nothing taken back and no refund).
    func refundFinding(first: ReconcileLedger.Credit, _ summary: inout Reconciliation.Summary)
        throws -> (finding: ReconcileFinding, notBack: Int128?)?
    {
        let credited = topups.reduce(Int128(0)) { $0 + Int128($1.credits) }
        if t.isRevoked {
            let notBack = credited - takenBack
            guard notBack > 0 else {
                summary.refundsTakenBack += 1
                return nil
            }
            let revoked = t.revocationDate.map { $0.rfc3339UTC } ?? ""
            let f = finding(
                .refundNotTakenBack, first, credits: notBack, money: try share(notBack),
                "revoked \(revoked) (reason \(t.revocationReason.map(String.init) ?? "not given")); granted \(credited), taken back \(takenBack)"
            )
            return (f, notBack)
        }
        guard takenBack > 0, let revoke = revokes.first else { return nil }
        return (
            finding(
                .revokedWithoutRefund, revoke, credits: takenBack, money: try share(takenBack),
                "Apple has not refunded this purchase (or reversed the refund)"),
            nil
        )
    }
}

extension Reconciler {
    /// Matches one purchase of a pack to its top-ups and revokes: its findings go to
    /// `found`, its counts to `summary`.
    func match(
        _ purchase: Purchase, pack: Pack, card: RateCard, topups: [ReconcileLedger.Credit],
        revokes: [ReconcileLedger.Credit], summary: inout Reconciliation.Summary,
        found: inout Found
    ) throws {
        let m = try PurchaseMatch(
            purchase, pack: pack, card: card, topups: topups, revokes: revokes)
        let t = m.t
        guard t.environment == .production else {
            summary.otherEnvironments += 1
            found.findings += m.sandboxFindings()
            return
        }
        summary.production += 1
        if purchase.refundRequested, !t.isRevoked { summary.refundRequestsOpen += 1 }
        if let f = try priceFinding(
            t, pack: pack, card: card, credits: m.expected, summary: &summary)
        {
            found.findings.append(
                m.finding(f.kind, topups.first, credits: m.expected, money: f.money, f.detail))
        }
        guard let first = topups.first else {
            found.findings += m.uncreditedFindings(&summary)
            return
        }
        summary.matched += 1
        found.findings += try m.creditedFindings(first: first)
        guard var (f, notBack) = try m.refundFinding(first: first, &summary) else { return }
        if let notBack {
            if let spending = found.spending {
                (f.spentSince, f.spentCost) = try spentSince(
                    first, notBack: notBack, spending: spending)
            } else if first.device != nil {
                found.pending.append(
                    PendingSpent(finding: found.findings.count, topup: first, notBack: notBack))
            }
        }
        found.findings.append(f)
    }
}

extension Reconciliation.Summary {
    /// Adds the counts that matching makes (not those of reading, which are counted once).
    mutating func addMatching(_ o: Reconciliation.Summary) {
        appleTransactions += o.appleTransactions
        production += o.production
        otherEnvironments += o.otherEnvironments
        notPacks += o.notPacks
        repeatedTransactions += o.repeatedTransactions
        matched += o.matched
        refundsTakenBack += o.refundsTakenBack
        refundedUncredited += o.refundedUncredited
        refundRequestsOpen += o.refundRequestsOpen
        noCardPrice += o.noCardPrice
    }
}
