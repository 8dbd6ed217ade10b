/// The library entry point of `margin pnl`: from a request to a valued report.
///
/// In order: load the cards, choose the card family, close the window by the cost sheet
/// (if any) and check that the sheet covers it, find the card versions in force over the
/// window, choose the reporting currency and the value of a credit, convert the fixed
/// costs, read and sum the takings (`TakingsRun`), then compute every row's figures once
/// (`PnLReport`).
enum PnLRun {
    static func run(_ request: PnLRequest) throws -> PnLReport {
        let plan = try plan(request)
        var options = request.takingsOptions
        options.window = plan.window
        options.series = request.series
        options.strict = request.strict
        let pricing = CardTakingsPricing(
            family: plan.family, repository: plan.repository, currency: plan.currency)
        let takings = try TakingsRun.run(inputs: request.inputs, options: options, pricing: pricing)
        let features = plan.versionsInForce.flatMap { $0.features.map(\.key) }
        var report = PnLReport(takings: takings, valuation: plan.valuation, features: features)
        report.strict = request.strict
        if let sources = request.proceeds {
            report.proceeds = try ProceedsRun.run(
                sources, plan: plan, inputs: request.inputs, now: request.now,
                memoryLimit: request.takingsOptions.memoryLimit,
                series: request.series)
        }
        return report
    }

    /// Every choice of a run made before any takings are read: the card family, the window
    /// (closed by the cost sheet), the versions in force, the reporting currency, the value
    /// of a credit and the fixed costs. `margin pnl --sql` compiles its query from the same
    /// plan, so the two never choose differently.
    static func plan(_ request: PnLRequest) throws -> PnLPlan {
        let loaded: CardRepository
        do { loaded = try CardRepository.load(paths: request.cards) } catch {
            throw PnLError.diagnostics(error.items)
        }
        let repo = CardRepository(
            cards: loaded.cards, providers: loaded.providers,
            fx: loaded.fx.overriding(with: request.fxOverrides),
            commission: loaded.commission, storefronts: loaded.storefronts, files: loaded.files)
        let folder = request.cards.joined(separator: ", ")
        let family = try chooseFamily(request.card, in: repo, folder: folder)
        let versions = repo.versions(of: family)
        guard let newest = versions.last else {
            throw PnLError.usage("no version of card '\(family)' in \(folder)")
        }

        // The window, closed by the cost sheet's period when there is one.
        let sheet: FixedCostSheet?
        do {
            sheet = try request.costSheet.map { path throws(Diagnostics) in
                try FixedCostSheet.load(path: path)
            }
        } catch {
            throw PnLError.diagnostics(error.items)
        }
        var window = request.window
        if let sheet {
            window = FixedCosts.closing(window, with: sheet)
            try checkCoverage(sheet, window)
        }

        // The versions in force, the reporting currency, the value of a credit.
        let inForce = versionsInForce(versions, window: window, now: request.now)
        let valuing = inForce.last ?? newest
        let currency =
            request.currency
            ?? PackMargins.costCurrency(
                card: valuing, providers: PackMargins.providers(of: valuing, in: repo))
        let (credit, valuedAt) = try creditValue(
            request.creditValue, versions: inForce, repo: repo, currency: currency)

        // Fixed costs: every key a feature of the family, converted.
        var fixed: FixedCosts?
        var fxUsed = credit.fxUsed
        if let sheet, let since = window.since, let until = window.until {
            try checkKeys(
                sheet, known: Set(versions.flatMap { $0.features.map(\.key) }), family: family)
            var perFeature: [String: Money] = [:]
            for (key, m) in sheet.costs {
                do {
                    let (factor, used) = try repo.fx.factor(from: m.currency, to: currency)
                    perFeature[key] = try m.multiplied(by: factor).reCurrency(currency)
                    fxUsed += used
                } catch {
                    throw PnLError.diagnostics([
                        Diagnostic(
                            path: sheet.path, location: sheet.featureLocations[key] ?? .start,
                            message: "costs: \(key): \(error)", rule: .pnl(.fx))
                    ])
                }
            }
            do {
                fixed = try FixedCosts(
                    sheet: sheet, perFeature: perFeature, since: since, until: until)
            } catch {
                throw PnLError.diagnostics([
                    Diagnostic(
                        path: sheet.path, location: sheet.periodLocation,
                        message: "the cost sheet's share of the window: \(error)")
                ])
            }
        }
        // Metered costs are converted from every provider currency of the versions in force.
        let providerCurrencies = Set(
            inForce.flatMap { PackMargins.providers(of: $0, in: repo) }.map(\.currency))
        for c in providerCurrencies.sorted() {
            if let (_, used) = try? repo.fx.factor(from: c, to: currency) { fxUsed += used }
        }
        let valuation = PnLValuation(
            credit: credit, fixedCosts: fixed,
            meteredNote:
                "each charge's quantity priced by the provider sheets of the \(family) version in force at its time and the schedule period then, the most expensive variant where the ledger does not say; converted into \(currency.code) with \(repo.fx.source.path)",
            versionsInForce: inForce.map(\.reference), valuedAt: valuedAt,
            creditUnit: valuing.creditUnit,
            fxUsed: unique(fxUsed),
            fxSource: repo.fx.source.path + (repo.fx.placeholder ? ", placeholder rates" : ""))

        return PnLPlan(
            repository: repo, family: family, window: window, versionsInForce: inForce,
            currency: currency,
            credit: credit, fixed: fixed, valuation: valuation)
    }

