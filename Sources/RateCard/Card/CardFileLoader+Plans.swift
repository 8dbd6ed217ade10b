/// Reading `subscriptions[]` and `freeTier`: auto-renewable plans, their quotas and
/// allowances, introductory offers, and the free tier.
extension CardFileLoader {
    static func readSubscriptions(
        _ node: JSONNode, features: [Feature], packs: [Pack], _ r: FieldReader
    ) -> [SubscriptionPlan] {
        guard let items = r.array(node, "subscriptions") else { return [] }
        var plans: [SubscriptionPlan] = []
        for (i, item) in items.enumerated() {
            let field = "subscriptions[\(i)]"
            guard let plan = readPlan(item, field, features: features, r) else { continue }
            if let first = plans.first(where: { $0.productId == plan.productId }) {
                r.error(
                    "\(field).productId: product \"\(plan.productId)\" appears twice (first at line \(first.location.line))",
                    at: plan.location)
                continue
            }
            if let pack = packs.first(where: { $0.productId == plan.productId }) {
                r.error(
                    "\(field).productId: \"\(plan.productId)\" is already a pack (line \(pack.location.line)): one App Store product is either a pack or a subscription",
                    at: plan.location)
                continue
            }
            plans.append(plan)
        }
        return plans
    }

    static func readPlan(_ node: JSONNode, _ field: String, features: [Feature], _ r: FieldReader)
        -> SubscriptionPlan?
    {
        let allowed: Set<String> = [
            "productId", "group", "period", "prices", "credits", "quotas", "allowances",
            "introductoryOffer", "placeholder", "name", "note",
        ]
        guard let m = r.object(node, field, allowed: allowed) else { return nil }
        let id = r.required(m, "productId", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).productId")
        }
        let group = r.required(m, "group", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).group")
        }
        let period = r.required(m, "period", in: field, at: node.location).flatMap {
            readPeriod(
                $0, "\(field).period", allowed: SubscriptionPeriod.renewalPeriods,
                what: "StoreKit's renewal periods", r)
        }
        var prices: [PackPrice] = []
        if let pn = r.required(m, "prices", in: field, at: node.location) {
            prices = readPrices(pn, "\(field).prices", r)
            if case .array(let a) = pn.value, a.isEmpty {
                r.error("\(field).prices: a subscription needs at least one price", at: pn.location)
            }
        }
        let credits =
            m["credits"].flatMap { n -> Int128? in
                guard
                    let c = r.integer(n.value, "\(field).credits", range: -maxCredits...maxCredits)
                else { return nil }
                if c.signum() < 0 {
                    r.error(
                        "\(field).credits: must not be negative, found \(c)", at: n.value.location)
                    return nil
                }
                return c
            } ?? 0
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        _ = m["name"].flatMap { r.string($0.value, "\(field).name") }
        _ = m["note"].flatMap { r.string($0.value, "\(field).note") }
        var quotas: [UsageLimit] = []
        var allowances: [UsageLimit] = []
        if let period {
            quotas =
                m["quotas"].map {
                    limits(
                        $0.value, "\(field).quotas", kind: .quota, period: period,
                        features: features, r)
                } ?? []
            allowances =
                m["allowances"].map {
                    limits(
                        $0.value, "\(field).allowances", kind: .allowance, period: period,
                        features: features, r)
                } ?? []
            for a in allowances {
                if let q = quotas.first(where: {
                    $0.feature == a.feature && $0.dimension == a.dimension
                }) {
                    r.error(
                        "\(field).allowances: \(a.feature).\(a.dimension) already has a quota at line \(q.location.line): give a dimension a quota or an allowance, not both",
                        at: a.location)
                }
            }
        }
        let offer = period.flatMap { p in
            m["introductoryOffer"].flatMap {
                readOffer($0.value, "\(field).introductoryOffer", planPeriod: p, r)
            }
        }
        guard let id, let group, let period else { return nil }
        return SubscriptionPlan(
            productId: id, group: group, period: period, prices: prices, credits: credits,
            quotas: quotas, allowances: allowances, introductoryOffer: offer,
            placeholder: placeholder, location: node.location)
    }

    static func readFreeTier(_ node: JSONNode, features: [Feature], _ r: FieldReader) -> FreeTier? {
        let field = "freeTier"
        guard let m = r.object(node, field, allowed: ["period", "allowances", "note"]) else {
            return nil
        }
        var period: SubscriptionPeriod? = .month
        if let n = m["period"]?.value {
            period = readPeriod(
                n, "\(field).period", allowed: SubscriptionPeriod.renewalPeriods,
                what: "the periods a free tier is reported per", r)
        }
        _ = m["note"].flatMap { r.string($0.value, "\(field).note") }
        guard let period else { return nil }
        let allowances =
            r.required(m, "allowances", in: field, at: node.location).map {
                limits(
                    $0, "\(field).allowances", kind: .allowance, period: period, features: features,
                    r)
            } ?? []
        return FreeTier(period: period, allowances: allowances, location: node.location)
    }

    /// `quotas[]` or `allowances[]`: `{feature, dimension?, amount, unit?, reset?}`.
    static func limits(
        _ node: JSONNode, _ field: String, kind: UsageLimit.Kind, period: SubscriptionPeriod,
        features: [Feature], _ r: FieldReader
    ) -> [UsageLimit] {
        guard let items = r.array(node, field) else { return [] }
        var out: [UsageLimit] = []
        for (i, item) in items.enumerated() {
            guard
                let limit = readLimit(
                    item, "\(field)[\(i)]", kind: kind, period: period, features: features, r)
            else { continue }
            if let first = out.first(where: {
                $0.feature == limit.feature && $0.dimension == limit.dimension
            }) {
                r.error(
                    "\(field)[\(i)]: \(limit.feature).\(limit.dimension) already has \(kind.article) at line \(first.location.line): give one per dimension",
                    at: limit.location)
                continue
            }
            out.append(limit)
        }
        return out
    }

    static func readLimit(
        _ node: JSONNode, _ field: String, kind: UsageLimit.Kind, period: SubscriptionPeriod,
        features: [Feature], _ r: FieldReader
    ) -> UsageLimit? {
        guard
            let m = r.object(
                node, field, allowed: ["feature", "dimension", "amount", "unit", "reset", "note"])
        else { return nil }
        let featureNode = r.required(m, "feature", in: field, at: node.location)
        let feature = featureNode.flatMap { n -> Feature? in
            guard let key = r.string(n, "\(field).feature") else { return nil }
            guard let f = features.first(where: { $0.key == key }) else {
                let hint =
                    FieldReader.didYouMean(key, in: features.map(\.key))
                r.error(
                    "\(field).feature: \"\(FieldReader.excerpt(key))\" is not a feature of the card\(hint)",
                    at: n.location)
                return nil
            }
            return f
        }
        let dimension = feature.flatMap { limitDimension(of: $0, m, field, at: node, r) }
        let unit = m["unit"].flatMap { meterUnit($0.value, "\(field).unit", r) }
        let amountNode = r.required(m, "amount", in: field, at: node.location)
        var amount = amountNode.flatMap { n -> Int128? in
            guard let a = r.integer(n, "\(field).amount", range: -maxCredits...maxCredits) else {
                return nil
            }
            if a.signum() <= 0 {
                r.error(
                    "\(field).amount: \(kind.article) must be a positive amount, found \(a)",
                    at: n.location)
                return nil
            }
            return a
        }
        var reset: SubscriptionPeriod? = period
        if let n = m["reset"]?.value {
            reset = readPeriod(
                n, "\(field).reset", allowed: SubscriptionPeriod.resetPeriods,
                what: "the periods a \(kind.rawValue) resets after", r)
        }
        if let reset, let resetNode = m["reset"]?.value, !period.holds(reset) {
            r.error(
                "\(field).reset: \(reset) can last longer than the period \(period): \(kind.article) must reset at least once a period",
                at: resetNode.location)
        }
        guard let feature, let dimension, let amountNode, let a = amount, let reset else {
            return nil
        }
        if case .none(let reason) = dimension.cost, kind == .allowance {
            r.error(
                "\(field).feature: \(feature.key).\(dimension.name) has no running cost (\(reason)): an allowance of it costs nothing; drop it",
                at: featureNode?.location ?? node.location)
            return nil
        }
        // Written in another unit of time (minutes for a dimension in seconds): convert.
        if let u = unit, u != dimension.unit {
            guard let factor = u.size(in: dimension.unit) else {
                r.error(
                    "\(field).unit: \(u.rawValue) does not convert into \(dimension.unit.rawValue), the unit of \(feature.key).\(dimension.name)",
                    at: m["unit"]?.value.location ?? node.location)
                return nil
            }
            guard let v = try? Exact(integer: a).multiplied(by: factor), let whole = v.integerValue,
                whole <= maxCredits
            else {
                r.error(
                    "\(field).amount: \(a) \(u.rawValue)s is not a whole number of \(dimension.unit.rawValue)s within 10^15",
                    at: amountNode.location)
                return nil
            }
            amount = whole
        }
        guard let units = amount else { return nil }
        guard units % dimension.per == 0 else {
            r.error(
                "\(field).amount: \(units) \(dimension.unit.abbreviation) is not a whole number of the card's intervals of \(feature.key).\(dimension.name) (\(dimension.per) \(dimension.unit.abbreviation)): usage is counted in started intervals",
                at: amountNode.location)
            return nil
        }
        return UsageLimit(
            kind: kind, feature: feature.key, dimension: dimension.name, amount: units,
            reset: reset,
            location: node.location, amountLocation: amountNode.location)
    }

    /// The dimension of `feature` a limit names: `dimension`, or the feature's only one.
    /// Nil, with the problem recorded, when it names none of them or must name one.
    static func limitDimension(
        of feature: Feature, _ m: [String: JSONMember], _ field: String, at node: JSONNode,
        _ r: FieldReader
    ) -> Dimension? {
        var dimension: Dimension?
        if let dn = m["dimension"]?.value {
            if let name = r.string(dn, "\(field).dimension") {
                dimension = feature.dimensions.first { $0.name == name }
                if dimension == nil {
                    let names = feature.dimensions.map(\.name)
                    let hint =
                        FieldReader.didYouMean(name, in: names)
                    r.error(
                        "\(field).dimension: feature \"\(feature.key)\" has no dimension \"\(FieldReader.excerpt(name))\"\(hint) (its dimensions: \(names.joined(separator: ", ")))",
                        at: dn.location)
                }
            }
        } else if feature.dimensions.count == 1 {
            dimension = feature.dimensions.first
        } else {
            r.error(
                "\(field).dimension: missing: feature \"\(feature.key)\" has several dimensions (\(feature.dimensions.map(\.name).joined(separator: ", ")))",
                at: node.location)
        }
        return dimension
    }

    static func readOffer(
        _ node: JSONNode, _ field: String, planPeriod: SubscriptionPeriod, _ r: FieldReader
    ) -> IntroductoryOffer? {
        guard
            let m = r.object(
                node, field, allowed: ["paymentMode", "period", "periods", "prices", "note"])
        else { return nil }
        let mode = r.required(m, "paymentMode", in: field, at: node.location).flatMap {
            n -> IntroductoryOffer.PaymentMode? in
            guard let s = r.string(n, "\(field).paymentMode") else { return nil }
            guard let v = IntroductoryOffer.PaymentMode(rawValue: s) else {
                let all = IntroductoryOffer.PaymentMode.allCases.map(\.rawValue)
                let hint = FieldReader.didYouMean(s, in: all)
                r.error(
                    "\(field).paymentMode: \"\(FieldReader.excerpt(s))\" is not one of \(all.map { "\"\($0)\"" }.joined(separator: ", "))\(hint)",
                    at: n.location)
                return nil
            }
            return v
        }
        let periodNode = r.required(m, "period", in: field, at: node.location)
        let period = periodNode.flatMap {
            readPeriod(
                $0, "\(field).period", allowed: SubscriptionPeriod.offerPeriods,
                what: "StoreKit's offer durations", r)
        }
        let periods =
            m["periods"].flatMap { r.integer($0.value, "\(field).periods", range: 1...120) } ?? 1
        let pricesNode = m["prices"]?.value
        var prices: [PackPrice] = []
        if let mode {
            if mode == .free, let pricesNode {
                r.error("\(field).prices: a free trial has no price", at: pricesNode.location)
            } else if mode != .free {
                if let pricesNode {
                    prices = readPrices(pricesNode, "\(field).prices", r)
                    for p in prices where !p.price.amount.isPositive {
                        r.error(
                            "\(field).prices: \(p.price) is not a positive price (an offer that costs nothing is paymentMode \"free\")",
                            at: p.location)
                    }
                } else {
                    r.error(
                        "\(field).prices: missing: a \(mode.rawValue) offer needs its price",
                        at: node.location)
                }
            }
            if mode == .payAsYouGo, let period, let periodNode, period != planPeriod {
                r.error(
                    "\(field).period: a pay-as-you-go offer is priced per renewal period, \(planPeriod), not \(period)",
                    at: periodNode.location)
            }
        }
        guard let mode, let period else { return nil }
        return IntroductoryOffer(
            paymentMode: mode, period: period, periods: Int(periods), prices: prices,
            location: node.location)
    }

    /// A period in ISO 8601 form, one of `allowed`.
    static func readPeriod(
        _ node: JSONNode, _ field: String, allowed: [String], what: String, _ r: FieldReader
    ) -> SubscriptionPeriod? {
        guard let s = r.string(node, field) else { return nil }
        guard allowed.contains(s), let p = SubscriptionPeriod(iso8601: s) else {
            let hint = FieldReader.didYouMean(s, in: allowed)
            r.error(
                "\(field): unknown period \"\(FieldReader.excerpt(s))\"\(hint) (\(what): \(allowed.joined(separator: ", ")))",
                at: node.location)
            return nil
        }
        return p
    }

    /// `prices[]` of a pack, plan or offer: `{currency, amount[, storefront]}`, one per
    /// currency and storefront.
    static func readPrices(_ node: JSONNode, _ field: String, _ r: FieldReader) -> [PackPrice] {
        guard let items = r.array(node, field) else { return [] }
        var prices: [PackPrice] = []
        for (i, item) in items.enumerated() {
            let pf = "\(field)[\(i)]"
            guard let pm = r.object(item, pf, allowed: ["currency", "amount", "storefront"]) else {
                continue
            }
            let currencyNode = r.required(pm, "currency", in: pf, at: item.location)
            let amountNode = r.required(pm, "amount", in: pf, at: item.location)
            let c = currencyNode.flatMap { r.currency($0, "\(pf).currency") }
            let a = amountNode.flatMap { r.decimal($0, "\(pf).amount") }
            let sf = pm["storefront"].flatMap { r.string($0.value, "\(pf).storefront") }
            guard let c, let a, let currencyNode, let amountNode else { continue }
            if prices.contains(where: { $0.price.currency == c && $0.storefront == sf }) {
                r.error(
                    "\(pf).currency: a \(c.code) price\(sf.map { " for storefront \($0)" } ?? "") is already given",
                    at: currencyNode.location)
                continue
            }
            prices.append(
                PackPrice(
                    price: Money(a, c), storefront: sf, location: amountNode.location,
                    storefrontLocation: pm["storefront"]?.value.location))
        }
        return prices
    }
}
