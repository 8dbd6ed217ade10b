/// What the features' credits really earned, beside the modelled value; the credits sold
/// and not yet spent (the liability) at `now`; the breakage recognised in the window. Every
/// figure exact, in the reporting currency (`ProceedsRun`, docs/proceeds.md).
public struct ProceedsReport: Sendable, Hashable {
    public struct FeatureLine: Sendable, Hashable {
        public let key: String
        /// Credits kept in the window (charged less given back), as `pnl` counts them.
        public let credits: Int128
        /// credits × the modelled value per credit.
        public let modelled: Money
        /// Σ credits × the value per credit of the lot each came from.
        public let proceeds: Money
        /// Credits per basis of the value (`ProceedsRate.Basis` raw values).
        public let byBasis: [String: Int128]
        public var difference: Money {
            (try? proceeds.subtracting(modelled)) ?? proceeds
        }
    }

    /// A value per credit that was used, with what it valued.
    public struct RateLine: Sendable, Hashable {
        public let basis: String
        public let label: String
        public let perCredit: Money
        /// Lots opened at it (all time) and their credits.
        public let lots: Int
        public let credits: Int128
        /// Credits the features kept at it in the window.
        public let used: Int128
        /// Of `used`, credits no lot backed.
        public let unbacked: Int128
    }

    /// The credits sold and not yet spent at `now`, and what they are worth.
    public struct Liability: Sendable, Hashable {
        public let at: Timestamp
        /// Credits left in paid lots that have not lapsed.
        public let paidCredits: Int128
        public let lots: Int
        /// paid credits × their lots' value per credit.
        public let value: Money
        /// Breakage already recognised on those lots (in proportion to use).
        public let breakageRecognised: Money
        /// value − breakage recognised: the contract liability (deferred revenue).
        public let deferred: Money
        /// Credits granted for free and not yet spent: no money.
        public let freeCredits: Int128
    }

    /// Breakage recognised in the window.
    public struct Breakage: Sendable, Hashable {
        /// The card's rule (`creditExpiry`) of the version in force at `now`, as text.
        public let rule: String
        public let recognised: Money
        /// Paid and free credits that lapsed in the window.
        public let lapsedPaid: Int128
        public let lapsedFree: Int128
    }

    /// One product's proceeds over one report period, as Apple gives them.
    public struct AppleLine: Sendable, Hashable {
        public let source: String
        public let begin: String
        public let end: String
        public let productId: String
        /// The reports' two-letter country.
        public let country: String
        public let customerCurrency: String
        public let unitsSold: Int128
        public let unitsRefunded: Int128
        public let proceeds: [Money]
        public let credits: Int128
        /// In the reporting currency; nil when no units were left.
        public let perCredit: Money?
    }

    public let family: String
    public let window: String
    public let currency: Currency
    public let modelledPerCredit: Money
    public let features: [FeatureLine]
    public let rates: [RateLine]
    public let liability: Liability
    public let breakage: Breakage
    public let apple: [AppleLine]
    /// Credits revokes took back, and those beyond what the account held.
    public let takenBack: Int128
    public let takenBackBeyond: Int128
    public let accounts: Int
    public let ledgerEntries: Int
    public let ledgerDuplicates: Int
    public let ledgerRejected: Int
    /// Refunds `pnl` does not count (unknown charge, another feature, more than charged, a
    /// second refund of one charge): not put back either.
    public let refundsIgnored: Int
    /// Refunds counted that are dated before their charge (taken right after it).
    public let refundsBeforeCharge: Int
    public let reportRowsNotCredits: Int
    public let fxUsed: [String]
    public let ledgerWarnings: [Diagnostic]

    public var totalCredits: Int128 { features.reduce(0) { $0 + $1.credits } }
    public var totalModelled: Money {
        features.reduce(Money.zero(currency)) { (try? $0.adding($1.modelled)) ?? $0 }
    }
    public var totalProceeds: Money {
        features.reduce(Money.zero(currency)) { (try? $0.adding($1.proceeds)) ?? $0 }
    }

    static let method = [
        "each account's (device's) credits are taken first in, first out: a charge spends the oldest lot (grant or top-up) with credits left, a refund puts them back into the lots they came from (one dated before its charge is taken right after the charge), a revoke takes back first from the lot of the purchase it names",
        "a top-up's lot is valued at the proceeds per credit of its Apple transaction's product, country (its storefront's, when the card folder's storefront table gives its two-letter code; else every country of that currency), customer currency and report period (Apple's rows summed, refunds netted, over net units × the pack's credits); without a transaction, of the one pack of the card in force that grants those credits; else of every product in the period; a refunded or revoked purchase earned nothing, a sandbox one nothing; financial reports (final) before sales reports (estimates); days in Pacific time",
        "credits spent that no lot holds (the ledger names no earlier top-up of the account) are valued at the proceeds per credit of every product in the period they were spent in; where no report covers a day, at the card's modelled value",
        "grants are lots worth nothing: credits granted for free are shown apart",
        "breakage (ASC 606-10-55-48, IFRS 15 B46): a paid lot recognises, beside the value of each credit used, breakage of used × b ÷ (1 − b) credits at its value (b the card's expectedBreakage), never more than the credits left; what is left when the lot lapses is recognised then",
    ]
}
