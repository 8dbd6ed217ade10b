/// `margin diff` output: the same comparison as text tables, Markdown, CSV or JSON.
///
/// Display rounding: money half-even to the currency's minor unit, percentages half-even
/// to one place; an unchanged value is shown once, a changed one as `old → new`, a missing
/// side as `—`. JSON and CSV carry exact decimal strings (a ratio that does not terminate,
/// such as 1/3 or a % change of 2.99 → 3.99, is rounded half-even to 12 places).
extension CardDiff {
    static let dash = Format.missing

    /// `a` when both are equal, else `a → b`, with `—` for a missing side.
    static func arrow(_ a: String?, _ b: String?) -> String {
        if a == b { return a ?? dash }
        return "\(a ?? dash) → \(b ?? dash)"
    }

    static func money(_ m: Money?) -> String? { m.map(PackMargins.money) }

    /// "+3.75", "-0.50", "0.00": a money difference with its sign.
    static func signedMoney(_ m: Money) -> String {
        let s = PackMargins.money(m)
        return m.amount.isPositive && s != PackMargins.money(.zero(m.currency)) ? "+" + s : s
    }

    /// "+50.0%", "-25.0%", "0.0%".
    static func signedPercent(_ v: Exact) -> String {
        let s = Format.percent(v)
        return v.isPositive && s != "0.0%" ? "+" + s : s
    }

    /// "+50.0%" for a ratio, "n/a" where the model says a ratio has no meaning.
    static func relativeText(_ r: ValueChange.Relative) -> String {
        r.ratio.map(signedPercent) ?? "n/a"
    }

    /// "+13.4 pts": a change of a share, in percentage points.
    static func signedPoints(_ v: Exact) -> String {
        var s = signedPercent(v)
        s.removeLast()
        return s + " pts"
    }

    /// "1 per 3 s, up", "2 per request, up"
    static func priceText(_ d: Dimension) -> String {
        let per = d.per == 1 ? d.unit.rawValue : "\(Format.grouped(d.per)) \(d.unit.abbreviation)"
        return "\(Format.grouped(d.credits)) per \(per), \(d.rounding.rawValue)"
    }

    static func bindingText(_ c: CostBinding) -> String {
        switch c {
        case .provider(let s, let m, _): "\(s)/\(m)"
        case .none(let reason): "none (\(reason))"
        }
    }

    // MARK: Tables

    /// Card-level fields that changed.
    var cardTable: TextTable {
        var t = TextTable([.init("field"), .init("old"), .init("new")])
        for c in cardChanges { t.append([c.field, c.old, c.new]) }
        return t
    }

    /// Feature prices per dimension, old → new, with the % change of the price per unit.
    var featurePriceTable: TextTable {
        var t = TextTable([
            .init("feature"), .init("dimension"), .init("old price"), .init("new price"),
            .init("change", .right), .init("cost"),
        ])
        for d in dimensions {
            let change: String
            if d.old == nil {
                change = "added"
            } else if d.new == nil {
                change = "removed"
            } else {
                change = CardDiff.relativeText(d.unitPrice.relative)
            }
            t.append([
                d.feature, d.dimension, d.old.map(CardDiff.priceText) ?? CardDiff.dash,
                d.new.map(CardDiff.priceText) ?? CardDiff.dash, change,
                CardDiff.arrow(
                    d.old.map { CardDiff.bindingText($0.cost) },
                    d.new.map { CardDiff.bindingText($0.cost) }),
            ])
        }
        return t
    }

    /// Features added, retired or removed.
    var featureTable: TextTable {
        var t = TextTable([.init("feature"), .init("change"), .init("note")])
        for f in features { t.append([f.key, f.kind.rawValue, f.note]) }
        return t
    }

    /// Grants whose credits changed.
    var grantTable: TextTable {
        var t = TextTable([.init("grant"), .init("credits", .right), .init("change", .right)])
        for g in grants {
            let change =
                g.old == nil
                ? "added" : (g.new == nil ? "removed" : CardDiff.relativeText(g.credits.relative))
            t.append([
                g.key, CardDiff.arrow(g.old.map(Format.grouped), g.new.map(Format.grouped)), change,
            ])
        }
        return t
    }

