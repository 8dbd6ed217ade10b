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
    /// Regimes that replace the file's default ones in this territory.
    let commission: [CommissionRegime]
    /// The figures are not confirmed against Apple's own data.
    let placeholder: Bool
    let note: String?
    let location: SourceLocation

    init(
        territory: String, name: String, currency: Currency, taxIncluded: Bool, tax: Exact,
        digitalServicesTax: Exact = .zero,
        commission: [CommissionRegime] = [], placeholder: Bool = false, note: String? = nil,
        location: SourceLocation = .start
    ) {
        self.territory = territory
        self.name = name
        self.currency = currency
        self.taxIncluded = taxIncluded
        self.tax = tax
        self.digitalServicesTax = digitalServicesTax
        self.commission = commission
        self.placeholder = placeholder
        self.note = note
        self.location = location
    }
}
