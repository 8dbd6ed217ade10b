/// `margin plans` output of the plans through the storefront model: one row per plan price,
/// storefront and program, in every format.
extension PlanMargins {
    /// "RateCards/storefronts.json (dated 2026-11-30), on 2026-12-01"
    var storefrontSourceText: String {
        guard let t = storefrontTable, let d = storefrontDate else { return "" }
        return
            "\(t.source.path) (dated \(t.date)\(t.placeholder ? ", placeholder" : "")), on \(d)"
    }

    /// Above the currency rows when storefront rows follow: each currency row is judged in
    /// the storefront of its price that pays least.
    static let currencyHeading =
        "By currency, in the storefront that pays least (tax removed; offers, payback and the free tier's share on the same proceeds; every storefront below)"

    /// One row per plan price, storefront and program: the tax, the regimes and the margins.
    var storefrontMarginTable: TextTable {
        var t = TextTable([
            .init("card"), .init("plan"), .init("territory"), .init("currency"),
            .init("price", .right), .init("tax", .right), .init("program"),
            .init("commission"), .init("proceeds y1", .right), .init("margin y1", .right),
            .init("margin y1 %", .right), .init("proceeds after", .right),
            .init("margin after", .right), .init("margin after %", .right),
        ])
        for r in storefrontRows {
            let after = r.afterYearOne
            t.append([
                card.reference, r.plan.productId, r.storefront.territory,
                r.price.price.currency.code, PlanMargins.money(r.price.price),
                StorefrontMargins.taxText(r.storefront, on: r.date), r.program.rawValue,
                PlanMargins.regimesText(r),
                PlanMargins.money(r.yearOne.proceeds.rounded),
                PlanMargins.money(r.yearOne.margin),
                r.yearOne.share.map { Format.percent($0) } ?? "",
                after.map { PlanMargins.money($0.proceeds.rounded) } ?? "not offered",
                after.map { PlanMargins.money($0.margin) } ?? "",
                after.flatMap { $0.share.map { Format.percent($0) } } ?? "",
            ])
        }
        return t
    }

    /// "30% → 15%", "17% + 3% → 10% + 3%", with "(reported)" for a regime not confirmed.
    static func regimesText(_ r: PlanStorefrontRow) -> String {
        func one(_ regime: CommissionRegime) -> String {
            let fee =
                regime.paymentProcessing.isZero
                ? "" : " + \(Format.percent(regime.paymentProcessing, places: 0))"
            return
                "\(Format.percent(regime.rate, places: 0))\(fee)\(regime.status == .reported ? " (reported)" : "")"
        }
        return one(r.yearOne.proceeds.regime) + " → "
            + (r.afterYearOne.map { one($0.proceeds.regime) } ?? "not offered")
    }

    /// The note under the storefront table: the model and where its data comes from.
    var storefrontNote: String {
        "storefronts: modelled from \(storefrontSourceText): proceeds = price ÷ (1 + VAT) × (1 − commission − payment processing) − DST, less any withholding, rounded \(ModelledProceeds.rounding.displayName) to the unit Apple pays in; year one at the program's rate, after one year of paid service at its reduced rate (subscription-after-one-year for the standard program); margin = proceeds − the worst case of one period; a territory of Apple's price-point files uses Apple's figures instead"
    }

    /// The JSON of one storefront row (exact decimal strings).
    static func storefrontJSON(_ r: PlanStorefrontRow) -> JSONOutput {
        func side(_ s: PlanStorefrontRow.Side?) -> JSONOutput {
            guard let s else { return .null }
            let regime = s.proceeds.regime
            var o: [String: JSONOutput] = [
                "program": .string(regime.program.rawValue), "rate": .decimal(regime.rate),
                "paymentProcessing": .decimal(regime.paymentProcessing),
                "status": .string(regime.status.rawValue),
                "regimeFrom": .string(regime.from.description),
                "proceedsExact": .decimal(s.proceeds.exact.amount),
                "proceeds": .decimal(s.proceeds.rounded.amount),
                "margin": .decimal(s.margin.amount),
                "marginShare": s.share.map(JSONOutput.decimal) ?? .null,
            ]
            if let src = regime.source { o["regimeSource"] = .string(src) }
            return .object(o)
        }
        let rates = r.yearOne.proceeds.taxes
        var o: [String: JSONOutput] = [
            "productId": .string(r.plan.productId), "territory": .string(r.storefront.territory),
            "name": .string(r.storefront.name),
            "currency": .string(r.price.price.currency.code),
            "price": .decimal(r.price.price.amount), "date": .string(r.date.description),
            "program": .string(r.program.rawValue),
            "laterProgram": .string(r.laterProgram.rawValue),
            "taxIncluded": .bool(r.storefront.taxIncluded),
            "taxExclusivePrice": .decimal(r.yearOne.proceeds.taxExclusive.amount),
            "vat": .decimal(rates.vat), "digitalServicesTax": .decimal(rates.digitalServicesTax),
            "withholding": .decimal(rates.withholding),
            "taxes": .array(
                rates.entries.map { t in
                    var e: [String: JSONOutput] = [
                        "kind": .string(t.kind.rawValue), "rate": .decimal(t.rate),
                        "placeholder": .bool(t.placeholder),
                    ]
                    e["from"] = t.from.map { .string($0.description) } ?? .null
                    e["until"] = t.until.map { .string($0.description) } ?? .null
                    e["source"] = t.source.map { .string($0) } ?? .null
                    return .object(e)
                }),
            "worstCost": .decimal(r.worst.cost.amount),
            "yearOne": side(r.yearOne), "afterYearOne": side(r.afterYearOne),
            "yearOnePeriods": .integer(Int128(r.yearOnePeriods)),
            "laterYearPeriods": .integer(Int128(r.laterYearPeriods)),
            "yearOneMargin": r.yearOneTotal.map { .decimal($0.amount) } ?? .null,
            "laterYearMargin": r.laterYearTotal.map { .decimal($0.amount) } ?? .null,
            "fx": .array(r.worst.fxUsed.map { .string($0.description) }),
        ]
        if let sf = r.price.storefront { o["storefront"] = .string(sf) }
        return .object(o)
    }

