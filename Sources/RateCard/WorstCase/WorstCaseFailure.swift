/// A card whose worst case cannot be computed, as the diagnostics every command prints
/// alike: an unbounded worst case is one `free-usage` finding per dimension that lets
/// credits or a quota be used for free, each at that dimension's place in the card (exit 1);
/// anything else (a missing FX rate, an overflow) names the card at its place (exit 2).
struct WorstCaseFailure: DiagnosedError, Sendable, Hashable, CustomStringConvertible {
    let error: WorstCaseError
    let diagnostics: [Diagnostic]
    let failureClass: FailureClass
    var summary: String? { nil }

    init(_ error: WorstCaseError, card: RateCard) {
        self.error = error
        if case .unbounded(let shapes) = error {
            diagnostics = shapes.map { $0.freeUsageDiagnostic(card: card) }.sorted()
            failureClass = .findings
        } else {
            diagnostics = [
                Diagnostic(
                    path: card.source.path, location: card.source.location,
                    message: "\(card.reference): \(error)", rule: .check(.worstCase))
            ]
            failureClass = .unreadable
        }
    }

    var description: String { diagnostics.map(\.rendered).joined(separator: "\n") }
}

extension WorstCaseFailure {
    /// `body` for every card in order; the first card whose worst case cannot be computed
    /// ends it as that card's failure. The loop of every command that prices cards.
    static func each<T>(_ cards: [RateCard], _ body: (RateCard) throws(WorstCaseError) -> T)
        throws(WorstCaseFailure) -> [T]
    {
        var all: [T] = []
        for card in cards {
            do { all.append(try body(card)) } catch { throw WorstCaseFailure(error, card: card) }
        }
        return all
    }
}
