/// The worst-case margin of every pack of a card in every storefront it is sold in:
/// "does every pack make money everywhere?".
///
/// Proceeds come from Apple's own price points where a file is bound to the pack, else they
/// are modelled from the storefront data file (`ModelledProceeds`); where both exist they
/// are cross-checked. The worst-case cost is the engine's (`WorstCaseEngine`), converted
/// into each storefront's currency with the FX table; a currency without a rate keeps its
/// row, with no margin and a warning.
public struct StorefrontMargins: Sendable {
    let card: RateCard
    let program: StoreProgram
    /// The date prices and commission regimes are taken at.
    let date: CalendarDate
    /// Worst margin share first; rows without a margin (no FX rate, no proceeds) last.
    let rows: [Row]
    /// Cross-check differences, missing rates, pages not loaded: each names its figures.
    public let warnings: [Diagnostic]
    let fx: FXTable
    /// Every FX rate a row used.
    let fxUsed: [FXRate]
    let storefronts: StorefrontTable?

    /// Where a row's proceeds come from.
    enum ProceedsSource: String, Sendable, Hashable {
        /// `attributes.proceeds` of an App Store Connect price point.
        case apple
        /// The storefront data file's tax and commission.
        case modelled
    }

    /// One pack in one territory.
    struct Row: Sendable, Hashable {
        let pack: Pack
        let territory: String
        let storefront: Storefront?
        let customerPrice: Money
        /// What Apple pays: Apple's figure, else the model's (rounded to the minor unit).
        let proceeds: Money?
        let proceedsSource: ProceedsSource?
        let apple: ApplePricePoint?
        let modelled: ModelledProceeds?
        /// The worst-case provider cost in the territory's currency; nil without an FX rate.
        let worstCost: Money?
        let fxUsed: [FXRate]
        /// proceeds − worst-case cost
        let margin: Money?
        /// margin ÷ customer price
        let marginShare: Exact?
        /// Where the price was read: the Apple file's point, else the card's price.
        let path: String
        let location: SourceLocation
    }

    /// The tolerance of the cross-check: one minor unit of the currency (Apple rounds).
    static func tolerance(_ currency: Currency) -> Exact {
        (try? Exact(1, over: (try? Exact.powerOfTen(currency.minorUnits)) ?? 1)) ?? .one
    }

    public init(
        card: RateCard, repository: CardRepository, priceLists: [String: ApplePriceList] = [:],
        program: StoreProgram? = nil,
        date: CalendarDate, fx: FXTable? = nil
    ) throws(WorstCaseError) {
        self.card = card
        let program = program ?? card.storeProgram ?? .standard
        self.program = program
        self.date = date
        let fx = fx ?? repository.fx
        self.fx = fx
        let table = repository.storefronts
        self.storefronts = table
        let engine = try WorstCaseEngine(card: card, providers: repository.providers)
        let providerCurrencies = Set(
            PackMargins.providers(of: card, in: repository).map(\.currency))
        var rows: [Row] = []
        var warnings: [Diagnostic] = []
        var used: [FXRate] = []
        for pack in card.packs {
            var costs: [Currency: (Money?, [FXRate])] = [:]
            func cost(_ currency: Currency) throws(WorstCaseError) -> (Money?, [FXRate]) {
                if let known = costs[currency] { return known }
                var result: (Money?, [FXRate])
                do {
                    let w = try engine.worstCase(credits: pack.credits, in: currency, fx: fx)
                    var rates: [FXRate] = []
                    if providerCurrencies.count == 1, let pc = providerCurrencies.first,
                        pc != currency, !w.cost.amount.isZero
                    {
                        rates = (try? fx.factor(from: pc, to: currency).used) ?? []
                    }
                    result = (w.cost, rates)
                } catch {
                    guard case .fx(.noRate) = error else { throw error }
                    result = (nil, [])
                }
                costs[currency] = result
                return result
            }
            var covered = Set<String>()
            if let list = priceLists[pack.productId] {
                warnings.append(contentsOf: list.warnings)
                let (prices, diagnostics) = list.resolve(on: date, cardPrices: pack.prices)
                warnings.append(contentsOf: diagnostics)
                for territory in prices.keys.sorted() {
                    guard let resolved = prices[territory] else { continue }
                    covered.insert(territory)
                    let point = resolved.point
                    let sf = table?.storefront(territory)
                    var modelled: ModelledProceeds?
                    if let sf {
                        if sf.currency != point.customerPrice.currency {
                            warnings.append(
                                Diagnostic(
                                    path: point.path, location: point.location, severity: .warning,
                                    message:
                                        "\(pack.productId) in \(territory): Apple prices in \(point.customerPrice.currency) but the storefront data says \(sf.currency); the model is not used",
                                    rule: .check(.storefrontCurrency)))
                        } else if let regime = table?.regime(for: sf, program: program, on: date) {
                            do throws(MoneyError) {
                                modelled = try table?.proceeds(
                                    point.customerPrice, in: sf, regime: regime, on: date)
                            } catch { throw .fx(error) }
                        }
                    }
                    if let apple = point.proceeds, let m = modelled {
                        let diff = (try? apple.amount.subtracting(m.rounded.amount)) ?? .zero
                        let magnitude = diff.isNegative ? ((try? diff.negated()) ?? diff) : diff
                        let tolerance =
                            table?.proceedsUnit(apple.currency)
                            ?? StorefrontMargins.tolerance(apple.currency)
                        if tolerance < magnitude {
                            warnings.append(
                                Diagnostic(
                                    path: point.path, location: point.location, severity: .warning,
                                    message:
                                        "\(pack.productId) in \(territory): Apple pays \(StorefrontMargins.show(apple)) for \(StorefrontMargins.show(point.customerPrice)) but the storefront data models \(StorefrontMargins.show(m.rounded)) (\(StorefrontMargins.modelText(sf, m))); the tax or commission data is stale or wrong",
                                    rule: .check(.storefrontCrossCheck)))
                        }
                    }
                    let proceeds = point.proceeds ?? modelled?.rounded
                    let source: ProceedsSource? =
                        point.proceeds != nil ? .apple : (modelled != nil ? .modelled : nil)
                    if proceeds == nil {
                        warnings.append(
                            Diagnostic(
                                path: point.path, location: point.location, severity: .warning,
                                message:
                                    "\(pack.productId) in \(territory): Apple states no proceeds and the storefront data does not cover \(territory); no margin",
                                rule: .check(.storefrontProceeds)))
                    }
                    let row = try StorefrontMargins.makeRow(
                        pack, territory, sf, point.customerPrice, proceeds, source, point, modelled,
                        cost, path: point.path, location: point.location)
                    rows.append(row)
                }
            }
            // Storefronts the card prices (by currency, or by the price's storefront) that
            // no Apple file covered: modelled.
            if let table {
                for price in pack.prices {
                    let targets =
                        price.storefront.map { s in table.storefront(s).map { [$0] } ?? [] }
                        ?? table.storefronts(in: price.price.currency)
                    for sf in targets
                    where !covered.contains(sf.territory) && sf.currency == price.price.currency {
                        covered.insert(sf.territory)
                        guard let regime = table.regime(for: sf, program: program, on: date) else {
                            continue
                        }
                        let m: ModelledProceeds
                        do throws(MoneyError) {
                            m = try table.proceeds(price.price, in: sf, regime: regime, on: date)
                        } catch { throw .fx(error) }
                        rows.append(
                            try StorefrontMargins.makeRow(
                                pack, sf.territory, sf, price.price, m.rounded, .modelled, nil, m,
                                cost, path: card.source.path, location: price.location))
                    }
                }
            }
        }
        for r in rows {
            for rate in r.fxUsed where !used.contains(rate) { used.append(rate) }
            if r.worstCost == nil {
                warnings.append(
                    Diagnostic(
                        path: r.path, location: r.location, severity: .warning,
                        message:
                            "\(r.pack.productId) in \(r.territory): no FX rate converts the worst-case cost into \(r.customerPrice.currency) (add one to the FX file or pass --fx); no margin",
                        rule: .check(.storefrontFX)))
            }
        }
        self.rows = rows.sorted(by: StorefrontMargins.worstFirst)
        self.warnings = warnings.sorted()
        self.fxUsed = used
    }

