/// `margin plans` output: the same figures as tables, Markdown, CSV or JSON.
///
/// Display rounding as `margin packs`: money half-even to the currency's minor unit,
/// percentages half-even to one place. JSON carries exact decimal strings.
extension PlanMargins {
    static func money(_ m: Money) -> String { m.formatted(rule: PackMargins.displayRounding) }

    /// "30% → 15%"
    static func rates(_ p: Program) -> String {
        "\(Format.percent(p.yearOne, places: 0)) → \(Format.percent(p.afterYearOne, places: 0))"
    }

    /// "free P1W", "payAsYouGo 3 × P1M"
    static func offerText(_ o: IntroductoryOffer) -> String {
        "\(o.paymentMode.rawValue) \(o.periods == 1 ? "" : "\(o.periods) × ")\(o.period)"
    }

    /// One row per plan, currency and commission program.
    var planTable: TextTable {
        var t = TextTable([
            .init("card"), .init("plan"), .init("period"), .init("currency"),
            .init("price", .right), .init("worst cost", .right),
            .init("program"), .init("commission", .right), .init("margin y1", .right),
            .init("margin y1 %", .right),
            .init("margin after", .right), .init("margin after %", .right),
            .init("year one", .right), .init("later year", .right),
        ])
        for r in rows {
            for l in r.lines {
                t.append([
                    card.reference, r.plan.productId, r.plan.period.description,
                    r.price.price.currency.code,
                    PlanMargins.money(r.price.price), PlanMargins.money(r.worst.cost),
                    l.program.name, PlanMargins.rates(l.program),
                    PlanMargins.money(l.yearOne.margin), Format.percent(l.yearOne.marginShare),
                    PlanMargins.money(l.afterYearOne.margin),
                    Format.percent(l.afterYearOne.marginShare),
                    PlanMargins.money(l.yearOneTotal), PlanMargins.money(l.laterYearTotal),
                ])
            }
        }
        return t
    }

    /// One row per introductory offer, currency and program.
    var offerTable: TextTable {
        var t = TextTable([
            .init("card"), .init("plan"), .init("offer"), .init("currency"), .init("price", .right),
            .init("worst cost", .right),
            .init("program"), .init("offer margin", .right), .init("payback periods", .right),
        ])
        for r in rows {
            guard let intro = r.intro else { continue }
            for l in r.lines {
                t.append([
                    card.reference, r.plan.productId, PlanMargins.offerText(intro.offer),
                    r.price.price.currency.code,
                    PlanMargins.money(intro.price), PlanMargins.money(intro.worst.cost),
                    l.program.name,
                    l.introMargin.map(PlanMargins.money) ?? "",
                    l.paybackPeriods.map { String($0) } ?? "never",
                ])
            }
        }
        return t
    }

    /// The free tier's cost per user, and what it takes from each plan's margin.
    var freeTierTable: TextTable {
        var t = TextTable([
            .init("card"), .init("per"), .init("currency"), .init("worst cost", .right),
            .init("worst cost a year", .right),
            .init("plan"), .init("program"), .init("share y1", .right), .init("covered y1", .right),
            .init("share later", .right), .init("covered later", .right),
        ])
        guard let tier = freeTier else { return t }
        t.append([
            card.reference, tier.tier.period.description, tier.perPeriod.cost.currency.code,
            PlanMargins.money(tier.perPeriod.cost), PlanMargins.money(tier.perYear.cost), "", "",
            "", "", "", "",
        ])
        for r in rows {
            for l in r.lines {
                guard let f = l.freeUsers, let year = r.freeTierYear else { continue }
                t.append([
                    card.reference, "P1Y", year.currency.code, "", PlanMargins.money(year),
                    r.plan.productId, l.program.name,
                    f.yearOneShare.map { Format.percent($0) } ?? "no margin",
                    PlanMargins.covered(f.yearOneCovered),
                    f.laterYearShare.map { Format.percent($0) } ?? "no margin",
                    PlanMargins.covered(f.laterYearCovered),
                ])
            }
        }
        return t
    }

