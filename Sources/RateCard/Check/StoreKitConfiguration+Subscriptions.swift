/// `margin check --storekit`: the auto-renewable subscriptions of an Xcode StoreKit
/// configuration file against a card's subscription plans, both ways.
///
/// Read from `subscriptionGroups[].subscriptions[]` as Xcode writes them:
///
/// ```json
/// { "id" : "21482056", "name" : "talk", "subscriptions" : [ {
///     "productID" : "talk.plus.monthly", "recurringSubscriptionPeriod" : "P1M",
///     "displayPrice" : "28", "type" : "RecurringSubscription",
///     "introductoryOffer" : { "paymentMode" : "free", "subscriptionPeriod" : "P1W",
///                             "numberOfPeriods" : 1, "internalID" : "…" }, … } ] }
/// ```
///
/// `introductoryOffer` is `null` or absent without an offer; a paid offer also has its
/// `displayPrice` (per period pay as you go, the whole offer up front).
extension StoreKitConfiguration {
    /// One subscription of the file, with where its fields are written.
    struct Subscription: Sendable, Hashable {
        let productId: String
        /// The group's `name` (its reference name).
        let group: String?
        let period: SubscriptionPeriod?
        let price: Exact?
        let offer: Offer?
        let idLocation: SourceLocation
        let periodLocation: SourceLocation
        let priceLocation: SourceLocation
        let offerLocation: SourceLocation

        struct Offer: Sendable, Hashable {
            let paymentMode: String
            let period: SubscriptionPeriod?
            let periods: Int
            let price: Exact?
            let priceLocation: SourceLocation
        }
    }

    /// The auto-renewable subscriptions of the `.storekit` file at `path`, with its
    /// storefront and currency, as `StoreKitConfiguration.load` reads them (every shape
    /// Xcode writes; no `_storefront` is the USA); nil when the file cannot be loaded (the
    /// product check reports why). What that reader does not keep, the introductory offer
    /// and where `recurringSubscriptionPeriod` is written, is read here from the same JSON;
    /// a period or offer field that is not what Xcode writes goes into `problems`.
    static func subscriptions(path: String, problems: inout [Diagnostic]) -> (
        currency: Currency, storefront: String, items: [Subscription]
    )? {
        guard let configuration = try? StoreKitConfiguration.load(path: path),
            let bytes = try? FileBytes.read(path, what: "the StoreKit configuration"),
            let root = try? JSONParser.parseDocument(bytes, path: path)
        else { return nil }
        let r = FieldReader(path: path)
        // The subscription objects of every group, by product id, with their field paths.
        var nodes: [String: (node: JSONNode, field: String)] = [:]
        if case .array(let groups) = root["subscriptionGroups"]?.value {
            for (g, group) in groups.enumerated() {
                guard case .array(let subs) = group["subscriptions"]?.value else { continue }
                for (i, node) in subs.enumerated() {
                    if case .string(let id) = node["productID"]?.value, nodes[id] == nil {
                        nodes[id] = (node, "subscriptionGroups[\(g)].subscriptions[\(i)]")
                    }
                }
            }
        }
        var out: [Subscription] = []
        for product in configuration.products where product.type == "RecurringSubscription" {
            guard let (node, field) = nodes[product.id] else { continue }
            var period: SubscriptionPeriod?
            let periodNode = node["recurringSubscriptionPeriod"]
            if let text = product.subscriptionPeriod {
                period = SubscriptionPeriod(iso8601: text)
                if period == nil {
                    r.error(
                        "\(field).recurringSubscriptionPeriod: \"\(FieldReader.excerpt(text))\" is not an ISO 8601 period such as P1M",
                        at: periodNode?.location ?? product.location)
                }
            }
            var offer: Subscription.Offer?
            let offerNode = node["introductoryOffer"]
            if let offerNode, offerNode.value != .null,
                let m = r.object(offerNode, "\(field).introductoryOffer")
            {
                let mode =
                    m["paymentMode"].flatMap {
                        r.string($0.value, "\(field).introductoryOffer.paymentMode")
                    } ?? ""
                var offerPeriod: SubscriptionPeriod?
                if let n = m["subscriptionPeriod"]?.value,
                    let text = r.string(n, "\(field).introductoryOffer.subscriptionPeriod")
                {
                    offerPeriod = SubscriptionPeriod(iso8601: text)
                    if offerPeriod == nil {
                        r.error(
                            "\(field).introductoryOffer.subscriptionPeriod: \"\(FieldReader.excerpt(text))\" is not an ISO 8601 period such as P1W",
                            at: n.location)
                    }
                }
                let count =
                    m["numberOfPeriods"].flatMap {
                        r.integer(
                            $0.value, "\(field).introductoryOffer.numberOfPeriods", range: 1...1000)
                    } ?? 1
                var price: Exact?
                if let n = m["displayPrice"]?.value, !(n.value == .string("")) {
                    price = r.decimal(n, "\(field).introductoryOffer.displayPrice")
                }
                offer = .init(
                    paymentMode: mode, period: offerPeriod, periods: Int(count), price: price,
                    priceLocation: m["displayPrice"]?.value.location ?? offerNode.location)
            }
            out.append(
                Subscription(
                    productId: product.id, group: product.subscriptionGroup, period: period,
                    price: product.price, offer: offer,
                    idLocation: product.idLocation,
                    periodLocation: periodNode?.location ?? product.location,
                    priceLocation: product.priceLocation,
                    offerLocation: offerNode?.location ?? product.idLocation))
        }
        problems.append(contentsOf: r.diagnostics)
        return (configuration.currency, configuration.storefront, out)
    }

