/// Everything a P&L query needs: where the entries are, the card family that prices them,
/// the window, the value of a credit and the fixed costs, all in one reporting currency.
struct PnLSQLRequest: Sendable {
    let dialect: SQLDialect
    let source: SQLSource
    let family: String
    let repository: CardRepository
    let window: TakingsWindow
    let currency: Currency
    /// The value of one credit in `currency` (stated, or the conservative default).
    let perCredit: Money
    /// Fixed costs per feature in `currency`.
    let fixedCosts: [String: Money]
    /// With a series (`--by`), one row per period and feature instead of one per feature.
    let series: TakingsSeries?
    /// With a series and fixed costs, each period's share of each feature's fixed cost
    /// (`PnLPlan.fixedCostsByPeriod`).
    let periodFixedCosts: [PeriodCost]
    /// With `--sql-params`, the window's bounds are query parameters (`SQLParameters`).
    let parameters: Bool

    /// The part of a feature's fixed cost that falls in one period of a series.
    struct PeriodCost: Sendable, Hashable {
        let period: String
        let feature: String
        let cost: Money
    }

    init(
        dialect: SQLDialect, source: SQLSource, family: String, repository: CardRepository,
        window: TakingsWindow,
        currency: Currency, perCredit: Money, fixedCosts: [String: Money] = [:],
        series: TakingsSeries? = nil, periodFixedCosts: [PeriodCost] = [],
        parameters: Bool = false
    ) {
        self.dialect = dialect
        self.source = source
        self.family = family
        self.repository = repository
        self.window = window
        self.currency = currency
        self.perCredit = perCredit
        self.fixedCosts = fixedCosts
        self.series = series
        self.periodFixedCosts = periodFixedCosts
        self.parameters = parameters
    }

    /// The fixed cost of each row that has one: per period and feature with a series,
    /// else per feature (period `''`).
    var fixedCostRows: [PeriodCost] {
        if series != nil { return periodFixedCosts }
        return fixedCosts.keys.sorted().compactMap { k in
            fixedCosts[k].map { PeriodCost(period: "", feature: k, cost: $0) }
        }
    }

    /// The versions of the family, oldest first.
    var versions: [RateCard] { versionList ?? repository.versions(of: family) }
    /// The cards to price by instead of the family's versions (`ReplaySQLCompiler`: the
    /// ledger's versions or OLD, then NEW), in this order.
    var versionList: [RateCard]?

    /// Feature keys every table lists: the newest version's, then those with a fixed cost.
    var listedFeatures: [String] {
        var keys = versions.last?.features.map(\.key) ?? []
        for k in fixedCosts.keys.sorted() where !keys.contains(k) { keys.append(k) }
        return keys
    }

    /// Every feature key of every version.
    var knownFeatures: [String] {
        var keys: [String] = []
        for card in versions {
            for f in card.features where !keys.contains(f.key) { keys.append(f.key) }
        }
        return keys
    }

    /// Every dimension name of every version, sorted: the quantity members the query reads.
    var dimensions: [String] {
        Array(Set(versions.flatMap { $0.features.flatMap { $0.dimensions.map(\.name) } })).sorted()
    }
}
