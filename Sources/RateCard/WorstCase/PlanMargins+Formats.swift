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

    /// The rates a line's proceeds were computed at: the regimes of its storefront
    /// ("25% → 12%" in China mainland, "17% + 3% → 10% + 3%"), else the program's.
    static func rates(_ l: Line) -> String {
        guard l.storefront != nil else { return rates(l.program) }
        return
            "\(Format.percent(l.yearOne.rate, places: 0)) → \(Format.percent(l.afterYearOne.rate, places: 0))"
    }

    /// Where a currency line's proceeds come from: "GBR (20.0% VAT removed)", "ITA (22.0%
    /// VAT removed, 3.0% DST)", "USA (tax excluded)", or "tax not removed" where no storefront
    /// of the data is reached.
    func basisText(_ l: Line) -> String {
        guard let sf = l.storefront, let day = storefrontDate else { return "tax not removed" }
        let r = sf.rates(on: day)
        var parts = [sf.taxIncluded ? "\(Format.percent(r.vat)) VAT removed" : "tax excluded"]
        if !r.digitalServicesTax.isZero {
            parts.append("\(Format.percent(r.digitalServicesTax)) DST")
        }
        if !r.withholding.isZero { parts.append("\(Format.percent(r.withholding)) withheld") }
        return "\(sf.territory) (\(parts.joined(separator: ", ")))"
    }

    /// "free P1W", "payAsYouGo 3 × P1M"
    static func offerText(_ o: IntroductoryOffer) -> String {
        "\(o.paymentMode.rawValue) \(o.periods == 1 ? "" : "\(o.periods) × ")\(o.period)"
    }

    /// One row per plan, currency and commission program. With a storefront file, two
    /// more columns say which storefront's proceeds the row is at and what they are.
    var planTable: TextTable {
        let modelled = storefrontTable != nil
        var t = TextTable(
            [
                .init("card"), .init("plan"), .init("period"), .init("currency"),
                .init("price", .right), .init("worst cost", .right),
                .init("program"), .init("commission", .right),
            ]
                + (modelled ? [.init("proceeds in"), .init("proceeds y1", .right)] : []) + [
                    .init("margin y1", .right), .init("margin y1 %", .right),
                    .init("margin after", .right), .init("margin after %", .right),
                    .init("year one", .right), .init("later year", .right),
                ])
        for r in rows {
            for l in r.lines {
                t.append(
                    [
                        card.reference, r.plan.productId, r.plan.period.description,
                        PlanMargins.market(r.price),
                        PlanMargins.money(r.price.price), PlanMargins.money(r.worst.cost),
                        l.program.name, PlanMargins.rates(l),
                    ]
                        + (modelled
                            ? [basisText(l), PlanMargins.money(l.yearOne.proceeds)] : []) + [
                            PlanMargins.money(l.yearOne.margin),
                            l.yearOne.marginShare.map { Format.percent($0) } ?? Format.missing,
                            PlanMargins.money(l.afterYearOne.margin),
                            l.afterYearOne.marginShare.map { Format.percent($0) } ?? Format.missing,
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
                // An offer the card gives no price here: said, with no margin and no payback.
                t.append([
                    card.reference, r.plan.productId, PlanMargins.offerText(intro.offer),
                    PlanMargins.market(r.price),
                    intro.price.map(PlanMargins.money) ?? "unpriced",
                    PlanMargins.money(intro.worst.cost),
                    l.program.name,
                    l.introMargin.map(PlanMargins.money) ?? "",
                    intro.price == nil ? "" : l.paybackPeriods.map { String($0) } ?? "never",
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
                guard let f = l.freeUsers, let year = r.freeTierYear?.cost else { continue }
                t.append([
                    card.reference, "P1Y", PlanMargins.market(r.price), "",
                    PlanMargins.money(year),
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
                r.yearOne.map { $0.share.map { Format.percent($0) } ?? "" } ?? "",
                r.point.proceedsYear2.map(PlanMargins.money) ?? "",
                r.afterYearOne.map { PlanMargins.money($0.margin) } ?? "",
                r.afterYearOne.map { $0.share.map { Format.percent($0) } ?? "" } ?? "",
            ])
        }
        return t
    }

    static func covered(_ n: Int128) -> String { n == Int128.max ? "any" : Format.grouped(n) }

    /// "USD", or "EUR (FRA)" for a storefront's own price.
    static func market(_ p: PackPrice) -> String {
        p.price.currency.code + (p.storefront.map { " (\($0))" } ?? "")
    }

    /// "USD/CNY 7.1 (RateCards/fx.json, placeholder)" or "USD/CNY 7.2 (given on the
    /// command line)": a rate and where it came from.
    func fxText(_ r: FXRate) -> String {
        r.fromCommandLine
            ? "\(r) (given on the command line)"
            : "\(r) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : ""))"
    }

    /// True when a figure rests on a rate of a placeholder FX file.
    var fxRestsOnPlaceholder: Bool { fx.restsOnPlaceholder(fxUsed) }

    /// `fx` of the JSON: the file, and every rate used with where it came from.
    var fxJSON: JSONOutput { fx.json(used: fxUsed) }

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
        if !storefrontRows.isEmpty { out.append(storefrontNote) }
        if !storefrontRows.isEmpty, let t = storefrontTable, let d = storefrontDate,
            let note = t.lateNote(d)
        {
            out.append(note)
        }
        for (plan, coverage) in storefrontCoverage {
            if let note = coverage.note { out.append("subscription \"\(plan.productId)\" \(note)") }
        }
        let fileRates = fxUsed.filter { !$0.fromCommandLine }
        if !fileRates.isEmpty {
            let date = fx.date.map { " dated \($0)" } ?? ""
            out.append(
                "FX\(date) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : "")): "
                    + fileRates.map(\.description).joined(separator: ", "))
        }
        let commandLineRates = fxUsed.filter(\.fromCommandLine)
        if !commandLineRates.isEmpty {
            out.append(
                "FX given on the command line: "
                    + commandLineRates.map(\.description).joined(separator: ", "))
        }
        out.append(PlanMargins.countingNote)
        out.append(
            "amounts rounded \(PackMargins.displayRounding.displayName) to the currency's minor unit; \(PackMargins.marginBasis); \(storefrontRows.isEmpty ? "tax not modelled" : "each currency row is what Apple pays in the storefront of that price that pays least (tax removed, the program's rate in year one and its reduced rate after a year), and its offers, payback and free-tier share use the same proceeds; a row marked \"tax not removed\" reaches no storefront of the data and is the card's price × (1 − commission)")"
        )
        out.append(contentsOf: card.placeholders.map { "placeholder: \($0)" })
        return out
    }

    /// How periods, years and the free tier are counted (docs/plans.md).
    static let countingNote =
        "a period's worst case uses every credit and every quota and allowance in full in every window that can start in it (a daily quota: 31 a month, 366 a year); year one: the first 12 months (53 weeks) of regular periods at the year-one rate, an offer's periods not counted toward it; later year: 52 weeks, 12 months; payback: regular periods until the offer's worst-case loss is earned back; share: one free user's worst case a year as a share of one subscriber's margin a year, covered: free users that margin pays for in full"

    /// The JSON object of this card's plans (exact decimal strings).
    var json: JSONOutput {
        var o: [String: JSONOutput] = [
            "card": .string(card.id), "version": .integer(Int128(card.version)),
            "title": .string(card.title),
            "subscriptions": .array(rows.map(PlanMargins.rowJSON)),
            "programs": .array(
                programs.map {
                    .object([
                        "name": .string($0.name), "yearOne": .decimal($0.yearOne),
                        "afterYearOne": .decimal($0.afterYearOne),
                    ])
                }),
            "counting": .string(PlanMargins.countingNote),
            "fx": fxJSON,
            "placeholders": .array(card.placeholders.map { .string($0) }),
        ]
        if !appleRows.isEmpty {
            o["appleProceeds"] = .array(
                appleRows.map(PlanMargins.appleJSON))
        }
        if let table = storefrontTable, let day = storefrontDate {
            o["storefrontData"] = .object([
                "file": .string(table.source.path), "date": .string(table.date.description),
                "placeholder": .bool(table.placeholder), "on": .string(day.description),
            ])
            o["storefronts"] = .array(storefrontRows.map(PlanMargins.storefrontJSON))
            o["notShown"] = .array(
                storefrontCoverage.map {
                    .object(["plan": .string($0.plan.productId), "storefronts": $0.coverage.json])
                })
        }
        if let tier = freeTier {
            o["freeTier"] = .object([
                "fx": .array(
                    PlanWorstCase.union([tier.perPeriod.fxUsed, tier.perYear.fxUsed]).map {
                        .string($0.description)
                    }),
                "period": .string(tier.tier.period.description),
                "perPeriod": PlanMargins.worstJSON(tier.perPeriod),
                "perYear": PlanMargins.worstJSON(tier.perYear),
            ])
        }
        return .object(o)
    }

    /// A worst case as JSON: its cost, every limit's windows and witness, the credits'.
    static func worstJSON(_ w: PlanWorstCase) -> JSONOutput {
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
    /// One period's margin as JSON, with the storefront model's figures where it was used.
    static func marginJSON(_ m: PeriodMargin) -> JSONOutput {
        var o: [String: JSONOutput] = [
            "rate": .decimal(m.rate), "proceeds": .decimal(m.proceeds.amount),
            "margin": .decimal(m.margin.amount),
            "marginShare": m.marginShare.map { .decimal($0) } ?? .null,
            "taxRemoved": .bool(m.modelled != nil),
        ]
        if let p = m.modelled {
            o["proceedsExact"] = .decimal(p.exact.amount)
            o["taxExclusivePrice"] = .decimal(p.taxExclusive.amount)
            o["vat"] = .decimal(p.taxes.vat)
            o["digitalServicesTax"] = .decimal(p.taxes.digitalServicesTax)
            o["withholding"] = .decimal(p.taxes.withholding)
            o["regime"] = .string(p.regime.program.rawValue)
        }
        return .object(o)
    }
    /// One program's line of a row as JSON.
    static func lineJSON(_ l: Line) -> JSONOutput {
        var p: [String: JSONOutput] = [
            "program": .string(l.program.name),
            "proceedsStorefront": l.storefront.map { .string($0.territory) }
                ?? .null,
            "yearOne": marginJSON(l.yearOne),
            "afterYearOne": marginJSON(l.afterYearOne),
            "yearOneMargin": .decimal(l.yearOneTotal.amount),
            "laterYearMargin": .decimal(l.laterYearTotal.amount),
        ]
        // An unpriced offer has neither: no margin, and no payback to count.
        if let m = l.introMargin {
            p["offerMargin"] = .decimal(m.amount)
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
    }

    /// One plan price's row as JSON: the plan, its worst case, each program's line, the offer.
    static func rowJSON(_ r: Row) -> JSONOutput {
        var o: [String: JSONOutput] = [
            "productId": .string(r.plan.productId), "group": .string(r.plan.group),
            "period": .string(r.plan.period.description),
            "currency": .string(r.price.price.currency.code),
            "price": .decimal(r.price.price.amount),
            "worstCase": worstJSON(r.worst), "yearOnePeriods": .integer(Int128(r.yearOnePeriods)),
            "laterYearPeriods": .integer(Int128(r.laterYearPeriods)),
            "placeholder": .bool(r.plan.placeholder),
            "programs": .array(
                r.lines.map(PlanMargins.lineJSON)),
        ]
        if let sf = r.price.storefront { o["storefront"] = .string(sf) }
        o["fx"] = .array(r.fxUsed.map { .string($0.description) })
        if let intro = r.intro {
            o["introductoryOffer"] = .object([
                "paymentMode": .string(intro.offer.paymentMode.rawValue),
                "period": .string(intro.offer.period.description),
                "periods": .integer(Int128(intro.offer.periods)),
                "priced": .bool(intro.price != nil),
                "price": intro.price.map { .decimal($0.amount) } ?? .null,
                "worstCase": worstJSON(intro.worst),
            ])
        }
        return .object(o)
    }

    /// One plan in one territory of Apple's files as JSON.
    static func appleJSON(_ r: AppleRow) -> JSONOutput {
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
            "fx": .array(r.fxUsed.map { .string($0.description) }),
        ]
        a["marginShareYearOne"] = r.yearOne?.share.map { .decimal($0) } ?? .null
        a["marginShareAfterYearOne"] =
            r.afterYearOne?.share.map { .decimal($0) } ?? .null
        return .object(a)
    }

    var isEmpty: Bool { rows.isEmpty && freeTier == nil }
    var heading: String { card.title.isEmpty ? card.reference : "\(card.reference): \(card.title)" }

    /// The CSV of every card: one row per plan, currency (or storefront), program and
    /// subscription year; one per offer; one per territory and year of Apple's files; two
    /// for the free tier. `free_tier_share` and `free_tier_covered` are the free tier
    /// against that year's margin ("no margin" when it is not positive, "any" when the free
    /// tier costs nothing); `fx` names every rate the row's figures used and where it came
    /// from. An offer the card gives no price in the row's currency is `offer-unpriced`.
    static func csv(_ all: [PlanMargins]) -> String {
        var t = TextTable([
            .init("card"), .init("kind"), .init("key"), .init("period"), .init("currency"),
            .init("price"), .init("worst_cost"),
            .init("program"), .init("rate"), .init("proceeds"), .init("margin"),
            .init("margin_share"), .init("periods"),
            .init("margin_total"), .init("payback_periods"), .init("territory"),
            .init("storefront"), .init("free_tier_share"), .init("free_tier_covered"),
            .init("fx"),
        ])
        for m in all {
            func fx(_ rates: [FXRate]) -> String { rates.map(m.fxText).joined(separator: "; ") }
            for r in m.rows {
                let rowFX = fx(r.fxUsed)
                let sf = r.price.storefront ?? ""
                for l in r.lines {
                    let c = r.price.price.currency.code
                    let shares: [(Exact?, Int128)?] = [
                        l.freeUsers.map { ($0.yearOneShare, $0.yearOneCovered) },
                        l.freeUsers.map { ($0.laterYearShare, $0.laterYearCovered) },
                    ]
                    for (i, (kind, pm, n, total)) in [
                        ("year-one", l.yearOne, r.yearOnePeriods, l.yearOneTotal),
                        ("later-year", l.afterYearOne, r.laterYearPeriods, l.laterYearTotal),
                    ].enumerated() {
                        let share = shares[i].map { $0.0?.decimalText() ?? "no margin" } ?? ""
                        let covered =
                            shares[i].map { $0.1 == Int128.max ? "any" : String($0.1) } ?? ""
                        t.append([
                            m.card.reference, kind, r.plan.productId, r.plan.period.description,
                            c, r.price.price.amount.decimalText(),
                            r.worst.cost.amount.decimalText(), l.program.name,
                            pm.rate.decimalText(), pm.proceeds.amount.decimalText(),
                            pm.margin.amount.decimalText(), pm.marginShare?.decimalText() ?? "",
                            String(n), total.amount.decimalText(), "",
                            l.storefront?.territory ?? "", sf, share, covered, rowFX,
                        ])
                    }
                    if let intro = r.intro {
                        t.append([
                            m.card.reference, intro.price == nil ? "offer-unpriced" : "offer",
                            r.plan.productId, intro.offer.span.description, c,
                            intro.price?.amount.decimalText() ?? "",
                            intro.worst.cost.amount.decimalText(), l.program.name,
                            l.yearOne.rate.decimalText(), "",
                            l.introMargin?.amount.decimalText() ?? "", "",
                            String(intro.offer.periods), "",
                            intro.price == nil
                                ? "" : l.paybackPeriods.map { String($0) } ?? "never",
                            l.storefront?.territory ?? "", sf, "", "", rowFX,
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
                        margin?.share?.decimalText() ?? "", "", "", "", r.point.territory, "", "",
                        "", fx(r.fxUsed),
                    ])
                }
            }
            for row in m.storefrontCSVRows(fx) { t.append(row) }
            if let tier = m.freeTier {
                for w in [tier.perPeriod, tier.perYear] {
                    t.append([
                        m.card.reference, "free-tier", "", w.span.description,
                        w.cost.currency.code, "", w.cost.amount.decimalText(), "", "", "", "",
                        "", "", "", "", "", "", "", "", fx(w.fxUsed),
                    ])
                }
            }
        }
        return t.csv()
    }
}

/// What `margin plans` prints, and the warnings of every card.
struct PlanReport: RenderableReport, Sendable {
    let cards: [PlanMargins]

    init(_ cards: [PlanMargins]) {
        self.cards = cards
    }

    var warnings: [Diagnostic] { Array(Set(cards.flatMap(\.warnings))).sorted() }

    func renderJSON() -> String {
        JSONOutput.object(["cards": .array(cards.map(\.json))]).rendered()
    }

    func renderCSV() -> String { PlanMargins.csv(cards) }

    func renderMarkdown() -> String {
        cards.map { m in
            var s = "## \(m.heading)\n\n"
            if m.isEmpty {
                return s + "\(m.card.reference) sells no subscriptions and has no free tier.\n"
            }
            if !m.rows.isEmpty {
                if !m.storefrontRows.isEmpty { s += PlanMargins.currencyHeading + ":\n\n" }
                s += m.planTable.markdown()
            }
            if m.rows.contains(where: { $0.intro != nil }) {
                s += "\n" + m.offerTable.markdown()
            }
            if m.freeTier != nil { s += "\n" + m.freeTierTable.markdown() }
            if !m.appleRows.isEmpty {
                s += "\nApple's proceeds (price-point files):\n\n" + m.appleTable.markdown()
            }
            if !m.storefrontRows.isEmpty {
                s +=
                    "\nEvery storefront (modelled from \(m.storefrontSourceText)):\n\n"
                    + m.storefrontMarginTable.markdown()
            }
            return s + "\n" + m.notes.map { "- \($0)" }.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    func renderTable(bold: Bool) -> String {
        cards.map { m in
            var s = m.heading + "\n\n"
            if m.isEmpty {
                return s + "\(m.card.reference) sells no subscriptions and has no free tier.\n"
            }
            if !m.rows.isEmpty {
                if !m.storefrontRows.isEmpty { s += PlanMargins.currencyHeading + "\n\n" }
                s += m.planTable.plain(bold: bold)
            }
            if m.rows.contains(where: { $0.intro != nil }) {
                s += "\n" + m.offerTable.plain(bold: bold)
            }
            if m.freeTier != nil { s += "\n" + m.freeTierTable.plain(bold: bold) }
            if !m.appleRows.isEmpty {
                s +=
                    "\nApple's proceeds (price-point files)\n\n"
                    + m.appleTable.plain(bold: bold)
            }
            if !m.storefrontRows.isEmpty {
                s +=
                    "\nEvery storefront (modelled from \(m.storefrontSourceText))\n\n"
                    + m.storefrontMarginTable.plain(bold: bold)
            }
            return s + "\n" + m.notes.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }
}
