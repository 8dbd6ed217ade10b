import Foundation
import Testing

@testable import RateCard

/// Apple's sales and financial rows are per country (alpha-2), a transaction names its
/// storefront in alpha-3: with the card folder's storefront table, each row's units are set
/// beside the transactions of its own country. Germany and France both sell in euros.
/// Apple's rows say 2 units in Germany and 1 in France; the transactions say 1 bought in
/// Germany and 2 in France (an app that sends French buyers to a German storefront, say).
/// Matched per currency, as before, the one euro line reads 3 sold and 3 in transactions:
/// a false all-clear. By country, both lines show the difference, and each country's credit
/// has its own value (Germany 2 × EUR 0.70 ÷ 200 = EUR 0.007, France EUR 0.50 ÷ 100 =
/// EUR 0.005, not EUR 1.90 ÷ 300 for both).
@Suite struct ReconcileCountryTests {
    static let ledger = #"""
        {"id":"t1","at":"2026-11-05T10:05:00Z","kind":"topup","amount":100,"paymentRef":"3000000001","device":"a"}
        {"id":"t2","at":"2026-11-05T11:05:00Z","kind":"topup","amount":100,"paymentRef":"3000000002","device":"b"}
        {"id":"t3","at":"2026-11-06T11:05:00Z","kind":"topup","amount":100,"paymentRef":"3000000003","device":"c"}
        """#
    static func transaction(_ id: String, ms: Int, storefront: String?) -> String {
        let sf = storefront.map { #","storefront":"\#($0)""# } ?? ""
        return
            #"{"transactionId":"\#(id)","originalTransactionId":"\#(id)","productId":"demo.credits.100","purchaseDate":\#(ms),"quantity":1,"type":"Consumable","signedDate":\#(ms),"environment":"Production"\#(sf),"currency":"EUR","price":990}"#
    }
    static func transactions(thirdStorefront: String?) -> String {
        [
            transaction("3000000001", ms: 1_793_872_800_000, storefront: "DEU"),
            transaction("3000000002", ms: 1_793_876_400_000, storefront: "FRA"),
            transaction("3000000003", ms: 1_793_962_800_000, storefront: thirdStorefront),
        ].joined(separator: "\n") + "\n"
    }
    static func sales(_ rows: [(country: String, units: Int, proceeds: String)]) -> String {
        let header =
            "Provider\tProvider Country\tSKU\tDeveloper\tTitle\tVersion\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCurrency of Proceeds\tApple Identifier\tCustomer Price\tPromo Code\tParent Identifier\tSubscription\tPeriod\tCategory\tCMB\tDevice\tSupported Platforms\tProceeds Reason\tPreserved Pricing\tClient\tOrder Type\n"
        return header
            + rows.map {
                "APPLE\tUS\tdemo.credits.100\tDemo Ltd\t100 credits\t\tIA1\t\($0.units)\t\($0.proceeds)\t11/01/2026\t11/30/2026\tEUR\t\($0.country)\tEUR\t1234567901\t.99\t\tdemo-app\t\t\tProductivity\t\tiPhone\tiOS\t\t\t\t\n"
            }.joined()
    }
    static func financial(_ rows: [(country: String, units: Int, share: String, extended: String)])
        -> String
    {
        let header =
            "Start Date\tEnd Date\tUPC\tISRC/ISBN\tVendor Identifier\tQuantity\tPartner Share\tExtended Partner Share\tPartner Share Currency\tSale or Return\tApple Identifier\tArtist/Show/Developer/Author\tTitle\tLabel/Studio/Network/Developer/Publisher\tGrid\tProduct Type Identifier\tISAN/Other Identifier\tCountry Of Sale\tPre-order Flag\tPromo Code\tCustomer Price\tCustomer Currency\n"
        return header
            + rows.map {
                "11/01/2026\t11/28/2026\t\tdemo.credits.100\tdemo.credits.100\t\($0.units)\t\($0.share)\t\($0.extended)\tEUR\tS\t1234567901\tDemo Ltd\t100 credits\t\t\tIA1\t\t\($0.country)\t\t\t0.99\tEUR\n"
            }.joined()
    }

    static func run(storefronts: Bool, thirdStorefront: String? = "FRA") throws -> Reconciliation {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for card in ["demo-v1.json", "demo-v2.json"] {
            try dir.write(
                "cards/\(card)",
                try String(
                    contentsOf: packageRoot.appendingPathComponent(
                        "Tests/RateCardTests/Fixtures/Apple/cards/\(card)"), encoding: .utf8))
        }
        if storefronts { try dir.write("cards/storefronts.json", ProceedsCountryTests.storefronts) }
        try dir.write("ledger.jsonl", ledger)
        try dir.write("transactions.jsonl", transactions(thirdStorefront: thirdStorefront))
        try dir.write("sales.txt", sales([("DE", 2, ".70"), ("FR", 1, ".50")]))
        try dir.write(
            "financial.txt", financial([("DE", 2, "0.70", "1.40"), ("FR", 1, "0.50", "0.50")]))
        return try ReconcileRun.run(
            ReconcileRequest(
                cards: [dir.path + "/cards"], ledger: [dir.path + "/ledger.jsonl"],
                transactions: [dir.path + "/transactions.jsonl"], sales: [dir.path + "/sales.txt"],
                financial: [dir.path + "/financial.txt"]))
    }

    static func eur(_ s: String) -> Money { Money(exact(s), Currency(code: "EUR")!) }

    @Test func twoEuroCountriesAreMatchedApart() throws {
        let r = try Self.run(storefronts: true)
        #expect(r.sales.map(\.country) == ["DE", "FR"])
        #expect(r.sales.map(\.matchedBy.rawValue) == ["country", "country"])
        #expect(r.sales.map(\.unitsSold) == [2, 1])
        #expect(r.sales.map(\.transactionUnits) == [1, 2])
        #expect(r.sales.map(\.perCredit) == [Self.eur("0.007"), Self.eur("0.005")])
        #expect(r.financial.map(\.country) == ["DE", "FR"])
        #expect(r.financial.map(\.sold) == [2, 1])
        #expect(r.financial.map(\.transactionUnits) == [1, 2])
        #expect(r.financial.map(\.matchedBy.rawValue) == ["country", "country"])
        let table = r.renderTable(bold: false)
        #expect(table.contains("in transactions"))
        #expect(table.contains("matched by"))
    }

    /// The per-currency match this replaces: one euro line, 3 and 3, nothing to see.
    @Test func perCurrencyTheDifferenceIsHidden() throws {
        let r = try Self.run(storefronts: false)
        #expect(r.sales.map(\.country) == [nil])
        #expect(r.sales.map(\.unitsSold) == [3])
        #expect(r.sales.map(\.transactionUnits) == [3])
        // EUR 1.90 ÷ 300 credits, the same for both countries.
        #expect(
            r.sales.map(\.perCredit) == [Money(try Exact(19, over: 3000), Currency(code: "EUR")!)])
        #expect(
            r.sales.map(\.matchedBy.rawValue) == [
                "currency: the card folder has no storefront table"
            ])
        #expect(r.financial.map(\.transactionUnits) == [3])
    }

    /// A transaction whose storefront the table does not place (Switzerland is not in it)
    /// makes that product and currency fall back to the currency over every country, said
    /// in the label, so that its unit is neither dropped nor guessed into a country.
    @Test func aStorefrontTheTableDoesNotPlaceFallsBackToTheCurrency() throws {
        for third in ["CHE", nil] as [String?] {
            let r = try Self.run(storefronts: true, thirdStorefront: third)
            #expect(r.sales.map(\.country) == [nil])
            #expect(r.sales.map(\.transactionUnits) == [3])
            #expect(
                r.sales.map(\.matchedBy.rawValue) == [
                    "currency: 1 transaction names no storefront the table places in a country"
                ])
            #expect(r.financial.map(\.country) == [nil])
        }
    }

    /// `matchedBy` is a type whose raw value is the text printed, read back to itself.
    @Test(arguments: [
        (Reconciliation.MatchedBy.country, "country"),
        (.noStorefrontTable, "currency: the card folder has no storefront table"),
        (
            .unplacedStorefronts(1),
            "currency: 1 transaction names no storefront the table places in a country"
        ),
        (
            .unplacedStorefronts(12),
            "currency: 12 transactions name no storefront the table places in a country"
        ),
    ])
    func theMatchIsATypeWithTheWordsPrinted(match: Reconciliation.MatchedBy, text: String) {
        #expect(match.rawValue == text)
        #expect(Reconciliation.MatchedBy(rawValue: text) == match)
        #expect(Reconciliation.MatchedBy(rawValue: text + " ") == nil)
    }

    @Test func theJSONNamesTheCountryAndTheMatch() throws {
        let json = try Self.run(storefronts: true).renderJSON()
        #expect(json.contains(#""country":"DE""#) || json.contains(#""country": "DE""#))
        #expect(json.contains(#""matchedBy""#))
    }
}
