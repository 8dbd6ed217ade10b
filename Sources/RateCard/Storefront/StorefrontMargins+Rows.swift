/// The stages of `StorefrontMargins.init` for one pack: the territories of Apple's files,
/// then the storefronts of the data the card prices, then the card's own territories that
/// neither covers.
extension StorefrontMargins {
    struct PackRows {
        let pack: Pack
        let card: RateCard
        let table: StorefrontTable?
        let program: StoreProgram
        let date: CalendarDate
        let engine: WorstCaseEngine
        let fx: FXTable
        let prices: TerritoryPrices
        /// The pack's worst case per currency, once each; nil where an FX rate is missing.
        private var costs: [Currency: (Money?, [FXRate])] = [:]
        /// Territories given a row so far.
        private var covered = Set<String>()
        private(set) var rows: [Row] = []
        private(set) var findings: [Diagnostic] = []

        /// `findings` takes what reading the card's territory prices finds.
        init(
            pack: Pack, card: RateCard, table: StorefrontTable?, program: StoreProgram,
            date: CalendarDate, engine: WorstCaseEngine, fx: FXTable,
            findings: inout [Diagnostic]
        ) {
            self.pack = pack
            self.card = card
            self.table = table
            self.program = program
            self.date = date
            self.engine = engine
            self.fx = fx
            prices = TerritoryPrices(pack, card: card, table: table, findings: &findings)
        }

        private mutating func cost(_ currency: Currency) throws(WorstCaseError) -> (
            Money?, [FXRate]
        ) {
            if let known = costs[currency] { return known }
            var result: (Money?, [FXRate])
            do {
                let w = try engine.worstCase(credits: pack.credits, in: currency, fx: fx)
                // Every rate the figure rests on, however many provider currencies it mixes.
                result = (w.cost, w.fxUsed)
            } catch {
                guard case .fx(.noRate) = error else { throw error }
                result = (nil, [])
            }
            costs[currency] = result
            return result
        }

        /// The modelled proceeds of `price` in `territory` could not be computed (an
        /// overflow): said with the pack, the territory and the price, never the bare error.
        private func proceedsError(_ price: Money, in territory: String, _ error: MoneyError)
            -> WorstCaseError
        {
            .arithmetic(
                "pack \(pack.productId) in \(territory): the modelled proceeds of \(price.currency.code) \(price.amount.decimalText()) cannot be computed exactly: \(error)"
            )
        }

        /// A row for every territory of Apple's file for the pack, from Apple's proceeds,
        /// each checked against the card's price and the storefront model.
        mutating func addApple(_ list: ApplePriceList) throws(WorstCaseError) {
            findings.append(contentsOf: list.warnings)
            let (resolved, diagnostics) = list.resolve(
                on: date, cardPrices: pack.prices, preferring: prices)
            findings.append(contentsOf: diagnostics)
            for territory in resolved.keys.sorted() {
                guard let point = resolved[territory]?.point else { continue }
                covered.insert(territory)
                try addApple(point, in: territory)
            }
        }