    /// Packs added or removed and pack prices changed, per currency.
    var packTable: TextTable {
        var t = TextTable([
            .init("pack"), .init("currency"), .init("credits", .right), .init("price", .right),
            .init("change", .right),
        ])
        let changedPacks = Set(packs.map(\.productId))
        for id in CardDiff.packIDs(old, new) {
            let po = old.packs.first { $0.productId == id }
            let pn = new.packs.first { $0.productId == id }
            let credits = CardDiff.arrow(
                po.map { Format.grouped($0.credits) }, pn.map { Format.grouped($0.credits) })
            let rows = prices.filter { $0.productId == id }
            let packChange = po == nil ? "pack added" : (pn == nil ? "pack removed" : nil)
            for p in rows {
                let change =
                    packChange
                    ?? (p.old == nil
                        ? "added"
                        : (p.new == nil
                            ? "removed" : CardDiff.relativeText(p.price.relative)))
                t.append([
                    id, p.market.label, credits,
                    CardDiff.arrow(CardDiff.money(p.old), CardDiff.money(p.new)), change,
                ])
            }
            if rows.isEmpty, changedPacks.contains(id) {
                var change = packChange ?? "credits"
                if packChange == nil, let po, let pn, po.type != pn.type {
                    change = "type \(po.type) → \(pn.type)"
                }
                t.append([id, CardDiff.dash, credits, "", change])
            }
        }
        return t
    }

    /// The money effect: every pack, currency and commission rate, before and after.
    var marginTable: TextTable {
        var t = TextTable([
            .init("pack"), .init("currency"), .init("commission", .right), .init("price", .right),
            .init("worst cost", .right),
            .init("margin", .right), .init("margin %", .right), .init("Δ margin", .right),
            .init("Δ margin %", .right), .init("worst feature"),
        ])
        for r in margins {
            t.append([
                r.productId, r.market.label, Format.percent(r.rate, places: 0),
                CardDiff.arrow(CardDiff.money(r.old?.price), CardDiff.money(r.new?.price)),
                CardDiff.arrow(CardDiff.money(r.old?.worstCost), CardDiff.money(r.new?.worstCost)),
                CardDiff.arrow(CardDiff.money(r.old?.margin), CardDiff.money(r.new?.margin)),
                CardDiff.arrow(
                    r.old?.marginShare.map { Format.percent($0) },
                    r.new?.marginShare.map { Format.percent($0) }),
                r.marginChange.map(CardDiff.signedMoney) ?? CardDiff.dash,
                r.marginShareChange.map(CardDiff.signedPoints) ?? CardDiff.dash,
                CardDiff.arrow(
                    r.old.map(\.worstFeatureText), r.new.map(\.worstFeatureText)
                ),
            ])
        }
        return t
    }

    /// Every grant's worst-case cost, before and after.
    var grantCostTable: TextTable {
        var t = TextTable([
            .init("grant"), .init("credits", .right), .init("currency"),
            .init("worst cost", .right), .init("Δ cost", .right), .init("worst feature"),
        ])
        for g in grantCosts {
            let currency = CardDiff.arrow(
                g.old?.worst.cost.currency.code, g.new?.worst.cost.currency.code)
            t.append([
                g.key,
                CardDiff.arrow(
                    g.old.map { Format.grouped($0.grant.credits) },
                    g.new.map { Format.grouped($0.grant.credits) }), currency,
                CardDiff.arrow(
                    CardDiff.money(g.old?.worst.cost), CardDiff.money(g.new?.worst.cost)),
                g.costChange.map(CardDiff.signedMoney) ?? CardDiff.dash,
                CardDiff.arrow(
                    g.old.map { $0.worst.witnessFeature ?? "none" },
                    g.new.map { $0.worst.witnessFeature ?? "none" }),
            ])
        }
        return t
    }

    /// The titled sections of the text and Markdown output, empty ones left out.
    var sections: [(title: String, table: TextTable)] {
        var out: [(String, TextTable)] = []
        if !cardChanges.isEmpty { out.append(("Card", cardTable)) }
        if !dimensions.isEmpty {
            out.append(
                (
                    "Feature prices (credits per unit; change of the price per unit)",
                    featurePriceTable
                ))
        }
        if !features.isEmpty { out.append(("Features", featureTable)) }
        if !grants.isEmpty { out.append(("Grants", grantTable)) }
        if !packs.isEmpty || !prices.isEmpty { out.append(("Packs and prices", packTable)) }
        // A card that sells only subscriptions has no pack table to show.
        if !(margins.isEmpty && plans.hasPlans) {
            out.append(("Worst-case margin per pack, before and after", marginTable))
        }
        if !grantCosts.isEmpty {
            out.append(("Worst-case cost of grants, before and after", grantCostTable))
        }
        out.append(contentsOf: plans.sections)
        return out
    }