    private static func makeRow(
        _ pack: Pack, _ territory: String, _ sf: Storefront?, _ price: Money, _ proceeds: Money?,
        _ source: ProceedsSource?,
        _ apple: ApplePricePoint?, _ modelled: ModelledProceeds?,
        _ cost: (Currency) throws(WorstCaseError) -> (Money?, [FXRate]),
        path: String, location: SourceLocation
    ) throws(WorstCaseError) -> Row {
        let (worst, rates) = try cost(price.currency)
        var margin: Money?
        var share: Exact?
        if let proceeds, let worst {
            do {
                let m = try proceeds.subtracting(worst)
                margin = m
                share = price.amount.isZero ? nil : try m.amount.divided(by: price.amount)
            } catch {
                throw .arithmetic(
                    "pack \(pack.productId) in \(territory): the margin is too large to compute exactly"
                )
            }
        }
        return Row(
            pack: pack, territory: territory, storefront: sf, customerPrice: price,
            proceeds: proceeds, proceedsSource: source, apple: apple,
            modelled: modelled, worstCost: worst, fxUsed: rates, margin: margin, marginShare: share,
            path: path, location: location)
    }

    static func worstFirst(_ a: Row, _ b: Row) -> Bool {
        switch (a.marginShare, b.marginShare) {
        case (let x?, let y?) where x != y: return x < y
        case (nil, _?): return false
        case (_?, nil): return true
        default: return (a.pack.productId, a.territory) < (b.pack.productId, b.territory)
        }
    }

    /// The worst storefront of each pack (by margin share), in the card's pack order.
    var worstPerPack: [Row] {
        card.packs.compactMap { p in
            rows.first { $0.pack.productId == p.productId && $0.marginShare != nil }
        }
    }

    /// "EUR 1.76": rounded half-even to the currency's minor unit.
    static func show(_ m: Money) -> String { "\(m.currency.code) \(m.formatted(rule: .halfEven))" }

    /// "19% tax removed, 30% standard commission (confirmed)"
    static func modelText(_ sf: Storefront?, _ m: ModelledProceeds) -> String {
        var parts: [String] = []
        if let sf, sf.taxIncluded {
            parts.append("\(Format.percent(m.taxes.vat)) tax removed")
        } else {
            parts.append("prices exclude tax")
        }
        if !m.taxes.digitalServicesTax.isZero {
            parts.append("\(Format.percent(m.taxes.digitalServicesTax)) digital services tax")
        }
        var commission =
            "\(Format.percent(m.regime.rate, places: 0)) \(m.regime.program.rawValue) commission (\(m.regime.status.rawValue))"
        if !m.regime.paymentProcessing.isZero {
            commission +=
                " + \(Format.percent(m.regime.paymentProcessing, places: 0)) payment processing"
        }
        parts.append(commission)
        if !m.taxes.withholding.isZero {
            parts.append("\(Format.percent(m.taxes.withholding)) withheld")
        }
        return parts.joined(separator: ", ")
    }
}
