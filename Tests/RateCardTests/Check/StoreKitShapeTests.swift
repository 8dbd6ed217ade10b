import Foundation
import Testing

@testable import RateCard

/// Issue 10, item 21: every shape of `.storekit` file Xcode writes (format versions 1.0 to
/// 5.0), through the library and through the binary. The fixtures in
/// `Fixtures/storekit/shapes/` are written for these tests in the exact shapes of public
/// files of each Xcode generation.
@Suite struct StoreKitShapeTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/storekit/shapes").path

    static func path(_ name: String) -> String { "\(folder)/\(name)" }

    /// The packs the shape fixtures sell: 1000tks and 3000tks in USD, JPY and COP.
    static let packs = [
        StoreKitPackExpectation(
            productId: "1000tks", type: "consumable",
            prices: [
                Currency(code: "USD")!: Exact(decimalOrZero: "0.99"),
                Currency(code: "JPY")!: Exact(160), Currency(code: "COP")!: Exact(3900),
            ],
            location: SourceLocation(line: 20, column: 7)),
        StoreKitPackExpectation(
            productId: "3000tks", type: "consumable",
            prices: [
                Currency(code: "USD")!: Exact(decimalOrZero: "2.99"),
                Currency(code: "JPY")!: Exact(600), Currency(code: "COP")!: Exact(13900),
            ],
            location: SourceLocation(line: 30, column: 7)),
    ]

    @Test(
        arguments: [
            // file, storefront, defaulted, products, subscriptions
            ("xcode12-v1.storekit", "USA", true, ["1000tks", "3000tks"], 0),
            ("xcode13-v2.storekit", "USA", true, ["10000tks"], 0),
            (
                "xcode14-v3-jpn.storekit", "JPN", false,
                ["1000tks", "3000tks", "tip.small", "backup.year", "plus.monthly"], 2
            ),
            (
                "xcode16-v4-col.storekit", "COL", false,
                ["1000tks", "3000tks", "themes.lifetime", "plus.monthly"], 1
            ),
            ("xcode26-v5.storekit", "USA", false, ["1000tks", "3000tks", "pro.monthly"], 1),
            ("no-prices.storekit", "USA", false, ["1000tks", "3000tks"], 0),
        ] as [(String, String, Bool, [String], Int)])
    func readsEveryXcodeShape(
        file: String, storefront: String, defaulted: Bool, products: [String], subscriptions: Int
    ) throws {
        let config = try StoreKitConfiguration.load(path: Self.path(file))
        #expect(config.storefront == storefront)
        #expect(config.storefrontIsDefault == defaulted)
        #expect(config.products.map(\.id) == products)
        #expect(config.subscriptions.count == subscriptions)
    }

    @Test func shapesCarryWhatTheSubscriptionChecksNeed() throws {
        let config = try StoreKitConfiguration.load(path: Self.path("xcode14-v3-jpn.storekit"))
        let monthly = try #require(config.subscriptions.first { $0.id == "plus.monthly" })
        #expect(monthly.type == "RecurringSubscription" && monthly.price == Exact(480))
        #expect(monthly.subscriptionGroup == "Plus" && monthly.subscriptionPeriod == "P1M")
        #expect(monthly.list == "subscriptionGroups[0].subscriptions")
        let year = try #require(config.subscriptions.first { $0.id == "backup.year" })
        #expect(year.list == "nonRenewingSubscriptions" && year.subscriptionGroup == nil)
        // Whole-number storefront prices are read as written.
        #expect(config.products.first { $0.id == "3000tks" }?.price == Exact(600))
        let col = try StoreKitConfiguration.load(path: Self.path("xcode16-v4-col.storekit"))
        #expect(
            col.currency.code == "COP"
                && col.products.first { $0.id == "3000tks" }?.price == Exact(13900))
        // `"referenceName": null` is no name.
        let old = try StoreKitConfiguration.load(path: Self.path("xcode12-v1.storekit"))
        #expect(old.products.map(\.referenceName) == [nil, "3000 credits"])
    }

    @Test func everyStorefrontMatchesTheSamePacks() throws {
        for file in [
            "xcode12-v1.storekit", "xcode14-v3-jpn.storekit", "xcode16-v4-col.storekit",
            "xcode26-v5.storekit",
        ] {
            let config = try StoreKitConfiguration.load(path: Self.path(file))
            let errors = config.mismatches(
                with: Self.packs, cardPath: "card.json", ignore: ["tip.small"]
            ).filter { $0.severity == .error }
            #expect(errors.isEmpty, "\(file): \(errors)")
        }
    }

    @Test func skippedProductsAreCounted() throws {
        let config = try StoreKitConfiguration.load(path: Self.path("xcode14-v3-jpn.storekit"))
        let findings = config.mismatches(
            with: Self.packs, cardPath: "card.json", ignore: ["tip.small"])
        #expect(
            findings.map(\.message) == [
                "3 of 5 products not compared with the packs of card.json: 2 subscriptions (compared with subscription plans, not packs), 1 ignored (tip.small)"
            ])
        #expect(findings.first?.rule?.id == "storekit-skipped" && findings.first?.severity == .note)
        // Without the ignore, the tip is a consumable no pack sells.
        let tip = config.mismatches(with: Self.packs, cardPath: "card.json").filter {
            $0.severity == .error
        }
        #expect(tip.map(\.rule?.id) == ["storekit-unknown-product"])
        #expect(tip.first?.message.contains("pass --storekit-ignore tip.small") == true)
    }

    @Test func aProductWithNoPriceIsAFindingForThatProduct() throws {
        let config = try StoreKitConfiguration.load(path: Self.path("no-prices.storekit"))
        #expect(config.products.allSatisfy { $0.price == nil })
        let findings = config.mismatches(with: Self.packs, cardPath: "card.json")
        #expect(findings.map(\.rule?.id) == ["storekit-no-price", "storekit-no-price"])
        #expect(
            findings.first?.message
                == #""1000tks" has no displayPrice ("") in the StoreKit configuration (storefront USA); the card card.json prices it at USD 0.99"#
        )
        #expect(findings.first?.location == SourceLocation(line: 8, column: 24))
    }

    @Test(arguments: [
        ("products.plist", "the file is an XML property list, not JSON"),
        ("empty.storekit", "the file is empty"),
        (
            "connect-export.storekit",
            #"none of Xcode's product lists (products, nonRenewingSubscriptions, subscriptionGroups), only "data", "links": another schema"#
        ),
    ])
    func onlyOtherFormatsAreRefused(file: String, message: String) throws {
        let error = try #require(throws: Diagnostics.self) {
            try StoreKitConfiguration.load(path: Self.path(file))
        }
        #expect(error.items.count == 1)
        #expect(error.items.first?.message.contains(message) == true, "\(error)")
    }

    @Test func aRateCardGivenAsStoreKitFileIsAnotherSchema() throws {
        let error = try #require(throws: Diagnostics.self) {
            try StoreKitConfiguration.load(
                bytes: Array(CheckFixture.card.utf8), path: "card.storekit")
        }
        #expect(
            error.items.first?.message.contains(
                #"only "creditUnit", "effective", "features", "grants", "id", "kind": another schema"#
            ) == true, "\(error)")
        let binary = try #require(throws: Diagnostics.self) {
            try StoreKitConfiguration.load(bytes: Array("bplist00\u{1}".utf8), path: "b.storekit")
        }
        #expect(binary.items.first?.message.contains("binary property list") == true)
    }

    // MARK: Through the binary

    /// The CheckFixture card selling 1000tks and 3000tks in USD, JPY and COP.
    static let card = CheckFixture.card.replacingOccurrences(
        of: """
            { "productId": "p1000", "type": "consumable", "credits": 1000,
                  "prices": [ { "currency": "USD", "amount": "0.99" } ] }
            """,
        with: """
            { "productId": "1000tks", "type": "consumable", "credits": 1000,
                  "prices": [ { "currency": "USD", "amount": "0.99" }, { "currency": "JPY", "amount": "160" }, { "currency": "COP", "amount": "3900" } ] },
                { "productId": "3000tks", "type": "consumable", "credits": 3000,
                  "prices": [ { "currency": "USD", "amount": "2.99" }, { "currency": "JPY", "amount": "600" }, { "currency": "COP", "amount": "13900" } ] }
            """)

    static let fx = """
        {"kind": "fx", "date": "2026-01-01", "source": "test", "rates": [{"base": "USD", "quote": "JPY", "rate": "150"}, {"base": "USD", "quote": "COP", "rate": "4000"}]}
        """

    func checkFolder() throws -> TemporaryFolder {
        #expect(Self.card.contains("3000tks"))
        let folder = try CheckFixture.folder(["card.json": Self.card, "fx.json": Self.fx])
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.folder) {
            try folder.write(
                "sk/" + file, try String(contentsOfFile: Self.path(file), encoding: .utf8))
        }
        return folder
    }

    @Test func theBinaryReadsEveryShapeAndEachFileOnItsOwn() throws {
        let folder = try checkFolder()
        defer { folder.cleanup() }
        let base = [
            "check", "card.json", "provider.json", "fx.json", "--now", CheckFixture.beforeEffective,
        ]
        let all = try runMargin(
            base + [
                "--storekit", "sk/xcode12-v1.storekit", "--storekit", "sk/xcode14-v3-jpn.storekit",
                "--storekit", "sk/xcode16-v4-col.storekit", "--storekit", "sk/xcode26-v5.storekit",
                "--storekit-ignore", "tip.small",
            ], in: folder.path)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stderr.contains(
                "sk/xcode14-v3-jpn.storekit:73:21: note: 3 of 5 products not compared with the packs of card.json: 2 subscriptions (compared with subscription plans, not packs), 1 ignored (tip.small) [storekit-skipped]"
            ), "\(all.stderr)")
        #expect(
            all.stderr.contains("sk/xcode16-v4-col.storekit:")
                && all.stderr.contains("1 non-consumable, 1 subscription"))
        // A price that differs in one storefront is found in that file.
        let wrong = try runMargin(
            [
                "check", "card.json", "provider.json", "fx.json", "--now",
                CheckFixture.beforeEffective,
                "--storekit", "sk/xcode12-v1.storekit", "--storekit", "sk/no-prices.storekit",
            ], in: folder.path)
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr.contains(
                #"sk/no-prices.storekit:8:24: error: "1000tks" has no displayPrice ("") in the StoreKit configuration (storefront USA); the card card.json prices it at USD 0.99 [storekit-no-price]"#
            ), "\(wrong.stderr)")
        #expect(
            !wrong.stderr.contains("sk/xcode12-v1.storekit:")
                || !wrong.stderr.contains("error: \"1000tks\" has displayPrice"))
    }

    @Test(arguments: [
        (
            "sk/products.plist",
            "sk/products.plist:1:1: error: the file is an XML property list, not JSON"
        ),
        ("sk/empty.storekit", "sk/empty.storekit:1:1: error: the file is empty"),
        (
            "sk/connect-export.storekit",
            "sk/connect-export.storekit:1:1: error: a JSON object with none of Xcode's product lists"
        ),
    ])
    func theBinaryRefusesOtherFormatsWithExit2(file: String, message: String) throws {
        let folder = try checkFolder()
        defer { folder.cleanup() }
        let r = try runMargin(
            [
                "check", "card.json", "provider.json", "fx.json", "--now",
                CheckFixture.beforeEffective, "--storekit", file,
            ], in: folder.path)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test func aTipWithoutIgnoreIsAnUnknownProduct() throws {
        let folder = try checkFolder()
        defer { folder.cleanup() }
        let r = try runMargin(
            [
                "check", "card.json", "provider.json", "fx.json", "--now",
                CheckFixture.beforeEffective,
                "--storekit", "sk/xcode14-v3-jpn.storekit",
            ], in: folder.path)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                #"error: consumable "tip.small" is not a pack of the card card.json; if it is not a credit pack (a tip), pass --storekit-ignore tip.small [storekit-unknown-product]"#
            ), "\(r.stderr)")
    }
}

extension Exact {
    /// Test tables only: the decimal, or zero when the text is not one.
    init(decimalOrZero text: String) {
        self = (try? Exact(decimal: text)) ?? .zero
    }
}
