/// One disagreement between the ledger and Apple's records, naming the ledger line and the
/// Apple record it is about (either may be absent: a purchase never credited has no
/// ledger line; credits with no Apple transaction have no Apple record).
struct ReconcileFinding: Sendable, Hashable {
    /// What disagrees; the raw value is the stable id printed in every format.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Apple charged for credits the ledger never granted.
        case neverCredited = "never-credited"
        /// The ledger granted another number of credits than quantity × the pack's credits.
        case creditsDiffer = "credits-differ"
        /// Credits granted with no Apple transaction (no `paymentRef`, or an unknown one).
        case noAppleTransaction = "no-apple-transaction"
        /// Apple refunded or revoked the purchase and the credits were not (all) taken back.
        case refundNotTakenBack = "refund-not-taken-back"
        /// Credits taken back for a purchase Apple did not refund (or reinstated).
        case revokedWithoutRefund = "revoked-without-refund"
        /// A second top-up for one Apple transaction.
        case duplicateCredit = "duplicate-credit"
        /// Credits granted in this (production) ledger for a sandbox or Xcode transaction.
        case sandboxInProduction = "sandbox-in-production"
        /// Apple's price differs from the card's price in force at the purchase date.
        case priceDiffers = "price-differs"

        /// A short phrase for tables.
        var title: String {
            switch self {
            case .neverCredited: "purchases never credited"
            case .creditsDiffer: "credits differ from the pack"
            case .noAppleTransaction: "credits with no Apple transaction"
            case .refundNotTakenBack: "refunds whose credits were not taken back"
            case .revokedWithoutRefund: "credits taken back with no refund"
            case .duplicateCredit: "purchases credited twice"
            case .sandboxInProduction: "sandbox purchases credited"
            case .priceDiffers: "prices that differ from the card"
            }
        }
    }

    let kind: Kind
    let ledger: ReconcileLedger.Place?
    let ledgerId: String?
    let apple: ApplePlace?
    let transactionId: String?
    let productId: String?
    /// Credits concerned: missing, granted, not taken back; for `credits-differ` the
    /// credits short (negative: granted too many).
    let credits: Int128
    /// `refund-not-taken-back`: of those credits, how many the device spent after the top-up.
    var spentSince: Int128?
    /// `refund-not-taken-back`: what serving them cost, at the provider sheets (in the
    /// providers' currency): the cost of the device's charges after the top-up, times the
    /// share of their net credits counted in `spentSince`; nil when a charge could not be
    /// costed or the device is not named.
    var spentCost: Money? = nil
    /// The money concerned (the customer's price from Apple's transaction, or the ledger's
    /// `price` for credits with no transaction; for `price-differs` Apple's price less the
    /// card's, times the quantity); nil when there is none to say.
    let money: Money?
    /// What a reader needs to act: the figures compared.
    let detail: String
}
