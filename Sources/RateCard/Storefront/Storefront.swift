/// One App Store storefront (territory): its currency, how Apple treats tax there, and any
/// commission that differs from the default.
struct Storefront: Sendable, Hashable {
    /// The territory's ISO 3166-1 alpha-3 code, as App Store Connect writes it ("DEU").
    let territory: String
    let name: String
    let currency: Currency
    /// True when customer prices include VAT/GST (most storefronts); false where tax is
    /// added at checkout (the USA, Canada).
    let taxIncluded: Bool
    /// The tax rate Apple removes from a tax-inclusive price before commission (0.19 for
    /// German VAT); zero when prices exclude tax.
    let tax: Exact
    /// A digital services tax Apple deducts, as a share of the tax-exclusive price.
    let digitalServicesTax: Exact
    /// The decimal places of the amounts Apple prices and pays in here: the currency's ISO
    /// 4217 minor unit unless the data says Apple uses a coarser unit (`currencyUnit`:
    /// Hungary's HUF and Indonesia's IDR are paid in whole units, though ISO gives them
    /// two decimals). The cross-check tolerance and the rounding of modelled proceeds.
    let paymentScale: Int
    /// Regimes that replace the file's default ones in this territory.
    let commission: [CommissionRegime]
    /// The figures are not confirmed against Apple's own data.
    let placeholder: Bool
    let note: String?
    let location: SourceLocation

    init(
        territory: String, name: String, currency: Currency, taxIncluded: Bool, tax: Exact,
        digitalServicesTax: Exact = .zero, paymentScale: Int? = nil,
        commission: [CommissionRegime] = [], placeholder: Bool = false, note: String? = nil,
        location: SourceLocation = .start
    ) {
        self.territory = territory
        self.name = name
        self.currency = currency
        self.taxIncluded = taxIncluded
        self.tax = tax
        self.digitalServicesTax = digitalServicesTax
        self.paymentScale = paymentScale ?? currency.minorUnits
        self.commission = commission
        self.placeholder = placeholder
        self.note = note
        self.location = location
    }
}

extension Storefront {
    /// The smallest amount Apple pays here, as an exact value (0.01, or 1 for HUF).
    var paymentUnit: Exact {
        (try? Exact(1, over: Exact.powerOfTen(paymentScale))) ?? .one
    }
}
