/// The worst-case cost and margin of every pack and grant of a card, per currency and
/// commission rate: the answer to "does every pack still make money?".
struct PackMargins: Sendable, Hashable {
    let card: RateCard
    let rows: [Row]
    let grants: [GrantRow]
    /// Features whose requests can be made for free while costing money.
    let freeUsage: [RequestShape]
    /// FX rates that were used, with the table they came from.
    let fxUsed: [FXRate]
    let fx: FXTable
    /// The provider sheets the card's features are priced by.
    let providers: [ProviderSheet]
    let commissionNote: String?
    /// Sales-tax rates removed from prices before commission, per currency. Empty: tax is
    /// not modelled and prices are taken as what the store receives before commission.
    let taxRates: [Currency: Exact]
    /// What margin % is a share of.
    static let marginBasis =
        "margin % is the margin as a share of the price the customer pays"

    /// One pack in one currency.
    struct Row: Sendable, Hashable {
        let pack: Pack
        let price: PackPrice
        let worst: WorstCase
        /// The worst case in the providers' own currency, before conversion.
        let providerCost: Money?
        let fxUsed: [FXRate]
        let lines: [CommissionLine]

        /// False for a pack of 0 credits or fewer: it sells nothing to spend, so it has no
        /// worst case and no margin (its row shows the price and proceeds only).
        var addsCredits: Bool { pack.credits > 0 }
    }

    /// One commission rate applied to a pack price.
    struct CommissionLine: Sendable, Hashable {
        let rate: Exact
        /// The price less any modelled tax: what commission is taken from.
        let commission: Money
        /// price × (1 − rate)
        let proceeds: Money
        /// proceeds − worst-case cost; nil for a pack that adds no credits (nothing is sold
        /// to spend, so there is no cost to take off).
        let margin: Money?
        /// margin ÷ price; nil without a margin or for a price of 0 or below (a share of
        /// nothing, or of a negative price, is no margin %).
        let marginShare: Exact?
    }

    /// A grant: pure cost, priced at the same worst case.
    struct GrantRow: Sendable, Hashable {
        let grant: Grant
        let worst: WorstCase
    }

    /// Computes every row. `commission` gives the rates per currency on the card's effective
    /// date unless `rates` overrides them for all currencies.
    init(
        card: RateCard, repository: CardRepository, fx: FXTable? = nil, rates: [Exact]? = nil,
        taxRates: [Currency: Exact] = [:]
    ) throws(WorstCaseError) {
        self.card = card
        self.taxRates = taxRates
        let fx = fx ?? repository.fx
        self.fx = fx
        let engine = try WorstCaseEngine(card: card, providers: repository.providers)
        freeUsage = engine.freeUsage
        providers = PackMargins.providers(of: card, in: repository)
        commissionNote =
            rates == nil ? repository.commission.note : "rates given on the command line"
        let effectiveDate = card.effective.local(offsetMinutes: card.effective.offsetMinutes).date
        var rows: [Row] = []
        var used: [FXRate] = []
        for pack in card.packs {
            for price in pack.prices {
                let currency = price.price.currency
                let worst = try engine.worstCase(credits: pack.credits, in: currency, fx: fx)
                // The same worst case in the providers' currency, and the rates used.
                // Every rate the figure rests on, however many provider currencies it mixes.
                var providerCost: Money?
                let rowFX = worst.fxUsed
                let providerCurrencies = Set(providers.map(\.currency))
                if providerCurrencies.count == 1, let pc = providerCurrencies.first, pc != currency,
                    !worst.cost.amount.isZero
                {
                    providerCost = try engine.worstCase(credits: pack.credits, in: pc, fx: fx).cost
                }
                for r in rowFX where !used.contains(r) { used.append(r) }
                let rateList =
                    rates ?? repository.commission.rates(currency: currency, on: effectiveDate)
                var lines: [CommissionLine] = []
                for rate in rateList.sorted() {
                    do {
                        // A tax-inclusive price: the tax is removed before commission.
                        var net = price.price
                        if let tax = taxRates[currency] {
                            net = try price.price.multiplied(
                                by: Exact.one.divided(by: Exact.one.adding(tax)))
                        }
                        let commission = try net.multiplied(by: rate)
                        let proceeds = try net.subtracting(commission)
                        // A pack of no credits has no worst case to take off: no margin.
                        let margin = pack.credits > 0 ? try proceeds.subtracting(worst.cost) : nil
                        // A share of a price of 0 or below is no margin %: a loss on a
                        // negative price would read as a share above 100%.
                        var share: Exact?
                        if let margin, price.price.amount.isPositive {
                            share = try margin.amount.divided(by: price.price.amount)
                        }
                        lines.append(
                            CommissionLine(
                                rate: rate, commission: commission, proceeds: proceeds,
                                margin: margin, marginShare: share))
                    } catch {
                        throw .arithmetic(
                            "pack \(pack.productId): the margin is too large to compute exactly")
                    }
                }
                rows.append(
                    Row(
                        pack: pack, price: price, worst: worst, providerCost: providerCost,
                        fxUsed: rowFX, lines: lines))
            }
        }
        self.rows = rows
        let grantCurrency = PackMargins.costCurrency(card: card, providers: providers)
        var grants: [GrantRow] = []
        for g in card.grants {
            let worst = try engine.worstCase(credits: g.credits, in: grantCurrency, fx: fx)
            for r in worst.fxUsed where !used.contains(r) { used.append(r) }
            grants.append(GrantRow(grant: g, worst: worst))
        }
        self.grants = grants
        self.fxUsed = used
    }

