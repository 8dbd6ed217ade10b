/// What `margin replay` found: per feature, the ledger's requests priced before and after
/// (credits, provider cost, value, profit, margin), the requests that could not be
/// re-priced (counted and named), the balances replayed, and each pack in practice beside
/// its worst case. Every figure is computed here once and exactly; the renderers
/// (`ReplayReport+Formats.swift`) only format them.
struct ReplayReport: Sendable {
    /// One feature's figures, or the totals (`feature` nil).
    struct FeatureRow: Sendable, Hashable {
        let feature: String?
        /// Charges of the feature in the ledger (each id once).
        let requests: Int
        /// Of which priced by both sides (the figures below are theirs).
        let repriced: Int
        let notRepriced: Int
        /// The ledger's credits of the charges not re-priced.
        let notRepricedCredits: Int128
        /// Re-priced charges given back by a refund (their credits are taken off).
        let refunded: Int
        let creditsBefore: Int128
        let creditsAfter: Int128
        var creditChange: Int128 { creditsAfter - creditsBefore }
        /// The change as a share of the credits before; nil when there were none.
        let creditChangeShare: Exact?
        let costBefore: Exact
        let costAfter: Exact
        let valueBefore: Exact
        let valueAfter: Exact
        let profitBefore: Exact
        let profitAfter: Exact
        /// Profit over value; nil when the value is zero.
        let marginBefore: Exact?
        let marginAfter: Exact?
        /// Charges the replayed balances would not have covered, on each side.
        let declinedBefore: Int
        let declinedAfter: Int
        /// Covered before, declined after.
        let newlyDeclined: Int

        /// The fall in margin, in percentage points (positive: a drop); nil when either
        /// margin is missing.
        var marginDropPoints: Exact? {
            guard let b = marginBefore, let a = marginAfter else { return nil }
            return try? b.subtracting(a).multiplied(by: 100)
        }
    }

    /// The balance replay over every device.
    struct Balances: Sendable, Hashable {
        let devices: Int
        /// Entries with no `device`: not in any balance.
        let entriesWithoutDevice: Int
        let devicesNewlyDeclined: Int
        /// Every device's declines and credits left, summed.
        let counts: ReplayBalanceCounts
        /// The devices with the most new declines (at most `ReplayBalanceTally.shown`).
        let worst: [ReplayBalanceTally.Device]
    }

    /// One pack's price as its buyers used it: the margin of the pack if its credits were
    /// spent in their feature mix (typical), beside the worst case, at the highest
    /// commission rate.
    struct PackRow: Sendable, Hashable {
        let pack: String
        /// Devices every top-up of which bought this pack.
        let buyers: Int
        /// Top-ups matched to the pack (by any device).
        let topups: Int
        /// The buyers' re-priced charges, net of refunds.
        let creditsBefore: Int128
        let creditsAfter: Int128
        let costBefore: Exact
        let costAfter: Exact
        /// Feature → credits after, the buyers' mix.
        let mix: [(feature: String, credits: Int128)]
        let prices: [Price]

        struct Price: Sendable, Hashable {
            let price: Money
            let commission: Exact
            let proceeds: Money
            /// Per side: the pack's credits at the buyers' cost per credit; nil when they
            /// spent none or the side's card has no such pack.
            let typicalBefore: Exact?
            let typicalAfter: Exact?
            /// Proceeds less typical cost, as a share of the price paid (as `PackMargins`).
            let typicalMarginBefore: Exact?
            let typicalMarginAfter: Exact?
            /// The worst case's margin share (`PackMargins`), per side.
            let worstMarginBefore: Exact?
            let worstMarginAfter: Exact?
        }

        static func == (a: PackRow, b: PackRow) -> Bool {
            a.pack == b.pack && a.buyers == b.buyers && a.prices == b.prices
                && a.creditsBefore == b.creditsBefore && a.creditsAfter == b.creditsAfter
        }
        func hash(into h: inout Hasher) { h.combine(pack) }
    }

    /// How the inputs were read: every line accounted for.
    struct Input: Sendable, Hashable {
        let lines: Int
        let entries: Int
        let duplicates: Int
        let conflicts: Int
        let rejected: Int
        let blank: Int
        let refundsOfUnknownCharges: Int
    }

    let new: String
    /// The candidate card (where the gate's findings point).
    let card: RateCard
    let before: String
    let currency: Currency
    let creditValue: Money
    let creditBasis: String
    let costsNote: String
    let features: [FeatureRow]
    let total: FeatureRow
    /// Credits the ledger recorded over every charge (re-priced or not).
    let ledgerCredits: Int128
    let balances: Balances
    let packs: [PackRow]
    /// Devices whose top-ups bought several packs (or some no pack): in no pack's row.
    let mixedBuyers: Int
    let input: Input
    /// Every charge not re-priced, named (the first per feature), then the rejected
    /// lines and other findings.
    let named: [Diagnostic]
    /// A sum passed the exact arithmetic's range (the figures are incomplete).
    let overflowed: Bool
    /// Every charge line's `card` field names another card id than the family replayed
    /// (`replay-card-of-another-id` on each): the usage is another card's, which
    /// `check --replay` does not judge this family by.
    let usageOfAnotherCard: Bool
    /// The features the before side prices (OLD, or the family's other versions) that NEW
    /// does not have, sorted: the usage of one cannot be re-priced, and the gate says so.
    let removedFeatures: [String]
}

extension ReplayReport {
    /// The before side is the ledger's own charges (no `--against`).
    var isLedgerSide: Bool { before == ReplayPlan.ledgerName }
}

