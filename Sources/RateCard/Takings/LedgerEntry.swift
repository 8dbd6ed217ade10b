/// One entry of a credit ledger, as a device writes it and an export carries it.
///
/// Amounts are signed whole numbers in the card's credit unit: a charge is negative,
/// a grant, a refund and a top-up are positive. The largest magnitude accepted is
/// `LedgerEntry.maxAmount` so that ten billion entries still sum exactly in `Int128`.
struct LedgerEntry: Sendable, Hashable {
    /// What an entry records.
    enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// Credits given without payment (a starting credit, an invitation).
        case grant
        /// Credits spent on a feature.
        case charge
        /// A declined charge given back; the charge stays in the ledger.
        case refund
        /// Credits bought.
        case topup
        /// Credits taken back because the store refunded or revoked the purchase that bought
        /// them (`paymentRef` names it): negative, like a charge, and of no feature.
        case revoke
    }

    /// The largest magnitude of `amount` and `balanceAfter`: 18 digits.
    static let maxAmount: Int64 = 999_999_999_999_999_999

    let id: String
    let at: Timestamp
    let kind: Kind
    /// Signed, in the card's credit unit.
    let amount: Int64
    /// The feature key: required on charges and refunds.
    let feature: String?
    /// The id of the charge a refund gives back: required on refunds.
    let refundOf: String?
    /// Why a charge was declined (`notUsable`, `notNeeded`, `test`, `other`).
    let reason: String?
    /// Dimension → amount used, exact (`["second": 76]`): what metered costs are priced from.
    let quantity: [String: Exact]
    let device: String?
    let note: String?
    /// The card id@version that priced it.
    let card: String?
    /// The device's balance after this entry, in the credit unit.
    let balanceAfter: Int64?
    /// The payment reference of a top-up.
    let paymentRef: String?
    /// The money a top-up recorded (an extension field, `"price": "GBP 4.99"`).
    let price: Money?

    init(
        id: String, at: Timestamp, kind: Kind, amount: Int64, feature: String? = nil,
        refundOf: String? = nil, reason: String? = nil, quantity: [String: Exact] = [:],
        device: String? = nil, note: String? = nil, card: String? = nil,
        balanceAfter: Int64? = nil, paymentRef: String? = nil, price: Money? = nil
    ) {
        self.id = id
        self.at = at
        self.kind = kind
        self.amount = amount
        self.feature = feature
        self.refundOf = refundOf
        self.reason = reason
        self.quantity = quantity
        self.device = device
        self.note = note
        self.card = card
        self.balanceAfter = balanceAfter
        self.paymentRef = paymentRef
        self.price = price
    }
}

extension LedgerEntry {
    /// The hash that decides whether two entries with the same id are the same entry.
    ///
    /// Canonical: the instant (not its spelling or offset), integers by value, quantities
    /// by exact value, strings after JSON unescaping; absent and `null` fields agree.
    var contentHash: UInt64 {
        var h = ContentHasher()
        h.add(.at, seconds: at.seconds, nanoseconds: UInt32(at.nanoseconds))
        h.add(.kind, integer: Int64(kind.code))
        h.add(.amount, integer: amount)
        if let feature { h.add(.feature, string: feature) }
        if let refundOf { h.add(.refundOf, string: refundOf) }
        if let reason { h.add(.reason, string: reason) }
        for (key, value) in quantity {
            let (significand, scale) = value.canonicalDecimalParts
            h.addQuantity(
                keyHash: ContentHasher.dimensionKeyHash(key), significand: significand, scale: scale
            )
        }
        if let device { h.add(.device, string: device) }
        if let note { h.add(.note, string: note) }
        if let card { h.add(.card, string: card) }
        if let balanceAfter { h.add(.balanceAfter, integer: balanceAfter) }
        if let paymentRef { h.add(.paymentRef, string: paymentRef) }
        if let price {
            h.add(
                .price, string: "\(price.currency.code) \(price.amount.decimalText(maxScale: 38))")
        }
        return h.value
    }
}

extension LedgerEntry.Kind {
    /// A three-bit code used in the compact de-duplication table and the content hash.
    var code: UInt8 {
        switch self {
        case .grant: 0
        case .charge: 1
        case .refund: 2
        case .topup: 3
        case .revoke: 4
        }
    }

    init(code: UInt8) {
        switch code & 7 {
        case 0: self = .grant
        case 1: self = .charge
        case 2: self = .refund
        case 4: self = .revoke
        default: self = .topup
        }
    }
}

extension Exact {
    /// The value as `significand × 10^-scale` with no trailing zeros, for a terminating
    /// decimal; non-terminating values (never read from text) fall back to numerator and
    /// a scale that cannot collide with a decimal one.
    var canonicalDecimalParts: (Int128, Int) {
        guard let scale = terminatingScale,
            let scaled = try? multiplied(by: Exact(integer: Exact.powerOfTen(scale))).integerValue
        else {
            return (numerator, 1000 + Int(truncatingIfNeeded: denominator % 997))
        }
        return (scaled, scale)
    }
}
