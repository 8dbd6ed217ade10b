/// What changed between two versions of a rate card, and what the change does to money:
/// feature prices, features and packs added, removed or retired, grants, pack prices, and
/// the worst-case margin of every pack before and after.
///
/// Every figure is exact: price changes are ratios of exact rationals, margins come from
/// `PackMargins` for both versions. Rounding happens only when the diff is displayed.
struct CardDiff: Sendable, Hashable {
    let old: RateCard
    let new: RateCard
    /// Version, effective time, credit unit and title, where they differ.
    let cardChanges: [FieldChange]
    /// Per-dimension feature prices that differ, including every dimension of a feature
    /// present in only one version.
    let dimensions: [DimensionChange]
    /// Features added, retired, or removed without retiring.
    let features: [FeatureChange]
    let grants: [GrantChange]
    /// Packs added or removed, or whose credits or type changed.
    let packs: [PackChange]
    /// Pack prices added, removed or changed, per currency.
    let prices: [PriceChange]
    /// Every pack, currency and commission rate of either version, before and after.
    let margins: [MarginRow]
    /// The worst-case cost of every grant of either version, before and after.
    let grantCosts: [GrantCostRow]
    /// Things a reviewer must know about the comparison itself.
    let notes: [String]
    /// The full figures of each side, for the sources (FX, providers) they name.
    let oldMargins: PackMargins
    let newMargins: PackMargins
    /// Subscription plans and the free tier, before and after.
    let plans: PlanDiff

    // MARK: Parts

    /// A card-level field: old and new display text.
    struct FieldChange: Sendable, Hashable {
        let field: String
        let old: String
        let new: String
    }

    /// One feature dimension's price, old → new; nil where the side lacks it.
    struct DimensionChange: Sendable, Hashable {
        let feature: String
        let dimension: String
        let old: Dimension?
        let new: Dimension?
        /// Credits per step and the step (no relative change: a price is credits ÷ per).
        let credits: ValueChange
        let per: ValueChange
        /// Credits ÷ per, the price of one unit of the dimension in credits; its relative
        /// change is (new credits/per) ÷ (old credits/per) − 1, `.notApplicable` when the
        /// units differ or the old price is zero.
        let unitPrice: ValueChange

        init(feature: String, dimension: String, old: Dimension?, new: Dimension?)
            throws(ArithmeticError)
        {
            self.feature = feature
            self.dimension = dimension
            self.old = old
            self.new = new
            credits = try ValueChange(counts: old?.credits, new?.credits, relative: false)
            per = try ValueChange(counts: old?.per, new?.per, relative: false)
            func price(_ d: Dimension?) throws(ArithmeticError) -> Exact? {
                guard let d else { return nil }
                return try Exact(d.credits, over: d.per)
            }
            unitPrice = try ValueChange(
                try price(old), try price(new), comparable: old?.unit == new?.unit)
        }

        /// The relative change of the price per unit.
        var relative: Exact? { unitPrice.relative.ratio }
    }

    /// A feature key that appeared, or left.
    struct FeatureChange: Sendable, Hashable {
        enum Kind: String, Sendable, Hashable {
            case added
            /// Dropped and listed in the new version's `retired`.
            case retired
            /// Dropped without being listed in `retired`: keys are never renamed, so a
            /// ledger entry that names it can no longer be priced.
            case removedWithoutRetiring = "removed-without-retiring"
            /// Absent from a card of a different family, where retiring does not apply.
            case removed
            /// Listed in `retired` but still offered.
            case retiredButOffered = "retired-but-offered"
            /// The display name changed (the key did not).
            case renamedDisplay = "display-name"
        }

        let key: String
        let kind: Kind
        let note: String
    }

    /// A grant's credits, old → new.
    struct GrantChange: Sendable, Hashable {
        let key: String
        let old: Int128?
        let new: Int128?
        let credits: ValueChange

        init(key: String, old: Int128?, new: Int128?) throws(ArithmeticError) {
            self.key = key
            self.old = old
            self.new = new
            credits = try ValueChange(counts: old, new)
        }
    }

    /// A pack that appeared, left, or changed credits or type.
    struct PackChange: Sendable, Hashable {
        let productId: String
        let old: Pack?
        let new: Pack?
        let credits: ValueChange