    /// One row per plan and territory of Apple's price-point files.
    var appleTable: TextTable {
        var t = TextTable([
            .init("card"), .init("plan"), .init("territory"), .init("currency"),
            .init("price", .right), .init("worst cost", .right),
            .init("proceeds y1", .right), .init("margin y1", .right), .init("margin y1 %", .right),
            .init("proceeds after", .right), .init("margin after", .right),
            .init("margin after %", .right),
        ])
        for r in appleRows {
            t.append([
                card.reference, r.plan.productId, r.point.territory,
                r.point.customerPrice.currency.code,
                PlanMargins.money(r.point.customerPrice),
                r.worst.map { PlanMargins.money($0.cost) } ?? "no FX",
                r.point.proceeds.map(PlanMargins.money) ?? "",
                r.yearOne.map { PlanMargins.money($0.margin) } ?? "",
                r.yearOne.map { Format.percent($0.share) } ?? "",
                r.point.proceedsYear2.map(PlanMargins.money) ?? "",
                r.afterYearOne.map { PlanMargins.money($0.margin) } ?? "",
                r.afterYearOne.map { Format.percent($0.share) } ?? "",
            ])
        }
        return t
    }

    static func covered(_ n: Int128) -> String { n == Int128.max ? "any" : Format.grouped(n) }

    /// Witnesses and the counting rules, under the tables.
    var notes: [String] {
        var out: [String] = []
        var seen = Set<String>()
        for r in rows where seen.insert(r.plan.productId).inserted {
            out.append(
                "witness \(r.plan.productId) (one \(r.plan.period.phrase)): \(r.worst.witnessSummary)"
            )
            if let intro = r.intro {
                out.append(
                    "witness \(r.plan.productId) offer (\(PlanMargins.offerText(intro.offer))): \(intro.worst.witnessSummary)"
                )
            }
        }
        if let tier = freeTier {
            out.append(
                "witness free tier (one \(tier.tier.period.phrase)): \(tier.perPeriod.witnessSummary)"
            )
        }
        if !appleRows.isEmpty {
            out.append(
                "Apple's proceeds: `proceeds` (year one) and `proceedsYear2` (after one year of paid service) as Apple's price-point files state them, tax and commission included; the worst case converted into each territory's currency with the FX file"
            )
        }
        out.append(PlanMargins.countingNote)
        out.append(
            "amounts rounded \(PackMargins.displayRounding.displayName) to the currency's minor unit; \(PackMargins.marginBasis); tax not modelled"
        )
        out.append(contentsOf: card.placeholders.map { "placeholder: \($0)" })
        return out
    }

    /// How periods, years and the free tier are counted (docs/plans.md).
    static let countingNote =
        "a period's worst case uses every credit and every quota and allowance in full in every window that can start in it (a daily quota: 31 a month, 366 a year); year one: the first 12 months (53 weeks) of regular periods at the year-one rate, an offer's periods not counted toward it; later year: 52 weeks, 12 months; payback: regular periods until the offer's worst-case loss is earned back; share: one free user's worst case a year as a share of one subscriber's margin a year, covered: free users that margin pays for in full"

