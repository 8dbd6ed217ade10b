/// What a credit sold earned, from Apple's reports: per product, country (ISO 3166-1
/// alpha-2, the reports' `Country Code` / `Country Of Sale`), customer currency and report
/// period, the proceeds as Apple gives them (rows summed, refunds netted) over the
/// credits those units granted; and per period, the same over every product (the period's
/// rate). Financial reports (final) are preferred to Summary Sales Reports (estimates)
/// for any day both cover. Days are Pacific time, as Apple draws its reports.
///
/// Every figure is exact and converted into the reporting currency with the card
/// repository's FX table.
struct ProceedsRates {
    /// One product's proceeds over one report period.
    struct Line: Sendable, Hashable {
        let source: ProceedsRate.Source
        let begin: CalendarDate
        let end: CalendarDate
        let productId: String
        /// The two-letter country the rows are of.
        let country: String
        let customerCurrency: Currency
        /// Σ units (negative rows are refunds).
        var unitsSold: Int128 = 0
        var unitsRefunded: Int128 = 0
        /// Per currency of proceeds, as Apple gives them.
        var proceeds: [Currency: Money] = [:]
        /// In the reporting currency.
        var proceedsReporting = Exact.zero
        /// Net units × the credits of the pack in force on `begin`.
        var credits: Int128 = 0
        let place: ApplePlace
        var netUnits: Int128 { unitsSold - unitsRefunded }
    }

    private(set) var lines: [Line] = []
    /// Every rate handed out, by index (a lot or a charge refers to one by its index).
    private(set) var rates: [ProceedsRate] = []
    private var rateIndex: [ProceedsRate: Int] = [:]
    private var byProduct: [String: [Int]] = [:]
    private var poolCache: [CalendarDate: Int?] = [:]
    private(set) var fxUsed: [FXRate] = []
    /// Report rows of subscriptions (no credits) or of packs no version of the card has.
    private(set) var rowsNotCredits = 0
    let currency: Currency

    /// The offset Apple's report days are drawn in (Pacific standard time).
    static let dayOffsetMinutes = Reconciler.pacificOffsetMinutes

    init(
        sales: [SummarySalesReport], financial: [FinancialReport], catalogue: ProductCatalogue,
        fx: FXTable, currency: Currency
    ) throws {
        self.currency = currency
        struct Key: Hashable {
            let source: ProceedsRate.Source, begin: CalendarDate, end: CalendarDate
            let product: String, country: String, currency: Currency
        }
        var at: [Key: Int] = [:]
        var problems: [Diagnostic] = []
        func add(
            _ source: ProceedsRate.Source, _ begin: CalendarDate, _ end: CalendarDate,
            _ product: String, _ country: String, _ customer: Currency, units: Int64,
            proceeds: Money, _ place: ApplePlace
        ) throws {
            guard catalogue.pack(product, at: Timestamp(startOf: begin)) != nil else {
                rowsNotCredits += 1
                return
            }
            let key = Key(
                source: source, begin: begin, end: end, product: product, country: country,
                currency: customer)
            let k: Int
            if let found = at[key] {
                k = found
            } else {
                k = lines.count
                at[key] = k
                lines.append(
                    Line(
                        source: source, begin: begin, end: end, productId: product,
                        country: country, customerCurrency: customer, place: place))
            }
            if units >= 0 {
                lines[k].unitsSold += Int128(units)
            } else {
                lines[k].unitsRefunded += -Int128(units)
            }
            let c = proceeds.currency
            lines[k].proceeds[c] =
                try lines[k].proceeds[c].map { try $0.adding(proceeds) } ?? proceeds
            let (factor, used) = try fx.factor(from: c, to: currency)
            fxUsed += used.filter { !fxUsed.contains($0) }
            lines[k].proceedsReporting = try lines[k].proceedsReporting.adding(
                proceeds.amount.multiplied(by: factor))
        }
        for report in sales {
            for r in report.rows {
                try add(
                    .sales, r.begin, r.end, r.sku, r.countryCode, r.customerPrice.currency,
                    units: r.units, proceeds: r.proceeds, r.place)
            }
        }
        for report in financial {
            for r in report.rows {
                try add(
                    .financial, r.start, r.end, r.vendorIdentifier, r.countryOfSale,
                    r.customerPrice.currency, units: r.quantity, proceeds: r.extendedPartnerShare,
                    r.place)
            }
        }
        for k in lines.indices {
            let l = lines[k]
            if let (pack, _) = catalogue.pack(l.productId, at: Timestamp(startOf: l.begin)) {
                lines[k].credits = l.netUnits * pack.credits
            }
            byProduct[l.productId, default: []].append(k)
        }
        // Two periods of one source that overlap for one product, country and currency would
        // count the same sales twice.
        for (_, ks) in byProduct {
            for a in ks {
                for b in ks where b > a {
                    let (x, y) = (lines[a], lines[b])
                    guard x.source == y.source, x.customerCurrency == y.customerCurrency,
                        x.country == y.country,
                        (x.begin, x.end) != (y.begin, y.end), x.begin <= y.end, y.begin <= x.end
                    else { continue }
                    let (mine, other) = x.place > y.place ? (x, y) : (y, x)
                    problems.append(
                        Diagnostic(
                            path: mine.place.path,
                            location: SourceLocation(
                                line: mine.place.line, column: mine.place.column),
                            message:
                                "the period \(mine.begin)–\(mine.end) of \(x.productId) (\(x.customerCurrency.code)) overlaps \(other.begin)–\(other.end) at \(other.place): give reports of one period length (daily, weekly or monthly), not both, or the sales would count twice"
                        ))
                }
            }
        }
        if !problems.isEmpty { throw AppleRecordError(problems) }
    }

