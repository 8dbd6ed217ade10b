/// `margin packs` output: the same figures as a table, Markdown, CSV or JSON.
///
/// Display rounding: money is rounded once, here, half-even to the currency's minor unit;
/// percentages half-even to one place. JSON carries exact decimal strings.
extension PackMargins {
    static let displayRounding = RoundingRule.halfEven

    static func money(_ m: Money) -> String { m.formatted(rule: displayRounding) }

    /// "EUR", or "EUR (FRA)" for a price given for one storefront: two prices in one
    /// currency are told apart, as the report tells them.
    static func market(_ p: PackPrice) -> String {
        p.price.currency.code + (p.storefront.map { " (\($0))" } ?? "")
    }

    /// One row per pack, currency and commission rate.
    var packTable: TextTable {
        var t = TextTable([
            .init("card"), .init("pack"), .init("credits", .right), .init("currency"),
            .init("price", .right),
            .init("worst cost", .right), .init("commission", .right), .init("proceeds", .right),
            .init("margin", .right), .init("margin %", .right), .init("worst feature"),
        ])
        for r in rows {
            for l in r.lines {
                // A pack of no credits has no worst case or margin, and a price of 0 no
                // margin share: "—", not 0.00 or 0.0% (check: free-price).
                t.append([
                    card.reference, r.pack.productId, Format.grouped(r.pack.credits),
                    PackMargins.market(r.price),
                    PackMargins.money(r.price.price),
                    r.addsCredits ? PackMargins.money(r.worst.cost) : Format.missing,
                    Format.percent(l.rate, places: 0),
                    PackMargins.money(l.proceeds),
                    l.margin.map(PackMargins.money) ?? Format.missing,
                    l.marginShare.map { Format.percent($0) } ?? Format.missing,
                    r.addsCredits ? r.worst.witnessFeature ?? "none" : Format.missing,
                ])
            }
        }
        return t
    }

    /// One row per grant.
    var grantTable: TextTable {
        var t = TextTable([
            .init("card"), .init("grant"), .init("credits", .right), .init("currency"),
            .init("worst cost", .right), .init("worst feature"),
        ])
        for g in grants {
            t.append([
                card.reference, g.grant.key, Format.grouped(g.grant.credits),
                g.worst.cost.currency.code, PackMargins.money(g.worst.cost),
                g.worst.witnessFeature ?? "none",
            ])
        }
        return t
    }

    /// Lines a reader needs under the tables: witnesses, FX, sources, rounding, placeholders.
    var notes: [String] {
        var out: [String] = []
        for r in rows
        where r.price.price.currency == (rows.first { $0.pack == r.pack }?.price.price.currency) {
            out.append(
                r.addsCredits
                    ? "witness \(r.pack.productId): \(r.worst.witnessSummary)"
                    : "no margin: \(PackMargins.noCreditsText(r.pack))")
        }
        for s in freeUsage {
            out.append(
                "warning: \(s.feature).\(s.dimension): a request of \(s.quantity) \(s.unit.abbreviation) is charged 0 credits but costs \(s.cost); its worst case is unbounded"
            )
        }
        let (fileRates, commandLineRates) = fxUsedByOrigin
        if !fileRates.isEmpty {
            let date = fx.date.map { " dated \($0)" } ?? ""
            out.append(
                "FX\(date) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : "")): "
                    + fileRates.map(\.description).joined(separator: ", "))
        }
        if !commandLineRates.isEmpty {
            out.append(
                "FX given on the command line: "
                    + commandLineRates.map(\.description).joined(separator: ", "))
        }
        for p in providers {
            var s = "provider \(p.id): reviewed \(p.reviewed), \(p.sourceURL)"
            if let sch = p.schedule {
                let w = sch.worstPeriod
                s +=
                    "; schedule reviewed \(sch.reviewed.map(\.description) ?? "(no date)"), worst period \(w.name) ×\(w.multiplier)"
            }
            out.append(s)
        }
        if let c = commissionNote { out.append("commission: \(c)") }
        out.append(
            "amounts rounded \(PackMargins.displayRounding.displayName) to the currency's minor unit; \(PackMargins.marginBasis); \(taxNote)"
        )
        out.append(contentsOf: card.placeholders.map { "placeholder: \($0)" })
        if !card.subscriptions.isEmpty || card.freeTier != nil {
            out.append(
                "\(card.reference) also sells \(card.subscriptions.count) subscription\(card.subscriptions.count == 1 ? "" : "s")\(card.freeTier == nil ? "" : " and has a free tier"): see `margin plans \(card.reference)`"
            )
        }
        return out
    }

