import Foundation
import Testing

@testable import RateCard

/// A transaction names its storefront in alpha-3 (`DEU`), Apple's reports their country in
/// alpha-2 (`DE`): with the storefront table's `countryCode`, a top-up is valued at its own
/// country's proceeds, not at its currency's over every country. Germany and France both
/// sell in euros; here a credit earned EUR 0.007 in Germany and EUR 0.005 in France (made
/// up; EUR 1 = GBP 0.85), so the feature bought in Germany (`chat`) is worth 100 × 0.007 ×
/// 0.85 = GBP 0.595 and the one bought in France (`voice`) GBP 0.425. Without the table,
/// both fall back to the euro over both countries: (0.70 + 0.50) × 0.85 ÷ 200 = GBP 0.0051
/// a credit, GBP 0.51 each.
@Suite struct ProceedsCountryTests {
    static let storefronts = #"""
        { "kind": "storefronts", "date": "2026-12-01", "source": "test", "placeholder": true,
          "commission": [
            { "program": "standard", "rate": "0.30", "from": "2008-07-10", "status": "confirmed" },
            { "program": "small-business", "rate": "0.15", "from": "2021-01-01", "status": "confirmed" } ],
          "territories": [
            { "territory": "DEU", "countryCode": "DE", "name": "Germany", "currency": "EUR", "taxIncluded": true, "tax": "0.19" },
            { "territory": "FRA", "countryCode": "FR", "name": "France", "currency": "EUR", "taxIncluded": true, "tax": "0.20" } ] }
        """#
    static let fx = #"""
        { "kind": "fx", "date": "2026-11-15", "placeholder": true,
          "source": "made up for the test: EUR 1 = GBP 0.85",
          "rates": [ { "base": "EUR", "quote": "GBP", "rate": "0.85" } ] }
        """#
    static let ledger = #"""
        {"id":"t-de","at":"2026-11-05T10:01:00Z","kind":"topup","amount":100,"paymentRef":"3000000001","device":"de"}
        {"id":"c-de","at":"2026-11-06T09:00:00Z","kind":"charge","amount":-100,"feature":"chat","quantity":{"message":10},"device":"de"}
        {"id":"t-fr","at":"2026-11-05T11:01:00Z","kind":"topup","amount":100,"paymentRef":"3000000002","device":"fr"}
        {"id":"c-fr","at":"2026-11-06T10:00:00Z","kind":"charge","amount":-100,"feature":"voice","quantity":{"message":10},"device":"fr"}
        """#
    static let transactions = #"""
        {"transactionId":"3000000001","originalTransactionId":"3000000001","productId":"demo.credits.100","purchaseDate":1793872800000,"quantity":1,"type":"Consumable","signedDate":1793872800000,"environment":"Production","storefront":"DEU","currency":"EUR","price":990}
        {"transactionId":"3000000002","originalTransactionId":"3000000002","productId":"demo.credits.100","purchaseDate":1793876400000,"quantity":1,"type":"Consumable","signedDate":1793876400000,"environment":"Production","storefront":"FRA","currency":"EUR","price":990}
        """#
    static let sales =
        "Provider\tProvider Country\tSKU\tDeveloper\tTitle\tVersion\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCurrency of Proceeds\tApple Identifier\tCustomer Price\tPromo Code\tParent Identifier\tSubscription\tPeriod\tCategory\tCMB\tDevice\tSupported Platforms\tProceeds Reason\tPreserved Pricing\tClient\tOrder Type\nAPPLE\tUS\tdemo.credits.100\tDemo Ltd\t100 credits\t\tIA1\t1\t.70\t11/01/2026\t11/30/2026\tEUR\tDE\tEUR\t1234567901\t.99\t\tdemo-app\t\t\tProductivity\t\tiPhone\tiOS\t\t\t\t\nAPPLE\tUS\tdemo.credits.100\tDemo Ltd\t100 credits\t\tIA1\t1\t.50\t11/01/2026\t11/30/2026\tEUR\tFR\tEUR\t1234567901\t.99\t\tdemo-app\t\t\tProductivity\t\tiPhone\tiOS\t\t\t\t\n"

    func run(withStorefronts: Bool) throws -> CLIResult {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(
            at: dir.url.appendingPathComponent("cards"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent(
                "Tests/RateCardTests/Fixtures/Proceeds/cards/demo-v1.json"
            ).path, toPath: dir.url.appendingPathComponent("cards/demo-v1.json").path)
        try dir.write("cards/fx.json", Self.fx)
        if withStorefronts { try dir.write("cards/storefronts.json", Self.storefronts) }
        try dir.write("ledger.jsonl", Self.ledger)
        try dir.write("transactions.jsonl", Self.transactions)
        try dir.write("sales.txt", Self.sales)
        return try runMargin(
            [
                "pnl", "ledger.jsonl", "--cards", "cards", "--currency", "GBP", "--credit-value",
                "GBP 0.005", "--now", "2026-12-07T00:00:00Z", "--proceeds", "sales.txt",
                "--transactions", "transactions.jsonl", "--format", "csv",
            ], in: dir.path)
    }

    @Test func twoEuroCountriesAreValuedApart() throws {
        let r = try run(withStorefronts: true)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("feature,chat,proceeds,100,0.595,GBP\n"))
        #expect(r.stdout.contains("feature,voice,proceeds,100,0.425,GBP\n"))
        #expect(
            r.stdout.contains(
                "rate,\"demo.credits.100 EUR in DE, sales 2026-11-01–2026-11-30\",transaction,100,0.00595,GBP\n"
            ))
        #expect(
            r.stdout.contains(
                "rate,\"demo.credits.100 EUR in FR, sales 2026-11-01–2026-11-30\",transaction,100,0.00425,GBP\n"
            ))
    }

    @Test func withoutTheTableTheCurrencyStandsIn() throws {
        let r = try run(withStorefronts: false)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("feature,chat,proceeds,100,0.51,GBP\n"))
        #expect(r.stdout.contains("feature,voice,proceeds,100,0.51,GBP\n"))
        #expect(
            r.stdout.contains(
                "rate,\"demo.credits.100 EUR, sales 2026-11-01–2026-11-30\",transaction,200,0.0051,GBP\n"
            ))
    }
}