        init(productId: String, old: Pack?, new: Pack?) throws(ArithmeticError) {
            self.productId = productId
            self.old = old
            self.new = new
            credits = try ValueChange(counts: old?.credits, new?.credits)
        }
    }

    /// Where a pack is sold: a currency, optionally one storefront.
    struct Market: Sendable, Hashable, Comparable {
        let currency: Currency
        let storefront: String?

        /// "CNY", or "USD (us)" for a storefront-specific price.
        var label: String { storefront.map { "\(currency.code) (\($0))" } ?? currency.code }

        static func < (a: Market, b: Market) -> Bool {
            (a.currency.code, a.storefront ?? "") < (b.currency.code, b.storefront ?? "")
        }
    }

    /// A pack price in one market, old → new.
    struct PriceChange: Sendable, Hashable {
        let productId: String
        let market: Market
        let old: Money?
        let new: Money?
        /// The amounts; their relative change is new ÷ old − 1 (`.notApplicable` when the
        /// old price is zero).
        let price: ValueChange

        init(productId: String, market: Market, old: Money?, new: Money?) throws(ArithmeticError) {
            self.productId = productId
            self.market = market
            self.old = old
            self.new = new
            price = try ValueChange(amounts: old, new)
        }

        /// new ÷ old − 1 when both exist and the old price is not zero.
        var relative: Exact? { price.relative.ratio }
    }

    /// One side of a margin comparison.
    struct MarginSide: Sendable, Hashable {
        let credits: Int128
        let price: Money
        /// nil for a pack of no credits: it has no worst case (`PackMargins.Row.addsCredits`).
        let worstCost: Money?
        let proceeds: Money
        /// nil for a pack of no credits.
        let margin: Money?
        /// margin ÷ price; nil without a margin or for a price of 0.
        let marginShare: Exact?
        let worstFeature: String?

        /// The worst feature for people: "none" when no request costs anything, "—" for a
        /// pack of no credits (it has no worst case at all).
        var worstFeatureText: String {
            worstCost == nil ? Format.missing : worstFeature ?? "none"
        }

        /// The same for CSV: empty for a pack of no credits.
        var worstFeatureCell: String { worstCost == nil ? "" : worstFeature ?? "none" }
    }

    /// One pack, market and commission rate, before and after.
    struct MarginRow: Sendable, Hashable {
        let productId: String
        let market: Market
        let rate: Exact
        let old: MarginSide?
        let new: MarginSide?
        let price: ValueChange
        let worstCost: ValueChange
        let proceeds: ValueChange
        let margin: ValueChange
        /// A share: its difference is in percentage points ÷ 100, no relative change.
        let marginShare: ValueChange
        /// new margin − old margin, when both sides exist (one market: one currency).
        let marginChange: Money?

        init(productId: String, market: Market, rate: Exact, old: MarginSide?, new: MarginSide?)
            throws(ArithmeticError)
        {
            self.productId = productId
            self.market = market
            self.rate = rate
            self.old = old
            self.new = new
            price = try ValueChange(amounts: old?.price, new?.price)
            worstCost = try ValueChange(amounts: old?.worstCost, new?.worstCost)
            proceeds = try ValueChange(amounts: old?.proceeds, new?.proceeds)
            margin = try ValueChange(amounts: old?.margin, new?.margin)
            marginShare = try ValueChange(old?.marginShare, new?.marginShare, relative: false)
            marginChange = margin.difference.map { Money($0, market.currency) }
        }

        /// new margin share − old margin share (a fraction; × 100 for percentage points).
        var marginShareChange: Exact? { marginShare.difference }
    }

    /// A grant's worst-case cost, before and after.
    struct GrantCostRow: Sendable, Hashable {
        let key: String
        let old: PackMargins.GrantRow?
        let new: PackMargins.GrantRow?
        /// The worst-case cost amounts, as `--format csv` compares them.
        let cost: ValueChange
        /// new cost − old cost: nil when a side is missing or the two costs are in different
        /// currencies (no difference of money exists).
        let costChange: Money?