extension ReplayReport {
    init(ledger: ReplayLedger, plan: ReplayPlan) throws {
        let tally = try ledger.finish()
        let perCredit = plan.credit.perCredit.amount
        func name(_ k: Int) -> String { String(decoding: ledger.features.bytes[k], as: UTF8.self) }
        var rows: [FeatureRow] = []
        var overflow = ledger.overflowed
        for k in ledger.tallies.indices where ledger.tallies[k].requests > 0 {
            let t = ledger.tallies[k]
            let d = k < tally.perFeature.count ? tally.perFeature[k] : (0, 0, 0)
            do {
                rows.append(
                    try Self.row(
                        feature: name(k), t, declined: d, perCredit: perCredit))
            } catch {
                overflow = true
            }
        }
        rows.sort { ($0.feature ?? "") < ($1.feature ?? "") }
        var sum = ReplayTally()
        var declined = (0, 0, 0)
        for (k, t) in ledger.tallies.enumerated() {
            sum.requests += t.requests
            sum.repriced += t.repriced
            sum.notRepriced += t.notRepriced
            sum.notRepricedCredits += t.notRepricedCredits
            sum.ledgerCredits += t.ledgerCredits
            sum.creditsBefore += t.creditsBefore
            sum.creditsAfter += t.creditsAfter
            sum.refunded += t.refunded
            do {
                sum.costBefore = try sum.costBefore.adding(t.costBefore)
                sum.costAfter = try sum.costAfter.adding(t.costAfter)
            } catch {
                overflow = true
            }
            if k < tally.perFeature.count {
                declined.0 += tally.perFeature[k].before
                declined.1 += tally.perFeature[k].after
                declined.2 += tally.perFeature[k].newly
            }
        }
        let total = try Self.row(feature: nil, sum, declined: declined, perCredit: perCredit)

        var named: [Diagnostic] = []
        for t in ledger.tallies { named += t.named.map(\.diagnostic) }
        named += ledger.findings + ledger.foreignCardFindings + ledger.rejections
        named.sort()

        self.init(
            new: plan.new.reference, card: plan.new, before: plan.beforeName,
            currency: plan.currency,
            creditValue: plan.credit.perCredit, creditBasis: plan.credit.basis,
            costsNote: Self.costsNote(plan), features: rows, total: total,
            ledgerCredits: sum.ledgerCredits,
            balances: Balances(
                devices: tally.devices, entriesWithoutDevice: tally.withoutDevice,
                devicesNewlyDeclined: tally.devicesNewlyDeclined, counts: tally.counts,
                worst: tally.worst),
            packs: try ReplayPacks.rows(ledger: ledger, plan: plan),
            mixedBuyers: ledger.buyers().mixed,
            input: Input(
                lines: ledger.lines, entries: ledger.kept,
                duplicates: ledger.duplicates, conflicts: ledger.conflicts,
                rejected: ledger.rejected, blank: ledger.blank,
                refundsOfUnknownCharges: ledger.unknownRefunds),
            named: named, overflowed: overflow,
            usageOfAnotherCard: ledger.chargeLines > 0
                && ledger.foreignCards.reduce(0) { $0 + $1.lines } == ledger.chargeLines,
            removedFeatures: Self.removed(plan))
    }

    /// The features of the before side's cards that NEW lacks (`removedFeatures`).
    static func removed(_ plan: ReplayPlan) -> [String] {
        let before =
            plan.old.map { [$0] }
            ?? plan.family.filter { $0.version != plan.new.version }
        let kept = Set(plan.new.features.map(\.key))
        return Set(before.flatMap { $0.features.map(\.key) }).subtracting(kept).sorted()
    }

    static func row(
        feature: String?, _ t: ReplayTally, declined: (Int, Int, Int), perCredit: Exact
    ) throws -> FeatureRow {
        let valueBefore = try Exact(integer: t.creditsBefore).multiplied(by: perCredit)
        let valueAfter = try Exact(integer: t.creditsAfter).multiplied(by: perCredit)
        let profitBefore = try valueBefore.subtracting(t.costBefore)
        let profitAfter = try valueAfter.subtracting(t.costAfter)
        let change = t.creditsAfter - t.creditsBefore
        return FeatureRow(
            feature: feature, requests: t.requests, repriced: t.repriced,
            notRepriced: t.notRepriced, notRepricedCredits: t.notRepricedCredits,
            refunded: t.refunded, creditsBefore: t.creditsBefore, creditsAfter: t.creditsAfter,
            creditChangeShare: t.creditsBefore == 0
                ? nil : try Exact(change, over: t.creditsBefore),
            costBefore: t.costBefore, costAfter: t.costAfter, valueBefore: valueBefore,
            valueAfter: valueAfter, profitBefore: profitBefore, profitAfter: profitAfter,
            marginBefore: valueBefore.isZero ? nil : try profitBefore.divided(by: valueBefore),
            marginAfter: valueAfter.isZero ? nil : try profitAfter.divided(by: valueAfter),
            declinedBefore: declined.0, declinedAfter: declined.1, newlyDeclined: declined.2)
    }

    static func costsNote(_ plan: ReplayPlan) -> String {
        let before =
            plan.old.map { "\($0.reference)'s provider bindings" }
            ?? "the provider bindings of the \(plan.new.id) version that charged each entry (its card field, else the version in force at its time)"
        let at =
            plan.costsAt.map { "every request costed as if made at \($0.rfc3339UTC)" }
            ?? "each request costed at the schedule period in force at its own time"
        return
            "before: \(before); after: \(plan.new.reference)'s; \(at) (in each sheet's UTC offset), the most expensive variant where the ledger does not say; converted into \(plan.currency.code) with \(plan.repository.fx.source.path)"
    }

    /// Any charge not re-priced, line rejected or conflicting duplicate.
    var hasFindings: Bool {
        total.notRepriced > 0 || input.rejected > 0 || input.conflicts > 0 || overflowed
    }
}
