/// `margin diff OLD NEW`: what changed between two card versions, and what it does to the
/// worst-case margin of every pack and plan.
public struct DiffRequest: Sendable {
    /// The folder, and exactly two operands: OLD and NEW (card files or `id@version`).
    public var cards: CardSelection
    public var fxOverrides: [FXRate]
    public var commissionRates: [Exact]?

    public init(cards: CardSelection, fxOverrides: [FXRate] = [], commissionRates: [Exact]? = nil) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.commissionRates = commissionRates
    }

    /// The one call. Two operands are required (a usage error otherwise); a card file
    /// outside the folder is read on its own and priced against the folder's sheets.
    public func run() throws -> CardDiff {
        guard cards.operands.count == 2 else {
            throw UsageError(
                "expected two cards, OLD and NEW (card files or id@version), found \(cards.operands.count)"
            )
        }
        let repo = try CardSelection(directory: cards.directory).repository()
        let old = try repo.card(operand: cards.operands[0])
        let new = try repo.card(operand: cards.operands[1])
        return try CardDiff(
            old: old, new: new, repository: repo, fx: repo.fx.overriding(with: fxOverrides),
            rates: commissionRates)
    }
}
