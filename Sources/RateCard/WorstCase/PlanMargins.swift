/// The worst-case margin of every subscription plan of a card, by subscription year, and
/// what its free tier costs: "if a subscriber uses every bit of the plan in the costliest
/// way, every period, what is left after Apple's commission, in year one and after?"
struct PlanMargins: Sendable, Hashable {
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
    /// Each plan price in each storefront it reaches, through the storefront model
    /// (`RateCards/storefronts.json`: tax removed, the commission and the after-one-year
    /// rate in force on `storefrontDate`), where no file of Apple's gives the territory.
    /// Empty without a storefront file.
    let storefrontRows: [PlanStorefrontRow]
    /// The storefront file the rows are modelled from, and the day they are modelled on.
    let storefrontTable: StorefrontTable?
    let storefrontDate: CalendarDate?
    /// Every FX rate any figure used (plan rows, offers, the free tier, Apple's rows),
    /// each once, in the order first used.
    let fxUsed: [FXRate]
    /// Warnings about Apple's price-point files and what they leave unchecked: a territory
    /// without an FX rate, a point without `proceeds` or `proceedsYear2`.
    let inputWarnings: [Diagnostic]
    /// Warnings about the card's own terms: an introductory offer with no price where its
    /// plan is sold (`CardChecker.planFindings` reports the same, `offer-currency`).
    let offerWarnings: [Diagnostic]
    /// Every warning `margin plans` prints: the card's, then the inputs'.
    var warnings: [Diagnostic] {
        offerWarnings + inputWarnings + historyWarnings + unofferedWarnings
    }

    /// A day before the storefront data's tax histories start: nothing is modelled, and the
    /// currency rows fall back to the card's price × (1 − commission), tax not removed.
    var historyWarnings: [Diagnostic] {
        guard let table = storefrontTable, let day = storefrontDate, let start = table.historyStart,
            let before = table.beforeHistoryText(day), !card.subscriptions.isEmpty
        else { return [] }
        return [
            Diagnostic(
                path: table.source.path, location: table.source.location, severity: .warning,
                message:
                    "\(card.reference): \(before) and no plan price is modelled in any storefront; the currency rows are the card's price × (1 − commission), tax not removed, and overstate what Apple pays where prices include tax: pass --at \(start) or later, or Apple's price points",
                rule: .check(.storefrontRegime))
        ]
    }

    /// A commission regime of auto-renewable subscriptions: the rate in the first year of
    /// a subscriber's paid service and the rate after it.
    struct Program: Sendable, Hashable {
        let store: StoreProgram
        let yearOne: Exact
        let afterYearOne: Exact

        /// The program's one spelling in every output: `StoreProgram`'s ("standard",
        /// "small-business"), as `--program` and the card's `storeProgram` write it.
        var name: String { store.rawValue }

        /// 30% in year one, 15% after one year of paid service.
        static let standard = Program(
            store: .standard, yearOne: Exact(percent: 30), afterYearOne: Exact(percent: 15))
        /// The App Store Small Business Program: 15% throughout.
        static let smallBusiness = Program(
            store: .smallBusiness, yearOne: Exact(percent: 15), afterYearOne: Exact(percent: 15))

        /// The plan terms of `store` where no storefront of the data is reached (in one, the
        /// regimes of `store` and of `PlanStorefrontRow.laterProgram(store)` there apply:
        /// `PlanMargins.basis`). With a storefront file they are its own regimes of the two
        /// programs on `date` (commission plus any payment processing), so the file is the
        /// one owner of the rates; `of(_:)` only where the folder has no storefront file,
        /// or the file has no regime of the program on that date.
        static func of(_ store: StoreProgram, in table: StorefrontTable?, on date: CalendarDate?)
            -> Program
        {
            guard let table, let date, let one = table.defaultRegime(store, on: date),
                let after = table.defaultRegime(PlanStorefrontRow.laterProgram(store), on: date)
            else { return of(store) }
            return Program(store: store, yearOne: one.charge, afterYearOne: after.charge)
        }

