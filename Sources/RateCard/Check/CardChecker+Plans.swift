/// The rules over subscription plans: their prices, quotas that can be used for free, and
/// the margin floor in each subscription year.
extension CardChecker {
    /// `free-price` and `currency-decimals` for plan and offer prices, and `offer-currency`
    /// for an offer with no price where its plan is sold (or the other way).
    static func planFindings(_ loaded: LoadedCard) -> [Diagnostic] {
        var out: [Diagnostic] = PlanMargins.offerFindings(loaded.card)
        for plan in loaded.card.subscriptions {
            let offerPrices = plan.introductoryOffer?.prices ?? []
            for price in plan.prices + offerPrices {
                let what =
                    offerPrices.contains(price)
                    ? "the introductory offer of subscription \"\(plan.productId)\""
                    : "subscription \"\(plan.productId)\""
                let money = price.price
                if !money.amount.isPositive {
                    out.append(
                        Diagnostic(
                            path: loaded.file.path, location: price.location,
                            message:
                                "\(what) is priced at \(money): a subscription period must cost money (a free one is a free trial)",
                            rule: .check(.freePrice)))
                } else if !money.isWholeMinorUnits {
                    let decimals = money.amount.terminatingScale.map(String.init) ?? "more"
                    out.append(
                        Diagnostic(
                            path: loaded.file.path, location: price.location,
                            message:
                                "\(what) is priced at \(money), with \(decimals) decimals, but \(money.currency.code) has \(money.currency.minorUnits)",
                            rule: .check(.currencyDecimals)))
                }
            }
        }
        return out
    }

    /// `quota-free-usage` for every quota or allowance a request can use without using it
    /// up, then, when `applyFloor` (a version in force now or later), `min-margin` for every
    /// plan price in year one and after it, under `--program`, else the card's
    /// `storeProgram`, else the standard one (30% → 15%, the highest commission).
    static func planMarginFindings(
        _ loaded: LoadedCard, repository: CardRepository, options: Options, applyFloor: Bool
    ) -> [Diagnostic] {
        let floor = options.minMargin
        let card = loaded.card
        let path = loaded.file.path
        guard !card.subscriptions.isEmpty || card.freeTier != nil else { return [] }
        var out: [Diagnostic] = []
        let limits =
            card.subscriptions.flatMap { p in (p.quotas + p.allowances).map { (p.productId, $0) } }
            + (card.freeTier?.allowances ?? []).map { ("the free tier", $0) }
        for (owner, limit) in limits {
            guard
                let shape = try? PlanWorstCase.freeUsage(
                    of: limit, card: card, providers: repository.providers)
            else { continue }
            out.append(
                Diagnostic(
                    path: path, location: limit.location,
                    message:
                        "\(limit.kind.rawValue) of \(owner) on \(limit.feature).\(limit.dimension): a request of \(shape.quantity) \(shape.unit.abbreviation) uses none of it (the card charges it 0 intervals) but costs \(shape.meter) \(shape.cost), so the \(limit.kind.rawValue) can be used without limit; count started intervals (rounding \"up\")",
                    rule: .check(.quotaFreeUsage)))
        }
        if !out.isEmpty || !applyFloor { return out }
        let margins: PlanMargins
        do {
            // Apple's files for plans (`--price-points`): unreadable ones are reported by the
            // storefront rules.
            let lists = (try? ApplePriceList.load(options.storefronts?.bindings ?? [])) ?? [:]
            margins = try PlanMargins(
                card: card, repository: repository,
                fx: repository.fx.overriding(with: options.fxOverrides),
                priceLists: lists, date: options.storefronts?.date,
                program: options.storefronts?.program)
        } catch {
            // Free usage of the card's credits is already a `free-usage` finding.
            if case .unbounded = error { return out }
            return out + [
                Diagnostic(
                    path: path, location: loaded.versionLocation,
                    message:
                        "\(card.reference): the worst-case margins of its subscriptions cannot be computed: \(error)",
                    rule: .check(.minMargin))
            ]
        }
        // What Apple's files leave unchecked (no FX rate, no proceeds or proceedsYear2) is
        // said, so that a floor that was not applied is never "0 warnings".
        out.append(contentsOf: margins.inputWarnings)
        // A day the storefront data cannot model, or a program not offered where a plan is
        // sold: the floor falls back to the card's price × (1 − commission) there, tax not
        // removed, so it is not checked as Apple pays, and that is an error, as for packs.
        for gap in margins.historyWarnings + margins.unofferedWarnings {
            out.append(
                Diagnostic(
                    path: gap.path, location: gap.location, severity: .error,
                    message:
                        "\(gap.message); the \(Format.floor(floor)) floor cannot be checked as Apple pays",
                    rule: gap.rule))
        }
        // With a storefront file, each plan price is checked in every storefront it reaches,
        // through the storefront model, under the program of the floor.
        let floorProgram = options.storefronts?.program ?? card.storeProgram ?? .standard
        for row in margins.rows where row.price.price.amount.isPositive {
            let modelled = margins.storefrontRows.filter {
                $0.plan.productId == row.plan.productId && $0.price == row.price
                    && $0.program == floorProgram
            }
            if !modelled.isEmpty {
                out.append(
                    contentsOf: storefrontPlanFindings(modelled, margins, floor: floor, path: path))
                continue
            }
            // The first program shown is the standard one unless a program was named.
            guard let line = row.lines.first else { continue }
            for (when, m) in [
                ("in year one", line.yearOne),
                ("after one year of paid service", line.afterYearOne),
            ] {
                guard let share = m.marginShare, share < floor else { continue }
                out.append(
                    Diagnostic(
                        path: path, location: row.price.location,
                        message:
                            "subscription \"\(row.plan.productId)\" at \(show(row.price.price))\(row.price.storefront.map { " (storefront \($0))" } ?? "") a \(row.plan.period.phrase): the worst-case margin of a period \(when) (\(Format.percent(m.rate, places: 0)) commission) is \(show(m.margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; proceeds \(show(m.proceeds)), worst-case cost \(show(row.worst.cost)) as \(row.worst.witnessSummary)\(fxNote(row.worst.fxUsed, margins))",
                        rule: .check(.minMargin)))
            }
        }
        for row in margins.appleRows {
            let price = row.point.customerPrice
            if !price.amount.isPositive {
                out.append(
                    Diagnostic(
                        path: row.point.path, location: row.point.location,
                        message:
                            "subscription \"\(row.plan.productId)\" in \(row.point.territory) is priced at \(show(price)) in Apple's file: a subscription period must cost money, and no margin floor can pass at a price of 0",
                        rule: .check(.freePrice)))
                continue
            }
            for (when, proceeds, m) in [
                ("in year one", row.point.proceeds, row.yearOne),
                ("after one year of paid service", row.point.proceedsYear2, row.afterYearOne),
            ] {
                guard let m, let share = m.share, let proceeds, let worst = row.worst,
                    share < floor
                else { continue }
                out.append(
                    Diagnostic(
                        path: row.point.path, location: row.point.location,
                        message:
                            "subscription \"\(row.plan.productId)\" in \(row.point.territory) at \(show(price)): the worst-case margin of a period \(when), from Apple's proceeds \(show(proceeds)), is \(show(m.margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; worst-case cost \(show(worst.cost))\(fxNote(worst.fxUsed, margins))",
                        rule: .check(.minMargin)))
            }
        }
        return out
    }

