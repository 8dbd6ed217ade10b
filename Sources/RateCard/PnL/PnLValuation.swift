/// Turns takings (credits) into a profit and loss: what the credits kept were worth, what
/// they cost (metered and fixed), the profit and the margin, all in one reporting currency.
public struct PnLValuation: Sendable, Hashable {
    public let credit: CreditValuation
    /// Fixed costs per feature, converted into the reporting currency.
    public let fixedCosts: [String: Money]
    /// Where the fixed costs came from and the period they cover.
    public let fixedCostNote: String?
    /// How metered costs were computed.
    public let meteredNote: String

    public init(credit: CreditValuation, fixedCosts: [String: Money] = [:], fixedCostNote: String? = nil, meteredNote: String) {
        self.credit = credit
        self.fixedCosts = fixedCosts
        self.fixedCostNote = fixedCostNote
        self.meteredNote = meteredNote
    }

    public var currency: Currency { credit.perCredit.currency }

    /// One feature's money figures.
    public struct Figures: Sendable, Hashable {
        public let value: Money
        public let meteredCost: Money
        public let fixedCost: Money
        public let cost: Money
        public let profit: Money
        /// profit ÷ value; nil when the value is zero.
        public let margin: Exact?
    }

    /// The figures of a row: value = credits left × value per credit.
    public func figures(_ row: TakingsReport.Row, fixed: Money?) throws(MoneyError) -> Figures {
        let value = try credit.perCredit.multiplied(by: Exact(integer: row.left))
        let metered = row.cost ?? .zero(currency)
        let fixedCost = fixed ?? .zero(currency)
        let cost = try metered.adding(fixedCost)
        let profit = try value.subtracting(cost)
        let margin: Exact?
        do { margin = value.amount.isZero ? nil : try profit.amount.divided(by: value.amount) } catch { throw .arithmetic(error) }
        return Figures(value: value, meteredCost: metered, fixedCost: fixedCost, cost: cost, profit: profit, margin: margin)
    }

    /// The fixed cost of a row ("total" sums every fixed cost).
    public func fixedCost(for feature: String) throws(MoneyError) -> Money? {
        if feature == "total" {
            var sum = Money.zero(currency)
            for m in fixedCosts.values { sum = try sum.adding(m) }
            return sum
        }
        return fixedCosts[feature]
    }
}

extension TakingsReport {
    /// The same report with a zero row for every feature in `features` that had no takings
    /// in the window, so a P&L lists every feature (a feature nobody used still has costs).
    public func including(features: [String]) -> TakingsReport {
        let present = Set(rows.map(\.feature))
        let extra = features.filter { !present.contains($0) }.map {
            Row(feature: $0, charges: 0, charged: 0, declines: 0, givenBack: 0, cost: costCurrency.map { Money.zero($0) })
        }
        guard !extra.isEmpty else { return self }
        return TakingsReport(window: window, series: series, rows: (rows + extra).sorted { $0.feature < $1.feature }, totals: totals,
                             periods: periods, belowTheLine: belowTheLine, input: input, rejections: rejections,
                             unknownFeatures: unknownFeatures, warnings: warnings, errors: errors, costCurrency: costCurrency,
                             chargeAudit: chargeAudit)
    }
}