    /// The currency grant costs are shown in: the providers' currency when they share one,
    /// else the currency of a credit's face value, else the first pack price's.
    static func costCurrency(card: RateCard, providers: [ProviderSheet]) -> Currency {
        let pcs = Set(providers.map(\.currency)).sorted()
        if pcs.count == 1, let only = pcs.first { return only }
        if let f = card.creditUnit.faceValue { return f.currency }
        if let p = card.packs.first?.prices.first { return p.price.currency }
        return pcs.first ?? Currency.usd
    }

    /// The provider sheets `card`'s features are costed by, sorted by id.
    static func providers(of card: RateCard, in repository: CardRepository)
        -> [ProviderSheet]
    {
        let ids = Set(
            card.features.flatMap(\.dimensions).compactMap { d -> String? in
                if case .provider(let s, _, _) = d.cost { return s } else { return nil }
            })
        return ids.sorted().compactMap { repository.providers[$0] }
    }

    /// True when a figure rests on a rate of a placeholder FX file (a rate given on the
    /// command line is the user's own, not the file's).
    var fxRestsOnPlaceholder: Bool { fx.restsOnPlaceholder(fxUsed) }

    /// The rates used that came from the FX file, and those given on the command line.
    var fxUsedByOrigin: (file: [FXRate], commandLine: [FXRate]) {
        (fxUsed.filter { !$0.fromCommandLine }, fxUsed.filter(\.fromCommandLine))
    }

    /// The lowest margin share of any row at its highest commission rate (rows without a
    /// share, a pack of no credits or a price of 0, are not compared).
    var lowestMarginShare: (row: Row, line: CommissionLine, share: Exact)? {
        var best: (Row, CommissionLine, Exact)?
        for r in rows {
            guard let top = r.lines.max(by: { $0.rate < $1.rate }), let share = top.marginShare
            else { continue }
            if let b = best, !(share < b.2) { continue }
            best = (r, top, share)
        }
        return best.map { (row: $0.0, line: $0.1, share: $0.2) }
    }

    /// What `margin packs` warns of for this card: each pack of no credits at its credits,
    /// and each price of 0 or below at its amount (the rows show no margin, or no margin %,
    /// for them); `margin check` reports the same places as `free-price` errors.
    var warnings: [Diagnostic] {
        var out = card.packs.filter { $0.credits <= 0 }.map {
            PackMargins.noCreditsWarning($0, card: card)
        }
        for pack in card.packs {
            for price in pack.prices where !price.price.amount.isPositive {
                out.append(
                    Diagnostic(
                        path: card.source.path, location: price.location, severity: .warning,
                        message:
                            "pack \"\(pack.productId)\" is priced at \(price.price): a pack must cost money; its row has no margin % (a share of no price)",
                        rule: .check(.freePrice)))
            }
        }
        return out
    }

    /// The warning `packs` and `storefronts` give at a pack of no credits, at its credits
    /// (where `margin check` reports the error, `free-price`).
    static func noCreditsWarning(_ pack: Pack, card: RateCard) -> Diagnostic {
        Diagnostic(
            path: card.source.path, location: pack.creditsLocation, severity: .warning,
            message:
                "\(noCreditsText(pack)); a pack must add a positive number of credits",
            rule: .check(.freePrice))
    }

    /// "pack "500tks" adds 0 credits: it sells nothing to spend, so it has no worst case and
    /// no margin": the reason said wherever such a row is shown without them.
    static func noCreditsText(_ pack: Pack) -> String {
        "pack \"\(pack.productId)\" adds \(pack.credits) credits: it sells nothing to spend, so it has no worst case and no margin"
    }
}
