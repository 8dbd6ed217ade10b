/// The per-feature profit and loss of a set of takings, with every input line accounted for.
///
/// Credits are in the card's credit unit and exact (`Int128`); `charged` and `givenBack`
/// are positive. Money (metered cost, top-up money) is exact and rounded only when shown.
struct TakingsReport: Sendable, Hashable {
    /// One feature's takings over a window or a period.
    struct Row: Sendable, Hashable {
        /// The feature key, or "total".
        let feature: String
        /// How many charges.
        let charges: Int
        /// Credits charged (positive).
        let charged: Int128
        /// How many charges were declined and given back.
        let declines: Int
        /// Credits given back (positive).
        let givenBack: Int128
        /// The metered provider cost of the charges, when the run was priced.
        let cost: Money?

        init(
            feature: String, charges: Int, charged: Int128, declines: Int, givenBack: Int128,
            cost: Money? = nil
        ) {
            self.feature = feature
            self.charges = charges
            self.charged = charged
            self.declines = declines
            self.givenBack = givenBack
            self.cost = cost
        }

        /// Credits kept: charged − given back.
        var left: Int128 { charged - givenBack }

        /// Declines ÷ charges, exact; nil when there were no charges.
        var declineRate: Exact? {
            guard charges > 0 else { return nil }
            return try? Exact(Int128(declines), over: Int128(charges))
        }
    }

    /// One period of a series (`--by`).
    struct Period: Sendable, Hashable {
        /// `2026-11-29`, `2026-W48` or `2026-11`.
        let label: String
        /// The first instant; nil for a period that starts before 0001-01-01T00:00:00Z.
        let since: Timestamp?
        /// The first instant after it; nil for a period that ends after
        /// 9999-12-31T23:59:59Z (the last one of the range).
        let until: Timestamp?
        let rows: [Row]
        let totals: Row
    }

    /// Credits that came in without a charge, and what is still owed to users.
    struct BelowTheLine: Sendable, Hashable {
        let grants: Int
        let granted: Int128
        let topups: Int
        let toppedUp: Int128
        /// The money top-ups recorded, one amount per currency, sorted by currency.
        let topupMoney: [Money]
        /// The sum of all amounts up to the window's end: credits granted or bought and not
        /// yet spent, a liability since in-app credits may not expire.
        let outstanding: Int128
    }

    /// Every input line accounted for: `lines = entries + duplicates + rejected + blank`.
    struct Input: Sendable, Hashable {
        /// Records read: JSON Lines lines, CSV data rows, ledger document entries, roll-up rows.
        let lines: Int
        /// Distinct entries (and roll-up rows) used.
        let entries: Int
        /// Entries seen again with the same id and content.
        let duplicates: Int
        let rejected: Int
        /// Blank lines (JSON Lines only).
        let blank: Int
        /// Rejections counted by class.
        let rejectedByClass: [RejectionClass: Int]
        /// Used entries whose time falls in the window.
        let inWindow: Int

        /// True when every line is accounted for exactly once.
        var isBalanced: Bool {
            lines == entries + duplicates + rejected + blank
                && rejected == rejectedByClass.values.reduce(0, +)
        }
    }

    let window: TakingsWindow
    let series: TakingsSeries?
    /// Per feature over the whole window, sorted by feature key.
    let rows: [Row]
    let totals: Row
    /// The series, oldest first; empty without `--by`.
    let periods: [Period]
    let belowTheLine: BelowTheLine
    let input: Input
    /// The first rejections by input and line (all are counted in `input`).
    let rejections: [TakingsRejection]
    /// Feature keys the card does not know (only when the run was priced).
    let unknownFeatures: [String]
    /// Problems that do not stop the table: balance-chain breaks, windows cutting roll-up
    /// periods, a charge refunded twice.
    let warnings: [Diagnostic]
    /// Problems that make the table untrustworthy: sums that overflow, pricing failures,
    /// an accounting that does not balance, balance-chain breaks under `strict`.
    let errors: [Diagnostic]
    /// The currency of `cost`, when priced.
    let costCurrency: Currency?
    /// Every charge in the window compared with the card; nil when the run had no card.
    let chargeAudit: ChargeAudit?

    /// True when the run should exit 1: an error, a conflicting duplicate (the same id
    /// with different content is always an error), or under `strict` any rejection.
    func hasFindings(strict: Bool) -> Bool {
        !errors.isEmpty || input.rejectedByClass[.conflictingDuplicate, default: 0] > 0
            || (strict && input.rejected > 0)
    }
}
