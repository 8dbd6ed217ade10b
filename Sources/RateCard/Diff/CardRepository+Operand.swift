import Foundation

extension CardRepository {
    /// The card an operand of `margin diff` names: a card file (a path ending in `.json`)
    /// or a reference into the repository (`osg`, the newest version, or `osg@10`).
    ///
    /// A card file inside the repository's folder is the card loaded from it. One outside
    /// is read on its own and priced against the repository's provider sheets, so an
    /// edited copy can be compared with the published version of the same `id@version`.
    func card(operand: String) throws(Diagnostics) -> RateCard {
        guard operand.hasSuffix(".json") else {
            if let c = card(reference: operand) { return c }
            let known = cards.map(\.reference).joined(separator: ", ")
            throw Diagnostics([
                Diagnostic(
                    path: operand,
                    message:
                        "no card '\(operand)' in the rate-card folder (cards: \(known.isEmpty ? "none" : known))"
                )
            ])
        }
        let wanted = FilePath.canonical(operand)
        if let c = cards.first(where: { FilePath.canonical($0.source.path) == wanted }) {
            return c
        }
        let file = try CardFileLoader.load(path: operand)
        guard case .card(let c) = file else {
            throw Diagnostics([
                Diagnostic(
                    path: operand, message: "this is not a rate card (its \"kind\" is not \"card\")"
                )
            ])
        }
        let problems = CardRepository.bindingProblems(c, providers: providers)
        if !problems.isEmpty { throw Diagnostics(problems) }
        return c
    }
}
