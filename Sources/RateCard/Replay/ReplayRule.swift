/// The stable ids of `margin replay`'s findings and of its gate, as printed in `[rule]`.
enum ReplayRule: String, Sendable, Hashable, CaseIterable {
    /// A charge whose request cannot be priced by one side: a feature the card does not
    /// have, no quantity where the card needs one, a dimension it does not have.
    case notRepriced = "replay-not-repriced"
    /// Two entries with one id and different content: the first is kept.
    case conflictingDuplicate = "replay-conflicting-duplicate"
    /// A refund that names no charge of the ledger.
    case refundOfUnknownCharge = "replay-refund-of-unknown-charge"
    /// A charge's `card` field names a version (`id@N`) of another card id than the one
    /// replayed: its number is still read as a version of the replayed card.
    case cardOfAnotherID = "replay-card-of-another-id"
    /// The gate of `diff --usage`: no charge of the usage could be re-priced, so the
    /// limits judged nothing.
    case nothingRepriced = "replay-nothing-repriced"
    /// The gate: a feature's credits move by more than `--max-credit-change`.
    case creditChange = "replay-credit-change"
    /// The gate: the overall margin falls by more than `--max-margin-drop` points.
    case marginDrop = "replay-margin-drop"
}
