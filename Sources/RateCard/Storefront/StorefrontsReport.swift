/// `margin storefronts`: every pack of every card in every storefront, as one report that
/// renders itself (`RenderableReport`). The command builds the request (cards, Apple's
/// files, `--at`, `--program`, `--fx`), makes this one call and prints it.
public struct StorefrontsReport: RenderableReport, Sendable {
    let margins: [StorefrontMargins]

    /// The margins of each card. A card whose worst case cannot be computed fails the run
    /// (exit 1 for free usage, at each free dimension; else 2), naming the card.
    public init(
        cards: [RateCard], repository: CardRepository, priceLists: [String: ApplePriceList],
        arguments: StorefrontArguments, fx: FXTable
    ) throws(RunFailure) {
        var all: [StorefrontMargins] = []
        for card in cards {
            do {
                all.append(
                    try StorefrontMargins(
                        card: card, repository: repository, priceLists: priceLists,
                        program: arguments.program, date: arguments.date, fx: fx))
            } catch {
                if case .unbounded(let shapes) = error {
                    throw RunFailure(
                        shapes.map { $0.freeUsageDiagnostic(card: card) }, failureClass: .findings)
                }
                throw RunFailure([
                    Diagnostic(
                        path: card.source.path, location: card.source.location,
                        message: "\(card.reference): \(error)")
                ])
            }
        }
        margins = all
    }

    /// Every card's diagnostics, each once, sorted.
    public var warnings: [Diagnostic] { Array(Set(margins.flatMap(\.warnings))).sorted() }

    /// 1 when a finding is an error (a card price for no territory, Apple's price differing
    /// from the card's), else 0.
    public var exitCode: Int32 { margins.map(\.exitCode).max() ?? 0 }

    public func table(bold: Bool) -> String {
        StorefrontMargins.render(margins, format: .table, bold: bold)
    }
    public func json() -> String { StorefrontMargins.render(margins, format: .json) }
    public func csv() -> String { StorefrontMargins.render(margins, format: .csv) }
    public func markdown() -> String { StorefrontMargins.render(margins, format: .markdown) }
}