    /// `min-margin` for one plan price in each storefront it reaches, in year one and after
    /// it: the message names the storefront, the taxes removed and the regime.
    private static func storefrontPlanFindings(
        _ rows: [PlanStorefrontRow], _ margins: PlanMargins, floor: Exact, path: String
    ) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for r in rows {
            for (when, side) in [
                ("in year one", Optional(r.yearOne)),
                ("after one year of paid service", r.afterYearOne),
            ] {
                guard let side, let share = side.share, share < floor else { continue }
                out.append(
                    Diagnostic(
                        path: path, location: r.price.location,
                        message:
                            "subscription \"\(r.plan.productId)\" at \(show(r.price.price)) a \(r.plan.period.phrase) in \(r.storefront.territory) (\(r.storefront.name)): the worst-case margin of a period \(when) (\(PlanStorefrontRow.regimeText(side.proceeds.regime)); \(r.taxPhrase)) is \(show(side.margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; modelled proceeds \(show(side.proceeds.rounded)) (\(margins.storefrontSourceText)), worst-case cost \(show(r.worst.cost)) as \(r.worst.witnessSummary)\(fxNote(r.worst.fxUsed, margins))",
                        rule: .check(.minMargin)))
            }
        }
        return out
    }

    /// "; FX USD/CNY 7.1 (RateCards/fx.json, placeholder)": every rate a plan figure used,
    /// credited to where it came from, as `margin plans` names them.
    private static func fxNote(_ rates: [FXRate], _ margins: PlanMargins) -> String {
        rates.isEmpty ? "" : "; FX " + rates.map(margins.fxText).joined(separator: ", ")
    }

    /// "CNY 28.00"
    private static func show(_ money: Money) -> String {
        "\(money.currency.code) \(money.formatted(rule: .halfEven))"
    }
}
