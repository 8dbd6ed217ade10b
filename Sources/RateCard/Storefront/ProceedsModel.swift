/// What Apple pays for one sale in one storefront, modelled from the storefront file:
///
///     net       = price ÷ (1 + tax)          (tax-inclusive storefronts; else the price)
///     proceeds  = net × (1 − commission) − net × digital services tax
///
/// then rounded once, half-even, to the unit Apple pays in (the currency's minor unit, or the
/// storefront data's `currencyUnit`: whole forints in Hungary), since Apple pays whole units. Apple's own published proceeds round in ways no single rule reproduces (0.693 is
/// paid as 0.70, 0.973 as 0.97), so a cross-check allows a difference of one minor unit.
struct ModelledProceeds: Sendable, Hashable {
    let price: Money
    /// The price less the tax Apple removes.
    let taxExclusive: Money
    /// The digital services tax deducted, exact.
    let digitalServicesTax: Money
    /// The commission rate and the regime it came from.
    let regime: CommissionRegime
    /// Proceeds before rounding.
    let exact: Money
    /// Proceeds rounded half-even to the storefront's payment unit: what the model says Apple pays.
    let rounded: Money

    /// How modelled proceeds are rounded to the currency's minor unit.
    static let rounding = RoundingRule.halfEven

    init(price: Money, storefront: Storefront, regime: CommissionRegime) throws(MoneyError) {
        self.price = price
        self.regime = regime
        do {
            let net =
                storefront.taxIncluded
                ? try price.amount.divided(by: Exact.one.adding(storefront.tax)) : price.amount
            let dst = try net.multiplied(by: storefront.digitalServicesTax)
            let kept = try net.multiplied(by: Exact.one.subtracting(regime.rate)).subtracting(dst)
            taxExclusive = Money(net, price.currency)
            digitalServicesTax = Money(dst, price.currency)
            exact = Money(kept, price.currency)
            rounded = Money(
                try ModelledProceeds.round(kept, places: storefront.paymentScale), price.currency)
        } catch {
            throw .arithmetic(error)
        }
    }

    /// `amount` rounded half-even to `places` decimals (the storefront's payment unit).
    static func round(_ amount: Exact, places: Int) throws(ArithmeticError) -> Exact {
        let steps = try amount.scaled(places, rule: rounding)
        return try Exact(steps, over: try Exact.powerOfTen(places))
    }
}
