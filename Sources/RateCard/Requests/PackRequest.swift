/// `margin packs`: the worst-case cost and margin of every pack and grant of the selected
/// cards, per currency and commission rate.
public struct PackRequest: Sendable {
    var cards: CardSelection
    /// `--fx`: rates that replace the FX file's, credited to the command line.
    var fxOverrides: [FXRate]
    /// `--commission`: every currency's rates; nil for the commission file's (else 15%, 30%).
    var commissionRates: [Exact]?
    /// `--tax`: a sales tax removed from tax-inclusive prices before commission.
    var taxRates: [Currency: Exact]

    public init(
        cards: CardSelection, fxOverrides: [FXRate] = [], commissionRates: [Exact]? = nil,
        taxRates: [Currency: Exact] = [:]
    ) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.commissionRates = commissionRates
        self.taxRates = taxRates
    }

    /// The one call: load, price every card, and the report to render. A card whose worst
    /// case cannot be computed is a `WorstCaseFailure` (its free-usage findings, exit 1).
    public func run() throws -> PackReport {
        let (repo, cards) = try self.cards.load()
        let fx = repo.fx.overriding(with: fxOverrides)
        return PackReport(
            try WorstCaseFailure.each(cards) { card throws(WorstCaseError) in
                try PackMargins(
                    card: card, repository: repo, fx: fx, rates: commissionRates,
                    taxRates: taxRates)
            })
    }
}
