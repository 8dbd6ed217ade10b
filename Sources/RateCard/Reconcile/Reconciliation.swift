/// The result of `margin reconcile`: what was read, every finding, the totals per kind of
/// finding, and Apple's own figures from the sales and financial reports.
public struct Reconciliation: Sendable, Hashable {
    /// Counts of what was read and matched.
    struct Summary: Sendable, Hashable {
        var appleTransactions = 0
        var production = 0
        /// Sandbox, Xcode and local-testing transactions.
        var otherEnvironments = 0
        /// Subscriptions and other products that grant no top-up.
        var notPacks = 0
        var historyPages = 0
        /// Transaction records read (decoded, in history pages, signed; notifications not
        /// counted), and of them those whose id an earlier record already had.
        var transactionRecords = 0
        var repeatedTransactions = 0
        /// What each `--transactions` file gave, in the order given.
        var transactionFiles: [AppleRecords.FileCount] = []
        var notifications: [String: Int] = [:]
        var ledgerEntries = 0
        var ledgerDuplicates = 0
        var ledgerRejected = 0
        var topups = 0
        var revokes = 0
        /// Production purchases matched to a top-up.
        var matched = 0
        /// Refunded purchases whose credits were all taken back.
        var refundsTakenBack = 0
        /// Refunded before they were credited: nothing to take back.
        var refundedUncredited = 0
        /// Transactions with a CONSUMPTION_REQUEST and no refund yet.
        var refundRequestsOpen = 0
        /// Production purchases whose currency has no price in the card in force.
        var noCardPrice = 0
    }

    /// The findings of one kind added up.
    struct Total: Sendable, Hashable {
        let kind: ReconcileFinding.Kind
        let count: Int
        let credits: Int128
        /// Per currency, sorted by code.
        let money: [Money]
    }

    /// How the transaction units beside one of Apple's report lines were matched: by the
    /// line's country, or by its currency over every country, and why. The raw value is the
    /// text every format prints (the words of when this was a string, unchanged).
    enum MatchedBy: Sendable, Hashable, RawRepresentable {
        case country
        /// The card folder has no storefront table to tell countries by.
        case noStorefrontTable
        /// This many transactions of the product and currency in those days name a
        /// storefront the table does not place in a country.
        case unplacedStorefronts(Int)

        var rawValue: String {
            switch self {
            case .country: "country"
            case .noStorefrontTable: "currency: the card folder has no storefront table"
            case .unplacedStorefronts(let n):
                "currency: \(n == 1 ? "1 transaction names" : "\(n) transactions name") no storefront the table places in a country"
            }
        }

        init?(rawValue: String) {
            if let m = [Self.country, .noStorefrontTable].first(where: { $0.rawValue == rawValue })
            {
                self = m
                return
            }
            let words = rawValue.split(separator: " ")
            guard words.count > 2, words[0] == "currency:", let n = Int(words[1]), n > 0,
                Self.unplacedStorefronts(n).rawValue == rawValue
            else { return nil }
            self = .unplacedStorefronts(n)
        }
    }

    /// Apple's Summary Sales Report rows of one product, country and currencies, added up,
    /// beside the production transactions of the same product, country and currency in the
    /// same days (`Reconciler+AppleFigures`).
    struct SalesLine: Sendable, Hashable {
        let productId: String
        /// The rows' `Country Code` (alpha-2); nil when the line is over every country.
        let country: String?
        let customerCurrency: Currency
        let begin: CalendarDate
        let end: CalendarDate
        let unitsSold: Int128
        let unitsRefunded: Int128
        /// Σ Units × Developer Proceeds.
        let proceeds: Money
        /// Units in the production transactions of the product, country and currency bought
        /// on those days (Pacific time, UTC−08:00).
        let transactionUnits: Int128
        /// By the line's country, or why by currency over every country.
        let matchedBy: MatchedBy
        /// What a credit sold earned: proceeds ÷ ((sold − refunded) × the pack's credits in
        /// force on the first day); nil for a plan or when no units are left.
        let perCredit: Money?
    }

    /// Apple's financial report rows of one fiscal period, product, country and currency,
    /// added up, beside the production transactions of that product and country.
    struct FinancialLine: Sendable, Hashable {
        let start: CalendarDate
        let end: CalendarDate
        let productId: String
        /// The rows' `Country Of Sale` (alpha-2); nil when the line is over every country.
        let country: String?
        let sold: Int128
        let returned: Int128
        /// Σ Extended Partner Share.
        let proceeds: Money
        /// Units in the production transactions of the product, country and the rows'
        /// customer currencies bought in the fiscal period (Pacific days).
        let transactionUnits: Int128
        /// By the line's country, or why by currency over every country.
        let matchedBy: MatchedBy
        /// Proceeds ÷ ((sold − returned) × the pack's credits), as for sales.
        let perCredit: Money?
    }

    let family: String
    let summary: Summary
    let findings: [ReconcileFinding]
    let totals: [Total]
    let sales: [SalesLine]
    let financial: [FinancialLine]
    /// Rejected ledger lines and conflicting duplicates (the first 20).
    let ledgerWarnings: [Diagnostic]
    let ledgerWarningsNotShown: Int
    /// Apple files that gave no record, and the first 20 repeated transaction ids.
    var appleWarnings: [Diagnostic] = []
}
