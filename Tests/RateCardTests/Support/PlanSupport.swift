import Foundation

@testable import RateCard

/// The example plan card of `docs/examples/plans/`, and small cards built around one plan.
enum PlanFixtures {
    static let exampleFolder = packageRoot.appendingPathComponent("docs/examples/plans").path

    static func example() throws -> (CardRepository, RateCard) {
        let repo = try CardRepository.load(paths: [exampleFolder])
        guard let card = repo.card(reference: "talk@1") else { throw Diagnostics([]) }
        return (repo, card)
    }

    /// A provider sheet in CNY with one meter, `increment` and `minimum` in seconds.
    static func provider(
        price: String = "3.6", per: String = "3600", increment: String? = nil,
        minimum: String? = nil
    ) -> String {
        var meter =
            "\"key\": \"audio\", \"unit\": \"second\", \"per\": \"\(per)\", \"price\": \"\(price)\""
        if let increment { meter += ", \"increment\": \"\(increment)\"" }
        if let minimum { meter += ", \"minimum\": \"\(minimum)\"" }
        return """
            {"kind": "provider", "id": "asr-sheet", "currency": "CNY", "reviewed": "2026-11-01", "source": "https://example.com",
             "meters": [{\(meter)}]}
            """
    }

    /// A card with an `asr` feature (`credits` per `per` seconds, `rounding`), and
    /// `subscriptions` / `freeTier` JSON spliced in.
    static func card(
        per: Int = 3, rounding: String = "up", subscriptions: String = "[]", freeTier: String? = nil
    ) -> String {
        """
        {"kind": "card", "id": "t", "version": 1, "effective": "2026-12-01T00:00:00Z",
         "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [
           {"key": "asr", "dimensions": [{"name": "second", "unit": "second", "credits": 1, "per": \(per), "rounding": "\(rounding)",
                                          "cost": {"provider": "asr-sheet", "meter": "audio"}}]},
           {"key": "local", "dimensions": [{"name": "character", "unit": "character", "credits": 1, "per": 1, "rounding": "up",
                                            "cost": {"none": "on the device"}}]}
         ],
         "subscriptions": \(subscriptions)\(freeTier.map { ",\n \"freeTier\": \($0)" } ?? "")}
        """
    }

    static func repository(card: String, provider: String = provider()) throws -> (
        CardRepository, RateCard
    ) {
        let repo = try RateCardTests.repository(["t.json": card, "providers/asr.json": provider])
        guard let c = repo.cards.first else { throw Diagnostics([]) }
        return (repo, c)
    }
}

let cny = Currency(code: "CNY")!
func cnyMoney(_ s: String) -> Money { Money(exact(s), cny) }
