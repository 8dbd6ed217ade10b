import Foundation
import Testing

@testable import RateCard

/// Issue 24, worst-case cases 20 and 21, through the library and the built binary.
@Suite(.serialized) struct WorstCaseTrustTests {
    // MARK: 20. A dimension charged 0 credits on a priced meter

    /// `packs` and `check` print the same single finding, `free-usage`, at the dimension.
    @Test func zeroCreditsOnAPricedMeterIsOneFreeUsageFinding() throws {
        let files = try StorefrontTrustFixture.files(card: [
            (
                #""name": "second", "unit": "second", "credits": 1,"#,
                #""name": "second", "unit": "second", "credits": 0,"#
            )
        ])
        let (repo, card) = try StorefrontTrustFixture.load(files)
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let shape = try #require(engine.freeUsage.first)
        let expected = shape.freeUsageDiagnostic(card: card)
        #expect(expected.rule == .check(.freeUsage))
        #expect(expected.location == card.feature("asr")?.dimensions.first?.location)

        let tmp = try StorefrontTrustFixture.folder(files)
        defer { tmp.cleanup() }
        let packs = try expectMargin(["packs", "osg"], in: tmp.path, exits: 1)
        let check = try expectMargin(
            ["check", "RateCards", "--now", StorefrontTrustFixture.draftTime], in: tmp.path,
            exits: 1)
        func lines(_ text: String, _ rule: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { $0.hasSuffix("[\(rule)]") }
        }
        let fromPacks = lines(packs.stderr, "free-usage")
        let fromCheck = lines(check.stderr, "free-usage")
        #expect(fromPacks.count == 1, "\(packs.stderr)")
        #expect(fromPacks == fromCheck, "packs: \(fromPacks)\ncheck: \(fromCheck)")
        #expect(
            fromCheck.first?.hasPrefix(
                "RateCards/osg-v10.json:13:9: error: osg@10: feature \"asr\", dimension \"second\": a request of 3 s is charged 0 credits"
            ) == true)
        #expect(lines(check.stderr, "free-price").isEmpty, "\(check.stderr)")
        // `storefronts` (and every command built on the engine) says the same.
        let storefronts = try expectMargin(
            ["storefronts", "osg", "--at", "2026-12-01"], in: tmp.path, exits: 1)
        #expect(lines(storefronts.stderr, "free-usage") == fromPacks, "\(storefronts.stderr)")
    }

    /// A dimension charged 0 credits that costs nothing is still `free-price`.
    @Test func zeroCreditsWithNoRunningCostIsFreePrice() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.editedCard(("\"credits\": 2,", "\"credits\": 0,"))
        ])
        defer { folder.cleanup() }
        try expectMargin(
            ["check", "."], in: folder.path, exits: 1,
            stderr: .all(
                .contains(
                    "card.json:11:54: error: feature \"summary\", dimension \"event\" is charged 0 credits",
                    "[free-price]"),
                .lacks("[free-usage]")))
    }

    // MARK: 21. Ties between worst-case plans

    /// Two dimensions billed at the same USD 0.01 a second: A charges 2 credits a second,
    /// B 3. Spending 3 credits, one second of A (2 credits, 1 left) and one second of B
    /// (3 credits, none left) both cost USD 0.01: the witness spends every credit.
    static let tie: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "tie", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [
          {"key": "a", "dimensions": [{"name": "second", "unit": "second", "credits": 2, "per": 1, "rounding": "up", "cost": {"provider": "p", "meter": "audio"}}]},
          {"key": "b", "dimensions": [{"name": "second", "unit": "second", "credits": 3, "per": 1, "rounding": "up", "cost": {"provider": "p", "meter": "audio"}}]}
         ],
         "packs": [{"productId": "p3", "type": "consumable", "credits": 3, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """,
        "p.json": """
        {"kind": "provider", "id": "p", "currency": "USD", "reviewed": "2026-01-01", "source": "https://example.com/p",
         "meters": [{"key": "audio", "unit": "second", "per": "1", "price": "0.01"}]}
        """,
    ]

    @Test func aTieReportsTheWitnessWithFewestUnspentCredits() throws {
        let repo = try repository(Self.tie)
        let card = try #require(repo.cards.first)
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        let w = try engine.worstCase(credits: 3, in: .usd, fx: .empty)
        #expect(w.cost.amount == exact("0.01"))
        #expect(w.unspent == 0)
        #expect(w.plan.map(\.shape.feature) == ["b"])
        // 5 credits: A + B (cost 0.02, none left) beats two of A (0.02, one left).
        let five = try engine.worstCase(credits: 5, in: .usd, fx: .empty)
        #expect(five.cost.amount == exact("0.02") && five.unspent == 0)
        // 4 credits: two of A (0.02, none left); the costliest shape per credit is A.
        let four = try engine.worstCase(credits: 4, in: .usd, fx: .empty)
        #expect(four.unspent == 0 && four.plan.map(\.shape.feature) == ["a"])
        let tmp = try WorstCaseCaseFixture.folder(Self.tie)
        defer { tmp.cleanup() }
        try expectMargin(
            ["packs"], in: tmp.path, exits: 0,
            stdout: .all(
                .contains("witness p3: 1 × 1 s of b.second for 3 credits"), .lacks("left unspent")))
        for _ in 0..<3 {
            try expectMargin(
                ["packs", "--format", "json"], in: tmp.path, exits: 0,
                stdout: .contains(#""unspentCredits": "0""#))
        }
    }
}
