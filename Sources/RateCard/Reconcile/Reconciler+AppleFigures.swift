/// Apple's own figures beside the findings: the Summary Sales Report and financial report
/// rows added up per product, country and currency, each beside the units of the
/// production transactions of the same product, country and days (docs/reconcile.md).
///
/// A transaction names its storefront in alpha-3 (`DEU`), the reports their country in
/// alpha-2 (`DE`); the card folder's storefront table joins them (`countryCode`). Where a
/// country cannot be told (no table, or a transaction of the product and currency in those
/// days whose storefront the table does not place), the line falls back to the currency
/// over every country, and says so in `matchedBy`.
extension Reconciler {
    func salesLines(_ reports: [SummarySalesReport], transactions: TransactionUnits) throws
        -> [Reconciliation.SalesLine]
    {
        struct Key: Hashable { let sku: String, customer: Currency, proceeds: Currency }
        var groups: [Key: [SummarySalesReport.Row]] = [:]
        for r in reports {
            for row in r.rows {
                groups[
                    Key(
                        sku: row.sku, customer: row.customerPrice.currency,
                        proceeds: row.developerProceeds.currency), default: []
                ].append(row)
            }
        }
        var lines: [Reconciliation.SalesLine] = []
        for (key, rows) in groups {
            let begin = rows.map(\.begin).min() ?? rows[0].begin
            let end = rows.map(\.end).max() ?? rows[0].end
            let split = transactions.countries(
                of: rows, \.countryCode, product: key.sku, currencies: [key.customer],
                begin: begin, end: end)
            for (country, matchedBy, rows) in split {
                let begin = rows.map(\.begin).min() ?? rows[0].begin
                let end = rows.map(\.end).max() ?? rows[0].end
                var proceeds = Money(.zero, key.proceeds)
                for row in rows { proceeds = try proceeds.adding(row.proceeds) }
                let sold = rows.reduce(Int128(0)) { $0 + ($1.units > 0 ? Int128($1.units) : 0) }
                let refunded = rows.reduce(Int128(0)) {
                    $0 + ($1.units < 0 ? -Int128($1.units) : 0)
                }
                lines.append(
                    Reconciliation.SalesLine(
                        productId: key.sku, country: country, customerCurrency: key.customer,
                        begin: begin, end: end, unitsSold: sold, unitsRefunded: refunded,
                        proceeds: proceeds,
                        transactionUnits: transactions.units(
                            key.sku, currencies: [key.customer], country: country,
                            begin: begin, end: end),
                        matchedBy: matchedBy,
                        perCredit: try perCredit(proceeds, units: sold - refunded, key.sku, begin)))
            }
        }
        return lines.sorted {
            ($0.productId, $0.customerCurrency.code, $0.proceeds.currency.code, $0.country ?? "")
                < (
                    $1.productId, $1.customerCurrency.code, $1.proceeds.currency.code,
                    $1.country ?? ""
                )
        }
    }

    func financialLines(_ reports: [FinancialReport], transactions: TransactionUnits) throws
        -> [Reconciliation.FinancialLine]
    {
        struct Key: Hashable {
            let start: CalendarDate, end: CalendarDate, product: String, currency: Currency
        }
        var groups: [Key: [FinancialReport.Row]] = [:]
        for r in reports {
            for row in r.rows {
                groups[
                    Key(
                        start: row.start, end: row.end, product: row.vendorIdentifier,
                        currency: row.extendedPartnerShare.currency), default: []
                ].append(row)
            }
        }
        var lines: [Reconciliation.FinancialLine] = []
        for (key, rows) in groups {
            let currencies = Set(rows.map(\.customerPrice.currency))
            let split = transactions.countries(
                of: rows, \.countryOfSale, product: key.product, currencies: currencies,
                begin: key.start, end: key.end)
            for (country, matchedBy, rows) in split {
                var proceeds = Money(.zero, key.currency)
                for row in rows { proceeds = try proceeds.adding(row.extendedPartnerShare) }
                lines.append(
                    Reconciliation.FinancialLine(
                        start: key.start, end: key.end, productId: key.product, country: country,
                        sold: rows.reduce(0) { $0 + ($1.quantity > 0 ? Int128($1.quantity) : 0) },
                        returned: rows.reduce(0) {
                            $0 + ($1.quantity < 0 ? -Int128($1.quantity) : 0)
                        },
                        proceeds: proceeds,
                        transactionUnits: transactions.units(
                            key.product, currencies: Set(rows.map(\.customerPrice.currency)),
                            country: country, begin: key.start, end: key.end),
                        matchedBy: matchedBy,
                        perCredit: try perCredit(
                            proceeds, units: rows.reduce(0) { $0 + Int128($1.quantity) },
                            key.product, key.start)))
            }
        }
        return lines.sorted {
            ($0.start, $0.productId, $0.proceeds.currency.code, $0.country ?? "")
                < ($1.start, $1.productId, $1.proceeds.currency.code, $1.country ?? "")
        }
    }

