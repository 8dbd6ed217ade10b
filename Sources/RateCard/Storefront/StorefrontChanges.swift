/// Every tax or commission change in the storefront data on or after a date, and the
/// worst-case margin of each pack and plan in each affected storefront the day before and
/// the day of the change: the list finance needs when Apple announces "tax and price updates".
///
/// Margins come from the same model as `margin storefronts` (`StorefrontMargins`, proceeds
/// modelled from the storefront file), computed once per card for the day before and the day
/// of each change date.
struct StorefrontChanges: Sendable, RenderableReport {
    /// What `margin storefronts --changes` asks for.
    struct Request: Sendable {
        var cards: [RateCard]
        var repository: CardRepository
        var program: StoreProgram?
        /// Changes on or after this day; nil: from 2023-01-01, where the data's history starts.
        var since: CalendarDate?
        var fx: FXTable?

        init(
            cards: [RateCard], repository: CardRepository, program: StoreProgram? = nil,
            since: CalendarDate? = nil, fx: FXTable? = nil
        ) {
            self.cards = cards
            self.repository = repository
            self.program = program
            self.since = since
            self.fx = fx
        }
    }

    /// One change in one storefront.
    struct Change: Sendable, Hashable {
        let territory: String
        let name: String
        let date: CalendarDate
        /// "VAT 20% → 22%", "DST 3% starts", "standard commission 30% → 25%"
        let what: String
        let sources: [String]
    }

    /// One pack, or one plan at its year-one or after-a-year rate, of one card in the
    /// storefront of a change.
    struct Row: Sendable, Hashable {
        let change: Change
        let card: String
        /// The pack's or plan's product id.
        let pack: String
        /// "pack", "plan, year one", "plan, after a year"
        let kind: String
        let price: Money
        let proceedsBefore: Money?
        let proceedsAfter: Money?
        let marginBefore: Money?
        let marginAfter: Money?
        let shareBefore: Exact?
        let shareAfter: Exact?
    }

    let since: CalendarDate
    let changes: [Change]
    let rows: [Row]

    /// `--since` read from its text: nil when not given.
    static func since(_ text: String?) throws(UsageError) -> CalendarDate? {
        guard let text else { return nil }
        guard let d = CalendarDate(text) else {
            throw UsageError("--since \(text): expected a date YYYY-MM-DD")
        }
        return d
    }

    /// The day the history of the storefront file starts.
    static let historyStart = CalendarDate("2023-01-01")!

    init(_ request: Request) throws(WorstCaseError) {
        let since = request.since ?? StorefrontChanges.historyStart
        self.since = since
        guard let table = request.repository.storefronts else {
            changes = []
            rows = []
            return
        }
        // Commission changes of the program asked for, else of the two every card falls under.
        let programs = request.program.map { [$0] } ?? [StoreProgram.standard, .smallBusiness]
        var changes: [Change] = []
        for sf in table.storefronts {
            var dates = Set(sf.taxChangeDates)
            for program in programs {
                for r in sf.commission + table.commission
                where r.program == program && r.offered(in: sf.territory) {
                    dates.insert(r.from)
                    if let u = r.until { dates.insert(u) }
                }
            }
            // The history's first day starts the record, not a change.
            for date in dates.sorted() where since <= date && StorefrontChanges.historyStart < date
            {
                let day = CalendarDate(daysSinceEpoch: date.daysSinceEpoch - 1)
                var parts: [String] = []
                var sources: [String] = []
                let before = sf.rates(on: day)
                let after = sf.rates(on: date)
                for kind in StorefrontTax.Kind.allCases {
                    let b = StorefrontChanges.sum(before, kind)
                    let a = StorefrontChanges.sum(after, kind)
                    guard a != b else { continue }
                    let label = StorefrontTax(kind: kind, rate: .zero).label
                    parts.append("\(label) \(Format.percent(b)) → \(Format.percent(a))")
                    for t in after.entries where t.kind == kind && t.from == date {
                        if let s = t.source { sources.append(s) }
                    }
                    for t in before.entries where t.kind == kind && t.until == date {
                        if let s = t.source, !sources.contains(s) { sources.append(s) }
                    }
                }
                for program in programs {
                    let b = table.regime(for: sf, program: program, on: day)
                    let a = table.regime(for: sf, program: program, on: date)
                    guard b?.charge != a?.charge else { continue }
                    let show = { (r: CommissionRegime?) in
                        r.map { Format.percent($0.charge, places: 0) } ?? "not offered"
                    }
                    parts.append("\(program.rawValue) \(show(b)) → \(show(a))")
                    if let s = a?.source, !sources.contains(s) { sources.append(s) }
                }
                guard !parts.isEmpty else { continue }
                changes.append(
                    Change(
                        territory: sf.territory, name: sf.name, date: date,
                        what: parts.joined(separator: "; "), sources: sources))
            }
        }
        changes.sort { ($0.date, $0.territory) < ($1.date, $1.territory) }
        self.changes = changes
        var rows: [Row] = []
        let dates = Set(changes.map(\.date)).sorted()
        for card in request.cards {
            for date in dates {
                let day = CalendarDate(daysSinceEpoch: date.daysSinceEpoch - 1)
                let before = try StorefrontMargins(
                    card: card, repository: request.repository, program: request.program,
                    date: day, fx: request.fx)
                let after = try StorefrontMargins(
                    card: card, repository: request.repository, program: request.program,
                    date: date, fx: request.fx)
                for change in changes where change.date == date {
                    for a in after.rows where a.territory == change.territory {
                        let b = before.rows.first {
                            $0.territory == a.territory && $0.pack.productId == a.pack.productId
                        }
                        rows.append(
                            Row(
                                change: change, card: card.reference, pack: a.pack.productId,
                                kind: "pack", price: a.customerPrice, proceedsBefore: b?.proceeds,
                                proceedsAfter: a.proceeds, marginBefore: b?.margin,
                                marginAfter: a.margin, shareBefore: b?.marginShare,
                                shareAfter: a.marginShare))
                    }
                }
            }
            rows += try StorefrontChanges.planRows(card, table, changes, request)
        }
        self.rows = rows
    }

