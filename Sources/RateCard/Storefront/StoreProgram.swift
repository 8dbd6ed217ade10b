/// The App Store commission program a sale falls under. Which rate each program takes, in
/// which storefronts and from which date, is data: the `commission` regimes of the storefront
/// file (`RateCards/storefronts.json`).
enum StoreProgram: String, Sendable, Hashable, CaseIterable, OptionChoice {
    /// The standard commission (30% on most storefronts).
    case standard
    /// The App Store Small Business Program (15% on most storefronts).
    case smallBusiness = "small-business"
    /// An auto-renewable subscription after its subscriber's first paid year (15%).
    case subscriptionAfterOneYear = "subscription-after-one-year"
    /// The Mini Apps Partner Program (15%; 12% in China mainland from 2026-03-15).
    case miniAppsPartner = "mini-apps-partner"
    /// The EU alternative business terms of 2024 (17% commission + 3% payment processing),
    /// in the EU storefronts only.
    case euAlternative = "eu-alternative"
    /// The EU alternative terms' reduced rate (10% + 3% payment processing) for the Small
    /// Business Program and subscriptions after their first year.
    case euAlternativeReduced = "eu-alternative-reduced"
    /// The EU terms of 2025-06-26 for purchases linked out of the app (initial acquisition
    /// fee, store services fee and core technology commission; no payment processing).
    case euLinkOut = "eu-link-out"

    static let noun = "program"

    /// The program named `text` ("standard", "small-business", …), or nil.
    init?(name text: String) {
        self.init(rawValue: text)
    }
}
