/// An App Store Connect Summary Sales Report (version 1_3), tab-separated: units and
/// proceeds summed per product, day (or week, month, year), storefront and price
/// (https://developer.apple.com/help/app-store-connect/reference/summary-sales-report).
///
/// Units are negative for refunds; `Developer Proceeds` is per unit and stays positive on
/// a refund row, so a row's proceeds are `Units × Developer Proceeds`. Sales and Trends
/// figures are Apple's estimates (the financial reports are final). Only in-app purchase
/// rows (`Product Type Identifier` `IA1`, `IA9`, `IAY`, `IAC`, `FI1`) are read; app
/// downloads and updates are counted and skipped.
struct SummarySalesReport: AppleReport, Sendable, Hashable {
    struct Row: Sendable, Hashable {
        /// The product id (`SKU` is the product id for in-app purchases).
        let sku: String
        let productType: String
        let units: Int64
        /// Per unit, in the currency of proceeds.
        let developerProceeds: Money
        /// Per unit, in the customer's currency (negative on a refund row).
        let customerPrice: Money
        let begin: CalendarDate
        let end: CalendarDate
        /// Two-letter country code.
        let countryCode: String
        let proceedsReason: String?
        let place: ApplePlace

        /// `Units × Developer Proceeds`: negative for refunds. Computed when the row is read,
        /// where a product too large for exact arithmetic is an error at its line.
        let proceeds: Money
    }

    let path: String
    let rows: [Row]
    /// Rows that are not in-app purchases (downloads, updates, bundles).
    let otherRows: Int

    static let required = [
        "Provider", "SKU", "Product Type Identifier", "Units", "Developer Proceeds", "Begin Date",
        "End Date", "Customer Currency", "Country Code", "Currency of Proceeds", "Customer Price",
    ]

    static let inAppTypes: Set<String> = ["IA1", "IA9", "IAY", "IAC", "FI1"]

    static let fileName = "the sales report"

    static func read(_ bytes: [UInt8], path: String, products: Set<String>)
        throws(AppleRecordError) -> SummarySalesReport
    {
        let file = try AppleTabFile.read(
            bytes, path: path, required: required, report: "Summary Sales Report")
        var problems = AppleProblems(path: path)
        var rows: [Row] = []
        var other = 0
        for row in file.rows {
            var r = AppleRowReader(file, row, problems)
            defer { problems = r.problems }
            guard let type = r.text("Product Type Identifier") else { continue }
            guard inAppTypes.contains(type) else {
                other += 1
                continue
            }
            let sku = r.text("SKU")
            if let sku, !products.contains(sku) {
                r.fail(
                    "SKU",
                    "unknown product \"\(FieldReader.excerpt(sku))\": not a pack or plan of the card (give the report of this app only)"
                )
            }
            let units = r.whole("Units", what: "units")
            let proceeds = r.decimal("Developer Proceeds")
            let price = r.decimal("Customer Price")
            let begin = r.date("Begin Date")
            let end = r.date("End Date")
            let customerCurrency = r.currency("Customer Currency")
            let proceedsCurrency = r.currency("Currency of Proceeds")
            let country = r.text("Country Code")
            if let begin, let end, end < begin {
                r.fail("End Date", "\(end) is before the Begin Date \(begin)")
            }
            let reason = r.text("Proceeds Reason", required: false)
            var total: Exact?
            if let units, let proceeds {
                total = try? proceeds.multiplied(by: Int128(units))
                if total == nil {
                    r.fail(
                        "Units",
                        "\(units) × Developer Proceeds \(proceeds.decimalText()) is too large (overflow of exact arithmetic)"
                    )
                }
            }
            guard r.ok, let sku, let units, let proceeds, let total, let price, let begin,
                let end, let customerCurrency, let proceedsCurrency, let country
            else { continue }
            rows.append(
                Row(
                    sku: sku, productType: type, units: units,
                    developerProceeds: Money(proceeds, proceedsCurrency),
                    customerPrice: Money(price, customerCurrency), begin: begin, end: end,
                    countryCode: country, proceedsReason: reason,
                    place: ApplePlace(path: path, line: row.line),
                    proceeds: Money(total, proceedsCurrency)))
        }
        try problems.check()
        return SummarySalesReport(path: path, rows: rows, otherRows: other)
    }
}
