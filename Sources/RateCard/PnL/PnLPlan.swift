/// What a `margin pnl` run decided before reading any takings (`PnLRun.plan`): the card
/// family and repository, the window closed by the cost sheet, the versions in force over
/// it, the reporting currency, the value of a credit and the fixed costs.
struct PnLPlan {
    let repository: CardRepository
    let family: String
    let window: TakingsWindow
    let versionsInForce: [RateCard]
    let currency: Currency
    let credit: CreditValuation
    let fixed: FixedCosts?
    let valuation: PnLValuation

    /// Whether a cost sheet was given.
    var hasFixedCosts: Bool { fixed != nil }

    /// Each feature's fixed cost over the whole window (its prorated share when the window
    /// is shorter than the sheet's period), in the reporting currency.
    func fixedCostsOverWindow() throws -> [String: Money] {
        guard let fixed, let since = window.since, let until = window.until else { return [:] }
        var costs: [String: Money] = [:]
        for key in fixed.perFeature.keys.sorted() {
            if let m = try fixed.cost(of: key, from: since, to: until) { costs[key] = m }
        }
        return costs
    }
}
