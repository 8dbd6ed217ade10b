/// One App Store transaction as Apple's `JWSTransactionDecodedPayload` gives it (App Store
/// Server API and App Store Server Notifications V2; field names and units as Apple
/// documents them: https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload).
///
/// Dates are UNIX time in milliseconds; `price` is in **milliunits** of `currency` (a
/// price of 4.99 is 4990) and must be a whole number. Apple says these prices are not for
/// revenue (App Store Connect's reports are the record), so a reconciliation uses them only
/// to compare with the card; money earned comes from the sales and financial reports.
struct AppleTransaction: Sendable, Hashable {
    /// Apple's `environment`.
    enum Environment: String, Sendable, Hashable, CaseIterable {
        case production = "Production"
        case sandbox = "Sandbox"
        case xcode = "Xcode"
        case localTesting = "LocalTesting"
    }

    let transactionId: String
    let originalTransactionId: String?
    let productId: String
    let purchaseDate: Timestamp
    /// Units bought in this transaction (Apple's `quantity`, 1 unless the app sold several).
    let quantity: Int64
    /// `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`.
    let type: String
    /// The three-letter App Store country code (`GBR`).
    let storefront: String?
    let currency: Currency?
    /// Milliunits of `currency`.
    let priceMilliunits: Int64?
    let revocationDate: Timestamp?
    /// 0 other, 1 an issue in the app (Apple's `revocationReason`).
    let revocationReason: Int64?
    let appAccountToken: String?
    let environment: Environment
    /// When Apple signed the record: of two records of one transaction the later says how
    /// it stands (a refund, then its reversal).
    let signedDate: Timestamp?
    var place: ApplePlace

    /// The price as money: milliunits ÷ 1000, exact.
    var price: Money? {
        guard let currency, let priceMilliunits,
            let amount = try? Exact(Int128(priceMilliunits), over: 1000)
        else { return nil }
        return Money(amount, currency)
    }

    var isRevoked: Bool { revocationDate != nil }

    /// The same record as `other` wherever each was read.
    func sameRecord(as other: AppleTransaction) -> Bool {
        var copy = other
        copy.place = place
        return copy == self
    }
}

extension AppleTransaction {
    /// Reads a decoded payload; every problem goes to `problems` at its field.
    static func read(_ object: AppleJSONObject, problems: inout AppleProblems) -> AppleTransaction?
    {
        var o = object
        let id = o.string("transactionId", required: true, &problems)
        let original = o.string("originalTransactionId", required: false, &problems)
        let product = o.string("productId", required: true, &problems)
        let purchase = o.milliseconds("purchaseDate", required: true, &problems)
        let quantity = o.integer("quantity", required: false, &problems) ?? 1
        if quantity < 1 {
            o.fail(
                "quantity", "quantity: \(quantity) is not a number of units bought (1 or more)",
                &problems)
        }
        let type = o.string("type", required: true, &problems)
        let storefront = o.string("storefront", required: false, &problems)
        var currency: Currency?
        if let code = o.string("currency", required: false, &problems) {
            currency = Currency(code: code)
            if currency == nil {
                o.fail(
                    "currency",
                    "currency: \"\(FieldReader.excerpt(code))\" is not an ISO 4217 code", &problems)
            }
        }
        let price = o.integer(
            "price", required: false, &problems,
            what: "a whole number of milliunits (4.99 is 4990)")
        if price != nil, currency == nil {
            o.fail("price", "price: a price needs its currency", &problems)
        }
        if let price, price < 0 {
            // Apple states a refund as a revocation of the purchase, never as a price below
            // zero: a negative price is not Apple's, and compared with the card it would
            // be a price difference of more than the price.
            o.fail(
                "price",
                "price: \(price) milliunits is negative: a transaction's price is 0 or more (a refund is its revocationDate)",
                &problems)
        }
        let revocation = o.milliseconds("revocationDate", required: false, &problems)
        let reason = o.integer("revocationReason", required: false, &problems)
        let token = o.string("appAccountToken", required: false, &problems)
        var environment: Environment?
        if let e = o.string("environment", required: true, &problems) {
            environment = Environment(rawValue: e)
            if environment == nil {
                o.fail(
                    "environment",
                    "environment: \"\(FieldReader.excerpt(e))\" is not one of \(Environment.allCases.map(\.rawValue).joined(separator: ", "))",
                    &problems)
            }
        }
        let signed = o.milliseconds("signedDate", required: false, &problems)
        guard o.ok, let id, let product, let purchase, let type, let environment else { return nil }
        return AppleTransaction(
            transactionId: id, originalTransactionId: original, productId: product,
            purchaseDate: purchase, quantity: quantity, type: type, storefront: storefront,
            currency: currency, priceMilliunits: price, revocationDate: revocation,
            revocationReason: reason, appAccountToken: token, environment: environment,
            signedDate: signed, place: o.place)
    }
}

