/// An App Store Connect financial report (All Countries or Regions, single or multiple
/// file), tab-separated: final units and proceeds per product, country of sale and order
/// type for one of **Apple's fiscal months** (`Start Date`/`End Date` are the fiscal
/// period, not a calendar month)
/// (https://developer.apple.com/help/app-store-connect/reference/financial-report-fields).
///
/// `Partner Share` is the proceeds per unit (always positive); `Extended Partner Share` is
/// `Quantity × Partner Share` and negative on returns (`Sale or Return` `R`). A row where
/// that product does not hold is an error: the report is not what Apple wrote.
struct FinancialReport: AppleReport, Sendable, Hashable {
    struct Row: Sendable, Hashable {
        let start: CalendarDate
        let end: CalendarDate
        /// The product id (`Vendor Identifier`).
        let vendorIdentifier: String
        let quantity: Int64
        let partnerShare: Money
        let extendedPartnerShare: Money
        /// `S` a sale, `R` a return.
        let saleOrReturn: String
        let countryOfSale: String
        let customerPrice: Money
        let place: ApplePlace
    }

    let path: String
    let rows: [Row]

    static let required = [
        "Start Date", "End Date", "Vendor Identifier", "Quantity", "Partner Share",
        "Extended Partner Share", "Partner Share Currency", "Sale or Return", "Country Of Sale",
        "Customer Price", "Customer Currency",
    ]

    static let fileName = "the financial report"

    static func read(_ bytes: [UInt8], path: String, products: Set<String>)
        throws(AppleRecordError) -> FinancialReport
    {
        let file = try AppleTabFile.read(
            bytes, path: path, required: required, report: "financial report")
        var problems = AppleProblems(path: path)
        var rows: [Row] = []
        for row in file.rows {
            var r = AppleRowReader(file, row, problems)
            defer { problems = r.problems }
            let product = r.text("Vendor Identifier")
            if let product, !products.contains(product) {
                r.fail(
                    "Vendor Identifier",
                    "unknown product \"\(FieldReader.excerpt(product))\": not a pack or plan of the card (give the report of this app only)"
                )
            }
            let start = r.date("Start Date")
            let end = r.date("End Date")
            let quantity = r.whole("Quantity", what: "units")
            let share = r.decimal("Partner Share")
            let extended = r.decimal("Extended Partner Share")
            let currency = r.currency("Partner Share Currency")
            let kind = r.text("Sale or Return")
            if let kind, kind != "S", kind != "R" {
                r.fail("Sale or Return", "\"\(FieldReader.excerpt(kind))\" is not S or R")
            }
            let country = r.text("Country Of Sale")
            let price = r.decimal("Customer Price")
            let customerCurrency = r.currency("Customer Currency")
            if let share, share.isNegative {
                r.fail("Partner Share", "\(share.decimalText()) is negative")
            }
            if let quantity, let share, let extended,
                (try? share.multiplied(by: Int128(quantity))) != extended
            {
                r.fail(
                    "Extended Partner Share",
                    "\(extended.decimalText()) is not Quantity × Partner Share (\(quantity) × \(share.decimalText()))"
                )
            }
            if let start, let end, end < start {
                r.fail("End Date", "\(end) is before the Start Date \(start)")
            }
            guard r.ok, let product, let start, let end, let quantity, let share, let extended,
                let currency, let kind, let country, let price, let customerCurrency
            else { continue }
            rows.append(
                Row(
                    start: start, end: end, vendorIdentifier: product, quantity: quantity,
                    partnerShare: Money(share, currency),
                    extendedPartnerShare: Money(extended, currency), saleOrReturn: kind,
                    countryOfSale: country, customerPrice: Money(price, customerCurrency),
                    place: ApplePlace(path: path, line: row.line)))
        }
        try problems.check()
        return FinancialReport(path: path, rows: rows)
    }
}