        init(key: String, old: PackMargins.GrantRow?, new: PackMargins.GrantRow?)
            throws(ArithmeticError)
        {
            self.key = key
            self.old = old
            self.new = new
            cost = try ValueChange(amounts: old?.worst.cost, new?.worst.cost)
            if let o = old?.worst.cost, let n = new?.worst.cost, o.currency == n.currency,
                let d = cost.difference
            {
                costChange = Money(d, n.currency)
            } else {
                costChange = nil
            }
        }
    }

    /// True when nothing a reviewer would care about changed.
    var isEmpty: Bool {
        cardChanges.isEmpty && dimensions.isEmpty && features.isEmpty && grants.isEmpty
            && packs.isEmpty && prices.isEmpty
            && margins.allSatisfy { $0.old == $0.new }
            && grantCosts.allSatisfy { $0.old?.worst.cost == $0.new?.worst.cost }
            && plans.isEmpty
    }

    // MARK: Computing

    /// Compares `old` with `new`, both priced against `repository`'s providers and
    /// commission, with `fx` (default: the repository's) and `rates` (default: the
    /// commission schedule on each card's effective date).
    init(
        old: RateCard, new: RateCard, repository: CardRepository, fx: FXTable? = nil,
        rates: [Exact]? = nil
    ) throws(WorstCaseFailure) {
        self.old = old
        self.new = new
        var notes: [String] = []
        if old.id != new.id {
            notes.append(
                "comparing different card families (\(old.id) and \(new.id)): features, grants and packs are matched by key"
            )
        }
        if old.id == new.id, new.version <= old.version {
            notes.append(
                "NEW (\(new.reference)) is not a later version than OLD (\(old.reference))")
        }
        if old.creditUnit.name != new.creditUnit.name {
            notes.append(
                "the credit unit changed (\(old.creditUnit.name) → \(new.creditUnit.name)): credit prices and their % changes compare different units"
            )
        }
        func priced<T>(_ card: RateCard, _ make: () throws(WorstCaseError) -> T)
            throws(WorstCaseFailure) -> T
        {
            do { return try make() } catch { throw WorstCaseFailure(error, card: card) }
        }
        func exact<T>(_ make: () throws(ArithmeticError) -> T) throws(WorstCaseFailure) -> T {
            do { return try make() } catch {
                throw WorstCaseFailure(
                    .arithmetic("comparing \(old.reference) with \(new.reference): \(error)"),
                    card: new)
            }
        }
        cardChanges = CardDiff.cardChanges(old, new)
        dimensions = try exact { () throws(ArithmeticError) in
            try CardDiff.dimensionChanges(old, new)
        }
        features = CardDiff.featureChanges(old, new)
        grants = try exact { () throws(ArithmeticError) in try CardDiff.grantChanges(old, new) }
        packs = try exact { () throws(ArithmeticError) in try CardDiff.packChanges(old, new) }
        prices = try exact { () throws(ArithmeticError) in try CardDiff.priceChanges(old, new) }
        let oldMargins = try priced(old) { () throws(WorstCaseError) in
            try PackMargins(card: old, repository: repository, fx: fx, rates: rates)
        }
        let newMargins = try priced(new) { () throws(WorstCaseError) in
            try PackMargins(card: new, repository: repository, fx: fx, rates: rates)
        }
        self.oldMargins = oldMargins
        self.newMargins = newMargins
        margins = try exact { () throws(ArithmeticError) in
            try CardDiff.marginRows(oldMargins, newMargins)
        }
        grantCosts = try exact { () throws(ArithmeticError) in
            try CardDiff.grantCostRows(oldMargins, newMargins)
        }
        plans = try PlanDiff(old: old, new: new, repository: repository, fx: fx)
        self.notes = notes
    }

    static func cardChanges(_ a: RateCard, _ b: RateCard) -> [FieldChange] {
        var out: [FieldChange] = []
        func add(_ field: String, _ x: String, _ y: String) {
            if x != y { out.append(FieldChange(field: field, old: x, new: y)) }
        }
        add("id", a.id, b.id)
        add("version", String(a.version), String(b.version))
        if a.effective != b.effective || a.effective.offsetMinutes != b.effective.offsetMinutes {
            out.append(
                FieldChange(
                    field: "effective", old: a.effective.rfc3339UTC, new: b.effective.rfc3339UTC))
        }
        add("credit unit", unitText(a.creditUnit), unitText(b.creditUnit))
        add("title", a.title, b.title)
        return out
    }

