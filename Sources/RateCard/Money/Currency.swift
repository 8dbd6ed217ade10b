/// An ISO 4217 currency, known by its three-letter code and its minor units.
struct Currency: Sendable, Hashable, Comparable {
    /// The ISO 4217 alphabetic code, e.g. "CNY".
    let code: String
    /// The number of decimal places of the currency's minor unit (2 for CNY, 0 for JPY).
    let minorUnits: Int

    /// The currency for an ISO 4217 code, or nil when the code is not one `margin` knows.
    init?(code: String) {
        guard let units = Currency.table[code] else { return nil }
        self.code = code
        self.minorUnits = units
    }

    static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code < rhs.code }

    /// US dollars: the fallback where a card names no currency at all.
    static let usd = Currency(code: "USD", minorUnits: 2)

    init(code: String, minorUnits: Int) {
        self.code = code
        self.minorUnits = minorUnits
    }

    /// ISO 4217 codes with their minor units: the currencies of the App Store's storefronts
    /// and the providers' sheets.
    static let table: [String: Int] = [
        "AED": 2, "ARS": 2, "AUD": 2, "BGN": 2, "BHD": 3, "BRL": 2, "CAD": 2, "CHF": 2,
        "CLP": 0, "CNY": 2, "COP": 2, "CZK": 2, "DKK": 2, "EGP": 2, "EUR": 2, "GBP": 2,
        "HKD": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2, "ISK": 0, "JOD": 3, "JPY": 0,
        "KES": 2, "KRW": 0, "KWD": 3, "KZT": 2, "MXN": 2, "MYR": 2, "NGN": 2, "NOK": 2,
        "NZD": 2, "OMR": 3, "PEN": 2, "PHP": 2, "PKR": 2, "PLN": 2, "QAR": 2, "RON": 2,
        "RUB": 2, "SAR": 2, "SEK": 2, "SGD": 2, "THB": 2, "TND": 3, "TRY": 2, "TWD": 2,
        "TZS": 2, "UAH": 2, "USD": 2, "VND": 0, "ZAR": 2,
    ]
}

extension Currency: CustomStringConvertible {
    var description: String { code }
}
