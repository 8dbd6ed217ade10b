import Foundation
import Testing

@testable import RateCard

@Suite struct StoreKitConfigurationTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/storekit").path

    static let usd = Currency(code: "USD")!
    static let cny = Currency(code: "CNY")!

    private func fixture(_ name: String) throws(Diagnostics) -> StoreKitConfiguration {
        try StoreKitConfiguration.load(path: "\(Self.fixtures)/\(name)")
    }

    private func load(_ text: String) throws(Diagnostics) -> StoreKitConfiguration {
        try StoreKitConfiguration.load(bytes: Array(text.utf8), path: "Test.storekit")
    }

    private func exact(_ text: String) -> Exact { try! Exact(decimal: text) }

    private func pack(
        _ id: String, type: String = "consumable", _ prices: [Currency: String], line: Int
    ) -> StoreKitPackExpectation {
        StoreKitPackExpectation(
            productId: id, type: type, prices: prices.mapValues { exact($0) },
            location: SourceLocation(line: line, column: 7))
    }

    /// The card's packs as the fixtures expect them: V10-like, three consumables.
    private var cardPacks: [StoreKitPackExpectation] {
        [
            pack("1000tks", ["USD": "0.99"].currencies, line: 20),
            pack("3000tks", ["USD": "2.99", "CNY": "28"].currencies, line: 30),
            pack("10000tks", ["USD": "8.99", "CNY": "68.00"].currencies, line: 40),
        ]
    }

    // MARK: Loading

    @Test func readsProductsPricesAndPlaces() throws {
        let config = try fixture("credits-usa.storekit")
        #expect(config.storefront == "USA")
        #expect(config.storefrontLocation == SourceLocation(line: 72, column: 21))
        #expect(config.currency == Self.usd)
        #expect(
            config.products.map(\.id) == [
                "1000tks", "3000tks", "10000tks", "themes.lifetime", "plus.monthly",
            ])
        #expect(
            config.products.map(\.type) == [
                "Consumable", "Consumable", "Consumable", "NonConsumable", "RecurringSubscription",
            ])
        #expect(
            config.products.map(\.price)
                == ["0.99", "2.99", "8.99", "19.99", "4.99"].map { Optional(exact($0)) })
        let first = try #require(config.products.first)
        #expect(first.referenceName == "Credits 1000")
        #expect(first.location == SourceLocation(line: 7, column: 5))
        #expect(first.idLocation == SourceLocation(line: 18, column: 21))
        #expect(first.priceLocation == SourceLocation(line: 8, column: 24))
        #expect(first.typeLocation == SourceLocation(line: 20, column: 16))
        #expect(config.products.last?.priceLocation == SourceLocation(line: 101, column: 28))
    }

    @Test func brokenFileReportsEveryFieldWithItsPlace() throws {
        let error = try #require(throws: Diagnostics.self) { try fixture("broken.storekit") }
        let path = "\(Self.fixtures)/broken.storekit"
        #expect(error.items.allSatisfy { $0.path == path && $0.severity == .error })
        let found = error.items.map { "\($0.location.line):\($0.location.column) \($0.message)" }
        let expected = [
            "4:24 products[0].displayPrice: 0.999 has more decimals than GBP allows (2)",
            "8:5 products[1].productID: missing required field",
            "15:16 products[2].type: \"Consumible\" is not a StoreKit product type (did you mean \"Consumable\"?",
            "18:24 products[3].displayPrice: -1 is negative",
            "24:21 products[4].productID: \"1000tks\" is already used at line 5, column 21",
            "28:24 products[5].displayPrice: \"999999999999999999999999999999999999999999\" is not a decimal: more than 38 digits",
            "33:24 products[6].displayPrice: \"1e3\" is not a decimal: exponent notation is not accepted",
            "38:24 products[7].displayPrice: expected a decimal number",
            "39:21 products[7].productID: expected a string, found a number",
        ]
        #expect(found.count == expected.count, "\(error)")
        for (line, prefix) in zip(found, expected) {
            #expect(line.hasPrefix(prefix), "\(line)")
        }
    }

    @Test(
        arguments: [
            (
                #"{"products": [], "settings": {"_storefront": "XYZ"}}"#, 1, 46,
                #"settings._storefront: "XYZ" is not an App Store storefront"#
            ),
            (
                #"{"products": [], "settings": {"_storefront": "USB"}}"#, 1, 46,
                #"did you mean "USA"?"#
            ),
            (
                #"{"products": [], "settings": {"_storefront": 1}}"#, 1, 46,
                "settings._storefront: expected a string"
            ),
            (
                #"{"settings": {"_storefront": "USA"}}"#, 1, 1,
                "none of Xcode's product lists (products, nonRenewingSubscriptions, subscriptionGroups), only \"settings\": another schema"
            ),
            (
                #"{"products": {}, "settings": {"_storefront": "USA"}}"#, 1, 14,
                "products: expected an array, found an object"
            ),
            (
                #"{"products": [7], "settings": {"_storefront": "USA"}}"#, 1, 15,
                "products[0]: expected an object, found a number"
            ),
            (
                #"{"products": [], "subscriptionGroups": [{"subscriptions": 3}], "settings": {"_storefront": "USA"}}"#,
                1, 59, "subscriptionGroups[0].subscriptions: expected an array"
            ),
            (
                #"{"products": [{"productID": "a", "type": "Consumable", "displayPrice": "1.5"}], "settings": {"_storefront": "JPN"}}"#,
                1, 72, "displayPrice: 1.5 has more decimals than JPY allows (0)"
            ),
            (#"[]"#, 1, 1, "expected a JSON object at the top level, found an array"),
            ("", 1, 1, "the file is empty"),
            (
                #"{"products": [{"productID": "a", "type": "Consumable", "displayPrice": "#, 1, 72,
                "unexpected end of file"
            ),
        ] as [(String, Int, Int, String)])
    func badFiles(text: String, line: Int, column: Int, message: String) throws {
        let error = try #require(throws: Diagnostics.self) { try load(text) }
        #expect(
            error.items.contains {
                $0.location == SourceLocation(line: line, column: column)
                    && $0.message.contains(message)
            },
            "\(error)")
    }

    @Test func yenPricesAreWhole() throws {
        let config = try load(
            #"{"products": [{"productID": "a", "type": "Consumable", "displayPrice": "480"}], "settings": {"_storefront": "JPN"}}"#
        )
        #expect(config.currency.code == "JPY")
        #expect(config.products.first?.price == Exact(480))
    }

    /// A file cut anywhere is a diagnostic, never a crash or a silent success.
    @Test func everyTruncationIsReported() throws {
        let bytes = try #require(
            FileManager.default.contents(atPath: "\(Self.fixtures)/credits-chn.storekit"))
        let all = [UInt8](bytes)
        for cut in stride(from: 0, to: all.count - 2, by: 7) {
            #expect(throws: Diagnostics.self, "cut at \(cut)") {
                try StoreKitConfiguration.load(bytes: Array(all[..<cut]), path: "cut.storekit")
            }
        }
    }

    @Test func missingFileIsADiagnostic() throws {
        let error = try #require(throws: Diagnostics.self) { try fixture("no-such-file.storekit") }
        #expect(
            error.items.first?.message.hasPrefix("cannot read the StoreKit configuration:") == true)
    }

    @Test(arguments: [
        ("USA", "USD"), ("CHN", "CNY"), ("GBR", "GBP"), ("JPN", "JPY"), ("DEU", "EUR"),
        ("FRA", "EUR"),
        ("CAN", "CAD"), ("AUS", "AUD"), ("KOR", "KRW"), ("CHE", "CHF"), ("IND", "INR"),
        ("BRA", "BRL"),
    ])
    func storefrontCurrencies(storefront: String, currency: String) {
        #expect(StoreKitStorefront.currency(for: storefront)?.code == currency)
    }

    @Test func everyStorefrontHasAKnownCurrency() {
        for (storefront, code) in StoreKitStorefront.currencies {
            #expect(Currency(code: code) != nil, "\(storefront) → \(code)")
            #expect(
                storefront.utf8.count == 3 && storefront.allSatisfy(\.isUppercase), "\(storefront)")
        }
        #expect(StoreKitStorefront.currency(for: "usa") == nil)
    }

    // MARK: Matching

    @Test func matchingFileHasNoFindings() throws {
        let config = try fixture("credits-usa.storekit")
        // The non-consumable and the subscription are not packs: only counted, in a note.
        let findings = config.mismatches(with: cardPacks, cardPath: "RateCards/osg-v10.json")
        #expect(
            findings.map(\.message) == [
                "2 of 5 products not compared with the packs of RateCards/osg-v10.json: 1 non-consumable, 1 subscription (compared with subscription plans, not packs)"
            ])
        #expect(findings.allSatisfy { $0.severity == .note && $0.rule?.id == "storekit-skipped" })
    }

    @Test func mismatchesAreReportedBothWays() throws {
        let config = try fixture("credits-chn.storekit")
        let sk = "\(Self.fixtures)/credits-chn.storekit"
        let packs = cardPacks + [pack("5000tks", ["CNY": "45"].currencies, line: 50)]
        let findings = config.mismatches(with: packs, cardPath: "RateCards/osg-v10.json")
        // Sorted by path, then place: the absolute fixture path sorts before "RateCards/".
        #expect(
            findings.map(\.rendered) == [
                #"\#(sk):8:24: error: "1000tks" has displayPrice CNY 8.00 (storefront CHN) but the card RateCards/osg-v10.json has no CNY price for it (only USD) [storekit-price]"#,
                #"\#(sk):23:24: error: "3000tks" has displayPrice CNY 25.00 (storefront CHN) but the card RateCards/osg-v10.json prices it at CNY 28.00 [storekit-price]"#,
                #"\#(sk):50:16: error: "10000tks" is NonConsumable here but the card RateCards/osg-v10.json sells it as consumable [storekit-type]"#,
                #"\#(sk):63:21: error: consumable "30000tks" is not a pack of the card RateCards/osg-v10.json; if it is not a credit pack (a tip), pass --storekit-ignore 30000tks [storekit-unknown-product]"#,
                #"RateCards/osg-v10.json:50:7: error: pack "5000tks" has no product in the StoreKit configuration \#(sk) [storekit-missing-product]"#,
            ])
    }

    @Test func cardPriceWithExtraDecimalsIsShownUnrounded() throws {
        let config = try load(
            #"{"products": [{"productID": "a", "type": "Consumable", "displayPrice": "1.00"}], "settings": {"_storefront": "USA"}}"#
        )
        let findings = config.mismatches(
            with: [pack("a", ["USD": "0.999"].currencies, line: 3)], cardPath: "card.json")
        #expect(
            findings.map(\.message) == [
                #""a" has displayPrice USD 1.00 (storefront USA) but the card card.json prices it at USD 0.999"#
            ])
    }

    @Test(arguments: [
        ("consumable", "Consumable", true), ("Consumable", "Consumable", true),
        ("non-consumable", "NonConsumable", true), ("non_consumable", "NonConsumable", true),
        ("consumable", "NonConsumable", false), ("subscription", "RecurringSubscription", false),
    ])
    func typesCompareIgnoringCaseAndPunctuation(card: String, storeKit: String, same: Bool) throws {
        let config = try load(
            #"{"products": [{"productID": "a", "type": "\#(storeKit)", "displayPrice": "1"}], "settings": {"_storefront": "USA"}}"#
        )
        let findings = config.mismatches(
            with: [pack("a", type: card, ["USD": "1"].currencies, line: 1)], cardPath: "card.json")
        #expect(findings.isEmpty == same)
        #expect(findings.allSatisfy { $0.rule?.id == "storekit-type" })
    }

    @Test func noPacksAndNoProductsAgree() throws {
        let config = try load(#"{"products": [], "settings": {"_storefront": "CHN"}}"#)
        #expect(config.mismatches(with: [], cardPath: "card.json").isEmpty)
    }
}

extension Dictionary where Key == String, Value == String {
    /// `["USD": "0.99"]` with its keys read as currencies (test tables only).
    fileprivate var currencies: [Currency: String] {
        [Currency: String](uniqueKeysWithValues: map { (Currency(code: $0.key)!, $0.value) })
    }
}
