/// One App Store storefront (territory): its currency, how Apple treats tax there, and any
/// commission that differs from the default.
public struct Storefront: Sendable, Hashable {
    /// The territory's ISO 3166-1 alpha-3 code, as App Store Connect writes it ("DEU").
    public let territory: String
    public let name: String
    public let currency: Currency
    /// True when customer prices include VAT/GST (most storefronts); false where tax is
    /// added at checkout (the USA, Canada).
    public let taxIncluded: Bool
    /// The tax rate Apple removes from a tax-inclusive price before commission (0.19 for
    /// German VAT); zero when prices exclude tax.
    public let tax: Exact
    /// A digital services tax Apple deducts, as a share of the tax-exclusive price.
    public let digitalServicesTax: Exact
    /// Regimes that replace the file's default ones in this territory.
    public let commission: [CommissionRegime]
    /// The figures are not confirmed against Apple's own data.
    public let placeholder: Bool
    public let note: String?
    public let location: SourceLocation

    public init(
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
