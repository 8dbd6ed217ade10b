/// The stable ids of `margin pnl`'s findings that are not a rejected line (those are a
/// `RejectionClass`), as printed in `[rule]`.
enum PnLRule: String, Sendable, Hashable, CaseIterable {
    /// A figure of a row (value, cost, profit, margin) that cannot be computed exactly.
    case pnlFigures = "pnl-figures"
    /// A metered cost that cannot be computed (no sheet in force, arithmetic limits).
    case cost
    /// A sum that overflows 128 bits.
    case overflow
    /// Entries in a `--by` period outside the years 0001 to 9999, which has no label.
    case seriesRange = "series-range"
    /// A feature key that the card does not have.
    case unknownFeature = "unknown-feature"
    /// A fixed-cost sheet whose period does not cover the window.
    case costSheetPeriod = "cost-sheet-period"
    /// No FX rate to convert a cost into the reporting currency.
    case fx
    /// The input accounting does not balance (lines against entries, duplicates, rejected
    /// and blank lines): an internal error.
    case accounting
    /// A device's `balanceAfter` chain that does not follow from its entries.
    case balanceChain = "balance-chain"
    /// A field of a kept entry that is ignored (a price on an entry that has none).
    case ignoredField = "ignored-field"
    /// A roll-up period cut by the window: counted in full or not at all.
    case rollupCut = "rollup-cut"
    /// A charge whose quantity the card's rule cannot be checked against (none given).
    case missingQuantity = "missing-quantity"
    /// A charge that differs from what the card in force charges for its quantity.
    case chargeAudit = "charge-audit"
}