    /// "osg@10: OSG managed account credits", or the reference alone without a title.
    var heading: String { card.title.isEmpty ? card.reference : "\(card.reference): \(card.title)" }

    /// Says whether tax was modelled, and how.
    var taxNote: String {
        if taxRates.isEmpty {
            return "tax not modelled: prices are taken as received by the store before commission"
        }
        let list = taxRates.sorted { $0.key < $1.key }.map {
            "\($0.key.code) \(Format.percent($0.value, places: 2))"
        }.joined(separator: ", ")
        return
            "tax removed from tax-inclusive prices before commission: \(list); other currencies not taxed"
    }

    /// The JSON object of this card's figures (exact decimal strings).
    var json: JSONOutput {
        func shape(_ s: RequestShape) -> JSONOutput {
            var o: [String: JSONOutput] = [
                "feature": .string(s.feature), "dimension": .string(s.dimension),
                "quantity": .string(String(s.quantity)),
                "unit": .string(s.unit.rawValue), "credits": .string(String(s.credits)),
                "cost": .decimal(s.cost.amount),
                "meter": .string(s.meter), "variant": .string(s.variant),
                "billedUnits": .decimal(s.billedUnits),
            ]
            if let p = s.period { o["period"] = .string(p) }
            return .object(o)
        }
        func worst(_ w: WorstCase) -> JSONOutput {
            .object([
                "cost": .decimal(w.cost.amount),
                "currency": .string(w.cost.currency.code),
                "unspentCredits": .string(String(w.unspent)),
                "witness": .array(
                    w.plan.map { step in
                        guard case .object(var o) = shape(step.shape) else { return .null }
                        o["count"] = .string(String(step.count))
                        return .object(o)
                    }),
            ])
        }
        let packs: [JSONOutput] = rows.map { r in
            var o: [String: JSONOutput] = [
                "productId": .string(r.pack.productId), "type": .string(r.pack.type),
                "credits": .string(String(r.pack.credits)),
                "currency": .string(r.price.price.currency.code),
                "price": .decimal(r.price.price.amount),
                "worstCase": r.addsCredits ? worst(r.worst) : .null,
                "commissions": .array(
                    r.lines.map { l in
                        .object([
                            "rate": .decimal(l.rate), "commission": .decimal(l.commission.amount),
                            "proceeds": .decimal(l.proceeds.amount),
                            "margin": l.margin.map { .decimal($0.amount) } ?? .null,
                            "marginShare": l.marginShare.map { .decimal($0) } ?? .null,
                        ])
                    }),
                "placeholder": .bool(r.pack.placeholder),
            ]
            if !r.addsCredits { o["noMargin"] = .string(PackMargins.noCreditsText(r.pack)) }
            if let pc = r.providerCost, r.addsCredits { o["providerCost"] = .money(pc) }
            if let sf = r.price.storefront { o["storefront"] = .string(sf) }
            if !r.fxUsed.isEmpty { o["fx"] = .array(r.fxUsed.map { .string($0.description) }) }
            return .object(o)
        }
        let grantList: [JSONOutput] = grants.map { g in
            .object([
                "key": .string(g.grant.key), "credits": .string(String(g.grant.credits)),
                "worstCase": worst(g.worst), "placeholder": .bool(g.grant.placeholder),
            ])
        }
        return .object([
            "card": .string(card.id), "version": .integer(Int128(card.version)),
            "effective": .string(card.effective.rfc3339UTC),
            "title": .string(card.title), "creditUnit": .string(card.creditUnit.name),
            "packs": .array(packs), "grants": .array(grantList), "fx": fx.json(used: fxUsed),
            "providers": .array(
                providers.map { p in
                    .object([
                        "id": .string(p.id), "reviewed": .string(p.reviewed.description),
                        "source": .string(p.sourceURL), "currency": .string(p.currency.code),
                    ])
                }),
            "freeUsage": .array(freeUsage.map(shape)),
            "placeholders": .array(card.placeholders.map { .string($0) }),
            "rounding": .string(
                "exact; display rounds \(PackMargins.displayRounding.rawValue) to the currency's minor unit"
            ),
            "marginShare": .string(PackMargins.marginBasis),
            "tax": .object([
                "note": .string(taxNote),
                "rates": .object(
                    Dictionary(
                        uniqueKeysWithValues: taxRates.map {
                            ($0.key.code, JSONOutput.decimal($0.value))
                        })),
            ]),
        ])
    }
}

