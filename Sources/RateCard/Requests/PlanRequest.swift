/// `margin plans`: the worst-case margin of every subscription plan of the selected cards,
/// by subscription year, with offers and the free tier; from Apple's proceeds in each
/// territory too where files are given.
public struct PlanRequest: Sendable {
    var selection: PricedSelection
    /// `--format`.
    var format = OutputFormat.table

    init(cards: CardSelection, fxOverrides: [FXRate] = [], arguments: StorefrontArguments) {
        selection = PricedSelection(cards: cards, fxOverrides: fxOverrides, arguments: arguments)
    }

    /// The request the command line makes; bad values are usage errors.
    public init(arguments args: ParsedArguments) throws {
        format = try args.choice("format", default: OutputFormat.table)
        selection = try PricedSelection(arguments: args)
    }

    /// What `margin plans` prints: the report in the request's format.
    public func output(bold: Bool) throws -> CommandOutput {
        try run().output(format, bold: bold)
    }

    /// The one call; a card whose worst case cannot be computed is its `WorstCaseFailure`.
    func run() throws -> PlanReport {
        let s = try selection.load("subscription") { $0.subscriptions.map(\.productId) }
        let arguments = selection.arguments
        return PlanReport(
            try WorstCaseFailure.each(s.cards) { card throws(WorstCaseError) in
                try PlanMargins(
                    card: card, repository: s.repository, fx: s.fx, priceLists: s.priceLists,
                    date: arguments.date, program: arguments.program)
            })
    }
}
