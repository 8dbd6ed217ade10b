/// Turns takings (credits) into a profit and loss: what the credits kept were worth, what
/// they cost (metered and fixed), the profit and the margin, all in one reporting currency.
struct PnLValuation: Sendable, Hashable {
    let credit: CreditValuation
    /// The fixed-cost sheet and how it applies to the window, when `--costs` was given.
    let fixedCosts: FixedCosts?
    /// How metered costs were computed.
    let meteredNote: String
    /// The card versions in force at some instant of the window, oldest first
    /// (`osg@10`), and the one whose packs value a credit (nil for a stated value).
    let versionsInForce: [String]
    let valuedAt: String?
    /// The unit credits are counted in, when a card is known.
    let creditUnit: CreditUnit?
    /// Every FX rate a figure used (credit value, fixed costs, metered costs), and where
    /// the rates come from.
    let fxUsed: [FXRate]
    let fxSource: String?

    init(
        credit: CreditValuation, fixedCosts: FixedCosts? = nil, meteredNote: String,
        versionsInForce: [String] = [],
        valuedAt: String? = nil, creditUnit: CreditUnit? = nil, fxUsed: [FXRate] = [],
        fxSource: String? = nil
    ) {
        self.credit = credit
        self.fixedCosts = fixedCosts
        self.meteredNote = meteredNote
        self.versionsInForce = versionsInForce
        self.valuedAt = valuedAt
        self.creditUnit = creditUnit
        self.fxUsed = fxUsed
        self.fxSource = fxSource
    }

    var currency: Currency { credit.perCredit.currency }

    /// How the margin is defined, for the report.
    static let marginBasis =
        "margin = profit ÷ value, only where the value is positive (none otherwise)"

    /// One row's money figures, exact.
    struct Figures: Sendable, Hashable {
        let value: Money
        let meteredCost: Money
        let fixedCost: Money
        let cost: Money
        let profit: Money
        /// profit ÷ value; nil unless the value is positive (a margin of a loss-making
        /// nothing, or of a negative value, means nothing: −0.10 ÷ −0.10 is not +100%).
        let margin: Exact?
    }

    /// The figures of `credits` kept, their metered cost and their fixed cost:
    /// value = credits × value per credit; profit = value − (metered + fixed).
    func figures(credits: Int128, metered: Money?, fixed: Money?) throws(MoneyError) -> Figures {
        let value = try credit.perCredit.multiplied(by: Exact(integer: credits))
        let meteredCost = metered ?? .zero(currency)
        let fixedCost = fixed ?? .zero(currency)
        // Adding checks that both are in the reporting currency.
        let cost = try Money.zero(currency).adding(meteredCost).adding(fixedCost)
        let profit = try value.subtracting(cost)
        let margin: Exact?
        do {
            margin = value.amount.isPositive ? try profit.amount.divided(by: value.amount) : nil
        } catch { throw .arithmetic(error) }
        return Figures(
            value: value, meteredCost: meteredCost, fixedCost: fixedCost, cost: cost,
            profit: profit, margin: margin)
    }
}
