/// A pack's card prices as they apply per territory: a price for one storefront
/// (`"storefront": "FRA"`) there, else the price in the territory's currency.
///
/// Card prices that cannot apply anywhere are findings, never dropped in silence: a
/// storefront that is no App Store territory, a storefront's price in another currency than
/// the storefront data gives it, a second price for one storefront, a price finer than the
/// unit Apple prices that currency in (`currency-decimals`).
struct TerritoryPrices: Sendable {
    /// The prices for one storefront, by territory.
    let specific: [String: PackPrice]
    /// The prices for every storefront of a currency.
    let generic: [Currency: PackPrice]

    init(_ pack: Pack, card: RateCard, table: StorefrontTable?, findings: inout [Diagnostic]) {
        var specific: [String: PackPrice] = [:]
        var generic: [Currency: PackPrice] = [:]
        let path = card.source.path
        func report(_ rule: CheckRule, _ message: String, _ price: PackPrice) {
            findings.append(
                Diagnostic(
                    path: path, location: price.location,
                    message: "pack \"\(pack.productId)\": \(message)", rule: .check(rule)))
        }
        for price in pack.prices {
            guard let territory = price.storefront else {
                if generic[price.price.currency] == nil { generic[price.price.currency] = price }
                continue
            }
            guard AppStoreTerritory.isTerritory(territory) else {
                report(
                    .storefrontPrice,
                    "the price \(price.price) is for storefront \"\(FieldReader.excerpt(territory))\", which is no App Store territory (App Store Connect's three-letter codes: USA, DEU, FRA, …); it applies nowhere",
                    price)
                continue
            }
            if let sf = table?.storefront(territory), sf.currency != price.price.currency {
                report(
                    .storefrontPrice,
                    "the price \(price.price) is for \(territory) (\(sf.name)), which prices in \(sf.currency.code) (\(table?.source.path ?? "the storefront data")); it applies nowhere",
                    price)
                continue
            }
            if let first = specific[territory] {
                report(
                    .storefrontPrice,
                    "a second price for \(territory) (\(price.price); the first, \(first.price), is at line \(first.location.line)); a storefront has one price",
                    price)
                continue
            }
            specific[territory] = price
        }
        // A price finer than the unit Apple prices the currency in, in a storefront it reaches.
        if let table {
            for sf in table.storefronts where sf.paymentScale < sf.currency.minorUnits {
                guard let price = specific[sf.territory] ?? generic[sf.currency],
                    price.price.currency == sf.currency,
                    let scale = price.price.amount.terminatingScale, scale > sf.paymentScale
                else { continue }
                if findings.contains(where: {
                    $0.rule == .check(.currencyDecimals) && $0.location == price.location
                        && $0.path == path
                }) {
                    continue
                }
                report(
                    .currencyDecimals,
                    "the price \(price.price) has \(scale) decimals, but Apple prices \(sf.currency.code) in units of \(sf.paymentUnit.decimalText()) in \(sf.territory) (\(table.source.path), currencyUnit)",
                    price)
            }
        }
        self.specific = specific
        self.generic = generic
    }

    /// The card's price in `territory`: its own, else the one in `currency`.
    func price(for territory: String, currency: Currency) -> PackPrice? {
        specific[territory] ?? generic[currency]
    }
}