    /// Every disagreement between the file's subscriptions and `plans` of the card at
    /// `cardPath`, sorted: a subscription on one side only (`storekit-subscription`); a
    /// group, renewal period or introductory offer that differs
    /// (`storekit-subscription-terms`); a `displayPrice` that differs from the card's price
    /// in the storefront's currency (`storekit-price`).
    static func subscriptionMismatches(
        _ subs: [Subscription], plans: [SubscriptionPlan], currency: Currency, storefront: String,
        path: String, cardPath: String
    ) -> [Diagnostic] {
        var out: [Diagnostic] = []
        func report(
            _ rule: CheckRule, _ message: String, at location: SourceLocation,
            in file: String? = nil
        ) {
            out.append(
                Diagnostic(
                    path: file ?? path, location: location, message: message, rule: .check(rule)))
        }
        func show(_ v: Exact) -> String {
            "\(currency.code) \((try? v.formatted(scale: max(currency.minorUnits, v.terminatingScale ?? 0), rule: .halfEven)) ?? v.decimalText())"
        }
        let ids = Set(subs.map(\.productId))
        for s in subs {
            guard let plan = plans.first(where: { $0.productId == s.productId }) else {
                report(
                    .storeKitSubscription,
                    "subscription \"\(s.productId)\"\(s.group.map { " (group \"\($0)\")" } ?? "") is not a subscription of the card \(cardPath)",
                    at: s.idLocation)
                continue
            }
            if let g = s.group, g != plan.group {
                report(
                    .storeKitSubscriptionTerms,
                    "\"\(s.productId)\" is in subscription group \"\(g)\" here but in \"\(plan.group)\" in the card \(cardPath)",
                    at: s.idLocation)
            }
            if let p = s.period, p != plan.period {
                report(
                    .storeKitSubscriptionTerms,
                    "\"\(s.productId)\" renews every \(p) here but every \(plan.period) in the card \(cardPath)",
                    at: s.periodLocation)
            }
            let expected = price(plan.prices, currency: currency, storefront: storefront)
            if s.price == nil {
                report(
                    .storeKitNoPrice,
                    "\"\(s.productId)\" has no displayPrice in the StoreKit file (\"\"), but the card \(cardPath) \(expected.map { "prices it at \(show($0)) a period" } ?? "sells it")",
                    at: s.priceLocation)
            } else if let e = expected, let got = s.price, e != got {
                report(
                    .storeKitPrice,
                    "\"\(s.productId)\" has displayPrice \(show(got)) (storefront \(storefront)) but the card \(cardPath) prices it at \(show(e)) a period",
                    at: s.priceLocation)
            } else if expected == nil, let got = s.price {
                report(
                    .storeKitPrice,
                    "\"\(s.productId)\" has displayPrice \(show(got)) (storefront \(storefront)) but the card \(cardPath) has no \(currency.code) price for it",
                    at: s.priceLocation)
            }
            switch (plan.introductoryOffer, s.offer) {
            case (nil, nil): break
            case (let card?, nil):
                report(
                    .storeKitSubscriptionTerms,
                    "\"\(s.productId)\" has no introductoryOffer here but the card \(cardPath) gives a \(card.paymentMode.rawValue) offer of \(card.periods) × \(card.period)",
                    at: s.offerLocation)
            case (nil, let file?):
                report(
                    .storeKitSubscriptionTerms,
                    "\"\(s.productId)\" has a \(file.paymentMode) introductoryOffer here but the card \(cardPath) gives none",
                    at: s.offerLocation)
            case (let card?, let file?):
                if file.paymentMode != card.paymentMode.rawValue
                    || (file.period.map { $0 != card.period } ?? false)
                    || file.periods != card.periods
                {
                    report(
                        .storeKitSubscriptionTerms,
                        "\"\(s.productId)\" has a \(file.paymentMode) introductoryOffer of \(file.periods) × \(file.period?.description ?? "?") here but the card \(cardPath) gives \(card.paymentMode.rawValue) \(card.periods) × \(card.period)",
                        at: s.offerLocation)
                } else if card.paymentMode != .free, let got = file.price {
                    let e = price(card.prices, currency: currency, storefront: storefront)
                    if e != got {
                        report(
                            .storeKitPrice,
                            "\"\(s.productId)\" has an introductory displayPrice \(show(got)) but the card \(cardPath) prices the offer at \(e.map(show) ?? "nothing in \(currency.code)")",
                            at: file.priceLocation)
                    }
                }
            }
        }
        for plan in plans where !ids.contains(plan.productId) {
            report(
                .storeKitSubscription,
                "subscription \"\(plan.productId)\" has no product in the StoreKit configuration \(path)",
                at: plan.location, in: cardPath)
        }
        return out.sorted()
    }

    /// The price for `storefront`, else the one without a storefront, in `currency`.
    static func price(_ prices: [PackPrice], currency: Currency, storefront: String) -> Exact? {
        let inCurrency = prices.filter { $0.price.currency == currency }
        return
            (inCurrency.first { $0.storefront == storefront } ?? inCurrency.first {
                $0.storefront == nil
            } ?? inCurrency.first)?.price.amount
    }
}