    /// Lines a reviewer needs under the tables: the comparison, witnesses, FX, providers,
    /// commission and rounding.
    var footnotes: [String] {
        var out = notes
        if isEmpty { out.append("no differences") }
        for id in CardDiff.packIDs(old, new) {
            let wo = oldMargins.rows.first { $0.pack.productId == id }?.worst.witnessSummary
            let wn = newMargins.rows.first { $0.pack.productId == id }?.worst.witnessSummary
            if wo == wn { continue }
            out.append(
                "witness \(id): \(old.reference) \(wo ?? CardDiff.dash); \(new.reference) \(wn ?? CardDiff.dash)"
            )
        }
        // The plans' figures too: every rate either side's packs or plans used.
        let fxUsed = self.fxUsed
        if !fxUsed.isEmpty {
            let fx = newMargins.fx
            let date = fx.date.map { " dated \($0)" } ?? ""
            out.append(
                "FX\(date) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : "")): "
                    + fxUsed.map(\.description).sorted().joined(separator: ", "))
        }
        var providers = oldMargins.providers
        for p in newMargins.providers where !providers.contains(p) { providers.append(p) }
        for p in providers.sorted(by: { $0.id < $1.id }) {
            out.append("provider \(p.id): reviewed \(p.reviewed), \(p.sourceURL)")
        }
        if let c = newMargins.commissionNote { out.append("commission: \(c)") }
        out.append(
            "amounts rounded \(PackMargins.displayRounding.displayName) to the currency's minor unit; \(PackMargins.marginBasis); Δ = new − old, computed exactly and then rounded (so it can differ by 0.01 from the difference of the rounded figures); tax not modelled"
        )
        for p in new.placeholders { out.append("placeholder (\(new.reference)): \(p)") }
        return out
    }

    /// Plain text for a terminal: changes first, then the margin table, then notes.
    func plain(bold: Bool = false) -> String {
        var s = "\(old.reference) → \(new.reference): \(new.title)\n"
        for (title, table) in sections {
            s += "\n\(title)\n\n" + table.plain(bold: bold)
        }
        return s + "\n" + footnotes.joined(separator: "\n") + "\n"
    }

    /// Markdown for a pull request.
    func markdown() -> String {
        var s = "## \(old.reference) → \(new.reference): \(new.title)\n"
        for (title, table) in sections {
            s += "\n### \(title)\n\n" + table.markdown()
        }
        return s + "\n" + footnotes.map { "- \($0)" }.joined(separator: "\n") + "\n"
    }

    /// One row per changed value, for programs: `section,item,detail,commission,field,old,new,difference,relative,note`.
    /// Numbers are exact decimal strings; `difference` is new − old, `relative` new ÷ old − 1,
    /// both as the model computed them (`ValueChange`).
    func csv() -> String {
        var t = TextTable(
            [
                "section", "item", "detail", "commission", "field", "old", "new", "difference",
                "relative", "note",
            ].map { TextTable.Column($0) })
        var sheet = CSVSheet()
        cardRows(into: &sheet)
        marginRows(into: &sheet)
        for row in sheet.rows + plans.csvRows() { t.append(row) }
        return t.csv()
    }

    /// The rows of `--format csv`, one changed value each.
    struct CSVSheet {
        var rows: [[String]] = []

        /// A figure: old, new, and the model's difference and relative change.
        mutating func number(
            _ section: String, _ item: String, _ detail: String, _ rate: Exact?, _ field: String,
            _ change: ValueChange
        ) {
            rows.append([
                section, item, detail, rate?.decimalText() ?? "", field,
                change.old?.decimalText() ?? "", change.new?.decimalText() ?? "",
                change.difference?.decimalText() ?? "",
                change.relative.ratio?.decimalText() ?? "", "",
            ])
        }

