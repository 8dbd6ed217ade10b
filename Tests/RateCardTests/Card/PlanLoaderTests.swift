import Testing

@testable import RateCard

/// Bad input in every new field of the card format, each with its file, line, column and
/// field.
@Suite struct PlanLoaderTests {
    /// A plan with `extra` fields added (JSON members, comma-led), on line 2 of the plans.
    static func plan(_ extra: String = "", period: String = "P1M") -> String {
        """
        [
         {"productId": "p", "group": "g", "period": "\(period)", "prices": [{"currency": "CNY", "amount": "10"}]\(extra)}
        ]
        """
    }

    /// Loads a card whose `subscriptions` are `plans`; a one-plan list has its plan on line 10.
    func diagnostics(_ plans: String, freeTier: String? = nil) -> [Diagnostic] {
        loadDiagnostics(
            PlanFixtures.card(subscriptions: plans, freeTier: freeTier), path: "plans.json")
    }

    @Test func theExampleLoads() throws {
        let (_, card) = try PlanFixtures.example()
        #expect(card.subscriptions.map(\.productId) == ["talk.plus.monthly", "talk.pro.monthly"])
        #expect(card.subscriptions[1].quotas[0].amount == 1200)  // 20 minutes, in seconds
        #expect(card.subscriptions[1].quotas[0].reset == .day)
        #expect(card.subscriptions[1].quotas[1].reset == .month)  // the plan's period by default
        #expect(card.subscriptions[0].introductoryOffer?.paymentMode == .free)
        #expect(card.freeTier?.allowances.count == 2)
    }

