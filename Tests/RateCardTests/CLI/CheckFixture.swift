import Foundation

/// A small rate-card folder for `margin check` tests: one whole-credit card with a metered
/// feature and a free-of-cost one, and a USD provider sheet, written into a temporary folder.
///
/// Line numbers matter: the tests expect findings at exact places in `card`.
enum CheckFixture {
    static let card = """
        {
          "kind": "card",
          "id": "demo",
          "version": 1,
          "effective": "2026-01-01T00:00:00Z",
          "creditUnit": { "name": "credit", "priceStep": 1 },
          "features": [
            { "key": "asr", "dimensions": [
              { "name": "second", "unit": "second", "credits": 1, "per": 3, "rounding": "up", "cost": { "provider": "demo-asr", "meter": "audio" } } ] },
            { "key": "summary", "dimensions": [
              { "name": "event", "unit": "event", "credits": 2, "per": 1, "rounding": "up", "cost": { "none": "runs on the device" } } ] }
          ],
          "grants": [
            { "key": "signup", "credits": 100 }
          ],
          "packs": [
            { "productId": "p1000", "type": "consumable", "credits": 1000,
              "prices": [ { "currency": "USD", "amount": "0.99" } ] }
          ]
        }

        """

    /// A time before `card` takes effect (2026-01-01): the card is still a draft then.
    static let beforeEffective = "2025-06-01T00:00:00Z"

    /// USD 0.36 an hour: 1,000 credits of 3 s cost USD 0.30, well inside a USD 0.99 pack.
    static let provider = """
        {
          "kind": "provider", "id": "demo-asr", "currency": "USD", "reviewed": "2026-01-01",
          "source": "https://example.com/pricing",
          "meters": [ { "key": "audio", "unit": "hour", "per": "1", "price": "0.36" } ]
        }

        """

    /// Version 2 of the card, with `summary` dropped (not retired) and a later effective time.
    static let cardV2 =
        card
        .replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        .replacingOccurrences(of: "2026-01-01T00:00:00Z", with: "2026-02-01T00:00:00Z")
        .replacingOccurrences(of: "\"key\": \"summary\"", with: "\"key\": \"notes\"")

    /// A StoreKit configuration for the USA storefront selling `p1000` at `price`.
    static func storeKit(price: String) -> String {
        """
        {
          "products" : [
            {
              "displayPrice" : "\(price)",
              "productID" : "p1000",
              "referenceName" : "1,000 credits",
              "type" : "Consumable"
            }
          ],
          "settings" : { "_storefront" : "USA" },
          "version" : { "major" : 4, "minor" : 0 }
        }

        """
    }

    /// A lock with one entry.
    static func lock(
        card: String = "demo", version: Int = 1, file: String = "card.json",
        sha256: String = String(repeating: "a", count: 64)
    ) -> String {
        """
        {
          "kind": "lock",
          "published": [
            {"card": "\(card)", "version": \(version), "file": "\(file)", "sha256": "\(sha256)"}
          ]
        }

        """
    }

    /// The card with each `(old, new)` replacement made once; fails loudly if `old` is absent.
    static func editedCard(_ edits: (String, String)...) -> String {
        var text = card
        for (old, new) in edits {
            precondition(text.contains(old), "fixture edit: \(old) not found")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// A temporary folder holding `files` (name → text); the provider sheet is added unless
    /// `files` names its own `provider.json`.
    static func folder(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        var all = files
        if all["provider.json"] == nil { all["provider.json"] = provider }
        for (name, text) in all { try folder.write(name, text) }
        return folder
    }
}
