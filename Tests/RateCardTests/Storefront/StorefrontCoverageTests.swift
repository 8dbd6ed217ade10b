import Foundation
import Testing

@testable import RateCard

/// `margin storefronts` says which storefronts it left out: a card priced in USD and CNY
/// reaches only the storefronts of those currencies (and those Apple's files cover), and
/// "in every storefront" must not be said of 110 of 175.
@Suite struct StorefrontCoverageTests {
    /// territory → currency, read from the storefront file with Foundation's JSON parser,
    /// independently of the library's reader.
    static func currencies() throws -> [String: String] {
        let url = packageRoot.appendingPathComponent("RateCards/storefronts.json")
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: url))
        let root = try #require(object as? [String: Any])
        let territories = try #require(root["territories"] as? [[String: Any]])
        var out: [String: String] = [:]
        for t in territories {
            out[try #require(t["territory"] as? String)] = try #require(t["currency"] as? String)
        }
        return out
    }

    /// The independent answer: every storefront whose currency is not one `prices` has and
    /// that `covered` does not list, grouped by currency.
    static func expected(prices: Set<String>, covered: Set<String> = []) throws -> [String:
        [String]]
    {
        var out: [String: [String]] = [:]
        for (territory, currency) in try currencies()
        where !prices.contains(currency) && !covered.contains(territory) {
            out[currency, default: []].append(territory)
        }
        return out.mapValues { $0.sorted() }
    }

    static func grouped(_ c: StorefrontCoverage) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: c.missing.map { ($0.currency.code, $0.territories) })
    }

    @Test func osgWithoutApplesFilesShowsItsTwoCurrenciesOnly() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        let osg = try #require(repo.card(reference: "osg@10"))
        let m = try StorefrontMargins(
            card: osg, repository: repo, program: .standard,
            date: StorefrontFixtures.date("2026-12-01"))
        let coverage = try #require(m.coverage)
        let currencies = Set(osg.packs.flatMap { $0.prices.map(\.price.currency.code) })
        #expect(currencies == ["USD", "CNY"])
        let expected = try Self.expected(prices: currencies)
        #expect(Self.grouped(coverage) == expected)
        let all = try Self.currencies()
        #expect(coverage.total == all.count)
        #expect(coverage.shownCount == all.values.filter(currencies.contains).count)
        #expect(coverage.shownCount == Set(m.rows.map(\.territory)).count)
        // docs/storefronts.md's figures.
        #expect(coverage.shownCount == 110 && coverage.missingCount == 65 && coverage.total == 175)
        #expect(m.heading == "osg@10 in \(coverage.shownCount) of the \(all.count) storefronts")
        let note = try #require(coverage.note)
        #expect(note.hasPrefix("shown in \(coverage.shownCount) of the \(all.count) storefronts"))
        #expect(note.contains("EUR (AUT, BEL,"))
        #expect(!note.contains("USD ("))
    }

    /// Apple's files cover territories the card's own prices do not reach: those are shown,
    /// and only the rest is listed.
    @Test func applesFilesCoverWhatTheCardsPricesDoNot() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        let osg = try #require(repo.card(reference: "osg@10"))
        let lists = try StorefrontFixtures.list(
            "3000tks-equalizations-page1.json", "3000tks-equalizations-page2.json")
        let m = try StorefrontMargins(
            card: osg, repository: repo, priceLists: lists, program: .standard,
            date: StorefrontFixtures.date("2026-12-01"))
        let covered = Set(m.rows.filter { $0.proceedsSource == .apple }.map(\.territory))
        #expect(covered.contains("DEU"))
        let coverage = try #require(m.coverage)
        #expect(
            Self.grouped(coverage) == (try Self.expected(prices: ["USD", "CNY"], covered: covered)))
        #expect(coverage.missing.allSatisfy { !$0.territories.contains("DEU") })
    }

    /// A card that prices every currency of the data is "in every storefront", no note.
    @Test func everyStorefrontShownGivesNoNote() throws {
        let table = try CardRepository.load(paths: [repositoryCards]).storefronts
        let data = try #require(table)
        let all = StorefrontCoverage(data, shown: Set(data.storefronts.map(\.territory)))
        #expect(all.isComplete && all.note == nil && all.phrase == "in every storefront")
        let none = StorefrontCoverage(data, shown: [])
        #expect(none.shownCount == 0 && none.missingCount == data.storefronts.count)
    }
}