    @Test(arguments: [
        (plan(period: "P5M"), "subscriptions[0].period: unknown period \"P5M\"", 10),
        (plan(period: "P1D"), "subscriptions[0].period: unknown period \"P1D\"", 10),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": -30}]"#),
            "subscriptions[0].quotas[0].amount: a quota must be a positive amount, found -30", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 0}]"#),
            "subscriptions[0].quotas[0].amount: a quota must be a positive amount, found 0", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "dimension": "minutes", "amount": 30}]"#),
            "subscriptions[0].quotas[0].dimension: feature \"asr\" has no dimension \"minutes\"", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asrr", "amount": 30}]"#),
            "subscriptions[0].quotas[0].feature: \"asrr\" is not a feature of the card; did you mean \"asr\"?",
            10
        ),
        (
            plan(#", "allowances": [{"feature": "local", "amount": 30}]"#),
            "subscriptions[0].allowances[0].feature: local.character has no running cost (on the device)",
            10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 30, "reset": "P1Y"}]"#),
            "subscriptions[0].quotas[0].reset: P1Y can last longer than the period P1M", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 30, "reset": "P2D"}]"#),
            "subscriptions[0].quotas[0].reset: unknown period \"P2D\"", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 31}]"#),
            "subscriptions[0].quotas[0].amount: 31 s is not a whole number of the card's intervals of asr.second (3 s)",
            10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 2, "unit": "token"}]"#),
            "subscriptions[0].quotas[0].unit: token does not convert into second", 10
        ),
        (
            plan(
                #", "quotas": [{"feature": "asr", "amount": 3}, {"feature": "asr", "amount": 6}]"#),
            "subscriptions[0].quotas[1]: asr.second already has a quota at line 10", 10
        ),
        (
            plan(#", "quotas": [{"feature": "asr", "amount": 3, "per": "P1D"}]"#),
            "subscriptions[0].quotas[0].per: unknown field", 10
        ),
        (plan(#", "credits": -5"#), "subscriptions[0].credits: must not be negative, found -5", 10),
        (
            plan(#", "introductoryOffer": {"paymentMode": "trial", "period": "P1W"}"#),
            "subscriptions[0].introductoryOffer.paymentMode: \"trial\" is not one of \"free\", \"payAsYouGo\", \"payUpFront\"",
            10
        ),
        (
            plan(#", "introductoryOffer": {"paymentMode": "free", "period": "P5D"}"#),
            "subscriptions[0].introductoryOffer.period: unknown period \"P5D\"", 10
        ),
        (
            plan(#", "introductoryOffer": {"paymentMode": "free", "period": "P1W", "prices": []}"#),
            "subscriptions[0].introductoryOffer.prices: a free trial has no price", 10
        ),
        (
            plan(#", "introductoryOffer": {"paymentMode": "payUpFront", "period": "P3M"}"#),
            "subscriptions[0].introductoryOffer.prices: missing: a payUpFront offer needs its price",
            10
        ),
        (
            plan(
                #", "introductoryOffer": {"paymentMode": "payAsYouGo", "period": "P1W", "prices": [{"currency": "CNY", "amount": "1"}]}"#
            ),
            "subscriptions[0].introductoryOffer.period: a pay-as-you-go offer is priced per renewal period, P1M, not P1W",
            10
        ),
        (
            plan(
                #", "introductoryOffer": {"paymentMode": "payAsYouGo", "period": "P1M", "prices": [{"currency": "CNY", "amount": "0"}]}"#
            ), "subscriptions[0].introductoryOffer.prices: CNY 0 is not a positive price", 10
        ),
        (
            plan(#", "introductoryOffer": {"paymentMode": "free", "period": "P1W", "periods": 0}"#),
            "subscriptions[0].introductoryOffer.periods: 0 is out of range", 10
        ),
    ])
    func badPlanField(plans: String, message: String, line: Int) throws {
        let d = diagnostics(plans)
        let hit = try #require(
            d.first { $0.message.hasPrefix(message) }, "expected \(message) in \(d.map(\.rendered))"
        )
        #expect(hit.path == "plans.json")
        #expect(hit.location.line == line)
        #expect(hit.location.column > 1)
    }

    @Test func missingFieldsAreNamed() {
        let d = diagnostics(#"[{"productId": "p"}]"#)
        let messages = Set(d.map(\.message))
        #expect(messages.contains("subscriptions[0].group: missing required field"))
        #expect(messages.contains("subscriptions[0].period: missing required field"))
        #expect(messages.contains("subscriptions[0].prices: missing required field"))
    }

    @Test func aProductIsAPackOrASubscription() {
        let card = PlanFixtures.card(subscriptions: Self.plan()).replacingOccurrences(
            of: "\"subscriptions\":",
            with:
                "\"packs\": [{\"productId\": \"p\", \"type\": \"consumable\", \"credits\": 5, \"prices\": []}],\n \"subscriptions\":"
        )
        let d = loadDiagnostics(card, path: "plans.json")
        #expect(
            d.contains {
                $0.message.hasPrefix("subscriptions[0].productId: \"p\" is already a pack")
            })
    }

    @Test func freeTierFields() throws {
        let bad = diagnostics("[]", freeTier: #"{"period": "P1Q", "allowances": []}"#)
        #expect(
            bad.contains {
                $0.message.hasPrefix("freeTier.period: unknown period \"P1Q\"")
                    && $0.location.line == 10
            })
        let noCost = diagnostics(
            "[]", freeTier: #"{"allowances": [{"feature": "local", "amount": 5}]}"#)
        #expect(
            noCost.contains {
                $0.message.hasPrefix(
                    "freeTier.allowances[0].feature: local.character has no running cost")
            })
        let missing = diagnostics("[]", freeTier: #"{"period": "P1M"}"#)
        #expect(missing.contains { $0.message == "freeTier.allowances: missing required field" })
        let negative = diagnostics(
            "[]", freeTier: #"{"allowances": [{"feature": "asr", "amount": "-3"}]}"#)
        #expect(
            negative.contains {
                $0.message.hasPrefix(
                    "freeTier.allowances[0].amount: an allowance must be a positive amount")
            })
    }
}
