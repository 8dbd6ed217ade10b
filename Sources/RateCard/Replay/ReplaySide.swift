/// One side of a replay: how a charge's request is priced in credits and in provider cost.
///
/// The "before" side is by default the ledger itself: the credits each charge recorded,
/// its cost by the provider sheets of the family version in force at its time (as
/// `margin pnl` costs it). A card side (NEW, or OLD with `--against`) prices the request
/// by the card's own charge rule (`Feature.credits`: each dimension's started, complete
/// or exact intervals, summed) and costs it by that card's provider bindings
/// (`RequestCosting`: the meters' increments and minimums, the most expensive variant,
/// the schedule period in force in the sheet's own UTC offset).
struct ReplaySide: Sendable {
    enum Credits: Sendable {
        /// The credits the ledger recorded; costs by the family version in force.
        case ledger(versions: [(card: RateCard, features: [String: Feature])])
        /// The card's charge rule.
        case card(RateCard, features: [String: Feature])
    }

    let credits: Credits
    let costing: RequestCosting
    let fx: FXTable
    let currency: Currency
    /// Every request costed as if made at this instant (`--costs-at`), else at its own.
    let costsAt: Timestamp?

    /// What one side makes of one charge.
    enum Outcome: Sendable, Hashable {
        /// Credits charged, and the provider cost in the reporting currency (zero when
        /// the feature has no running cost).
        case priced(credits: Int128, cost: Exact)
        /// Why the request cannot be priced on this side.
        case notPriced(String)
    }

    /// The card this side prices a request made at `at` by: its card, or the family
    /// version in force then (the first before any took effect, as `pnl` costs it).
    func card(at: Timestamp) -> (card: RateCard, features: [String: Feature])? {
        switch credits {
        case .card(let card, let features): return (card, features)
        case .ledger(let versions):
            guard !versions.isEmpty else { return nil }
            var k = 0
            while k + 1 < versions.count, versions[k + 1].card.effective <= at { k += 1 }
            return versions[k]
        }
    }

    /// The feature this side prices `key` by at `at`.
    func feature(_ key: String, at: Timestamp) -> Feature? {
        card(at: at)?.features[key]
    }

    /// Keyed features of a card (the first of a duplicated key, which `check` refuses).
    static func features(of card: RateCard) -> [String: Feature] {
        Dictionary(card.features.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The pack a top-up of `credits` at `at` bought, by this side's card then: the one
    /// pack with that many credits, or among several the one with the top-up's recorded
    /// price. Nil when none matches or several still do.
    func pack(credits: Int64, price: Money?, at: Timestamp) -> String? {
        guard let card = card(at: at)?.card else { return nil }
        let same = card.packs.filter { $0.credits == Int128(credits) }
        if same.count == 1 { return same[0].productId }
        guard let price, same.count > 1 else { return nil }
        let priced = same.filter { p in p.prices.contains { $0.price == price } }
        return priced.count == 1 ? priced[0].productId : nil
    }

    /// Prices one charge: `recorded` is the credits the ledger charged (positive);
    /// `version` the version its `card` field names (`osg@10` → 10), which the ledger's
    /// side costs it by when the family has it (else the version in force at `at`).
    func price(
        feature key: String, quantity: [String: Exact], recorded: Int128, at: Timestamp,
        version: Int? = nil
    ) -> Outcome {
        var named: Feature?
        if let version, case .ledger(let versions) = credits,
            let v = versions.first(where: { $0.card.version == version })
        {
            named = v.features[key]
        }
        guard let f = named ?? feature(key, at: at) else {
            switch credits {
            case .card(let card, _):
                return .notPriced("\(card.reference) has no feature \"\(key)\"")
            case .ledger:
                return .notPriced("no version of the card has feature \"\(key)\"")
            }
        }
        for name in quantity.keys where !f.dimensions.contains(where: { $0.name == name }) {
            return .notPriced(
                "feature \(key) has no dimension \"\(name)\" (it has: \(f.dimensions.map(\.name).joined(separator: ", ")))"
            )
        }
        let q = ReplaySide.request(quantity, of: f)
        let charged: Int128
        switch credits {
        case .ledger:
            if q == nil, f.dimensions.contains(where: \.isMetered) {
                return .notPriced("no quantity: the provider cost of feature \(key) needs one")
            }
            charged = recorded
        case .card:
            guard let q else {
                return .notPriced("no quantity: feature \(key) is charged by its quantity")
            }
            do throws(ChargeError) {
                charged = try f.credits(for: q)
            } catch {
                return .notPriced("\(error)")
            }
        }
        do {
            let costs = try costing.cost(of: f, quantities: q ?? [:], at: costsAt ?? at)
            var total = Exact.zero
            for c in costs {
                total = try total.adding(fx.convert(c, to: currency).amount)
            }
            return .priced(credits: charged, cost: total)
        } catch {
            return .notPriced("cost: \(error)")
        }
    }

    /// The quantities a charge asks for: as recorded; a charge without any of a feature
    /// counted per use (one `event` or `request` dimension) is one use, as the charge
    /// audit reads it; nil when the feature needs a quantity and there is none.
    static func request(_ quantity: [String: Exact], of f: Feature) -> [String: Exact]? {
        if !quantity.isEmpty { return quantity }
        if f.dimensions.count == 1, [.event, .request].contains(f.dimensions[0].unit) {
            return [f.dimensions[0].name: .one]
        }
        return f.dimensions.isEmpty ? [:] : nil
    }
}

extension Dimension {
    /// Billed by a provider sheet.
    var isMetered: Bool {
        if case .provider = cost { true } else { false }
    }
}