    /// The index of `rate`, interned.
    mutating func intern(_ rate: ProceedsRate) -> Int {
        if let k = rateIndex[rate] { return k }
        rates.append(rate)
        rateIndex[rate] = rates.count - 1
        return rates.count - 1
    }

    /// The day an instant falls on in Apple's reports.
    static func day(_ at: Timestamp) -> CalendarDate {
        at.local(offsetMinutes: dayOffsetMinutes).date
    }

    /// What a credit of `product` bought in `country` (any country, when nil) and `currency`
    /// (any currency, when nil) on `day` earned: from the financial report covering the day,
    /// else the sales report; nil when no report covers it or no units were left after
    /// refunds.
    mutating func productRate(
        _ product: String, country: String? = nil, currency customer: Currency?,
        day: CalendarDate
    ) throws -> Int? {
        for source in [ProceedsRate.Source.financial, .sales] {
            let ks = (byProduct[product] ?? []).filter {
                let l = lines[$0]
                return l.source == source && l.begin <= day && day <= l.end
                    && (customer.map { l.customerCurrency == $0 } ?? true)
                    && (country.map { l.country == $0 } ?? true)
            }
            guard !ks.isEmpty else { continue }
            let credits = ks.reduce(Int128(0)) { $0 + lines[$1].credits }
            guard credits > 0 else { continue }
            var sum = Exact.zero
            for k in ks { sum = try sum.adding(lines[k].proceedsReporting) }
            let first = lines[ks[0]]
            let label =
                "\(product) \(customer?.code ?? "all currencies")\(country.map { " in \($0)" } ?? ""), \(source.rawValue) \(first.begin)–\(first.end)"
            return intern(
                ProceedsRate(
                    basis: .transaction, label: label,
                    perCredit: try sum.divided(by: Exact(integer: credits)),
                    currency: currency))
        }
        return nil
    }

    /// What a credit sold on `day` earned over every product: the proceeds of the lines
    /// covering the day (financial, else sales) over their credits; nil when none does.
    mutating func periodRate(day: CalendarDate) throws -> Int? {
        if let cached = poolCache[day] { return cached }
        var found: Int?
        for source in [ProceedsRate.Source.financial, .sales] {
            let ks = lines.indices.filter {
                lines[$0].source == source && lines[$0].begin <= day && day <= lines[$0].end
            }
            let credits = ks.reduce(Int128(0)) { $0 + lines[$1].credits }
            guard !ks.isEmpty, credits > 0 else { continue }
            var sum = Exact.zero
            for k in ks { sum = try sum.adding(lines[k].proceedsReporting) }
            let begin = ks.map { lines[$0].begin }.min() ?? day
            let end = ks.map { lines[$0].end }.max() ?? day
            found = intern(
                ProceedsRate(
                    basis: .period, label: "every product, \(source.rawValue) \(begin)–\(end)",
                    perCredit: try sum.divided(by: Exact(integer: credits)), currency: currency))
            break
        }
        poolCache[day] = found
        return found
    }
}

/// A value per credit, in the reporting currency, and what it rests on.
struct ProceedsRate: Sendable, Hashable {
    enum Source: String, Sendable, Hashable {
        case financial, sales
    }

    /// What the value rests on, in the order of trust.
    enum Basis: String, Sendable, Hashable, CaseIterable {
        /// The proceeds of the product and currency the top-up bought (its Apple
        /// transaction, or the card's pack of those credits), over its report period.
        case transaction
        /// The proceeds of every product over the period: the top-up's own product is not
        /// known, or credits were spent that no top-up in the ledger backs.
        case period
        /// Granted for free: nothing was paid.
        case free
        /// Apple refunded or revoked the purchase: it earned nothing.
        case refunded
        /// A Sandbox, Xcode or local purchase: Apple charged nothing.
        case sandbox
        /// No report covers the day: the card's modelled value (the current estimate).
        case modelled
    }

    let basis: Basis
    let label: String
    let perCredit: Exact
    let currency: Currency

    static func zero(_ basis: Basis, _ currency: Currency) -> ProceedsRate {
        ProceedsRate(basis: basis, label: basis.rawValue, perCredit: .zero, currency: currency)
    }
}
