/// The worst-case margin of every subscription plan of a card, by subscription year, and
/// what its free tier costs: "if a subscriber uses every bit of the plan in the costliest
/// way, every period, what is left after Apple's commission, in year one and after?"
public struct PlanMargins: Sendable, Hashable {
    let card: RateCard
    let rows: [Row]
    /// The free tier's worst case in the providers' currency, when the card has one.
    let freeTier: FreeTierCost?
    let fx: FXTable
    let providers: [ProviderSheet]
    /// The programs the rows are shown under: the one asked for or the card's
    /// `storeProgram`, else both.
    let programs: [Program]
    /// Plans in the territories of Apple's price-point files (`--price-points`), margins
    /// from Apple's own `proceeds` and `proceedsYear2`.
    let appleRows: [AppleRow]
    /// Warnings about the price-point files, and territories without an FX rate.
    public let warnings: [Diagnostic]

    /// A commission regime of auto-renewable subscriptions: the rate in the first year of
    /// a subscriber's paid service and the rate after it.
    struct Program: Sendable, Hashable {
        let name: String
        let yearOne: Exact
        let afterYearOne: Exact

        /// 30% in year one, 15% after one year of paid service.
        static let standard = Program(
            name: "standard", yearOne: Exact(percent: 30), afterYearOne: Exact(percent: 15))
        /// The App Store Small Business Program: 15% throughout.
        static let smallBusiness = Program(
            name: "small business", yearOne: Exact(percent: 15), afterYearOne: Exact(percent: 15))
    }

    /// The programs a plan is shown under when neither the command nor the card names one.
    static let programs: [Program] = [.standard, .smallBusiness]

    /// One plan in one territory of Apple's files: what Apple pays in year one and after.
    struct AppleRow: Sendable, Hashable {
        let plan: SubscriptionPlan
        let point: ApplePricePoint
        /// The worst case of a period in the territory's currency; nil without an FX rate.
        let worst: PlanWorstCase?
        /// `proceeds` − worst case, `proceedsYear2` − worst case, each with its share of
        /// the customer price; nil when Apple's file or the FX rate gives no figure.
        let yearOne: (margin: Money, share: Exact)?
        let afterYearOne: (margin: Money, share: Exact)?

        static func == (a: AppleRow, b: AppleRow) -> Bool {
            a.plan == b.plan && a.point == b.point && a.worst == b.worst
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(plan.productId)
            hasher.combine(point)
        }
    }

    /// One plan in one currency.
    struct Row: Sendable, Hashable {
        let plan: SubscriptionPlan
        let price: PackPrice
        /// The worst case of one regular period.
        let worst: PlanWorstCase
        /// Regular periods at the year-one rate, and in a later year.
        let yearOnePeriods: Int
        let laterYearPeriods: Int
        /// The introductory offer in this currency, when the plan has one the card prices here.
        let intro: Intro?
        /// The free tier's worst case per year in this currency, for `Line.freeUsers`.
        let freeTierYear: Money?
        let lines: [Line]
    }

    /// The introductory offer or free trial: what it brings in and what it can cost.
    struct Intro: Sendable, Hashable {
        let offer: IntroductoryOffer
        /// What the subscriber pays for the whole offer.
        let price: Money
        /// The worst case over the offer's whole span.
        let worst: PlanWorstCase
    }

    /// One commission rate applied to one period's price.
    struct PeriodMargin: Sendable, Hashable {
        let rate: Exact
        /// price × (1 − rate)
        let proceeds: Money
        /// proceeds − worst-case cost of the period
        let margin: Money
        /// margin ÷ price
        let marginShare: Exact
    }

    /// One plan, currency and commission program.
    struct Line: Sendable, Hashable {
        let program: Program
        let yearOne: PeriodMargin
        let afterYearOne: PeriodMargin
        /// `yearOne.margin × yearOnePeriods`
        let yearOneTotal: Money
        /// `afterYearOne.margin × laterYearPeriods`
        let laterYearTotal: Money
        /// The offer's proceeds (at the year-one rate) less its worst case.
        let introMargin: Money?
        /// Regular paid periods until the margin they earn covers the offer's loss at the
        /// worst case: 0 when the offer makes no loss, nil when no number of periods does.
        let paybackPeriods: Int?
        /// What the free tier takes from one paying user's margin, per year.
        let freeUsers: FreeUsers?
    }

    /// The free tier against one paying user's worst-case margin over a year: one free
    /// user's worst case per year ÷ one paying user's worst-case margin per year.
    struct FreeUsers: Sendable, Hashable {
        /// The share of a year-one subscriber's margin one free user consumes (nil when the
        /// margin is not positive), and how many free users that margin covers in full.
        let yearOneShare: Exact?
        let yearOneCovered: Int128
        let laterYearShare: Exact?
        let laterYearCovered: Int128
    }

