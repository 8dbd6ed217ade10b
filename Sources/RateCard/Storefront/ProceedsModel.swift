/// What Apple pays for one sale in one storefront on one date, modelled from the storefront
/// file:
///
///     net        = price ÷ (1 + VAT)                 (tax-inclusive storefronts; else the price)
///     kept       = net × (1 − commission − payment processing) − net × DST
///     proceeds   = kept × (1 − withholding)
///
/// with the taxes and the regime in force on that date, then rounded once, a half up (as
/// Apple pays: all seven of its 2023-04-07 points on a half cent are paid the cent above,
/// 0.765 → 0.77), to the unit Apple pays in there (the storefront's `currencyUnit`: whole forints; else the
/// currency's minor unit: cents of a dollar, whole yen).
struct ModelledProceeds: Sendable, Hashable {
    let price: Money
    /// The price less the tax Apple removes.
    let taxExclusive: Money
    /// The taxes in force on the sale date.
    let taxes: TaxRates
    /// The digital services tax deducted, exact.
    let digitalServicesTax: Money
    /// The tax withheld from the proceeds, exact.
    let withheld: Money
    /// The commission rate and the regime it came from.
    let regime: CommissionRegime
    /// Proceeds before rounding.
    let exact: Money
    /// Proceeds rounded half-up to the unit Apple pays: what the model says Apple pays.
    let rounded: Money
    /// The unit `rounded` is a whole number of (0.01 for euros, 1 for forints).
    let unit: Exact

    /// How modelled proceeds are rounded to the unit Apple pays.
    static let rounding = RoundingRule.halfUp

    init(
        price: Money, storefront: Storefront, regime: CommissionRegime, on date: CalendarDate,
        unit: Exact? = nil
    ) throws(MoneyError) {
        self.price = price
        self.regime = regime
        let rates = storefront.rates(on: date)
        taxes = rates
        do throws(ArithmeticError) {
            let step = unit ?? storefront.paymentUnit
            let net =
                storefront.taxIncluded
                ? try price.amount.divided(by: Exact.one.adding(rates.vat)) : price.amount
            let dst = try net.multiplied(by: rates.digitalServicesTax)
            let kept = try net.multiplied(by: Exact.one.subtracting(regime.charge))
                .subtracting(dst)
            let withheld = try kept.multiplied(by: rates.withholding)
            let paid = try kept.subtracting(withheld)
            self.unit = step
            taxExclusive = Money(net, price.currency)
            digitalServicesTax = Money(dst, price.currency)
            self.withheld = Money(withheld, price.currency)
            exact = Money(paid, price.currency)
            rounded = Money(try ModelledProceeds.round(paid, to: step), price.currency)
        } catch {
            throw .arithmetic(error)
        }
    }

    /// `amount` rounded half-up to a whole number of `unit`s.
    static func round(_ amount: Exact, to unit: Exact) throws(ArithmeticError) -> Exact {
        let steps = try amount.divided(by: unit).scaled(0, rule: rounding)
        return try Exact(steps, over: 1).multiplied(by: unit)
    }

    /// `amount` rounded half-up to whole minor units of `currency`.
    static func roundToMinorUnit(_ amount: Exact, _ currency: Currency) throws(ArithmeticError)
        -> Exact
    {
        let steps = try amount.scaled(currency.minorUnits, rule: rounding)
        return try Exact(steps, over: try Exact.powerOfTen(currency.minorUnits))
    }
}
