/// The stages of `PlanMargins.init`: the worst cases a plan's rows are built from, the
/// currency rows and the rows of Apple's price-point files.
extension PlanMargins {
    /// What one card's plans and free tier cost at the worst case, in any currency.
    struct CostModel {
        let card: RateCard
        let engine: WorstCaseEngine
        let providers: [String: ProviderSheet]
        let fx: FXTable

        init(card: RateCard, repository: CardRepository, fx: FXTable) throws(WorstCaseError) {
            self.card = card
            engine = try WorstCaseEngine(card: card, providers: repository.providers)
            providers = repository.providers
            self.fx = fx
        }

        /// The worst case of `plan` over `span` in `currency`.
        func worstCase(
            span: SubscriptionPeriod, of plan: SubscriptionPlan, in currency: Currency
        ) throws(WorstCaseError) -> PlanWorstCase {
            try PlanWorstCase(
                span: span, credits: plan.credits, creditPeriod: plan.period,
                limits: plan.quotas + plan.allowances, card: card, engine: engine,
                providers: providers, currency: currency, fx: fx)
        }

        /// The free tier's worst case over `span` in `currency`; nil without a free tier.
        func tier(span: SubscriptionPeriod, in currency: Currency) throws(WorstCaseError)
            -> PlanWorstCase?
        {
            guard let tier = card.freeTier else { return nil }
            return try PlanWorstCase(
                span: span, credits: 0, creditPeriod: tier.period, limits: tier.allowances,
                card: card, engine: engine, providers: providers, currency: currency, fx: fx)
        }

        /// The free tier's worst case per period and per year in `currency`.
        func freeTierCost(in currency: Currency) throws(WorstCaseError) -> FreeTierCost? {
            guard let t = card.freeTier, let period = try tier(span: t.period, in: currency),
                let year = try tier(span: .year, in: currency)
            else { return nil }
            return FreeTierCost(tier: t, perPeriod: period, perYear: year)
        }
    }

    /// One row for every plan price of `card`, each with a line for each of `programs`,
    /// proceeds modelled in `table` on `day` where both are given.
    static func currencyRows(
        card: RateCard, programs: [Program], costs: CostModel, table: StorefrontTable?,
        day: CalendarDate?
    ) throws(WorstCaseError) -> [Row] {
        var rows: [Row] = []
        for plan in card.subscriptions {
            for price in plan.prices {
                rows.append(
                    try currencyRow(
                        plan, price, programs: programs, costs: costs, table: table, day: day))
            }
        }
        return rows
    }

    private static func currencyRow(
        _ plan: SubscriptionPlan, _ price: PackPrice, programs: [Program], costs: CostModel,
        table: StorefrontTable?, day: CalendarDate?
    ) throws(WorstCaseError) -> Row {
        let currency = price.price.currency
        let worst = try costs.worstCase(span: plan.period, of: plan, in: currency)
        var intro: Intro?
        if let offer = plan.introductoryOffer {
            let introPrice: Money?
            do { introPrice = try offer.totalPrice(for: price) } catch { throw .fx(error) }
            intro = Intro(
                offer: offer, price: introPrice,
                worst: try costs.worstCase(span: offer.span, of: plan, in: currency))
        }
        let freeYear = try costs.tier(span: .year, in: currency)
        let y1 = SubscriptionPeriod.year.windows(of: plan.period)
        let later = laterYearPeriods(plan.period)
        var lines: [Line] = []
        for program in programs {
            do {
                var basis: Basis?
                if let table, let day {
                    basis = try PlanMargins.basis(
                        price, of: plan, program: program, table: table, date: day)
                }
                lines.append(
                    try line(
                        program: program, price: price.price, worst: worst.cost,
                        yearOnePeriods: y1, laterYearPeriods: later, intro: intro,
                        freeYear: freeYear?.cost, basis: basis))
            } catch {
                throw .arithmetic(
                    "subscription \(plan.productId): the margin is too large to compute exactly")
            }
        }
        return Row(
            plan: plan, price: price, worst: worst, yearOnePeriods: y1,
            laterYearPeriods: later, intro: intro, freeTierYear: freeYear, lines: lines)
    }

    /// The rows of Apple's price-point files (`priceLists`, product id → file) on `date`,
    /// and the warnings about what they leave unchecked. None without a date.
    static func appleRows(
        card: RateCard, priceLists: [String: ApplePriceList], date: CalendarDate?,
        costs: CostModel
    ) throws(WorstCaseError) -> (rows: [AppleRow], warnings: [Diagnostic]) {
        var apple: [AppleRow] = []
        var warnings: [Diagnostic] = []
        for plan in card.subscriptions {
            guard let list = priceLists[plan.productId], let date else { continue }
            let (resolved, diagnostics) = list.resolve(on: date, cardPrices: plan.prices)
            warnings.append(contentsOf: list.warnings + diagnostics)
            for territory in resolved.keys.sorted() {
                guard let point = resolved[territory]?.point else { continue }
                apple.append(
                    try appleRow(plan, point, territory: territory, costs: costs, into: &warnings))
            }
        }
        return (apple, warnings)
    }

    private static func appleRow(
        _ plan: SubscriptionPlan, _ point: ApplePricePoint, territory: String, costs: CostModel,
        into warnings: inout [Diagnostic]
    ) throws(WorstCaseError) -> AppleRow {
        let price = point.customerPrice
        func warn(_ text: String, _ rule: CheckRule) {
            warnings.append(
                Diagnostic(
                    path: point.path, location: point.location, severity: .warning,
                    message: "\(plan.productId) in \(territory): \(text)", rule: .check(rule)))
        }
        var worst: PlanWorstCase?
        do {
            worst = try costs.worstCase(span: plan.period, of: plan, in: price.currency)
        } catch {
            guard case .fx = error else { throw error }
            warn(
                "\(error); the row has no margin and the margin floor is not checked here",
                .storefrontFX)
        }
        if point.proceeds == nil {
            warn(
                "Apple's file states no usable proceeds for \(price): the margin in year one is not computed and its floor is not checked here",
                .appleProceeds)
        }
        if point.proceedsYear2 == nil {
            warn(
                "Apple's file states no proceedsYear2 for \(price) (a subscription price point has it; save the subscription's pricePoints, not an in-app purchase's): the margin after one year of paid service is not computed and its floor is not checked here",
                .appleProceeds)
        }
        func margin(_ proceeds: Money?) -> (margin: Money, share: Exact?)? {
            guard let proceeds, let worst, let m = try? proceeds.subtracting(worst.cost) else {
                return nil
            }
            // A price of 0 has no share (`margin check` reports the price itself).
            let share = price.amount.isPositive ? try? m.amount.divided(by: price.amount) : nil
            return (m, share)
        }
        return AppleRow(
            plan: plan, point: point, worst: worst, yearOne: margin(point.proceeds),
            afterYearOne: margin(point.proceedsYear2))
    }
}