    /// "credit (price step 1)", "microcredit (price step 10,000, face value GBP 0.000001)"
    static func unitText(_ u: CreditUnit) -> String {
        var s = "\(u.name) (price step \(Format.grouped(u.priceStep))"
        if let f = u.faceValue { s += ", face value \(f)" }
        return s + ")"
    }

    static func dimensionChanges(_ a: RateCard, _ b: RateCard) throws(ArithmeticError)
        -> [DimensionChange]
    {
        var out: [DimensionChange] = []
        for key in Set(a.features.map(\.key)).union(b.features.map(\.key)).sorted() {
            let fa = a.feature(key)
            let fb = b.feature(key)
            let names = Set((fa?.dimensions ?? []).map(\.name)).union(
                (fb?.dimensions ?? []).map(\.name)
            ).sorted()
            for name in names {
                let da = fa?.dimensions.first { $0.name == name }
                let db = fb?.dimensions.first { $0.name == name }
                if let da, let db, da.credits == db.credits, da.per == db.per,
                    da.rounding == db.rounding,
                    da.unit == db.unit, sameBinding(da.cost, db.cost)
                {
                    continue
                }
                out.append(
                    try DimensionChange(feature: key, dimension: name, old: da, new: db))
            }
        }
        return out
    }

    /// Bindings compared without their source locations.
    static func sameBinding(_ x: CostBinding, _ y: CostBinding) -> Bool {
        switch (x, y) {
        case (.provider(let s1, let m1, _), .provider(let s2, let m2, _)): s1 == s2 && m1 == m2
        case (.none(let r1), .none(let r2)): r1 == r2
        default: false
        }
    }

    static func featureChanges(_ a: RateCard, _ b: RateCard) -> [FeatureChange] {
        var out: [FeatureChange] = []
        let oldKeys = Set(a.features.map(\.key))
        let newKeys = Set(b.features.map(\.key))
        let oldRetired = Set(a.retired.map(\.key))
        let newRetired = Set(b.retired.map(\.key))
        for key in newKeys.subtracting(oldKeys).sorted() {
            let revived = oldRetired.contains(key) ? "; it was retired in \(a.reference)" : ""
            out.append(
                FeatureChange(key: key, kind: .added, note: "new in \(b.reference)\(revived)"))
        }
        for key in oldKeys.subtracting(newKeys).sorted() {
            if a.id != b.id {
                out.append(
                    FeatureChange(
                        key: key, kind: .removed,
                        note: "not offered by \(b.reference), a different card family"))
            } else if newRetired.contains(key) {
                out.append(
                    FeatureChange(
                        key: key, kind: .retired, note: "listed in retired of \(b.reference)"))
            } else {
                out.append(
                    FeatureChange(
                        key: key, kind: .removedWithoutRetiring,
                        note:
                            "removed without retiring: keys are never renamed; list \"\(key)\" in retired of \(b.reference)"
                    ))
            }
        }
        for key in newRetired.subtracting(oldRetired).subtracting(oldKeys).subtracting(newKeys)
            .sorted()
        {
            out.append(
                FeatureChange(
                    key: key, kind: .retired,
                    note: "listed in retired of \(b.reference); \(a.reference) did not offer it"))
        }
        for key in newRetired.intersection(newKeys).sorted() {
            out.append(
                FeatureChange(
                    key: key, kind: .retiredButOffered,
                    note: "listed in retired of \(b.reference) but still offered"))
        }
        for key in oldKeys.intersection(newKeys).sorted() {
            guard let na = a.feature(key)?.name, let nb = b.feature(key)?.name else { continue }
            if na != nb {
                out.append(
                    FeatureChange(
                        key: key, kind: .renamedDisplay,
                        note: "display name \"\(na)\" → \"\(nb)\" (the key is unchanged)"))
            }
        }
        return out.sorted { ($0.key, $0.kind.rawValue) < ($1.key, $1.kind.rawValue) }
    }

