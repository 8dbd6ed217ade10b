/// `margin packs`: the worst-case cost and margin of every pack and grant of the selected
/// cards, per currency and commission rate.
public struct PackRequest: Sendable {
    /// `--format`.
    var format = OutputFormat.table
    var cards: CardSelection
    /// `--fx`: rates that replace the FX file's, credited to the command line.
    var fxOverrides: [FXRate]
    /// `--commission`: every currency's rates; nil for the commission file's (else 15%, 30%).
    var commissionRates: [Exact]?
    /// `--tax`: a sales tax removed from tax-inclusive prices before commission.
    var taxRates: [Currency: Exact]

    init(
        cards: CardSelection, fxOverrides: [FXRate] = [], commissionRates: [Exact]? = nil,
        taxRates: [Currency: Exact] = [:]
    ) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.commissionRates = commissionRates
        self.taxRates = taxRates
    }

    /// The request the command line makes; bad values are usage errors.
    public init(arguments args: ParsedArguments) throws {
        let format = try args.choice("format", default: OutputFormat.table)
        self.init(
            cards: CardSelection(arguments: args), fxOverrides: try args.fxOverrides(),
            commissionRates: try args.commissionRates(), taxRates: try args.taxRates())
        self.format = format
    }

    /// What `margin packs` prints: the report in the request's format.
    public func output(bold: Bool) throws -> CommandOutput {
        try run().output(format, bold: bold)
    }

    /// The one call: load, price every card, and the report to render. A card whose worst
    /// case cannot be computed is a `WorstCaseFailure` (its free-usage findings, exit 1).
    func run() throws -> PackReport {
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