        /// The plan terms of `store` without a storefront file: the terms the repository's
        /// `RateCards/storefronts.json` states today (`PlanProgramTests` keeps them equal).
        /// The EU alternative terms take 17% + 3% in year one and 10% + 3% after it; their
        /// reduced rate 10% + 3%; the 2025 link-out terms 20% (2% + 13% + 5%) throughout;
        /// the Small Business, after-one-year and Mini Apps Partner programs 15% throughout.
        static func of(_ store: StoreProgram) -> Program {
            func terms(_ one: UInt8, _ after: UInt8) -> Program {
                Program(
                    store: store, yearOne: Exact(percent: one), afterYearOne: Exact(percent: after))
            }
            switch store {
            case .standard: return .standard
            case .smallBusiness: return .smallBusiness
            case .subscriptionAfterOneYear, .miniAppsPartner: return terms(15, 15)
            case .euAlternative: return terms(20, 13)
            case .euAlternativeReduced: return terms(13, 13)
            case .euLinkOut: return terms(20, 20)
            }
        }
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
        /// the customer price (nil at a price of 0); nil when Apple's file or the FX rate
        /// gives no figure (a warning says which).
        let yearOne: (margin: Money, share: Exact?)?
        let afterYearOne: (margin: Money, share: Exact?)?
        /// The rates the worst case was converted at.
        var fxUsed: [FXRate] { worst?.fxUsed ?? [] }

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
        let freeTierYear: PlanWorstCase?
        let lines: [Line]

        /// Every rate the row's figures used: the period's worst case, the offer's and the
        /// free tier's in this currency.
        var fxUsed: [FXRate] {
            PlanWorstCase.union([
                worst.fxUsed, intro?.worst.fxUsed ?? [], freeTierYear?.fxUsed ?? [],
            ])
        }
    }

    /// The introductory offer or free trial: what it brings in and what it can cost.
    struct Intro: Sendable, Hashable {
        let offer: IntroductoryOffer
        /// What the subscriber pays for the whole offer; nil when the card gives the offer
        /// no price where this row's plan price is sold: the row's offer is *unpriced*, with
        /// no margin and no payback (and an `offer-currency` warning).
        let price: Money?
        /// The worst case over the offer's whole span.
        let worst: PlanWorstCase
    }

    /// One commission rate applied to one period's price.
    struct PeriodMargin: Sendable, Hashable {
        /// The commission (with any payment processing fee) Apple takes.
        let rate: Exact
        /// What Apple pays: the storefront model's rounded proceeds (`modelled`: tax
        /// removed, then the commission), or price × (1 − rate) where no storefront of the
        /// data is reached (`modelled` nil: tax not removed).
        let proceeds: Money
        let modelled: ModelledProceeds?
        /// proceeds − worst-case cost of the period
        let margin: Money
        /// margin ÷ price; nil for a price of 0, whose margin is no share of anything
        /// (`margin check` reports the price itself, `free-price`).
        let marginShare: Exact?
    }

