import Testing

@testable import RateCard

/// Reading App Store Connect API responses in Apple's JSON:API shape.
@Suite struct AppStoreConnectReaderTests {
    let usd = Currency(code: "USD")!

    /// Two pages of a point's equalizations: every territory once, the pages complete.
    @Test func twoPagesOfEqualizations() throws {
        let lists = try StorefrontFixtures.list(
            "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json")
        let list = try #require(lists["3000tks"])
        #expect(list.warnings.isEmpty)
        let (prices, diagnostics) = list.resolve(
            on: StorefrontFixtures.date("2026-12-01"), cardPrices: [])
        #expect(diagnostics.isEmpty)
        #expect(prices.keys.sorted() == ["DEU", "GBR", "HUN", "JPN", "USA"])
        let jpn = try #require(prices["JPN"]?.point)
        #expect(jpn.customerPrice == Money(exact("500"), Currency(code: "JPY")!))  // "500.0"
        #expect(jpn.proceeds?.amount == exact("318"))
        #expect(prices["HUN"]?.point.customerPrice.amount == exact("1190"))  // "1190.0"
        #expect(prices["DEU"]?.point.customerPrice.currency.code == "EUR")
    }

    /// One page of two: the missing page is a warning naming `links.next` and the total.
    @Test func aMissingPageIsAWarning() throws {
        let list = try #require(
            try StorefrontFixtures.list("3000tks-equalizations-page1.json")["3000tks"])
        let messages = list.warnings.map(\.message)
        #expect(messages.contains { $0.contains("links.next names a page that is not loaded") })
        #expect(
            messages.contains {
                $0.contains("meta.paging.total is 5") && $0.contains("hold 3 records")
            })
        #expect(
            list.warnings.allSatisfy { $0.severity == .warning && $0.rule?.id == "apple-paging" })
    }

    /// A schedule with a price change: the old price ends on the day the new one starts.
    @Test(arguments: [
        ("2026-08-31", "25"), ("2026-09-01", "28"), ("2027-01-01", "28"), ("2020-01-01", "25"),
    ])
    func scheduleChangesPriceOnItsDate(day: String, yuan: String) throws {
        let list = try #require(try StorefrontFixtures.list("3000tks-schedule.json")["3000tks"])
        let (prices, diagnostics) = list.resolve(on: StorefrontFixtures.date(day), cardPrices: [])
        #expect(diagnostics.isEmpty)
        let chn = try #require(prices["CHN"])
        #expect(chn.point.customerPrice.amount == exact(yuan))
        #expect(chn.scheduled?.manual == true)
        // Included points carry `"territory": {}`: the territory comes from the price record.
        #expect(prices["DEU"]?.point.customerPrice.currency.code == "EUR")
        #expect(prices["DEU"]?.scheduled?.manual == false)
        #expect(prices["USA"]?.point.priceTier == "3")
    }

    /// The schedule's records: two for CHN around the change date.
    @Test func scheduleListsTheTerritoryTwice() throws {
        let file = try StorefrontFixtures.file("3000tks-schedule.json")
        let chn = file.scheduledPrices.filter { $0.territory == "CHN" }
        #expect(chn.count == 2)
        #expect(chn.contains { $0.end == StorefrontFixtures.date("2026-09-01") })
        #expect(chn.contains { $0.start == StorefrontFixtures.date("2026-09-01") })
    }

    /// A territory that is not in `included[]`: an error naming the file, line and field.
    @Test func territoryMissingFromIncluded() throws {
        let errors = StorefrontFixtures.errors("territory-missing.json")
        let e = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(e.path.hasSuffix("territory-missing.json"))
        #expect(
            e.message.hasPrefix(
                "data[1].relationships.territory.data.id: territory \"DEU\" is not in included[]"))
        #expect(e.location.line > 1)
        #expect(
            e.rendered.contains(
                "territory-missing.json:\(e.location.line):\(e.location.column): error:"))
    }

    /// A malformed amount ("2,99"): an error at the amount, naming the field.
    @Test func malformedAmount() throws {
        let errors = StorefrontFixtures.errors("malformed-amount.json")
        let e = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(e.message.hasPrefix("data[1].attributes.customerPrice: \"2,99\" is not a decimal"))
        let text = try String(
            contentsOfFile: StorefrontFixtures.path("malformed-amount.json"), encoding: .utf8)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[
            e.location.line - 1]
        #expect(line.contains("\"2,99\""))
    }

    /// Other bad inputs, each naming its field.
    @Test(arguments: [
        (
            #"{"errors": [{"status": "401"}]}"#,
            "errors: the file is an App Store Connect error response"
        ),
        (
            #"{"data": [{"type": "apps", "id": "1"}]}"#,
            "data[0].type: \"apps\" is not a price point"
        ),
        (
            #"{"data": [{"type": "inAppPurchasePricePoints", "id": "p", "attributes": {"customerPrice": "-1", "proceeds": "0.5", "currency": "USD"}, "relationships": {"territory": {"data": {"type": "territories", "id": "USA"}}}}]}"#,
            "data[0].attributes.customerPrice: -1 is negative"
        ),
        (
            #"{"data": [{"type": "inAppPurchasePricePoints", "id": "p", "attributes": {"customerPrice": "1", "proceeds": "1.5", "currency": "USD"}, "relationships": {"territory": {"data": {"type": "territories", "id": "USA"}}}}]}"#,
            "data[0].attributes.proceeds: USD 1.5 is more than the customer price"
        ),
        (
            #"{"data": [{"type": "inAppPurchasePricePoints", "id": "p", "attributes": {"customerPrice": "1", "proceeds": "0.7"}, "relationships": {"territory": {}}}]}"#,
            "data[0].relationships.territory.data.id: the point has no territory"
        ),
        (
            #"{"data": [{"type": "inAppPurchasePrices", "id": "x", "attributes": {"startDate": "2026-13-01"}, "relationships": {"inAppPurchasePricePoint": {"data": {"type": "inAppPurchasePricePoints", "id": "p"}}}}]}"#,
            "data[0].relationships: price point \"p\" is not in included[]"
        ),
    ])
    func badInputNamesTheField(json: String, message: String) throws {
        let root = try JSONParser.parse(json)
        #expect(throws: Diagnostics.self) { try AppStoreConnectFile.read(root, path: "x.json") }
        do {
            _ = try AppStoreConnectFile.read(root, path: "x.json")
        } catch {
            #expect(
                error.items.contains { $0.message.hasPrefix(message) },
                "\(error.items.map(\.message))")
        }
    }

    /// A list of every point of a territory: the card's price picks one; "190" and "0.0" read.
    @Test func listOfPointsPicksTheCardPrice() throws {
        let list = try #require(try StorefrontFixtures.list("3000tks-price-points.json")["3000tks"])
        let cardPrice = PackPrice(
            price: Money(exact("2.99"), usd), storefront: nil, location: .start)
        let (prices, _) = list.resolve(
            on: StorefrontFixtures.date("2026-12-01"), cardPrices: [cardPrice])
        #expect(prices["USA"]?.point.proceeds?.amount == exact("2.09"))
        #expect(prices["USA"]?.point.priceTier == "3")
        let jpn = try #require(prices["JPN"]?.point)
        #expect(jpn.customerPrice.amount == exact("190"))
        #expect(jpn.proceeds == nil)  // "0.0" beside a positive price: Apple states none
        #expect(
            list.warnings.contains {
                $0.rule?.id == "apple-proceeds" && $0.message.contains("JPY 190")
            }
        )
        // Without the card's price the three USA points are ambiguous: a warning, no price.
        let (none, diagnostics) = list.resolve(
            on: StorefrontFixtures.date("2026-12-01"), cardPrices: [])
        #expect(none["USA"] == nil)
        #expect(
            diagnostics.contains { $0.rule?.id == "apple-ambiguous" && $0.message.contains("USA") })
    }

    /// Subscription points: `proceedsYear2` is read; `adjustedEqualizations` is a link only.
    @Test func subscriptionPointsCarryProceedsYear2() throws {
        let file = try StorefrontFixtures.file("subscription-price-points.json")
        let p = try #require(file.pricePoints.first)
        #expect(p.customerPrice == Money(exact("9.99"), usd))
        #expect(p.proceeds?.amount == exact("6.99"))
        #expect(p.proceedsYear2?.amount == exact("8.49"))
    }
}