    /// The CSV rows of the storefront model: `storefront-year-one` and
    /// `storefront-later-year` per plan price, storefront and program.
    func storefrontCSVRows(_ fx: ([FXRate]) -> String) -> [[String]] {
        var out: [[String]] = []
        for r in storefrontRows {
            for (kind, program, s) in [
                ("storefront-year-one", r.program, Optional(r.yearOne)),
                ("storefront-later-year", r.laterProgram, r.afterYearOne),
            ] {
                out.append([
                    card.reference, kind, r.plan.productId, r.plan.period.description,
                    r.price.price.currency.code, r.price.price.amount.decimalText(),
                    r.worst.cost.amount.decimalText(), program.rawValue,
                    s?.proceeds.regime.charge.decimalText() ?? "",
                    s?.proceeds.rounded.amount.decimalText() ?? "",
                    s?.margin.amount.decimalText() ?? "", s?.share?.decimalText() ?? "", "", "",
                    "", r.storefront.territory, r.price.storefront ?? "", "", "",
                    fx(r.worst.fxUsed),
                ])
            }
        }
        return out
    }
}

extension PlanMargins {
    /// For each plan, the storefronts of the data its prices do not reach (in the
    /// storefront model or Apple's files); empty without a storefront file or before its tax
    /// histories, and a plan that reaches every storefront is left out. A storefront a price
    /// reaches where the program is not offered is not "not reached":
    /// `unofferedStorefronts` names it.
    var storefrontCoverage: [(plan: SubscriptionPlan, coverage: StorefrontCoverage)] {
        guard let table = storefrontTable, let day = storefrontDate, table.modelsTaxes(on: day)
        else { return [] }
        return card.subscriptions.compactMap { plan in
            var shown = Set(
                appleRows.filter { $0.plan.productId == plan.productId }.map(\.point.territory))
            for price in plan.prices {
                for sf in PlanStorefrontRow.storefronts(reachedBy: price, of: plan, in: table) {
                    shown.insert(sf.territory)
                }
            }
            let coverage = StorefrontCoverage(table, shown: shown)
            return coverage.isComplete ? nil : (plan, coverage)
        }
    }

    /// The storefronts each plan price reaches where a program shown is not offered on the
    /// day (the EU terms outside the EU): no storefront row there, said rather than left out.
    var unofferedStorefronts:
        [(plan: SubscriptionPlan, price: PackPrice, program: StoreProgram, territories: [String])]
    {
        guard let table = storefrontTable, let day = storefrontDate, table.modelsTaxes(on: day)
        else { return [] }
        var out:
            [(
                plan: SubscriptionPlan, price: PackPrice, program: StoreProgram,
                territories: [String]
            )] =
                []
        for plan in card.subscriptions {
            let apple = Set(
                appleRows.filter { $0.plan.productId == plan.productId }.map(\.point.territory))
            for price in plan.prices {
                let reached = PlanStorefrontRow.storefronts(reachedBy: price, of: plan, in: table)
                    .filter { !apple.contains($0.territory) }
                for program in programs.map(\.store) {
                    let missing = reached.filter {
                        table.regime(for: $0, program: program, on: day) == nil
                    }.map(\.territory)
                    if !missing.isEmpty { out.append((plan, price, program, missing.sorted())) }
                }
            }
        }
        return out
    }

    /// One warning per plan price and program not offered where the price is sold.
    var unofferedWarnings: [Diagnostic] {
        guard let table = storefrontTable, let day = storefrontDate else { return [] }
        return unofferedStorefronts.map { u in
            Diagnostic(
                path: table.source.path, location: table.source.location, severity: .warning,
                message:
                    "\(card.reference): subscription \"\(u.plan.productId)\" at \(StorefrontMargins.show(u.price.price)): the \(u.program.rawValue) program is not offered on \(day) in \(u.territories.joined(separator: ", ")), where that price is sold, so no storefront row is modelled there; a currency row that reaches no storefront offering it is the card's price × (1 − commission), tax not removed: choose a program offered there (--program), or pass Apple's price points",
                rule: .check(.storefrontRegime))
        }
    }
}
