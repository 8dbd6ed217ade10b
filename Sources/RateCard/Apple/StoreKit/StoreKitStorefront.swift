/// The App Store storefronts `margin` knows, by the code an Xcode StoreKit configuration
/// file writes in `settings._storefront` (ISO 3166-1 alpha-3: "USA", "CHN"), with the
/// currency the App Store charges there.
///
/// Only storefronts whose App Store currency is certain are listed; a file naming another
/// one is reported rather than priced in a guessed currency. Add a row when a card sells
/// somewhere new.
enum StoreKitStorefront {
    /// The ISO 4217 currency of the storefront `code`, or nil when it is not in the table.
    static func currency(for code: String) -> Currency? {
        currencies[code].flatMap { Currency(code: $0) }
    }

    static let currencies: [String: String] = [
        // Americas
        "USA": "USD", "CAN": "CAD", "MEX": "MXN", "BRA": "BRL", "CHL": "CLP", "COL": "COP",
        "PER": "PEN",
        // Euro area
        "AUT": "EUR", "BEL": "EUR", "CYP": "EUR", "DEU": "EUR", "ESP": "EUR", "EST": "EUR",
        "FIN": "EUR",
        "FRA": "EUR", "GRC": "EUR", "HRV": "EUR", "IRL": "EUR", "ITA": "EUR", "LTU": "EUR",
        "LUX": "EUR",
        "LVA": "EUR", "MLT": "EUR", "NLD": "EUR", "PRT": "EUR", "SVK": "EUR", "SVN": "EUR",
        "BGR": "EUR",  // Bulgaria adopted the euro on 2026-01-01.
        // Rest of Europe
        "GBR": "GBP", "CHE": "CHF", "NOR": "NOK", "SWE": "SEK", "DNK": "DKK", "POL": "PLN",
        "CZE": "CZK",
        "HUN": "HUF", "ROU": "RON", "TUR": "TRY",
        // Middle East and Africa
        "ISR": "ILS", "SAU": "SAR", "ARE": "AED", "QAT": "QAR", "EGY": "EGP", "NGA": "NGN",
        "ZAF": "ZAR",
        "TZA": "TZS",
        // Asia and Pacific
        "CHN": "CNY", "JPN": "JPY", "KOR": "KRW", "HKG": "HKD", "TWN": "TWD", "SGP": "SGD",
        "MYS": "MYR",
        "THA": "THB", "IDN": "IDR", "PHL": "PHP", "VNM": "VND", "IND": "INR", "PAK": "PKR",
        "KAZ": "KZT",
        "AUS": "AUD", "NZL": "NZD",
    ]
}