    /// One plan, currency and commission program.
    struct Line: Sendable, Hashable {
        let program: Program
        /// The storefront the line's proceeds are modelled in: of the storefronts the price
        /// reaches, the one that pays least in year one (`PlanMargins.basis`); nil when the
        /// repository has no storefront file or the file reaches no storefront with the
        /// price, and the line is price × (1 − commission), tax not removed.
        let storefront: Storefront?
        let yearOne: PeriodMargin
        let afterYearOne: PeriodMargin
        /// `yearOne.margin × yearOnePeriods`
        let yearOneTotal: Money
        /// `afterYearOne.margin × laterYearPeriods`
        let laterYearTotal: Money
        /// The offer's proceeds (at the year-one rate) less its worst case; nil when the
        /// row has no offer or the offer is unpriced here.
        let introMargin: Money?
        /// Regular paid periods until the margin they earn covers the offer's loss at the
        /// worst case: 0 when the offer makes no loss, nil when no number of periods does
        /// ("never"; meaningful only when `introMargin` is not nil).
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
    init(
        card: RateCard, repository: CardRepository, fx: FXTable? = nil,
        priceLists: [String: ApplePriceList] = [:],
        date: CalendarDate? = nil, program: StoreProgram? = nil
    ) throws(WorstCaseError) {
        self.card = card
        let fx = fx ?? repository.fx
        self.fx = fx
        // The program asked for, else the card's, with its own terms (commission and any
        // payment processing fee, as the storefront rows take them); else both the standard
        // and the Small Business Program.
        let table = repository.storefronts
        let day = date ?? table?.date
        programs = ((program ?? card.storeProgram).map { [$0] } ?? [.standard, .smallBusiness])
            .map { Program.of($0, in: table, on: day) }
        providers = PackMargins.providers(of: card, in: repository)
        let costs = try CostModel(card: card, repository: repository, fx: fx)
        freeTier = try costs.freeTierCost(
            in: PackMargins.costCurrency(card: card, providers: providers))
        let rows = try PlanMargins.currencyRows(
            card: card, programs: programs, costs: costs, table: table, day: day)
        self.rows = rows
        let (apple, warnings) = try PlanMargins.appleRows(
            card: card, priceLists: priceLists, date: date, costs: costs)
        appleRows = apple
        if let table, let day {
            // The program asked for, else the card's, else both the standard and the Small
            // Business Program, as the currency rows show them.
            let chosen = (program ?? card.storeProgram).map { [$0] } ?? [.standard, .smallBusiness]
            var covered: [String: Set<String>] = [:]
            for a in apple { covered[a.plan.productId, default: []].insert(a.point.territory) }
            storefrontRows = try PlanStorefrontRow.rows(
                rows, programs: chosen, table: table, date: day, covered: covered)
            storefrontTable = table
            storefrontDate = day
        } else {
            storefrontRows = []
            storefrontTable = nil
            storefrontDate = nil
        }
        inputWarnings = warnings
        offerWarnings = PlanMargins.offerFindings(card)
        fxUsed = PlanWorstCase.union(
            [freeTier?.perPeriod.fxUsed ?? [], freeTier?.perYear.fxUsed ?? []]
                + rows.map(\.fxUsed) + apple.map(\.fxUsed))
    }

    /// `offer-currency` warnings: every plan price whose row gets an unpriced offer (the
    /// offer has no price there), and every offer price sold with no plan price (its
    /// currency or storefront has none). A free trial needs no price.
    static func offerFindings(_ card: RateCard) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for plan in card.subscriptions {
            guard let offer = plan.introductoryOffer, offer.paymentMode != .free else { continue }
            let mode = offer.paymentMode.rawValue
            for price in plan.prices where offer.price(for: price) == nil {
                let given = offer.prices.map { p in
                    "\(p.price.currency.code)\(p.storefront.map { " (storefront \($0))" } ?? "")"
                }
                out.append(
                    Diagnostic(
                        path: card.source.path, location: price.location, severity: .warning,
                        message:
                            "subscription \"\(plan.productId)\" is priced in \(price.price.currency.code)\(price.storefront.map { " for storefront \($0)" } ?? "") but its \(mode) introductory offer is not (it is priced in \(given.joined(separator: ", "))): that row's offer is unpriced, with no margin and no payback; give the offer a \(price.price.currency.code) price, or drop the plan price",
                        rule: .check(.offerCurrency)))
            }
            for p in offer.prices
            where !plan.prices.contains(where: { offer.price(for: $0) == p }) {
                out.append(
                    Diagnostic(
                        path: card.source.path, location: p.location, severity: .warning,
                        message:
                            "the \(mode) introductory offer of subscription \"\(plan.productId)\" is priced in \(p.price.currency.code)\(p.storefront.map { " for storefront \($0)" } ?? "") but the plan is not: the offer price is never used",
                        rule: .check(.offerCurrency)))
            }
        }
        return out
    }

    /// Regular periods in a year after the first: 52 weeks, 12 months, 4 quarters, 2
    /// halves, 1 year. (Year one holds 53 weekly periods at its rate: the 53rd starts on
    /// day 364, before one year of paid service.)
    static func laterYearPeriods(_ period: SubscriptionPeriod) -> Int {
        if let m = period.months { return max(1, 12 / m) }
        return max(1, 365 / period.minDays)
    }