    /// The free tier's worst case for one user.
    struct FreeTierCost: Sendable, Hashable {
        let tier: FreeTier
        /// One free-tier period (a month by default).
        let perPeriod: PlanWorstCase
        /// A year: every allowance in every window of it (366 days, 53 weeks, 12 months).
        let perYear: PlanWorstCase
    }

    /// Computes every row. `priceLists` (product id → Apple's files) add rows from
    /// Apple's proceeds on `date`; `program` (else the card's `storeProgram`) narrows the
    /// programs shown.
    public init(
        card: RateCard, repository: CardRepository, fx: FXTable? = nil,
        priceLists: [String: ApplePriceList] = [:],
        date: CalendarDate? = nil, program: StoreProgram? = nil
    ) throws(WorstCaseError) {
        self.card = card
        let fx = fx ?? repository.fx
        self.fx = fx
        // Plans know a standard and a reduced commission; a program of other terms takes
        // the one of the two it matches.
        switch (program ?? card.storeProgram)?.isReduced {
        case false?: programs = [.standard]
        case true?: programs = [.smallBusiness]
        case nil: programs = PlanMargins.programs
        }
        providers = PackMargins.providers(of: card, in: repository)
        let engine = try WorstCaseEngine(card: card, providers: repository.providers)
        func tierYear(_ currency: Currency) throws(WorstCaseError) -> PlanWorstCase? {
            guard let tier = card.freeTier else { return nil }
            return try PlanWorstCase(
                span: .year, credits: 0, creditPeriod: tier.period, limits: tier.allowances,
                card: card,
                engine: engine, providers: repository.providers, currency: currency, fx: fx)
        }
        if let tier = card.freeTier {
            let currency = PackMargins.costCurrency(card: card, providers: providers)
            let period = try PlanWorstCase(
                span: tier.period, credits: 0, creditPeriod: tier.period, limits: tier.allowances,
                card: card,
                engine: engine, providers: repository.providers, currency: currency, fx: fx)
            guard let year = try tierYear(currency) else {
                throw .arithmetic("the free tier vanished")
            }
            freeTier = FreeTierCost(tier: tier, perPeriod: period, perYear: year)
        } else {
            freeTier = nil
        }
        var rows: [Row] = []
        for plan in card.subscriptions {
            for price in plan.prices {
                let currency = price.price.currency
                let worst = try PlanWorstCase(
                    span: plan.period, credits: plan.credits, creditPeriod: plan.period,
                    limits: plan.quotas + plan.allowances, card: card, engine: engine,
                    providers: repository.providers, currency: currency, fx: fx)
                var intro: Intro?
                if let offer = plan.introductoryOffer {
                    let introPrice: Money?
                    do { introPrice = try offer.totalPrice(in: currency) } catch {
                        throw .fx(error)
                    }
                    if let introPrice {
                        let w = try PlanWorstCase(
                            span: offer.span, credits: plan.credits, creditPeriod: plan.period,
                            limits: plan.quotas + plan.allowances, card: card, engine: engine,
                            providers: repository.providers, currency: currency, fx: fx)
                        intro = Intro(offer: offer, price: introPrice, worst: w)
                    }
                }
                let freeYear = try tierYear(currency)?.cost
                let y1 = SubscriptionPeriod.year.windows(of: plan.period)
                let later = PlanMargins.laterYearPeriods(plan.period)
                var lines: [Line] = []
                for program in programs {
                    do {
                        lines.append(
                            try PlanMargins.line(
                                program: program, price: price.price, worst: worst.cost,
                                yearOnePeriods: y1,
                                laterYearPeriods: later, intro: intro, freeYear: freeYear))
                    } catch {
                        throw .arithmetic(
                            "subscription \(plan.productId): the margin is too large to compute exactly"
                        )
                    }
                }
                rows.append(
                    Row(
                        plan: plan, price: price, worst: worst, yearOnePeriods: y1,
                        laterYearPeriods: later,
                        intro: intro, freeTierYear: freeYear, lines: lines))
            }
        }
        self.rows = rows
        var apple: [AppleRow] = []
        var warnings: [Diagnostic] = []
        for plan in card.subscriptions {
            guard let list = priceLists[plan.productId], let date else { continue }
            let (resolved, diagnostics) = list.resolve(on: date, cardPrices: plan.prices)
            warnings.append(contentsOf: list.warnings + diagnostics)
            for territory in resolved.keys.sorted() {
                guard let point = resolved[territory]?.point else { continue }
                let price = point.customerPrice
                var worst: PlanWorstCase?
                do {
                    worst = try PlanWorstCase(
                        span: plan.period, credits: plan.credits, creditPeriod: plan.period,
                        limits: plan.quotas + plan.allowances, card: card, engine: engine,
                        providers: repository.providers, currency: price.currency, fx: fx)
                } catch {
                    guard case .fx = error else { throw error }
                    warnings.append(
                        Diagnostic(
                            path: point.path, location: point.location, severity: .warning,
                            message:
                                "\(plan.productId) in \(territory): \(error); the row has no margin",
                            rule: .check(.storefrontFX)))
                }
                func margin(_ proceeds: Money?) -> (margin: Money, share: Exact)? {
                    guard let proceeds, let worst, price.amount.isPositive,
                        let m = try? proceeds.subtracting(worst.cost),
                        let share = try? m.amount.divided(by: price.amount)
                    else { return nil }
                    return (m, share)
                }
                apple.append(
                    AppleRow(
                        plan: plan, point: point, worst: worst, yearOne: margin(point.proceeds),
                        afterYearOne: margin(point.proceedsYear2)))
            }
        }
        appleRows = apple
        self.warnings = warnings
    }

