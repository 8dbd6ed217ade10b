/// What the features' credits really earned, beside the modelled value; the credits sold
/// and not yet spent (the liability) at `now`; the breakage recognised in the window. Every
/// figure exact, in the reporting currency (`ProceedsRun`, docs/proceeds.md).
struct ProceedsReport: Sendable, Hashable {
    struct FeatureLine: Sendable, Hashable {
        let key: String
        /// Credits kept in the window (charged less given back), as `pnl` counts them.
        let credits: Int128
        /// credits × the modelled value per credit.
        let modelled: Money
        /// Σ credits × the value per credit of the lot each came from.
        let proceeds: Money
        /// Credits per basis of the value (`ProceedsRate.Basis` raw values).
        let byBasis: [String: Int128]
        /// proceeds − modelled; `ProceedsReport.checkSums()` proved it fits when the report
        /// was made, so the fallback is never taken.
        var difference: Money {
            (try? proceeds.subtracting(modelled)) ?? proceeds
        }
    }

    /// With `--by`: the features' credits of one period of the series (charges and refunds
    /// in the period of their own time), valued as in the window.
    struct PeriodLine: Sendable, Hashable {
        /// `2026-11-29`, `2026-W48`, `2026-11`.
        let period: String
        let features: [FeatureLine]
    }

    /// A value per credit that was used, with what it valued.
    struct RateLine: Sendable, Hashable {
        let basis: String
        let label: String
        let perCredit: Money
        /// Lots opened at it (all time) and their credits.
        let lots: Int
        let credits: Int128
        /// Credits the features kept at it in the window.
        let used: Int128
        /// Of `used`, credits no lot backed.
        let unbacked: Int128
    }

    /// The credits sold and not yet spent at `now`, and what they are worth.
    struct Liability: Sendable, Hashable {
        let at: Timestamp
        /// Credits left in paid lots that have not lapsed.
        let paidCredits: Int128
        let lots: Int
        /// paid credits × their lots' value per credit.
        let value: Money
        /// Breakage already recognised on those lots (in proportion to use).
        let breakageRecognised: Money
        /// value − breakage recognised: the contract liability (deferred revenue).
        let deferred: Money
        /// Credits granted for free and not yet spent: no money.
        let freeCredits: Int128
    }

    /// Breakage recognised in the window.
    struct Breakage: Sendable, Hashable {
        /// The card's rule (`creditExpiry`) of the version in force at `now`, as text.
        let rule: String
        let recognised: Money
        /// Paid and free credits that lapsed in the window.
        let lapsedPaid: Int128
        let lapsedFree: Int128
    }

    /// One product's proceeds over one report period, as Apple gives them.
    struct AppleLine: Sendable, Hashable {
        let source: String
        let begin: String
        let end: String
        let productId: String
        /// The reports' two-letter country.
        let country: String
        let customerCurrency: String
        let unitsSold: Int128
        let unitsRefunded: Int128
        let proceeds: [Money]
        let credits: Int128
        /// In the reporting currency; nil when no units were left.
        let perCredit: Money?
    }

    let family: String
    let window: String
    let currency: Currency
    let modelledPerCredit: Money
    let features: [FeatureLine]
    let rates: [RateLine]
    let liability: Liability
    let breakage: Breakage
    let apple: [AppleLine]
    /// Credits revokes took back, and those beyond what the account held.
    let takenBack: Int128
    let takenBackBeyond: Int128
    let accounts: Int
    let ledgerEntries: Int
    let ledgerDuplicates: Int
    let ledgerRejected: Int
    /// Refunds `pnl` does not count (unknown charge, another feature, more than charged, a
    /// second refund of one charge): not put back either.
    let refundsIgnored: Int
    /// Refunds counted that are dated before their charge (taken right after it).
    let refundsBeforeCharge: Int
    let reportRowsNotCredits: Int
    let fxUsed: [String]
    let ledgerWarnings: [Diagnostic]
    /// Empty `--transactions` files and repeated transaction ids (the first 20).
    var appleWarnings: [Diagnostic] = []
    /// `--by`: the period (`day`, `week`, `month`) and its lines, in time order; nil
    /// without a series.
    var series: String? = nil
    var periods: [PeriodLine] = []

    var totalCredits: Int128 { features.reduce(0) { $0 + $1.credits } }
    /// Σ modelled; proved to fit by `checkSums()` (the fallback is never taken).
    var totalModelled: Money {
        features.reduce(Money.zero(currency)) { (try? $0.adding($1.modelled)) ?? $0 }
    }
    /// Σ proceeds; proved to fit by `checkSums()` (the fallback is never taken).
    var totalProceeds: Money {
        features.reduce(Money.zero(currency)) { (try? $0.adding($1.proceeds)) ?? $0 }
    }

    /// Every figure the renderers derive (each line's difference, the totals and their
    /// difference) computed once with overflow checked, when the report is made: a sum too
    /// large for exact arithmetic is an error then, never a term dropped in a rendering.
    func checkSums() throws(MoneyError) {
        for f in features + periods.flatMap(\.features) {
            _ = try f.proceeds.subtracting(f.modelled)
        }
        var modelled = Money.zero(currency)
        var proceeds = Money.zero(currency)
        for f in features {
            modelled = try modelled.adding(f.modelled)
            proceeds = try proceeds.adding(f.proceeds)
        }
        _ = try proceeds.subtracting(modelled)
    }

    static let method = [
        "each account's (device's) credits are taken first in, first out: a charge spends the oldest lot (grant or top-up) with credits left, a refund puts them back into the lots they came from (one dated before its charge is taken right after the charge), a revoke takes back first from the lot of the purchase it names",
        "a top-up's lot is valued at the proceeds per credit of its Apple transaction's product, country (its storefront's, when the card folder's storefront table gives its two-letter code; else every country of that currency), customer currency and report period (Apple's rows summed, refunds netted, over net units × the pack's credits); without a transaction, of the one pack of the card in force that grants those credits; else of every product in the period; a refunded or revoked purchase earned nothing, a sandbox one nothing; financial reports (final) before sales reports (estimates); days in Pacific time",
        "credits spent that no lot holds (the ledger names no earlier top-up of the account) are valued at the proceeds per credit of every product in the period they were spent in; where no report covers a day, at the card's modelled value",
        "grants are lots worth nothing: credits granted for free are shown apart",
        "breakage (ASC 606-10-55-48, IFRS 15 B46): a paid lot recognises, beside the value of each credit used, breakage of used × b ÷ (1 − b) credits at its value (b the card's expectedBreakage), never more than the credits left; what is left when the lot lapses is recognised then",
    ]
}