        /// A word or a name, old → new.
        mutating func text(
            _ section: String, _ item: String, _ detail: String, _ rate: Exact?, _ field: String,
            _ a: String?, _ b: String?, note: String = ""
        ) {
            rows.append([
                section, item, detail, rate?.decimalText() ?? "", field, a ?? "", b ?? "", "", "",
                note,
            ])
        }
    }

    /// The card, feature price, feature, grant, pack and price rows.
    func cardRows(into t: inout CSVSheet) {
        for c in cardChanges { t.text("card", c.field, "", nil, c.field, c.old, c.new) }
        for d in dimensions {
            let (f, n) = (d.feature, d.dimension)
            t.number("feature-price", f, n, nil, "credits", d.credits)
            t.number("feature-price", f, n, nil, "per", d.per)
            t.text("feature-price", f, n, nil, "unit", d.old?.unit.rawValue, d.new?.unit.rawValue)
            t.text(
                "feature-price", f, n, nil, "rounding", d.old?.rounding.rawValue,
                d.new?.rounding.rawValue)
            t.text(
                "feature-price", f, n, nil, "cost", d.old.map { CardDiff.bindingText($0.cost) },
                d.new.map { CardDiff.bindingText($0.cost) })
            t.number("feature-price", f, n, nil, "credits_per_unit", d.unitPrice)
        }
        for f in features {
            t.text("feature", f.key, "", nil, "change", nil, f.kind.rawValue, note: f.note)
        }
        for g in grants { t.number("grant", g.key, "", nil, "credits", g.credits) }
        for p in packs {
            t.number("pack", p.productId, "", nil, "credits", p.credits)
            t.text("pack", p.productId, "", nil, "type", p.old?.type, p.new?.type)
        }
        for p in prices { t.number("price", p.productId, p.market.label, nil, "price", p.price) }
    }

    /// The margin rows of every pack, market and rate, and the grants' worst-case costs.
    func marginRows(into t: inout CSVSheet) {
        for r in margins {
            let (id, d, rate) = (r.productId, r.market.label, r.rate)
            t.number("margin", id, d, rate, "price", r.price)
            t.number("margin", id, d, rate, "worst_cost", r.worstCost)
            t.number("margin", id, d, rate, "proceeds", r.proceeds)
            t.number("margin", id, d, rate, "margin", r.margin)
            t.number("margin", id, d, rate, "margin_share", r.marginShare)
            t.text(
                "margin", id, d, rate, "worst_feature", r.old.map(\.worstFeatureCell),
                r.new.map(\.worstFeatureCell))
        }
        for g in grantCosts {
            guard let currency = (g.new ?? g.old)?.worst.cost.currency.code else { continue }
            t.number("grant-cost", g.key, currency, nil, "worst_cost", g.cost)
        }
    }

    /// The JSON object of the comparison (exact decimal strings, sorted keys).
    var json: JSONOutput {
        var out: [String: JSONOutput] = [
            "old": CardDiff.json(card: old), "new": CardDiff.json(card: new),
            "cardChanges": .array(
                cardChanges.map {
                    .object([
                        "field": .string($0.field), "old": .string($0.old), "new": .string($0.new),
                    ])
                }),
            "featurePrices": .array(dimensions.map(\.json)),
            "features": .array(
                features.map {
                    .object([
                        "key": .string($0.key), "change": .string($0.kind.rawValue),
                        "note": .string($0.note),
                    ])
                }),
            "grants": .array(
                grants.map { g in
                    .object([
                        "key": .string(g.key),
                        "oldCredits": g.old.map { .string(String($0)) } ?? .null,
                        "newCredits": g.new.map { .string(String($0)) } ?? .null,
                    ])
                }),
            "packs": .array(packs.map(\.json)),
            "prices": .array(prices.map(\.json)),
            "margins": .array(margins.map(\.json)),
            "grantCosts": .array(grantCosts.map(\.json)),
            "fx": .array(
                fxUsed.map {
                    .object([
                        "base": .string($0.base.code), "quote": .string($0.quote.code),
                        "rate": .decimal($0.rate),
                    ])
                }),
            "notes": .array(notes.map(JSONOutput.string)),
            "identical": .bool(isEmpty),
            "rounding": .string(
                "exact; a ratio that does not terminate is rounded half-even to 12 places"),
            "marginShare": .string(PackMargins.marginBasis),
        ]
        // Only when either card has plans: a credit-pack diff keeps its keys.
        if plans.hasPlans { out["plans"] = plans.json }
        return .object(out)
    }

