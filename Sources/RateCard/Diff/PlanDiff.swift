/// What a card change does to its subscription plans and free tier: terms before and
/// after, and the worst-case margin of every plan, currency and commission program in year
/// one and after it.
struct PlanDiff: Sendable, Hashable {
    /// One changed term of a plan (or of the free tier, under the id "free tier").
    struct Change: Sendable, Hashable {
        let productId: String
        let field: String
        let old: String?
        let new: String?
    }

    /// One side of a plan's margin comparison.
    struct Side: Sendable, Hashable {
        let price: Money
        let worstCost: Money
        let yearOne: PlanMargins.PeriodMargin
        let afterYearOne: PlanMargins.PeriodMargin
        let paybackPeriods: Int?
        let offer: Offer
    }

    /// Whether the side's row has an introductory offer, and whether it is priced there.
    enum Offer: Sendable, Hashable {
        case none
        /// The plan has an offer but the card gives it no price in this market.
        case unpriced
        case priced
    }

    /// One plan, market and program, before and after.
    struct MarginRow: Sendable, Hashable {
        let productId: String
        let market: CardDiff.Market
        let program: String
        let old: Side?
        let new: Side?
        /// The figures old → new, each difference computed once here (the renderers only
        /// format them): the price, the worst case of a period, and its margin in year one
        /// and after it.
        let price: ValueChange
        let worstCost: ValueChange
        let marginYearOne: ValueChange
        let marginAfterYearOne: ValueChange

        init(productId: String, market: CardDiff.Market, program: String, old: Side?, new: Side?)
            throws(ArithmeticError)
        {
            self.productId = productId
            self.market = market
            self.program = program
            self.old = old
            self.new = new
            price = try ValueChange(old?.price.amount, new?.price.amount, relative: false)
            worstCost = try ValueChange(
                old?.worstCost.amount, new?.worstCost.amount, relative: false)
            marginYearOne = try ValueChange(
                old?.yearOne.margin.amount, new?.yearOne.margin.amount, relative: false)
            marginAfterYearOne = try ValueChange(
                old?.afterYearOne.margin.amount, new?.afterYearOne.margin.amount,
                relative: false)
        }
    }

    let changes: [Change]
    let margins: [MarginRow]
    let oldMargins: PlanMargins
    let newMargins: PlanMargins

    /// True when neither card has a plan or free tier, or nothing about them changed.
    var isEmpty: Bool { changes.isEmpty && margins.allSatisfy { $0.old == $0.new } }
    /// True when either card sells a subscription or has a free tier.
    var hasPlans: Bool { !oldMargins.isEmpty || !newMargins.isEmpty }

    init(old: RateCard, new: RateCard, repository: CardRepository, fx: FXTable? = nil)
        throws(WorstCaseFailure)
    {
        do {
            oldMargins = try PlanMargins(card: old, repository: repository, fx: fx)
        } catch { throw WorstCaseFailure(error, card: old) }
        do {
            newMargins = try PlanMargins(card: new, repository: repository, fx: fx)
        } catch { throw WorstCaseFailure(error, card: new) }
        changes = PlanDiff.changes(old, new)
        do {
            margins = try PlanDiff.marginRows(oldMargins, newMargins)
        } catch {
            throw WorstCaseFailure(
                .arithmetic(
                    "comparing the plans of \(old.reference) with \(new.reference): \(error)"),
                card: new)
        }
    }

    /// Product ids of both cards' plans, old order first.
    static func ids(_ a: RateCard, _ b: RateCard) -> [String] {
        var out: [String] = []
        for p in a.subscriptions + b.subscriptions where !out.contains(p.productId) {
            out.append(p.productId)
        }
        return out
    }

    static func changes(_ a: RateCard, _ b: RateCard) -> [Change] {
        var out: [Change] = []
        for id in ids(a, b) {
            let pa = a.subscriptions.first { $0.productId == id }
            let pb = b.subscriptions.first { $0.productId == id }
            for (field, x, y) in [
                ("plan", pa.map { _ in "offered" }, pb.map { _ in "offered" }),
                ("group", pa?.group, pb?.group),
                ("period", pa?.period.description, pb?.period.description),
                ("prices", pa.map { prices($0.prices) }, pb.map { prices($0.prices) }),
                (
                    "credits", pa.map { Format.grouped($0.credits) },
                    pb.map { Format.grouped($0.credits) }
                ),
                ("quotas", pa.map { limits($0.quotas, a) }, pb.map { limits($0.quotas, b) }),
                (
                    "allowances", pa.map { limits($0.allowances, a) },
                    pb.map { limits($0.allowances, b) }
                ),
                (
                    "introductory offer", pa.map { offer($0.introductoryOffer) },
                    pb.map { offer($0.introductoryOffer) }
                ),
            ] where x != y {
                if field != "plan" && (pa == nil || pb == nil) { continue }
                out.append(Change(productId: id, field: field, old: x, new: y))
            }
        }
        let ta = a.freeTier.map { "per \($0.period): " + limits($0.allowances, a) }
        let tb = b.freeTier.map { "per \($0.period): " + limits($0.allowances, b) }
        if ta != tb {
            out.append(Change(productId: "free tier", field: "allowances", old: ta, new: tb))
        }
        return out
    }

    static func prices(_ p: [PackPrice]) -> String {
        p.map {
            "\($0.price.currency.code) \(PackMargins.money($0.price))\($0.storefront.map { " (\($0))" } ?? "")"
        }.sorted().joined(separator: ", ")
    }

    static func limits(_ l: [UsageLimit], _ card: RateCard) -> String {
        if l.isEmpty { return "none" }
        return l.map { u in
            let unit =
                card.feature(u.feature)?.dimensions.first { $0.name == u.dimension }?.unit ?? .item
            return u.summary(unit: unit)
        }.joined(separator: "; ")
    }

    static func offer(_ o: IntroductoryOffer?) -> String {
        guard let o else { return "none" }
        let price = o.prices.isEmpty ? "" : " at " + prices(o.prices)
        return PlanMargins.offerText(o) + price
    }

    static func marginRows(_ a: PlanMargins, _ b: PlanMargins) throws(ArithmeticError)
        -> [MarginRow]
    {
        func side(_ r: PlanMargins.Row?, _ program: String) -> Side? {
            guard let r, let l = r.lines.first(where: { $0.program.name == program }) else {
                return nil
            }
            return Side(
                price: r.price.price, worstCost: r.worst.cost, yearOne: l.yearOne,
                afterYearOne: l.afterYearOne,
                paybackPeriods: l.paybackPeriods,
                offer: r.intro.map { $0.price == nil ? .unpriced : .priced } ?? .none)
        }
        func find(_ m: PlanMargins, _ id: String, _ market: CardDiff.Market) -> PlanMargins.Row? {
            m.rows.first { $0.plan.productId == id && CardDiff.market($0.price) == market }
        }
        var out: [MarginRow] = []
        for id in ids(a.card, b.card) {
            let markets = Set(
                (a.rows + b.rows).filter { $0.plan.productId == id }.map {
                    CardDiff.market($0.price)
                }
            ).sorted()
            for market in markets {
                for program in PlanMargins.programs.map(\.name)
                where (a.programs + b.programs).contains(where: { $0.name == program }) {
                    out.append(
                        try MarginRow(
                            productId: id, market: market, program: program,
                            old: side(find(a, id, market), program),
                            new: side(find(b, id, market), program)))
                }
            }
        }
        return out
    }
}
