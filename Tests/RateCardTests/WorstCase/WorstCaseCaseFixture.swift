import Foundation

/// Card sets for the worst-case regressions of issue 10 (items 1–5), as files for the
/// library (`repository(_:)`) and the binary (a temporary `RateCards/` folder).
enum WorstCaseCaseFixture {
    /// Item 1: a CNY ASR sheet and a USD LLM sheet, a pack priced in GBP, placeholder FX.
    ///
    /// ASR: 1 credit per started 3 s at CNY 4.5 an hour = CNY 0.00375 a credit = GBP
    /// 0.00375 / 9.2 a credit. LLM: 1 credit per started 1,000 output tokens at USD 2 per
    /// million = USD 0.002 a credit = GBP 0.002 / 1.25 = GBP 0.0016 a credit, the worse.
    static let twoCurrencies: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "mix", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [
          {"key": "asr", "dimensions": [{"name": "second", "unit": "second", "credits": 1, "per": 3, "rounding": "up", "cost": {"provider": "asr-cny", "meter": "audio"}}]},
          {"key": "llm", "dimensions": [{"name": "outputTokens", "unit": "token", "credits": 1, "per": 1000, "rounding": "up", "cost": {"provider": "llm-usd", "meter": "output"}}]}
         ],
         "grants": [{"key": "signup", "credits": 100}],
         "packs": [{"productId": "p1000", "type": "consumable", "credits": 1000, "prices": [{"currency": "GBP", "amount": "4.99"}]}]}
        """,
        "asr.json": """
        {"kind": "provider", "id": "asr-cny", "currency": "CNY", "reviewed": "2026-01-01", "source": "https://example.com/asr",
         "meters": [{"key": "audio", "unit": "hour", "per": "1", "price": "4.5"}]}
        """,
        "llm.json": """
        {"kind": "provider", "id": "llm-usd", "currency": "USD", "reviewed": "2026-01-01", "source": "https://example.com/llm",
         "meters": [{"key": "output", "unit": "token", "per": "1000000", "price": "2"}]}
        """,
        "fx.json": """
        {"kind": "fx", "date": "2026-01-01", "placeholder": true, "source": "placeholder rates",
         "rates": [{"base": "GBP", "quote": "CNY", "rate": "9.2"}, {"base": "GBP", "quote": "USD", "rate": "1.25"}]}
        """,
    ]

    /// Item 2: a schedule whose windows cover the whole week (default `base` ×9 unused), a
    /// window with no days (`ghost` ×7) and a multiplier no window names (`unused` ×8). The
    /// periods in force are `day` ×2 and `night` ×1: the worst case is `day`.
    static let schedules: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "sched", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [{"key": "asr", "dimensions": [{"name": "second", "unit": "second", "credits": 1, "per": 1, "rounding": "up", "cost": {"provider": "sched", "meter": "audio"}}]}],
         "packs": [{"productId": "p100", "type": "consumable", "credits": 100, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """,
        "sched.json": """
        {"kind": "provider", "id": "sched", "currency": "USD", "reviewed": "2026-01-01", "source": "https://example.com/s",
         "meters": [{"key": "audio", "unit": "second", "per": "1", "price": "0.001"}],
         "schedule": {"utcOffset": "+08:00", "default": "base",
          "windows": [
           {"period": "day", "days": ["mon","tue","wed","thu","fri","sat","sun"], "from": "00:00", "until": "12:00"},
           {"period": "night", "days": ["mon","tue","wed","thu","fri","sat","sun"], "from": "12:00", "until": "24:00"},
           {"period": "ghost", "days": [], "from": "09:00", "until": "10:00"}
          ],
          "multipliers": {"base": "9", "day": "2", "night": "1", "ghost": "7", "unused": "8"}}}
        """,
    ]

    /// Item 3: nothing on the card has a running cost.
    static let nothingCosts: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "free", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [{"key": "summary", "dimensions": [{"name": "event", "unit": "event", "credits": 2, "per": 1, "rounding": "up", "cost": {"none": "runs on the device"}}]}],
         "packs": [{"productId": "p500", "type": "consumable", "credits": 500, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """
    ]

    /// Item 4: one feature with two dimensions rounded down below one interval, both free.
    static let twoFreeDimensions: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "leaky", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [{"key": "llm", "dimensions": [
           {"name": "inputTokens", "unit": "token", "credits": 1, "per": 1000, "rounding": "down", "cost": {"provider": "llm", "meter": "input"}},
           {"name": "outputTokens", "unit": "token", "credits": 1, "per": 400, "rounding": "down", "cost": {"provider": "llm", "meter": "output"}}]}],
         "packs": [{"productId": "p100", "type": "consumable", "credits": 100, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """,
        "llm.json": """
        {"kind": "provider", "id": "llm", "currency": "USD", "reviewed": "2026-01-01", "source": "https://example.com/llm",
         "meters": [{"key": "input", "unit": "token", "per": "1000000", "price": "1"}, {"key": "output", "unit": "token", "per": "1000000", "price": "4"}]}
        """,
    ]

    /// Item 5: a request that costs USD 0.0000000000004, exactly (13 places).
    static let tinyCost: [String: String] = [
        "card.json": """
        {"kind": "card", "id": "tiny", "version": 1, "effective": "2026-01-01T00:00:00Z", "creditUnit": {"name": "credit", "priceStep": 1},
         "features": [{"key": "ping", "dimensions": [{"name": "request", "unit": "request", "credits": 1, "per": 1, "rounding": "up", "cost": {"provider": "tiny", "meter": "call"}}]}],
         "packs": [{"productId": "p1", "type": "consumable", "credits": 1, "prices": [{"currency": "USD", "amount": "0.99"}]}]}
        """,
        "tiny.json": """
        {"kind": "provider", "id": "tiny", "currency": "USD", "reviewed": "2026-01-01", "source": "https://example.com/tiny",
         "meters": [{"key": "call", "unit": "request", "per": "1", "price": "0.0000000000004"}]}
        """,
    ]

    /// The files in a temporary folder's `RateCards/`, for the binary.
    static func folder(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for (name, text) in files { try folder.write("RateCards/" + name, text) }
        return folder
    }
}