    /// Where a currency row's proceeds come from: a storefront and the regimes of year one
    /// and of later years there, on the day the storefront rows are modelled.
    struct Basis: Sendable, Hashable {
        let storefront: Storefront
        let yearOne: CommissionRegime
        let afterYearOne: CommissionRegime
        let date: CalendarDate
    }

    /// The storefront a currency row is judged in: of the storefronts `price` reaches
    /// (`PlanStorefrontRow.storefronts(reachedBy:of:in:)`) where `program` and its
    /// after-one-year program are both offered on `date`, the one whose modelled year-one
    /// proceeds are lowest (then the lower territory code), so a currency row never
    /// overstates what Apple pays anywhere it applies. Nil when none is reached.
    static func basis(
        _ price: PackPrice, of plan: SubscriptionPlan, program: Program, table: StorefrontTable,
        date: CalendarDate
    ) throws(MoneyError) -> Basis? {
        var best: (basis: Basis, proceeds: Exact)?
        let later = PlanStorefrontRow.laterProgram(program.store)
        for sf in PlanStorefrontRow.storefronts(reachedBy: price, of: plan, in: table) {
            guard let one = table.regime(for: sf, program: program.store, on: date),
                let after = table.regime(for: sf, program: later, on: date)
            else { continue }
            let paid = try ModelledProceeds(
                price: price.price, storefront: sf, regime: one, on: date
            ).exact.amount
            if let b = best, !(paid < b.proceeds) { continue }
            best = (Basis(storefront: sf, yearOne: one, afterYearOne: after, date: date), paid)
        }
        return best?.basis
    }

    static func margin(price: Money, rate: Exact, cost: Money) throws -> PeriodMargin {
        let proceeds = try price.subtracting(price.multiplied(by: rate))
        let margin = try proceeds.subtracting(cost)
        let share = price.amount.isPositive ? try margin.amount.divided(by: price.amount) : nil
        return PeriodMargin(
            rate: rate, proceeds: proceeds, modelled: nil, margin: margin, marginShare: share)
    }

    /// `price` through the storefront model in `storefront` under `regime` on `date`: the
    /// proceeds Apple pays (rounded to its unit) less `cost`.
    static func margin(
        price: Money, storefront: Storefront, regime: CommissionRegime, on date: CalendarDate,
        cost: Money
    ) throws -> PeriodMargin {
        let modelled = try ModelledProceeds(
            price: price, storefront: storefront, regime: regime, on: date)
        let margin = try modelled.rounded.subtracting(cost)
        let share = price.amount.isPositive ? try margin.amount.divided(by: price.amount) : nil
        return PeriodMargin(
            rate: regime.charge, proceeds: modelled.rounded, modelled: modelled, margin: margin,
            marginShare: share)
    }

    static func line(
        program: Program, price: Money, worst: Money, yearOnePeriods: Int, laterYearPeriods: Int,
        intro: Intro?, freeYear: Money?, basis: Basis? = nil
    ) throws -> Line {
        func period(_ price: Money, yearOne: Bool, cost: Money) throws -> PeriodMargin {
            guard let basis else {
                return try margin(
                    price: price, rate: yearOne ? program.yearOne : program.afterYearOne,
                    cost: cost)
            }
            return try margin(
                price: price, storefront: basis.storefront,
                regime: yearOne ? basis.yearOne : basis.afterYearOne, on: basis.date, cost: cost)
        }
        let one = try period(price, yearOne: true, cost: worst)
        let after = try period(price, yearOne: false, cost: worst)
        let yearOneTotal = try one.margin.multiplied(by: Exact(yearOnePeriods))
        let laterTotal = try after.margin.multiplied(by: Exact(laterYearPeriods))
        var introMargin: Money?
        var payback: Int?
        if let intro, let introPrice = intro.price {
            let m = try period(introPrice, yearOne: true, cost: intro.worst.cost).margin
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
            program: program, storefront: basis?.storefront, yearOne: one, afterYearOne: after,
            yearOneTotal: yearOneTotal,
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
