extension PnLPlan {
    /// With `--by`, the fixed costs as `margin pnl`'s `periods` carry them: for every
    /// period of the window (with takings or not) and every feature of the cost sheet, the
    /// part of the sheet's cost that falls in the period, prorated by time; a period at an
    /// edge of the window carries only the part inside it (`PnLReport.everyPeriod`).
    func fixedCostsByPeriod(_ series: TakingsSeries) throws -> [PnLSQLRequest.PeriodCost] {
        guard let fixed else { return [] }
        var costs: [PnLSQLRequest.PeriodCost] = []
        for (label, p) in fixed.periods(of: series) {
            let from = p.since.map { max(fixed.since, $0) } ?? fixed.since
            let to = p.until.map { min(fixed.until, $0) } ?? fixed.until
            for key in fixed.perFeature.keys.sorted() {
                if let m = try fixed.cost(of: key, from: from, to: to) {
                    costs.append(.init(period: label, feature: key, cost: m))
                }
            }
        }
        return costs
    }
}