    /// The JSON object of this card's plans (exact decimal strings).
    var json: JSONOutput {
        func worst(_ w: PlanWorstCase) -> JSONOutput {
            var o: [String: JSONOutput] = [
                "span": .string(w.span.description), "cost": .decimal(w.cost.amount),
                "currency": .string(w.cost.currency.code),
                "limits": .array(
                    w.limits.map { c in
                        var l: [String: JSONOutput] = [
                            "kind": .string(c.limit.kind.rawValue),
                            "feature": .string(c.limit.feature),
                            "dimension": .string(c.limit.dimension),
                            "amount": .string(String(c.limit.amount)),
                            "unit": .string(c.unit.rawValue),
                            "reset": .string(c.limit.reset.description),
                            "windows": .integer(Int128(c.windows)),
                            "intervals": .string(String(c.intervals)),
                            "costPerWindow": .decimal(c.perWindow.cost.amount),
                            "cost": .decimal(c.cost.amount),
                            "witness": .string(c.witnessSummary),
                        ]
                        if let why = c.noRunningCost { l["noRunningCost"] = .string(why) }
                        return .object(l)
                    }),
                "witness": .string(w.witnessSummary),
            ]
            if let cw = w.creditWorst {
                o["credits"] = .object([
                    "credits": .string(String(w.credits)),
                    "windows": .integer(Int128(w.creditWindows)),
                    "costPerWindow": .decimal(cw.cost.amount),
                    "unspentCredits": .string(String(cw.unspent)),
                    "witness": .string(cw.witnessSummary),
                ])
            }
            return .object(o)
        }
        func margin(_ m: PeriodMargin) -> JSONOutput {
            .object([
                "rate": .decimal(m.rate), "proceeds": .decimal(m.proceeds.amount),
                "margin": .decimal(m.margin.amount), "marginShare": .decimal(m.marginShare),
            ])
        }
        let plans: [JSONOutput] = rows.map { r in
            var o: [String: JSONOutput] = [
                "productId": .string(r.plan.productId), "group": .string(r.plan.group),
                "period": .string(r.plan.period.description),
                "currency": .string(r.price.price.currency.code),
                "price": .decimal(r.price.price.amount),
                "worstCase": worst(r.worst), "yearOnePeriods": .integer(Int128(r.yearOnePeriods)),
                "laterYearPeriods": .integer(Int128(r.laterYearPeriods)),
                "placeholder": .bool(r.plan.placeholder),
                "programs": .array(
                    r.lines.map { l in
                        var p: [String: JSONOutput] = [
                            "program": .string(l.program.name), "yearOne": margin(l.yearOne),
                            "afterYearOne": margin(l.afterYearOne),
                            "yearOneMargin": .decimal(l.yearOneTotal.amount),
                            "laterYearMargin": .decimal(l.laterYearTotal.amount),
                        ]
                        if let m = l.introMargin { p["offerMargin"] = .decimal(m.amount) }
                        if r.intro != nil {
                            p["paybackPeriods"] =
                                l.paybackPeriods.map { .integer(Int128($0)) } ?? .null
                        }
                        if let f = l.freeUsers {
                            p["freeUsers"] = .object([
                                "yearOneShare": f.yearOneShare.map(JSONOutput.decimal) ?? .null,
                                "yearOneCovered": f.yearOneCovered == Int128.max
                                    ? .null : .string(String(f.yearOneCovered)),
                                "laterYearShare": f.laterYearShare.map(JSONOutput.decimal) ?? .null,
                                "laterYearCovered": f.laterYearCovered == Int128.max
                                    ? .null : .string(String(f.laterYearCovered)),
                            ])
                        }
                        return .object(p)
                    }),
            ]
            if let sf = r.price.storefront { o["storefront"] = .string(sf) }
            if let intro = r.intro {
                o["introductoryOffer"] = .object([
                    "paymentMode": .string(intro.offer.paymentMode.rawValue),
                    "period": .string(intro.offer.period.description),
                    "periods": .integer(Int128(intro.offer.periods)),
                    "price": .decimal(intro.price.amount), "worstCase": worst(intro.worst),
                ])
            }
            return .object(o)
        }
        var o: [String: JSONOutput] = [
            "card": .string(card.id), "version": .integer(Int128(card.version)),
            "title": .string(card.title),
            "subscriptions": .array(plans),
            "programs": .array(
                programs.map {
                    .object([
                        "name": .string($0.name), "yearOne": .decimal($0.yearOne),
                        "afterYearOne": .decimal($0.afterYearOne),
                    ])
                }),
            "counting": .string(PlanMargins.countingNote),
            "placeholders": .array(card.placeholders.map { .string($0) }),
        ]
        if !appleRows.isEmpty {
            o["appleProceeds"] = .array(
                appleRows.map { r in
                    var a: [String: JSONOutput] = [
                        "productId": .string(r.plan.productId),
                        "territory": .string(r.point.territory),
                        "currency": .string(r.point.customerPrice.currency.code),
                        "price": .decimal(r.point.customerPrice.amount),
                        "proceeds": r.point.proceeds.map { .decimal($0.amount) } ?? .null,
                        "proceedsYear2": r.point.proceedsYear2.map { .decimal($0.amount) } ?? .null,
                        "worstCost": r.worst.map { .decimal($0.cost.amount) } ?? .null,
                        "marginYearOne": r.yearOne.map { .decimal($0.margin.amount) } ?? .null,
                        "marginAfterYearOne": r.afterYearOne.map { .decimal($0.margin.amount) }
                            ?? .null,
                    ]
                    a["marginShareYearOne"] = r.yearOne.map { .decimal($0.share) } ?? .null
                    a["marginShareAfterYearOne"] =
                        r.afterYearOne.map { .decimal($0.share) } ?? .null
                    return .object(a)
                })
        }
        if let tier = freeTier {
            o["freeTier"] = .object([
                "period": .string(tier.tier.period.description), "perPeriod": worst(tier.perPeriod),
                "perYear": worst(tier.perYear),
            ])
        }
        return .object(o)
    }

    var isEmpty: Bool { rows.isEmpty && freeTier == nil }
    var heading: String { card.title.isEmpty ? card.reference : "\(card.reference): \(card.title)" }