/// A JSON object of one of Apple's payloads, read field by field; a problem is reported
/// at the field's place in the file (for a payload decoded from a JWS, at the JWS, with
/// the field named).
struct AppleJSONObject {
    let members: [String: JSONNode]
    let place: ApplePlace
    /// Maps a location inside the parsed text to one in the file.
    let locate: @Sendable (SourceLocation) -> (line: Int, column: Int)
    /// Said after each message: "" for plain JSON, " (in the decoded JWS payload)".
    let context: String
    private(set) var ok = true

    init?(
        _ node: JSONNode, place: ApplePlace, context: String = "",
        locate: @escaping @Sendable (SourceLocation) -> (line: Int, column: Int)
    ) {
        guard let members = node.members else { return nil }
        var m: [String: JSONNode] = [:]
        for member in members { m[member.key] = member.value }
        self.members = m
        self.place = place
        self.locate = locate
        self.context = context
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    mutating func fail(_ key: String, _ message: String, _ problems: inout AppleProblems) {
        ok = false
        let at: (line: Int, column: Int) =
            members[key].map { locate($0.location) } ?? (place.line, place.column)
        problems.add(line: at.line, column: at.column, message + context)
    }

    private mutating func missing(_ key: String, _ problems: inout AppleProblems) {
        ok = false
        problems.add(
            line: place.line, column: place.column, "\(key): missing required field\(context)")
    }

    mutating func string(_ key: String, required: Bool, _ problems: inout AppleProblems) -> String?
    {
        guard let node = members[key], node.value != .null else {
            if required { missing(key, &problems) }
            return nil
        }
        guard case .string(let s) = node.value, !s.isEmpty else {
            fail(
                key, "\(key): expected a non-empty string, found \(node.value.kindName)", &problems)
            return nil
        }
        return s
    }

    mutating func node(_ key: String) -> JSONNode? { members[key] }

    /// A whole JSON number (no fraction, no exponent), within Int64.
    mutating func integer(
        _ key: String, required: Bool, _ problems: inout AppleProblems,
        what: String = "a whole number"
    ) -> Int64? {
        guard let node = members[key], node.value != .null else {
            if required { missing(key, &problems) }
            return nil
        }
        guard case .number(let text) = node.value else {
            fail(key, "\(key): expected \(what), found \(node.value.kindName)", &problems)
            return nil
        }
        guard let v = Int64(text) else {
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            if !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
                fail(
                    key,
                    "\(key): \(FieldReader.excerpt(text)) is too large (overflow: the largest is \(Int64.max))",
                    &problems)
            } else {
                fail(key, "\(key): \(FieldReader.excerpt(text)) is not \(what)", &problems)
            }
            return nil
        }
        return v
    }

    /// UNIX time in milliseconds, within the years 0001–9999.
    mutating func milliseconds(_ key: String, required: Bool, _ problems: inout AppleProblems)
        -> Timestamp?
    {
        guard
            let ms = integer(key, required: required, &problems, what: "UNIX time in milliseconds")
        else { return nil }
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        guard Timestamp.utcRange.contains(seconds) else {
            fail(key, "\(key): \(ms) ms is outside the years 0001 to 9999", &problems)
            return nil
        }
        return Timestamp(seconds: seconds, nanoseconds: Int32((ms - seconds * 1000) * 1_000_000))
    }
}