    static func grantChanges(_ a: RateCard, _ b: RateCard) throws(ArithmeticError)
        -> [GrantChange]
    {
        var out: [GrantChange] = []
        for key in Set(a.grants.map(\.key)).union(b.grants.map(\.key)).sorted() {
            let ga = a.grants.first { $0.key == key }?.credits
            let gb = b.grants.first { $0.key == key }?.credits
            if ga != gb { out.append(try GrantChange(key: key, old: ga, new: gb)) }
        }
        return out
    }

    static func packChanges(_ a: RateCard, _ b: RateCard) throws(ArithmeticError) -> [PackChange] {
        var out: [PackChange] = []
        for id in packIDs(a, b) {
            let pa = a.packs.first { $0.productId == id }
            let pb = b.packs.first { $0.productId == id }
            if let pa, let pb, pa.credits == pb.credits, pa.type == pb.type { continue }
            out.append(try PackChange(productId: id, old: pa, new: pb))
        }
        return out
    }

    /// Product ids of both cards, smallest pack first (by the newer credits), then by id.
    static func packIDs(_ a: RateCard, _ b: RateCard) -> [String] {
        var credits: [String: Int128] = [:]
        for p in a.packs { credits[p.productId] = p.credits }
        for p in b.packs { credits[p.productId] = p.credits }
        return credits.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
    }

    static func market(_ p: PackPrice) -> Market {
        Market(currency: p.price.currency, storefront: p.storefront)
    }

    static func priceChanges(_ a: RateCard, _ b: RateCard) throws(ArithmeticError)
        -> [PriceChange]
    {
        var out: [PriceChange] = []
        for id in packIDs(a, b) {
            let pa = a.packs.first { $0.productId == id }?.prices ?? []
            let pb = b.packs.first { $0.productId == id }?.prices ?? []
            let markets = Set(pa.map(market)).union(pb.map(market)).sorted()
            for m in markets {
                let ma = pa.first { market($0) == m }?.price
                let mb = pb.first { market($0) == m }?.price
                if ma == mb { continue }
                out.append(try PriceChange(productId: id, market: m, old: ma, new: mb))
            }
        }
        return out
    }

    static func marginRows(_ a: PackMargins, _ b: PackMargins) throws(ArithmeticError)
        -> [MarginRow]
    {
        func sides(_ m: PackMargins) -> [String: [Market: PackMargins.Row]] {
            var out: [String: [Market: PackMargins.Row]] = [:]
            for r in m.rows { out[r.pack.productId, default: [:]][market(r.price)] = r }
            return out
        }
        func side(_ r: PackMargins.Row?, _ rate: Exact) -> MarginSide? {
            guard let r, let l = r.lines.first(where: { $0.rate == rate }) else { return nil }
            return MarginSide(
                credits: r.pack.credits, price: r.price.price,
                worstCost: r.addsCredits ? r.worst.cost : nil, proceeds: l.proceeds,
                margin: l.margin, marginShare: l.marginShare,
                worstFeature: r.addsCredits ? r.worst.witnessFeature : nil)
        }
        let sa = sides(a)
        let sb = sides(b)
        var out: [MarginRow] = []
        for id in packIDs(a.card, b.card) {
            let markets = Set((sa[id] ?? [:]).keys).union((sb[id] ?? [:]).keys).sorted()
            for m in markets {
                let ra = sa[id]?[m]
                let rb = sb[id]?[m]
                let rates = Set((ra?.lines ?? []).map(\.rate)).union((rb?.lines ?? []).map(\.rate))
                    .sorted()
                for rate in rates {
                    out.append(
                        try MarginRow(
                            productId: id, market: m, rate: rate, old: side(ra, rate),
                            new: side(rb, rate)))
                }
            }
        }
        return out
    }

    static func grantCostRows(_ a: PackMargins, _ b: PackMargins) throws(ArithmeticError)
        -> [GrantCostRow]
    {
        var out: [GrantCostRow] = []
        for k in Set(a.grants.map(\.grant.key)).union(b.grants.map(\.grant.key)).sorted() {
            out.append(
                try GrantCostRow(
                    key: k, old: a.grants.first { $0.grant.key == k },
                    new: b.grants.first { $0.grant.key == k }))
        }
        return out
    }
}