    /// Renders several cards in one format.
    public static func render(_ all: [PlanMargins], format: OutputFormat, bold: Bool = false)
        -> String
    {
        switch format {
        case .json:
            return JSONOutput.object(["cards": .array(all.map(\.json))]).rendered()
        case .csv:
            var t = TextTable([
                .init("card"), .init("kind"), .init("key"), .init("period"), .init("currency"),
                .init("price"), .init("worst_cost"),
                .init("program"), .init("rate"), .init("proceeds"), .init("margin"),
                .init("margin_share"), .init("periods"),
                .init("margin_total"), .init("payback_periods"), .init("territory"),
            ])
            for m in all {
                for r in m.rows {
                    for l in r.lines {
                        let c = r.price.price.currency.code
                        for (kind, pm, n, total) in [
                            ("year-one", l.yearOne, r.yearOnePeriods, l.yearOneTotal),
                            ("later-year", l.afterYearOne, r.laterYearPeriods, l.laterYearTotal),
                        ] {
                            t.append([
                                m.card.reference, kind, r.plan.productId, r.plan.period.description,
                                c, r.price.price.amount.decimalText(),
                                r.worst.cost.amount.decimalText(), l.program.name,
                                pm.rate.decimalText(), pm.proceeds.amount.decimalText(),
                                pm.margin.amount.decimalText(), pm.marginShare.decimalText(),
                                String(n), total.amount.decimalText(), "", "",
                            ])
                        }
                        if let intro = r.intro, let im = l.introMargin {
                            t.append([
                                m.card.reference, "offer", r.plan.productId,
                                intro.offer.span.description, c, intro.price.amount.decimalText(),
                                intro.worst.cost.amount.decimalText(), l.program.name,
                                l.program.yearOne.decimalText(), "",
                                im.amount.decimalText(), "", String(intro.offer.periods), "",
                                l.paybackPeriods.map { String($0) } ?? "never", "",
                            ])
                        }
                    }
                }
                for r in m.appleRows {
                    let c = r.point.customerPrice
                    for (kind, proceeds, margin) in [
                        ("apple-year-one", r.point.proceeds, r.yearOne),
                        ("apple-later-year", r.point.proceedsYear2, r.afterYearOne),
                    ] {
                        t.append([
                            m.card.reference, kind, r.plan.productId, r.plan.period.description,
                            c.currency.code, c.amount.decimalText(),
                            r.worst?.cost.amount.decimalText() ?? "", "apple", "",
                            proceeds?.amount.decimalText() ?? "",
                            margin?.margin.amount.decimalText() ?? "",
                            margin?.share.decimalText() ?? "", "", "", "", r.point.territory,
                        ])
                    }
                }
                if let tier = m.freeTier {
                    t.append([
                        m.card.reference, "free-tier", "", tier.tier.period.description,
                        tier.perPeriod.cost.currency.code, "",
                        tier.perPeriod.cost.amount.decimalText(), "", "", "", "", "", "", "", "",
                        "",
                    ])
                    t.append([
                        m.card.reference, "free-tier", "", "P1Y", tier.perYear.cost.currency.code,
                        "",
                        tier.perYear.cost.amount.decimalText(), "", "", "", "", "", "", "", "", "",
                    ])
                }
            }
            return t.csv()
        case .markdown:
            return all.map { m in
                var s = "## \(m.heading)\n\n"
                if m.isEmpty {
                    return s + "\(m.card.reference) sells no subscriptions and has no free tier.\n"
                }
                if !m.rows.isEmpty { s += m.planTable.markdown() }
                if m.rows.contains(where: { $0.intro != nil }) {
                    s += "\n" + m.offerTable.markdown()
                }
                if m.freeTier != nil { s += "\n" + m.freeTierTable.markdown() }
                if !m.appleRows.isEmpty {
                    s += "\nApple's proceeds (price-point files):\n\n" + m.appleTable.markdown()
                }
                return s + "\n" + m.notes.map { "- \($0)" }.joined(separator: "\n") + "\n"
            }.joined(separator: "\n")
        case .table:
            return all.map { m in
                var s = m.heading + "\n\n"
                if m.isEmpty {
                    return s + "\(m.card.reference) sells no subscriptions and has no free tier.\n"
                }
                if !m.rows.isEmpty { s += m.planTable.plain(bold: bold) }
                if m.rows.contains(where: { $0.intro != nil }) {
                    s += "\n" + m.offerTable.plain(bold: bold)
                }
                if m.freeTier != nil { s += "\n" + m.freeTierTable.plain(bold: bold) }
                if !m.appleRows.isEmpty {
                    s +=
                        "\nApple's proceeds (price-point files)\n\n"
                        + m.appleTable.plain(bold: bold)
                }
                return s + "\n" + m.notes.joined(separator: "\n") + "\n"
            }.joined(separator: "\n")
        }
    }
}
