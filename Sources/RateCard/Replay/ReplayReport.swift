/// What `margin replay` found: per feature, the ledger's requests priced before and after
/// (credits, provider cost, value, profit, margin), the requests that could not be
/// re-priced (counted and named), the balances replayed, and each pack in practice beside
/// its worst case. Every figure is computed here once and exactly; the renderers
/// (`ReplayReport+Formats.swift`) only format them.
public struct ReplayReport: Sendable {
    /// One feature's figures, or the totals (`feature` nil).
    public struct FeatureRow: Sendable, Hashable {
        public let feature: String?
        /// Charges of the feature in the ledger (each id once).
        public let requests: Int
        /// Of which priced by both sides (the figures below are theirs).
        public let repriced: Int
        public let notRepriced: Int
        /// The ledger's credits of the charges not re-priced.
        public let notRepricedCredits: Int128
        /// Re-priced charges given back by a refund (their credits are taken off).
        public let refunded: Int
        public let creditsBefore: Int128
        public let creditsAfter: Int128
        public var creditChange: Int128 { creditsAfter - creditsBefore }
        /// The change as a share of the credits before; nil when there were none.
        public let creditChangeShare: Exact?
        public let costBefore: Exact
        public let costAfter: Exact
        public let valueBefore: Exact
        public let valueAfter: Exact
        public let profitBefore: Exact
        public let profitAfter: Exact
        /// Profit over value; nil when the value is zero.
        public let marginBefore: Exact?
        public let marginAfter: Exact?
        /// Charges the replayed balances would not have covered, on each side.
        public let declinedBefore: Int
        public let declinedAfter: Int
        /// Covered before, declined after.
        public let newlyDeclined: Int

        /// The fall in margin, in percentage points (positive: a drop); nil when either
        /// margin is missing.
        public var marginDropPoints: Exact? {
            guard let b = marginBefore, let a = marginAfter else { return nil }
            return try? b.subtracting(a).multiplied(by: 100)
        }
    }

    /// The balance replay over every device.
    public struct Balances: Sendable, Hashable {
        public struct Device: Sendable, Hashable {
            public let name: String
            public let declinedBefore: Int
            public let declinedAfter: Int
            public let newlyDeclined: Int
            public let leftBefore: Int128
            public let leftAfter: Int128
        }

        public let devices: Int
        /// Entries with no `device`: not in any balance.
        public let entriesWithoutDevice: Int
        public let declinedBefore: Int
        public let declinedAfter: Int
        public let newlyDeclined: Int
        public let devicesNewlyDeclined: Int
        public let leftBefore: Int128
        public let leftAfter: Int128
        /// The devices with the most new declines (at most `ReplayBalanceTally.shown`).
        public let worst: [Device]
    }

    /// One pack's price as its buyers used it: the margin of the pack if its credits were
    /// spent in their feature mix (typical), beside the worst case, at the highest
    /// commission rate.
    public struct PackRow: Sendable, Hashable {
        public let pack: String
        /// Devices every top-up of which bought this pack.
        public let buyers: Int
        /// Top-ups matched to the pack (by any device).
        public let topups: Int
        /// The buyers' re-priced charges, net of refunds.
        public let creditsBefore: Int128
        public let creditsAfter: Int128
        public let costBefore: Exact
        public let costAfter: Exact
        /// Feature → credits after, the buyers' mix.
        public let mix: [(feature: String, credits: Int128)]
        public let prices: [Price]

        public struct Price: Sendable, Hashable {
            public let price: Money
            public let commission: Exact
            public let proceeds: Money
            /// Per side: the pack's credits at the buyers' cost per credit; nil when they
            /// spent none or the side's card has no such pack.
            public let typicalBefore: Exact?
            public let typicalAfter: Exact?
            /// Proceeds less typical cost, as a share of the price paid (as `PackMargins`).
            public let typicalMarginBefore: Exact?
            public let typicalMarginAfter: Exact?
            /// The worst case's margin share (`PackMargins`), per side.
            public let worstMarginBefore: Exact?
            public let worstMarginAfter: Exact?
        }

        public static func == (a: PackRow, b: PackRow) -> Bool {
            a.pack == b.pack && a.buyers == b.buyers && a.prices == b.prices
                && a.creditsBefore == b.creditsBefore && a.creditsAfter == b.creditsAfter
        }
        public func hash(into h: inout Hasher) { h.combine(pack) }
    }

    /// How the inputs were read: every line accounted for.
    public struct Input: Sendable, Hashable {
        public let lines: Int
        public let entries: Int
        public let duplicates: Int
        public let conflicts: Int
        public let rejected: Int
        public let blank: Int
        public let refundsOfUnknownCharges: Int
    }

    public let new: String
    /// The candidate card (where the gate's findings point).
    let card: RateCard
    public let before: String
    public let currency: Currency
    public let creditValue: Money
    public let creditBasis: String
    public let costsNote: String
    public let features: [FeatureRow]
    public let total: FeatureRow
    /// Credits the ledger recorded over every charge (re-priced or not).
    public let ledgerCredits: Int128
    public let balances: Balances
    public let packs: [PackRow]
    /// Devices whose top-ups bought several packs (or some no pack): in no pack's row.
    public let mixedBuyers: Int
    public let input: Input
    /// Every charge not re-priced, named (the first per feature), then the rejected
    /// lines and other findings.
    public let named: [Diagnostic]
    /// A sum passed the exact arithmetic's range (the figures are incomplete).
    public let overflowed: Bool
}

extension ReplayReport {
    init(ledger: ReplayLedger, plan: ReplayPlan) throws {
        ledger.finishPrices()
        let targets = ledger.resolveRefunds()
        let tally = ledger.replayBalances(refundTargets: targets)
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
        for t in ledger.tallies { named += t.named }
        named += ledger.findings + ledger.rejections
        named.sort()

        self.init(
            new: plan.new.reference, card: plan.new, before: plan.beforeName,
            currency: plan.currency,
            creditValue: plan.credit.perCredit, creditBasis: plan.credit.basis,
            costsNote: Self.costsNote(plan), features: rows, total: total,
            ledgerCredits: sum.ledgerCredits,
            balances: Balances(
                devices: tally.devices, entriesWithoutDevice: tally.withoutDevice,
                declinedBefore: tally.declinedBefore, declinedAfter: tally.declinedAfter,
                newlyDeclined: tally.newlyDeclined,
                devicesNewlyDeclined: tally.devicesNewlyDeclined, leftBefore: tally.leftBefore,
                leftAfter: tally.leftAfter,
                worst: tally.worst.map {
                    Balances.Device(
                        name: $0.name, declinedBefore: $0.declinedBefore,
                        declinedAfter: $0.declinedAfter, newlyDeclined: $0.newlyDeclined,
                        leftBefore: $0.leftBefore, leftAfter: $0.leftAfter)
                }),
            packs: try ReplayPacks.rows(ledger: ledger, plan: plan),
            mixedBuyers: ledger.buyers().mixed,
            input: Input(
                lines: ledger.lines, entries: ledger.records.count,
                duplicates: ledger.duplicates, conflicts: ledger.conflicts,
                rejected: ledger.rejected, blank: ledger.blank,
                refundsOfUnknownCharges: ledger.unknownRefunds),
            named: named, overflowed: overflow)
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
    public var hasFindings: Bool {
        total.notRepriced > 0 || input.rejected > 0 || input.conflicts > 0 || overflowed
    }
}