        private mutating func addApple(_ point: ApplePricePoint, in territory: String)
            throws(WorstCaseError)
        {
            let show = StorefrontMargins.show
            if let own = prices.price(for: territory, currency: point.customerPrice.currency),
                own.price.currency != point.customerPrice.currency
                    || own.price.amount != point.customerPrice.amount
            {
                findings.append(
                    Diagnostic(
                        path: point.path, location: point.location,
                        message:
                            "\(pack.productId) in \(territory): Apple's price is \(show(point.customerPrice)) but the card \(card.reference) prices the pack at \(show(own.price)) there (\(card.source.path):\(own.location.line):\(own.location.column)); the figures use Apple's price: bind the product's own file, or correct the card",
                        rule: .check(.applePrice)))
            }
            let sf = table?.storefront(territory)
            var modelled: ModelledProceeds?
            var gap: Gap?
            if let sf, let table {
                if sf.currency != point.customerPrice.currency {
                    findings.append(
                        Diagnostic(
                            path: point.path, location: point.location, severity: .warning,
                            message:
                                "\(pack.productId) in \(territory): Apple prices in \(point.customerPrice.currency) but the storefront data says \(sf.currency); the model is not used",
                            rule: .check(.storefrontCurrency)))
                } else if let regime = table.regime(for: sf, program: program, on: date) {
                    do throws(MoneyError) {
                        modelled = try table.proceeds(
                            point.customerPrice, in: sf, regime: regime, on: date)
                    } catch { throw proceedsError(point.customerPrice, in: territory, error) }
                } else if point.proceeds == nil {
                    gap = table.modelsTaxes(on: date) ? .noRegime : .noTaxHistory
                }
            }
            if let apple = point.proceeds, let m = modelled {
                let magnitude: Exact
                do throws(ArithmeticError) {
                    let diff = try apple.amount.subtracting(m.rounded.amount)
                    magnitude = diff.isNegative ? try diff.negated() : diff
                } catch {
                    throw .arithmetic(
                        "\(pack.productId) in \(territory): Apple's \(show(apple)) against the model's \(show(m.rounded)): \(error)"
                    )
                }
                if StorefrontMargins.tolerance(apple.currency, storefront: sf) < magnitude {
                    findings.append(
                        Diagnostic(
                            path: point.path, location: point.location, severity: .warning,
                            message:
                                "\(pack.productId) in \(territory): Apple pays \(show(apple)) for \(show(point.customerPrice)) but the storefront data models \(show(m.rounded)) (\(StorefrontMargins.modelText(sf, m))); the tax or commission data is stale or wrong",
                            rule: .check(.storefrontCrossCheck)))
                }
            }
            let proceeds = point.proceeds ?? modelled?.rounded
            let source: ProceedsSource? =
                point.proceeds != nil ? .apple : (modelled != nil ? .modelled : nil)
            if proceeds == nil, gap == nil { gap = sf == nil ? .notInData : .noProceeds }
            let c = try cost(point.customerPrice.currency)
            rows.append(
                try StorefrontMargins.makeRow(
                    pack, territory, sf, point.customerPrice, proceeds, source, point,
                    modelled, gap, c, path: point.path, location: point.location))
        }

        /// Storefronts of the data file the card prices (its storefront's own price, else
        /// the price in the storefront's currency) that no Apple file covered: modelled.
        mutating func addModelled() throws(WorstCaseError) {
            guard let table else { return }
            for sf in table.storefronts where !covered.contains(sf.territory) {
                guard let price = prices.price(for: sf.territory, currency: sf.currency),
                    price.price.currency == sf.currency
                else { continue }
                covered.insert(sf.territory)
                var modelled: ModelledProceeds?
                if let regime = table.regime(for: sf, program: program, on: date) {
                    do throws(MoneyError) {
                        modelled = try table.proceeds(price.price, in: sf, regime: regime, on: date)
                    } catch { throw proceedsError(price.price, in: sf.territory, error) }
                }
                let c = try cost(price.price.currency)
                rows.append(
                    try StorefrontMargins.makeRow(
                        pack, sf.territory, sf, price.price, modelled?.rounded,
                        modelled == nil ? nil : .modelled, nil, modelled,
                        modelled != nil
                            ? nil : table.modelsTaxes(on: date) ? .noRegime : .noTaxHistory,
                        c, path: card.source.path,
                        location: price.location))
            }
        }

        /// A territory the card prices that neither an Apple file nor the data covers:
        /// listed with its price and worst-case cost, and said.
        mutating func addUnmodelled() throws(WorstCaseError) {
            for (territory, price) in prices.specific.sorted(by: { $0.key < $1.key })
            where !covered.contains(territory) {
                covered.insert(territory)
                let c = try cost(price.price.currency)
                rows.append(
                    try StorefrontMargins.makeRow(
                        pack, territory, nil, price.price, nil, nil, nil, nil, .notInData, c,
                        path: card.source.path, location: price.location))
            }
        }

        /// A card price for every storefront of a currency that no storefront of the data
        /// prices in, and no App Store Connect file covers: it is in no row, so it is said
        /// (`storefront-price`), never dropped in silence.
        mutating func addUnreached() {
            guard let table else { return }
            for (currency, price) in prices.generic.sorted(by: { $0.key < $1.key })
            where !rows.contains(where: { $0.customerPrice.currency == currency }) {
                findings.append(
                    Diagnostic(
                        path: card.source.path, location: price.location,
                        message:
                            "pack \"\(pack.productId)\": the price \(price.price) reaches no storefront: no storefront of \(table.source.path) prices in \(currency.code) and no App Store Connect file covers one; it applies nowhere (give it a storefront the data prices in \(currency.code), or remove it)",
                        rule: .check(.storefrontPrice)))
            }
        }
    }
}