/// What `margin packs` prints: the margins of every selected card, in every format.
struct PackReport: RenderableReport, Sendable {
    let cards: [PackMargins]

    init(_ cards: [PackMargins]) {
        self.cards = cards
    }

    /// Every card's packs of no credits and prices of 0 or below (`PackMargins.warnings`).
    var warnings: [Diagnostic] { cards.flatMap(\.warnings) }

    func renderJSON() -> String {
        JSONOutput.object(["cards": .array(cards.map(\.json))]).rendered()
    }

    func renderCSV() -> String {
        var t = TextTable([
            .init("card"), .init("kind"), .init("key"), .init("credits"), .init("currency"),
            .init("price"),
            .init("worst_cost"), .init("commission_rate"), .init("proceeds"), .init("margin"),
            .init("margin_share"), .init("worst_feature"), .init("storefront"),
        ])
        for m in cards {
            for r in m.rows {
                for l in r.lines {
                    t.append([
                        m.card.reference, "pack", r.pack.productId, String(r.pack.credits),
                        r.price.price.currency.code,
                        r.price.price.amount.decimalText(),
                        r.addsCredits ? r.worst.cost.amount.decimalText() : "",
                        l.rate.decimalText(),
                        l.proceeds.amount.decimalText(), l.margin?.amount.decimalText() ?? "",
                        l.marginShare?.decimalText() ?? "",
                        r.addsCredits ? r.worst.witnessFeature ?? "" : "",
                        r.price.storefront ?? "",
                    ])
                }
            }
            for g in m.grants {
                t.append([
                    m.card.reference, "grant", g.grant.key, String(g.grant.credits),
                    g.worst.cost.currency.code,
                    "", g.worst.cost.amount.decimalText(), "", "", "", "",
                    g.worst.witnessFeature ?? "", "",
                ])
            }
        }
        return t.csv()
    }

    func renderMarkdown() -> String {
        cards.map { m in
            var s = "## \(m.heading)\n\n"
            s += m.rows.isEmpty ? "\(m.card.reference) sells no packs.\n" : m.packTable.markdown()
            if !m.grants.isEmpty { s += "\n" + m.grantTable.markdown() }
            s += "\n" + m.notes.map { "- \($0)" }.joined(separator: "\n") + "\n"
            return s
        }.joined(separator: "\n")
    }

    func renderTable(bold: Bool) -> String {
        cards.map { m in
            var s = m.heading + "\n\n"
            s +=
                m.rows.isEmpty
                ? "\(m.card.reference) sells no packs.\n" : m.packTable.plain(bold: bold)
            if !m.grants.isEmpty { s += "\n" + m.grantTable.plain(bold: bold) }
            s += "\n" + m.notes.joined(separator: "\n") + "\n"
            return s
        }.joined(separator: "\n")
    }
}
