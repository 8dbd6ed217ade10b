/// Why a P&L cannot be computed at all (exit 2): the request names no usable card, a
/// credit cannot be valued, a cost sheet does not fit the card or the window.
enum PnLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request itself is wrong (the usage line helps): no card, an unknown card.
    case usage(String)
    /// The data cannot answer it: no pack to value a credit by, no FX rate.
    case valuation(String)
    /// Problems in an input file, each with its place.
    case diagnostics([Diagnostic])

    var description: String {
        switch self {
        case .usage(let m), .valuation(let m): m
        case .diagnostics(let d): d.map(\.rendered).joined(separator: "\n")
        }
    }
}