    /// Regular periods in a year after the first: 52 weeks, 12 months, 4 quarters, 2
    /// halves, 1 year. (Year one holds 53 weekly periods at its rate: the 53rd starts on
    /// day 364, before one year of paid service.)
    static func laterYearPeriods(_ period: SubscriptionPeriod) -> Int {
        if let m = period.months { return max(1, 12 / m) }
        return max(1, 365 / period.minDays)
    }

    static func margin(price: Money, rate: Exact, cost: Money) throws -> PeriodMargin {
        let proceeds = try price.subtracting(price.multiplied(by: rate))
        let margin = try proceeds.subtracting(cost)
        let share = price.amount.isZero ? Exact.zero : try margin.amount.divided(by: price.amount)
        return PeriodMargin(rate: rate, proceeds: proceeds, margin: margin, marginShare: share)
    }

    static func line(
        program: Program, price: Money, worst: Money, yearOnePeriods: Int, laterYearPeriods: Int,
        intro: Intro?, freeYear: Money?
    ) throws -> Line {
        let one = try margin(price: price, rate: program.yearOne, cost: worst)
        let after = try margin(price: price, rate: program.afterYearOne, cost: worst)
        let yearOneTotal = try one.margin.multiplied(by: Exact(yearOnePeriods))
        let laterTotal = try after.margin.multiplied(by: Exact(laterYearPeriods))
        var introMargin: Money?
        var payback: Int?
        if let intro {
            let m = try margin(price: intro.price, rate: program.yearOne, cost: intro.worst.cost)
                .margin
            introMargin = m
            payback = try paybackPeriods(
                loss: m.amount, yearOne: one.margin.amount, yearOnePeriods: yearOnePeriods,
                after: after.margin.amount)
        }
        var free: FreeUsers?
        if let freeYear {
            func share(_ margin: Money) throws -> (Exact?, Int128) {
                guard margin.amount.isPositive else { return (nil, 0) }
                guard freeYear.amount.isPositive else { return (.zero, Int128.max) }
                return (
                    try freeYear.amount.divided(by: margin.amount),
                    try margin.amount.divided(by: freeYear.amount).rounded(.down)
                )
            }
            let a = try share(yearOneTotal)
            let b = try share(laterTotal)
            free = FreeUsers(
                yearOneShare: a.0, yearOneCovered: a.1, laterYearShare: b.0, laterYearCovered: b.1)
        }
        return Line(
            program: program, yearOne: one, afterYearOne: after, yearOneTotal: yearOneTotal,
            laterYearTotal: laterTotal,
            introMargin: introMargin, paybackPeriods: payback, freeUsers: free)
    }

    /// The fewest regular periods `k` with `introMargin + Σ margin(i) ≥ 0`, where period
    /// `i` earns `yearOne` for `i ≤ yearOnePeriods` and `after` beyond; nil when none does.
    static func paybackPeriods(
        loss introMargin: Exact, yearOne: Exact, yearOnePeriods: Int, after: Exact
    ) throws -> Int? {
        if !introMargin.isNegative { return 0 }
        let owed = try introMargin.negated()
        if yearOne.isPositive {
            let k = try owed.divided(by: yearOne).rounded(.up)
            if k <= Int128(yearOnePeriods) { return Int(k) }
        }
        let left = try owed.subtracting(yearOne.multiplied(by: Int128(yearOnePeriods)))
        guard after.isPositive else { return nil }
        let k = try left.divided(by: after).rounded(.up)
        let (total, o) = k.addingReportingOverflow(Int128(yearOnePeriods))
        guard !o, total <= Int128(Int32.max) else { return nil }
        return Int(total)
    }
}
