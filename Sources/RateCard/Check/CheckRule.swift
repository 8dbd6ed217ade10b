/// The stable ids of `margin check`'s rules, as printed in `[rule]` and used by CI.
///
/// An id never changes once released: CI configurations and `docs/check.md` refer to it.
enum CheckRule: String, Sendable, Hashable, CaseIterable {
    /// A feature dimension, pack price, pack or grant that gives credits or usage away:
    /// zero or negative.
    case freePrice = "free-price"
    /// A dimension's credits that are not a whole multiple of the card's
    /// `creditUnit.priceStep` (whole pence on the voice card).
    case priceStep = "price-step"
    /// A pack price with more decimals than its currency has (USD 0.999, JPY 1.5).
    case currencyDecimals = "currency-decimals"
    /// A feature key that is not a stable identifier.
    case featureKey = "feature-key"
    /// A feature key written twice in one card.
    case duplicateFeature = "duplicate-feature"
    /// A key of an earlier version that is gone without being listed in `retired`.
    case featureRemoved = "feature-removed"
    /// Effective times that do not increase with the version, or a version given twice.
    case versionOrder = "version-order"
    /// A published card whose canonical content no longer matches its lock entry.
    case publishedCardEdited = "published-card-edited"
    /// A lock entry whose card file is gone or holds another card: history is priced by it.
    case publishedCardMissing = "published-card-missing"
    /// A card with no lock entry yet (a warning: drafts may change).
    case unpublishedCard = "unpublished-card"
    /// A request that is charged no credits but costs a provider money.
    case freeUsage = "free-usage"
    /// A quota or allowance that a request can use without using any of it, while the
    /// request costs a provider money.
    case quotaFreeUsage = "quota-free-usage"
    /// A pack whose worst-case margin at the highest commission is below the floor, or a
    /// subscription period whose worst-case margin in year one or after it is.
    case minMargin = "min-margin"
    /// A pack whose worst-case margin in one storefront (Apple's proceeds, or modelled from
    /// the storefront data) is below the floor.
    case storefrontMargin = "storefront-margin"
    /// The worst case of a card cannot be computed exactly (search or arithmetic limits).
    case worstCase = "worst-case"
    /// A consumable in the StoreKit file that no pack of the card sells.
    case storeKitUnknownProduct = "storekit-unknown-product"
    /// A pack that the StoreKit file does not list.
    case storeKitMissingProduct = "storekit-missing-product"
    /// A product whose StoreKit type differs from the pack's.
    case storeKitType = "storekit-type"
    /// A product whose StoreKit price differs from the pack's price in that currency.
    case storeKitPrice = "storekit-price"
    /// A subscription in the StoreKit file that the card does not sell, or the other way.
    case storeKitSubscription = "storekit-subscription"
    /// A subscription whose group, renewal period or introductory offer differs.
    case storeKitSubscriptionTerms = "storekit-subscription-terms"
    /// A StoreKit product with no price (`"displayPrice": ""`).
    case storeKitNoPrice = "storekit-no-price"
    /// Products of a StoreKit file that are not compared with packs (non-consumables,
    /// subscriptions, ignored ids): how many, so that nothing is skipped without a word.
    case storeKitSkipped = "storekit-skipped"
    /// A schedule period of a provider sheet that no instant can be in (never priced).
    case periodNeverInForce = "period-never-in-force"
    /// Cards already in force with no publish lock at all: nothing guards them.
    case lockMissing = "lock-missing"
    /// Storefront warnings (see docs/storefronts.md): Apple's proceeds differ from the
    /// modelled ones; no FX rate into the territory's currency; Apple's currency differs
    /// from the storefront file's; no proceeds at all.
    case storefrontCrossCheck = "storefront-cross-check"
    case storefrontFX = "storefront-fx"
    case storefrontCurrency = "storefront-currency"
    case storefrontProceeds = "storefront-proceeds"
    /// No commission regime of the program is in force on the date: proceeds cannot be
    /// modelled.
    case storefrontRegime = "storefront-regime"
    /// A card price for a storefront that is no App Store territory (`XYZ`), in another
    /// currency than the territory's, or given twice for one territory.
    case storefrontPrice = "storefront-price"
    /// Apple's price in a territory differs from the card's price there (the card's own
    /// currency): the wrong file is bound, or the card is out of date.
    case applePrice = "apple-price"
    /// App Store Connect file warnings: a page not given; proceeds "0.0" beside a price;
    /// several points and none is the card's price; two prices in force on one day.
    case applePaging = "apple-paging"
    case appleProceeds = "apple-proceeds"
    case appleAmbiguous = "apple-ambiguous"
    case appleSchedule = "apple-schedule"
    /// An introductory offer with no price where its plan is sold (the row's offer is
    /// unpriced), or an offer price where the plan is not sold (never used).
    case offerCurrency = "offer-currency"
    /// The same card version defined in two files of one repository.
    case duplicateVersion = "duplicate-version"
    /// `margin publish` of a version already published with another digest.
    case alreadyPublished = "already-published"

    /// The rules about the publish lock rather than a card's content: `margin publish`
    /// ignores them when it checks a card before recording it.
    static let lockRules: Set<CheckRule> = [
        .publishedCardEdited, .publishedCardMissing, .unpublishedCard, .lockMissing,
    ]
}