    /// Every FX rate either side's packs or plans used, the old card's first.
    var fxUsed: [FXRate] {
        var fxUsed = oldMargins.fxUsed
        for r in newMargins.fxUsed + plans.oldMargins.fxUsed + plans.newMargins.fxUsed
        where !fxUsed.contains(r) { fxUsed.append(r) }
        return fxUsed
    }

    static func json(card c: RateCard) -> JSONOutput {
        .object([
            "card": .string(c.id), "version": .integer(Int128(c.version)),
            "effective": .string(c.effective.rfc3339UTC),
            "title": .string(c.title), "creditUnit": .string(c.creditUnit.name),
            "file": .string(c.source.path),
        ])
    }

    static func json(_ v: Exact?) -> JSONOutput { v.map(JSONOutput.decimal) ?? .null }

    static func json(_ m: Market, into o: inout [String: JSONOutput]) {
        o["currency"] = .string(m.currency.code)
        if let s = m.storefront { o["storefront"] = .string(s) }
    }
}

extension CardDiff.DimensionChange {
    var json: JSONOutput {
        func side(_ d: Dimension?, _ perUnit: Exact?) -> JSONOutput {
            guard let d else { return .null }
            return .object([
                "credits": .string(String(d.credits)), "per": .string(String(d.per)),
                "unit": .string(d.unit.rawValue),
                "rounding": .string(d.rounding.rawValue),
                "creditsPerUnit": CardDiff.json(perUnit),
                "cost": .string(CardDiff.bindingText(d.cost)),
            ])
        }
        return .object([
            "feature": .string(feature), "dimension": .string(dimension),
            "old": side(old, unitPrice.old), "new": side(new, unitPrice.new),
            "relativeChange": CardDiff.json(relative),
        ])
    }
}

extension CardDiff.PackChange {
    var json: JSONOutput {
        func pack(_ x: Pack?) -> JSONOutput {
            x.map {
                .object(["credits": .string(String($0.credits)), "type": .string($0.type)])
            } ?? .null
        }
        return .object(["productId": .string(productId), "old": pack(old), "new": pack(new)])
    }
}

extension CardDiff.PriceChange {
    var json: JSONOutput {
        var o: [String: JSONOutput] = [
            "productId": .string(productId), "old": CardDiff.json(old?.amount),
            "new": CardDiff.json(new?.amount), "relativeChange": CardDiff.json(relative),
        ]
        CardDiff.json(market, into: &o)
        return .object(o)
    }
}

extension CardDiff.MarginRow {
    var json: JSONOutput {
        func side(_ s: CardDiff.MarginSide?) -> JSONOutput {
            guard let s else { return .null }
            return .object([
                "credits": .string(String(s.credits)), "price": .decimal(s.price.amount),
                "worstCost": s.worstCost.map { .decimal($0.amount) } ?? .null,
                "proceeds": .decimal(s.proceeds.amount),
                "margin": s.margin.map { .decimal($0.amount) } ?? .null,
                "marginShare": s.marginShare.map { .decimal($0) } ?? .null,
                "worstFeature": s.worstFeature.map(JSONOutput.string) ?? .null,
            ])
        }
        var o: [String: JSONOutput] = [
            "productId": .string(productId), "commissionRate": .decimal(rate),
            "old": side(old), "new": side(new),
            "marginChange": CardDiff.json(margin.difference),
            "marginShareChange": CardDiff.json(marginShareChange),
        ]
        CardDiff.json(market, into: &o)
        return .object(o)
    }
}

extension CardDiff.GrantCostRow {
    var json: JSONOutput {
        func cost(_ x: PackMargins.GrantRow?) -> JSONOutput {
            x.map {
                .object([
                    "credits": .string(String($0.grant.credits)),
                    "worstCost": .money($0.worst.cost),
                    "worstFeature": $0.worst.witnessFeature.map(JSONOutput.string) ?? .null,
                ])
            } ?? .null
        }
        return .object(["key": .string(key), "old": cost(old), "new": cost(new)])
    }
}

extension CardDiff: RenderableReport {
    func renderTable(bold: Bool) -> String { plain(bold: bold) }
    func renderJSON() -> String { json.rendered() }
    func renderCSV() -> String { csv() }
    func renderMarkdown() -> String { markdown() }
}