extension CardChecker {
    /// The subscription findings of the `.storekit` file at `path` against the newest card
    /// that shares the most subscriptions with it (none when no card sells any).
    /// Ids in `ignore` (`--storekit-ignore`) are not compared.
    static func storeKitSubscriptionFindings(
        _ path: String, cards: [LoadedCard], ignore: Set<String> = [], problems: inout [Diagnostic]
    ) -> [Diagnostic] {
        guard let file = StoreKitConfiguration.subscriptions(path: path, problems: &problems) else {
            return []
        }
        let items = file.items.filter { !ignore.contains($0.productId) }
        let ids = Set(items.map(\.productId))
        let newest = Set(cards.map(\.card.id)).sorted().compactMap { id in
            cards.filter { $0.card.id == id }.max { $0.card.version < $1.card.version }
        }.filter { !$0.card.subscriptions.isEmpty }
        var best: (card: LoadedCard, shared: Int)?
        for c in newest {
            let shared = c.card.subscriptions.count { ids.contains($0.productId) }
            if best.map({ shared > $0.shared }) ?? true { best = (c, shared) }
        }
        guard let chosen = best?.card else { return [] }
        return StoreKitConfiguration.subscriptionMismatches(
            items, plans: chosen.card.subscriptions.filter { !ignore.contains($0.productId) },
            currency: file.currency,
            storefront: file.storefront, path: path, cardPath: chosen.file.path)
    }
}
