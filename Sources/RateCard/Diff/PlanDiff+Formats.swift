/// `margin diff` output for plans: the same figures in every format.
extension PlanDiff {
    /// Terms that changed, old → new.
    var changeTable: TextTable {
        var t = TextTable([.init("plan"), .init("field"), .init("old"), .init("new")])
        for c in changes {
            t.append([c.productId, c.field, c.old ?? CardDiff.dash, c.new ?? CardDiff.dash])
        }
        return t
    }

    /// Every plan, market and program: worst cost and margins in year one and after.
    var marginTable: TextTable {
        var t = TextTable([
            .init("plan"), .init("currency"), .init("program"), .init("price", .right),
            .init("worst cost", .right),
            .init("margin y1", .right), .init("margin y1 %", .right), .init("margin after", .right),
            .init("margin after %", .right),
            .init("Δ margin y1", .right), .init("payback", .right),
        ])
        func m(_ s: Side?, _ f: (Side) -> Money) -> String? { s.map { PackMargins.money(f($0)) } }
        func p(_ s: Side?, _ f: (Side) -> Exact?) -> String? {
            s.map { f($0).map { Format.percent($0) } ?? Format.missing }
        }
        func payback(_ s: Side?) -> String? {
            guard let s else { return nil }
            switch s.offer {
            case .none: return ""
            case .unpriced: return "unpriced"
            case .priced: return s.paybackPeriods.map { String($0) } ?? "never"
            }
        }
        for r in margins {
            var delta = ""
            if let d = r.marginYearOne.difference, let side = r.new ?? r.old {
                delta = CardDiff.signedMoney(Money(d, side.yearOne.margin.currency))
            }
            t.append([
                r.productId, r.market.label, r.program,
                CardDiff.arrow(m(r.old) { $0.price }, m(r.new) { $0.price }),
                CardDiff.arrow(m(r.old) { $0.worstCost }, m(r.new) { $0.worstCost }),
                CardDiff.arrow(m(r.old) { $0.yearOne.margin }, m(r.new) { $0.yearOne.margin }),
                CardDiff.arrow(
                    p(r.old) { $0.yearOne.marginShare }, p(r.new) { $0.yearOne.marginShare }),
                CardDiff.arrow(
                    m(r.old) { $0.afterYearOne.margin }, m(r.new) { $0.afterYearOne.margin }),
                CardDiff.arrow(
                    p(r.old) { $0.afterYearOne.marginShare },
                    p(r.new) { $0.afterYearOne.marginShare }),
                delta, CardDiff.arrow(payback(r.old), payback(r.new)),
            ])
        }
        return t
    }

    /// The `margin diff` sections plans add: titles and tables.
    var sections: [(String, TextTable)] {
        guard hasPlans else { return [] }
        var out: [(String, TextTable)] = []
        if !changes.isEmpty { out.append(("Subscription plans and free tier", changeTable)) }
        if !margins.isEmpty {
            out.append(
                (
                    "Worst-case margin per subscription period, year one and after, before and after",
                    marginTable
                ))
        }
        return out
    }

    /// CSV rows in `margin diff`'s columns: section,item,detail,commission,field,old,new,difference,relative,note.
    func csvRows() -> [[String]] {
        var rows: [[String]] = []
        for c in changes {
            rows.append([
                "plan", c.productId, "", "", c.field, c.old ?? "", c.new ?? "", "", "", "",
            ])
        }
        func num(_ r: MarginRow, _ rate: String, _ field: String, _ v: ValueChange) {
            rows.append([
                "plan-margin", r.productId, "\(r.market.label) \(r.program)", rate, field,
                v.old?.decimalText() ?? "", v.new?.decimalText() ?? "",
                v.difference?.decimalText() ?? "", "", "",
            ])
        }
        for r in margins {
            num(r, "", "price", r.price)
            num(r, "", "worst_cost", r.worstCost)
            let y1 = (r.new ?? r.old)?.yearOne.rate.decimalText() ?? ""
            let after = (r.new ?? r.old)?.afterYearOne.rate.decimalText() ?? ""
            num(r, y1, "margin_year_one", r.marginYearOne)
            num(r, after, "margin_after_year_one", r.marginAfterYearOne)
        }
        return rows
    }

    /// The JSON object of the plan changes (exact decimal strings).
    var json: JSONOutput {
        func side(_ s: Side?) -> JSONOutput {
            guard let s else { return .null }
            func m(_ p: PlanMargins.PeriodMargin) -> JSONOutput {
                .object([
                    "rate": .decimal(p.rate), "proceeds": .decimal(p.proceeds.amount),
                    "margin": .decimal(p.margin.amount),
                    "marginShare": p.marginShare.map { .decimal($0) } ?? .null,
                ])
            }
            var o: [String: JSONOutput] = [
                "price": .decimal(s.price.amount), "worstCost": .decimal(s.worstCost.amount),
                "yearOne": m(s.yearOne), "afterYearOne": m(s.afterYearOne),
            ]
            switch s.offer {
            case .none: break
            case .unpriced: o["offerPriced"] = .bool(false)
            case .priced:
                o["paybackPeriods"] = s.paybackPeriods.map { .integer(Int128($0)) } ?? .null
            }
            return .object(o)
        }
        return .object([
            "changes": .array(
                changes.map { c in
                    .object([
                        "productId": .string(c.productId), "field": .string(c.field),
                        "old": c.old.map(JSONOutput.string) ?? .null,
                        "new": c.new.map(JSONOutput.string) ?? .null,
                    ])
                }),
            "margins": .array(
                margins.map { r in
                    var o: [String: JSONOutput] = [
                        "productId": .string(r.productId), "program": .string(r.program),
                        "currency": .string(r.market.currency.code),
                        "old": side(r.old), "new": side(r.new),
                    ]
                    if let s = r.market.storefront { o["storefront"] = .string(s) }
                    return .object(o)
                }),
        ])
    }
}
