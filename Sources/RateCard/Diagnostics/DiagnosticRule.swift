/// The stable id of the rule a diagnostic reports, printed as `[id]` after its message.
///
/// One family over the commands that report findings: `margin check`'s rules (also the
/// storefront and App Store Connect warnings that `packs`, `plans` and `storefronts`
/// print), `margin pnl`'s (and the class of each rejected line), and `margin report
/// --check`'s. An id never changes once released: CI configurations and the docs refer to it.
enum DiagnosticRule: Sendable, Hashable {
    /// A rule of `margin check` (`docs/check.md`).
    case check(CheckRule)
    /// A finding of `margin pnl` about the run as a whole or one entry (`docs/takings.md`).
    case pnl(PnLRule)
    /// Why `margin pnl` rejected an input line.
    case rejected(RejectionClass)
    /// A generated report that is not current (`margin report --check`).
    case report(ReportSet.Finding.Kind)
    /// A finding of `margin replay` or of its gate (`docs/replay.md`).
    case replay(ReplayRule)

    /// The id as printed, e.g. "price-step", "balance-chain", "report-stale".
    var id: String {
        switch self {
        case .check(let rule): rule.rawValue
        case .pnl(let rule): rule.rawValue
        case .rejected(let reason): reason.rawValue
        case .report(let kind): "report-\(kind.rawValue)"
        case .replay(let rule): rule.rawValue
        }
    }
}

extension DiagnosticRule: CustomStringConvertible {
    var description: String { id }
}