    /// Proceeds ÷ (units × the credits of the pack in force on `day`), exact; nil for a
    /// plan or when no units are left.
    private func perCredit(_ proceeds: Money, units: Int128, _ product: String, _ day: CalendarDate)
        throws -> Money?
    {
        guard units > 0, let (pack, _) = catalogue.pack(product, at: Timestamp(startOf: day)) else {
            return nil
        }
        return Money(
            try proceeds.amount.divided(by: Exact(integer: units * pack.credits)),
            proceeds.currency)
    }
}

/// The production transactions' units by product, day (Pacific time, UTC−08:00, as
/// Apple's worldwide reports), customer currency and country (the storefront's alpha-2
/// code, nil when it cannot be told), for setting beside Apple's report rows.
struct TransactionUnits {
    /// The units of the production transactions of one product, day, currency and country.
    struct Bought: Hashable {
        let day: CalendarDate
        let currency: Currency?
        let country: String?
    }

    /// Whether countries can be told at all (the card folder has a storefront table).
    let hasCountries: Bool
    let storefronts: StorefrontTable?
    /// Per product, the units and the number of transactions bought per day, currency and
    /// country (added up, so that partitions add).
    private(set) var byProduct: [String: [Bought: (units: Int128, transactions: Int)]] = [:]

    init(storefronts: StorefrontTable?) {
        hasCountries = storefronts != nil
        self.storefronts = storefronts
    }

    mutating func add(purchases: [String: Reconciler.Purchase]) {
        for p in purchases.values where p.current.environment == .production {
            let t = p.current
            let key = Bought(
                day: t.purchaseDate.local(offsetMinutes: Reconciler.pacificOffsetMinutes).date,
                currency: t.currency,
                country: t.storefront.flatMap { storefronts?.countryCode(ofTerritory: $0) })
            let was = byProduct[t.productId]?[key] ?? (0, 0)
            byProduct[t.productId, default: [:]][key] = (
                was.units + Int128(t.quantity), was.transactions + 1
            )
        }
    }

    /// Adds another partition's units.
    mutating func add(_ other: TransactionUnits) {
        for (product, days) in other.byProduct {
            for (key, v) in days {
                let was = byProduct[product]?[key] ?? (0, 0)
                byProduct[product, default: [:]][key] = (
                    was.units + v.units, was.transactions + v.transactions
                )
            }
        }
    }

    private func bought(
        _ product: String, currencies: Set<Currency>, begin: CalendarDate, end: CalendarDate
    ) -> [(key: Bought, value: (units: Int128, transactions: Int))] {
        (byProduct[product] ?? [:]).filter {
            $0.key.day >= begin && $0.key.day <= end
                && $0.key.currency.map(currencies.contains) == true
        }
    }

    /// Units of `product` in `currencies` bought from `begin` to `end`, in `country` (nil:
    /// over every country).
    func units(
        _ product: String, currencies: Set<Currency>, country: String?, begin: CalendarDate,
        end: CalendarDate
    ) -> Int128 {
        bought(product, currencies: currencies, begin: begin, end: end).reduce(0) {
            $0 + (country == nil || $1.key.country == country ? $1.value.units : 0)
        }
    }

    /// `rows` of one product and currency split by their country, each with how its
    /// transactions are matched; or all of them as one line over every country (country
    /// nil) when countries cannot be told for every transaction of the product and
    /// currencies in those days.
    func countries<Row>(
        of rows: [Row], _ country: KeyPath<Row, String>, product: String,
        currencies: Set<Currency>, begin: CalendarDate, end: CalendarDate
    ) -> [(String?, Reconciliation.MatchedBy, [Row])] {
        guard hasCountries else { return [(nil, .noStorefrontTable, rows)] }
        let unplaced = bought(product, currencies: currencies, begin: begin, end: end).filter {
            $0.key.country == nil
        }.reduce(0) { $0 + $1.value.transactions }
        if unplaced > 0 { return [(nil, .unplacedStorefronts(unplaced), rows)] }
        var byCountry: [String: [Row]] = [:]
        for row in rows { byCountry[row[keyPath: country], default: []].append(row) }
        return byCountry.keys.sorted().map {
            (Optional($0), .country, byCountry[$0] ?? [])
        }
    }
}
