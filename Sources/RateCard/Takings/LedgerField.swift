/// The fields of a ledger entry, the one list of them: the scanner reads a key as one of
/// these (its bit in a line's `seen` mask is `1 << rawValue`, and its index is also its
/// prediction state), the content hash tags each field's hash by its `seed`, and messages
/// name it by `name`.
enum LedgerField: Int, CaseIterable {
    case id = 0
    case at
    case kind
    case amount
    case feature
    case refundOf
    case reason
    case quantity
    case device
    case note
    case card
    case balanceAfter
    case paymentRef
    case price

    /// `id`, `at`, `kind` and `amount`: every entry has them.
    @inline(__always) var isRequired: Bool { rawValue <= LedgerField.amount.rawValue }

    @inline(__always) var bit: UInt32 { 1 << UInt32(rawValue) }

    /// The field names by bit index (`rawValue`).
    static let names = [
        "id", "at", "kind", "amount", "feature", "refundOf", "reason", "quantity",
        "device", "note", "card", "balanceAfter", "paymentRef", "price",
    ]

    var name: String { LedgerField.names[rawValue] }

    /// The seed that tags this field's hash in an entry's content hash, so that the same
    /// text in two fields never cancels out (`at` is 0x100 times the golden ratio, and so
    /// on in order; `id` is never part of the content).
    @inline(__always) var seed: UInt64 { (0xFF + UInt64(rawValue)) &* 0x9e37_79b9_7f4a_7c15 }

    /// The tag of a roll-up row's period, after every entry field's.
    static let rollupSeed: UInt64 = 0x10D &* 0x9e37_79b9_7f4a_7c15
}
