/// One subscription plan price in one storefront, through the storefront model: what Apple
/// pays in year one and after a subscriber's first paid year (the tax in force on the date
/// removed, any digital services tax or withholding deducted, the program's commission),
/// less the worst case of one period.
///
/// `margin plans` and `margin check` use these rows wherever the repository has a storefront
/// file and no App Store Connect file gives Apple's own figure for the territory.
struct PlanStorefrontRow: Sendable, Hashable {
    let plan: SubscriptionPlan
    /// The card's price that applies here: the storefront's own, else the currency's.
    let price: PackPrice
    let storefront: Storefront
    /// The worst case of one regular period, in the price's currency.
    let worst: PlanWorstCase
    /// The program of year one, and the program after one year of paid service.
    let program: StoreProgram
    let laterProgram: StoreProgram
    /// The day the taxes and the regimes are taken at.
    let date: CalendarDate
    let yearOne: Side
    /// Nil when the later program has no regime in force in this storefront on `date`.
    let afterYearOne: Side?
    /// Regular periods at the year-one rate, and in a later year (as the currency rows).
    let yearOnePeriods: Int
    let laterYearPeriods: Int

    /// The margin of a whole subscription year: year one's periods at the year-one margin;
    /// nil when it cannot be computed exactly.
    var yearOneTotal: Money? { try? yearOne.margin.multiplied(by: Exact(yearOnePeriods)) }
    /// A later year's periods at the after-a-year margin; nil when not offered.
    var laterYearTotal: Money? {
        afterYearOne.flatMap { try? $0.margin.multiplied(by: Exact(laterYearPeriods)) }
    }

    /// What Apple pays in one subscription year and what is left after the worst case.
    struct Side: Sendable, Hashable {
        let proceeds: ModelledProceeds
        /// proceeds (as Apple pays them, rounded to its unit) − the period's worst case
        let margin: Money
        /// margin ÷ price; nil at a price of 0
        let share: Exact?
    }

    /// The program a subscription falls under after its subscriber's first paid year: the
    /// standard 30% becomes 15% (`subscription-after-one-year`), the EU terms' 17% their
    /// reduced 10%; the reduced programs stay as they are.
    static func laterProgram(_ program: StoreProgram) -> StoreProgram {
        switch program {
        case .standard: .subscriptionAfterOneYear
        case .euAlternative: .euAlternativeReduced
        case .smallBusiness, .subscriptionAfterOneYear, .miniAppsPartner, .euAlternativeReduced,
            .euLinkOut:
            program
        }
    }

    /// "20% VAT removed", "20% VAT removed, 3% DST", "tax excluded", "18% VAT removed, 13.5%
    /// withheld": the taxes of the storefront on the row's date, for messages.
    var taxPhrase: String {
        let r = yearOne.proceeds.taxes
        var parts: [String] = [
            storefront.taxIncluded ? "\(Format.percent(r.vat)) VAT removed" : "tax excluded"
        ]
        if !r.digitalServicesTax.isZero {
            parts.append("\(Format.percent(r.digitalServicesTax)) DST")
        }
        if !r.withholding.isZero { parts.append("\(Format.percent(r.withholding)) withheld") }
        return parts.joined(separator: ", ")
    }

    /// "30% standard", "17% + 3% eu-alternative", with "(reported)" when not confirmed.
    static func regimeText(_ r: CommissionRegime) -> String {
        let fee =
            r.paymentProcessing.isZero ? "" : " + \(Format.percent(r.paymentProcessing, places: 0))"
        return
            "\(Format.percent(r.rate, places: 0))\(fee) \(r.program.rawValue)\(r.status == .reported ? " (reported)" : "")"
    }

    /// Every plan price of `rows` in every storefront it reaches in `table`, under each of
    /// `programs`, on `date`; territories in `covered` (plan product id → territories Apple's
    /// files give) are left to Apple's figures. A program not offered in a storefront on the
    /// date gives no row there.
    static func rows(
        _ rows: [PlanMargins.Row], programs: [StoreProgram], table: StorefrontTable,
        date: CalendarDate, covered: [String: Set<String>]
    ) throws(WorstCaseError) -> [PlanStorefrontRow] {
        var out: [PlanStorefrontRow] = []
        for row in rows {
            let reached = storefronts(reachedBy: row.price, of: row.plan, in: table)
            for program in programs {
                for sf in reached
                where !(covered[row.plan.productId]?.contains(sf.territory) ?? false) {
                    guard let regime = table.regime(for: sf, program: program, on: date) else {
                        continue
                    }
                    let later = laterProgram(program)
                    let one = try side(row, sf, regime, date)
                    var after: Side?
                    if let r = table.regime(for: sf, program: later, on: date) {
                        after = try side(row, sf, r, date)
                    }
                    out.append(
                        PlanStorefrontRow(
                            plan: row.plan, price: row.price, storefront: sf, worst: row.worst,
                            program: program, laterProgram: later, date: date, yearOne: one,
                            afterYearOne: after, yearOnePeriods: row.yearOnePeriods,
                            laterYearPeriods: row.laterYearPeriods))
                }
            }
        }
        return out
    }

    /// The storefronts where `price` of `plan` is the price that applies: its own
    /// storefront when it names one, else every storefront of its currency that the plan
    /// gives no price of its own (a storefront's own plan price wins there).
    static func storefronts(
        reachedBy price: PackPrice, of plan: SubscriptionPlan, in table: StorefrontTable
    ) -> [Storefront] {
        let currency = price.price.currency
        let own = Set(
            plan.prices.compactMap { p in p.price.currency == currency ? p.storefront : nil })
        return table.storefronts(in: currency).filter { sf in
            if let only = price.storefront { return sf.territory == only }
            return !own.contains(sf.territory)
        }
    }

    private static func side(
        _ row: PlanMargins.Row, _ sf: Storefront, _ regime: CommissionRegime,
        _ date: CalendarDate
    ) throws(WorstCaseError) -> Side {
        let price = row.price.price
        do {
            let p = try ModelledProceeds(price: price, storefront: sf, regime: regime, on: date)
            let margin = try p.rounded.subtracting(row.worst.cost)
            let share = price.amount.isPositive ? try margin.amount.divided(by: price.amount) : nil
            return Side(proceeds: p, margin: margin, share: share)
        } catch {
            throw .arithmetic(
                "subscription \(row.plan.productId) in \(sf.territory): the margin is too large to compute exactly"
            )
        }
    }
}
