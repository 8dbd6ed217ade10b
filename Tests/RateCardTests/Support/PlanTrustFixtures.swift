import Foundation

@testable import RateCard

/// A plan card sold in CNY and USD (and EUR, generally and in FRA), an FX file, and App
/// Store Connect files of `subscriptionPricePoints` built from rows, for the trust cases of
/// `margin plans` (issue 24, cases 9 to 12).
///
/// The plan `p`: 300 s of ASR a day at CNY 3.6 an hour (CNY 0.30 a day, 9.30 in the
/// longest month), CNY 30 or USD 4.99 a month; a pay-as-you-go offer of 3 months at CNY 5,
/// EUR 0.99 and EUR 0.49 in FRA, none in USD. The free tier: 60 s of ASR a day.
enum PlanTrustFixtures {
    static let fx = """
        {"kind": "fx", "date": "2026-11-15", "placeholder": true, "source": "test rates",
         "rates": [{"base": "USD", "quote": "CNY", "rate": "7.1"}, {"base": "EUR", "quote": "CNY", "rate": "7.8"}]}
        """

    static let plans = """
        [{"productId": "p", "group": "g", "period": "P1M",
          "prices": [{"currency": "CNY", "amount": "30"}, {"currency": "USD", "amount": "4.99"},
                     {"currency": "EUR", "amount": "2.99"}, {"currency": "EUR", "amount": "2.49", "storefront": "FRA"}],
          "quotas": [{"feature": "asr", "amount": 300, "reset": "P1D"}],
          "introductoryOffer": {"paymentMode": "payAsYouGo", "period": "P1M", "periods": 3,
                                "prices": [{"currency": "CNY", "amount": "5"}, {"currency": "EUR", "amount": "0.99"},
                                           {"currency": "EUR", "amount": "0.49", "storefront": "FRA"}]}}]
        """

    static let freeTier = """
        {"allowances": [{"feature": "asr", "amount": 60, "reset": "P1D"}]}
        """

    /// The card, its provider and the FX file.
    static var files: [String: String] {
        [
            "t.json": PlanFixtures.card(subscriptions: plans, freeTier: freeTier),
            "providers/asr.json": PlanFixtures.provider(), "fx.json": fx,
        ]
    }

    /// One territory's point: `nil` leaves an attribute out.
    struct Point {
        let territory: String
        let currency: String
        let price: String
        let proceeds: String?
        let year2: String?
    }

    /// A `subscriptionPricePoints` response with one point per row.
    static func applePoints(_ points: [Point]) -> String {
        let data = points.enumerated().map { i, p in
            var attrs = ["\"customerPrice\": \"\(p.price)\""]
            if let v = p.proceeds { attrs.append("\"proceeds\": \"\(v)\"") }
            if let v = p.year2 { attrs.append("\"proceedsYear2\": \"\(v)\"") }
            return """
                {"type": "subscriptionPricePoints", "id": "pt\(i)",
                     "attributes": {\(attrs.joined(separator: ", "))},
                     "relationships": {"territory": {"data": {"type": "territories", "id": "\(p.territory)"}}}}
                """
        }
        let included = points.map {
            """
            {"type": "territories", "id": "\($0.territory)", "attributes": {"currency": "\($0.currency)"}}
            """
        }
        return """
            {"data": [
            \(data.joined(separator: ",\n"))
            ],
             "included": [\(included.joined(separator: ", "))]}
            """
    }

    /// CHN with both figures; USA without `proceedsYear2`; JPN without an FX rate.
    static let points = [
        Point(territory: "CHN", currency: "CNY", price: "30", proceeds: "21", year2: "25.5"),
        Point(territory: "USA", currency: "USD", price: "4.99", proceeds: "3.49", year2: nil),
        Point(territory: "JPN", currency: "JPY", price: "800", proceeds: "560", year2: "680"),
    ]

    /// The files written into `tmp` (the card folder is `tmp/cards`), and the price-point
    /// file's path.
    static func write(_ tmp: TemporaryFolder, points: [Point] = points) throws -> (
        cards: String, pricePoints: String
    ) {
        for (name, text) in files { try tmp.write("cards/\(name)", text) }
        try tmp.write("p-points.json", applePoints(points))
        return ("\(tmp.path)/cards", "\(tmp.path)/p-points.json")
    }

    static func repository() throws -> (CardRepository, RateCard) {
        let repo = try RateCardTests.repository(files)
        guard let c = repo.cards.first else { throw Diagnostics([]) }
        return (repo, c)
    }

    static let usd = Currency(code: "USD")!
    static let eur = Currency(code: "EUR")!
}