    /// Plans through the same model (`PlanStorefrontRow`, as `margin plans` shows them): each
    /// plan price that applies in the storefront of the change, its modelled proceeds the day
    /// before and the day of the change at the year-one program (the one asked for, else the
    /// card's, else standard) and after a subscriber's first year (its reduced rate), less the
    /// worst case of one period.
    static func planRows(
        _ card: RateCard, _ table: StorefrontTable, _ changes: [Change], _ request: Request
    ) throws(WorstCaseError) -> [Row] {
        guard !card.subscriptions.isEmpty else { return [] }
        let plans = try PlanMargins(card: card, repository: request.repository, fx: request.fx)
        let yearOne = request.program ?? card.storeProgram ?? .standard
        func modelled(on d: CalendarDate) throws(WorstCaseError) -> [PlanStorefrontRow] {
            try PlanStorefrontRow.rows(
                plans.rows, programs: [yearOne], table: table, date: d, covered: [:])
        }
        var byDate: [CalendarDate: [PlanStorefrontRow]] = [:]
        var rows: [Row] = []
        for change in changes {
            let day = CalendarDate(daysSinceEpoch: change.date.daysSinceEpoch - 1)
            for d in [day, change.date] where byDate[d] == nil { byDate[d] = try modelled(on: d) }
            let before = (byDate[day] ?? []).filter { $0.storefront.territory == change.territory }
            let after = (byDate[change.date] ?? []).filter {
                $0.storefront.territory == change.territory
            }
            for a in after {
                let b = before.first {
                    $0.plan.productId == a.plan.productId && $0.price == a.price
                }
                for (kind, sb, sa) in [
                    ("plan, year one", b?.yearOne, Optional(a.yearOne)),
                    ("plan, after a year", b?.afterYearOne, a.afterYearOne),
                ] {
                    rows.append(
                        Row(
                            change: change, card: card.reference, pack: a.plan.productId,
                            kind: kind, price: a.price.price,
                            proceedsBefore: sb?.proceeds.rounded,
                            proceedsAfter: sa?.proceeds.rounded,
                            marginBefore: sb?.margin, marginAfter: sa?.margin,
                            shareBefore: sb?.share, shareAfter: sa?.share))
                }
            }
        }
        return rows
    }

    static func sum(_ r: TaxRates, _ kind: StorefrontTax.Kind) -> Exact {
        switch kind {
        case .vat: r.vat
        case .dst: r.digitalServicesTax
        case .withholding: r.withholding
        }
    }
}