    /// `--card`, or the only family in the folder.
    static func chooseFamily(_ id: String?, in repo: CardRepository, folder: String)
        throws(PnLError) -> String
    {
        if let id {
            guard repo.cardIDs.contains(id) else {
                let hint =
                    FieldReader.closest(id, in: repo.cardIDs).map { "; did you mean '\($0)'?" }
                    ?? ""
                throw .usage(
                    "no card '\(id)' in \(folder)\(hint) (cards: \(repo.cardIDs.joined(separator: ", ")))"
                )
            }
            return id
        }
        guard repo.cardIDs.count == 1, let only = repo.cardIDs.first else {
            throw .usage(
                "\(folder) holds several cards; say which priced these takings with --card (\(repo.cardIDs.joined(separator: ", ")))"
            )
        }
        return only
    }

    /// The versions in force at some instant of `[since, until)`, oldest first. An open
    /// start reaches back to the first version; an open end stops at `now`, so that a
    /// version effective later (a draft for next month) is never in force. A version is in
    /// force from its effective time until the next one's; before the first version took
    /// effect, the first is (as the metered costs are priced).
    static func versionsInForce(_ versions: [RateCard], window: TakingsWindow, now: Timestamp)
        -> [RateCard]
    {
        let end = window.until ?? now
        // An open window that ends before it starts (now before --since): the instant since.
        let point = window.since.map { end <= $0 } ?? false
        var out: [RateCard] = []
        for (i, v) in versions.enumerated() {
            // Version i is in force over [its effective time (−∞ for the first), the next one's).
            let startsInTime =
                i == 0
                || (point ? window.since.map { v.effective <= $0 } ?? true : v.effective < end)
            let next = i + 1 < versions.count ? versions[i + 1].effective : nil
            let endsInTime = next.map { n in window.since.map { n > $0 } ?? true } ?? true
            if startsInTime && endsInTime { out.append(v) }
        }
        return out
    }

    /// A stated value converted into `currency`, or the lowest per-credit proceeds over
    /// the versions in force (the conservative choice when the window spans versions), and
    /// the reference of the version that gave it. When no version can value a credit, the
    /// error ends with `hint`: what the command that asked accepts instead (`margin pnl` and
    /// `margin replay` take `--credit-value`; `diff --usage` does not).
    static func creditValue(
        _ stated: Money?, versions: [RateCard], repo: CardRepository, currency: Currency,
        hint: String = "give --credit-value"
    ) throws(PnLError) -> (CreditValuation, String?) {
        if let stated {
            do {
                let (factor, used) = try repo.fx.factor(from: stated.currency, to: currency)
                return (
                    CreditValuation(
                        stated: try stated.multiplied(by: factor).reCurrency(currency),
                        fxUsed: used,
                        given: stated), nil
                )
            } catch {
                throw .usage("--credit-value: \(error)")
            }
        }
        var lowest: (CreditValuation, String)?
        var problems: [String] = []
        for v in versions {
            do {
                let c = try CreditValuation(
                    card: v, commission: repo.commission, fx: repo.fx, currency: currency)
                if lowest.map({ c.perCredit.amount < $0.0.perCredit.amount }) ?? true {
                    lowest = (c, v.reference)
                }
            } catch {
                problems.append("\(error)")
            }
        }
        guard let lowest else {
            throw .valuation(
                "cannot value a credit: " + (problems.first ?? "no card version in force") + ": "
                    + hint)
        }
        return (lowest.0, lowest.1)
    }

    /// The window must lie inside the sheet's period (see `FixedCosts`).
    static func checkCoverage(_ sheet: FixedCostSheet, _ window: TakingsWindow) throws(PnLError) {
        guard let since = window.since, let until = window.until else { return }
        guard since < sheet.start || sheet.end < until else { return }
        throw .diagnostics([
            Diagnostic(
                path: sheet.path, location: sheet.periodLocation,
                message:
                    "the cost sheet covers \(sheet.since) to \(sheet.until) (UTC) but the window runs from \(since.rfc3339UTC) to \(until.rfc3339UTC): what the days outside the sheet cost is not known; give a window inside the sheet's period or a sheet that covers the window",
                rule: .pnl(.costSheetPeriod))
        ])
    }

    /// Every key of the sheet must be a feature of some version of the family.
    static func checkKeys(_ sheet: FixedCostSheet, known: Set<String>, family: String)
        throws(PnLError)
    {
        var problems: [Diagnostic] = []
        for key in sheet.costs.keys.sorted() where !known.contains(key) {
            let hint = FieldReader.didYouMean(key, in: known)
            problems.append(
                Diagnostic(
                    path: sheet.path, location: sheet.featureLocations[key] ?? .start,
                    message: "costs: \"\(key)\" is not a feature of card \(family)\(hint)",
                    rule: .pnl(.unknownFeature)))
        }
        if !problems.isEmpty { throw .diagnostics(problems) }
    }

    static func unique(_ rates: [FXRate]) -> [FXRate] {
        var out: [FXRate] = []
        for r in rates where !out.contains(r) { out.append(r) }
        return out
    }
}
