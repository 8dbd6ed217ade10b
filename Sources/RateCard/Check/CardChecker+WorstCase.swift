/// The rules that need the worst-case engine: free usage and the margin floor.
extension CardChecker {
    /// `free-usage`, `min-margin` and `worst-case` for one card. The floor is compared only
    /// when `applyFloor` (the version is in force now or later, or `--all-versions`); a worst
    /// case that cannot be computed is `worst-case` either way.
    static func worstCaseFindings(
        _ loaded: LoadedCard, repository: CardRepository, options: Options, applyFloor: Bool
    ) -> [Diagnostic] {
        let card = loaded.card
        let path = loaded.file.path
        var out: [Diagnostic] = []
        let engine: WorstCaseEngine
        do {
            engine = try WorstCaseEngine(card: card, providers: repository.providers)
        } catch {
            return [
                Diagnostic(
                    path: path, location: loaded.versionLocation,
                    message: "\(card.reference): \(error)", rule: .check(.worstCase))
            ]
        }

        // Every request charged no credits that costs money is `free-usage`, worded and
        // placed as `margin packs` says it: a positive price that lets a short request through
        // for nothing ("down" rounding below one interval) and a dimension charged 0 credits
        // on a priced meter alike. A dimension charged ≤ 0 credits that costs nothing is
        // `free-price`: priced by a provider here, without one in `cardFindings`.
        var free = false
        for shape in engine.freeUsage {
            free = true
            out.append(shape.freeUsageDiagnostic(card: card))
        }
        let freeDimensions = Set(engine.freeUsage.map { "\($0.feature)\u{0}\($0.dimension)" })
        for feature in card.features {
            for d in feature.dimensions where d.credits <= 0 && d.isProviderBilled {
                guard !freeDimensions.contains("\(feature.key)\u{0}\(d.name)") else { continue }
                out.append(
                    Diagnostic(
                        path: path, location: d.creditsLocation,
                        message: freePriceMessage(feature: feature, d, card: card),
                        rule: .check(.freePrice)))
            }
        }
        // With free usage there is no finite worst case to compare with the floor.
        if free { return out }

        let margins: PackMargins
        do {
            let fx = repository.fx.overriding(with: options.fxOverrides)
            margins = try PackMargins(
                card: card, repository: repository, fx: fx, rates: options.commissionRates,
                taxRates: options.taxRates)
        } catch {
            return out + [
                Diagnostic(
                    path: path, location: loaded.versionLocation,
                    message:
                        "\(card.reference): the worst-case margins cannot be computed: \(error)",
                    rule: .check(.worstCase))
            ]
        }
        guard applyFloor else { return out }
        let floor = options.minMargin
        for row in margins.rows where row.pack.credits > 0 && row.price.price.amount.isPositive {
            guard let top = row.lines.max(by: { $0.rate < $1.rate }), let margin = top.margin,
                let share = top.marginShare, share < floor
            else { continue }
            let witness = row.worst.witnessSummary
            out.append(
                Diagnostic(
                    path: path, location: row.price.location,
                    message:
                        "pack \"\(row.pack.productId)\" at \(show(row.price.price)): the worst-case margin after \(Format.percent(top.rate, places: 0)) commission is \(show(margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; proceeds \(show(top.proceeds)), worst-case cost \(show(row.worst.cost)) spending \(Format.grouped(row.pack.credits)) credits as \(witness)\(fxNote(row.fxUsed, margins: margins))",
                    rule: .check(.minMargin)))
        }
        return out
    }

    /// "; FX USD/CNY 7.1 (RateCards/fx.json, placeholder)" or "; FX USD/CNY 7.2 (given on
    /// the command line)": every rate the figure used, credited to where it came from.
    static func fxNote(_ rates: [FXRate], margins: PackMargins) -> String {
        fxNote(rates, fx: margins.fx)
    }

    /// The same for any figure converted with `fx`.
    static func fxNote(_ rates: [FXRate], fx: FXTable) -> String {
        guard !rates.isEmpty else { return "" }
        let parts = rates.map { r in
            r.fromCommandLine
                ? "\(r) (given on the command line)"
                : "\(r) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : ""))"
        }
        return "; FX " + parts.joined(separator: ", ")
    }

    /// "CNY 28.00": rounded half-even to the currency's minor unit, for people.
    private static func show(_ money: Money) -> String {
        "\(money.currency.code) \(money.formatted(rule: .halfEven))"
    }
}
