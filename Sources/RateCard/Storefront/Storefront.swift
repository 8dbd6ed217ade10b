/// One App Store storefront (territory): its currency, how Apple treats tax there (a dated
/// history), and any commission that differs from the default.
struct Storefront: Sendable, Hashable {
    /// The territory's ISO 3166-1 alpha-3 code, as App Store Connect writes it ("DEU").
    let territory: String
    /// The territory's ISO 3166-1 alpha-2 code ("DE"), as App Store Connect's sales and
    /// financial reports write the country (`Country Code`, `Country Of Sale`); nil where
    /// the data file does not give it.
    let countryCode: String?
    let name: String
    let currency: Currency
    /// True when customer prices include VAT/GST (most storefronts); false where tax is
    /// added at checkout (the USA, Canada).
    let taxIncluded: Bool
    /// Every tax Apple removes or withholds, each with its dates and source.
    let taxes: [StorefrontTax]
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
        territory: String, countryCode: String? = nil, name: String, currency: Currency,
        taxIncluded: Bool, taxes: [StorefrontTax] = [], paymentScale: Int? = nil,
        commission: [CommissionRegime] = [], placeholder: Bool = false, note: String? = nil,
        location: SourceLocation = .start
    ) {
        self.territory = territory
        self.countryCode = countryCode
        self.name = name
        self.currency = currency
        self.taxIncluded = taxIncluded
        self.taxes = taxes
        self.paymentScale = paymentScale ?? currency.minorUnits
        self.commission = commission
        self.placeholder = placeholder
        self.note = note
        self.location = location
    }

    /// An undated storefront: `tax` (VAT) and `digitalServicesTax` in force on every date.
    init(
        territory: String, name: String, currency: Currency, taxIncluded: Bool, tax: Exact,
        digitalServicesTax: Exact = .zero, paymentScale: Int? = nil,
        commission: [CommissionRegime] = [],
        placeholder: Bool = false, note: String? = nil, location: SourceLocation = .start
    ) {
        var taxes: [StorefrontTax] = []
        if !tax.isZero || digitalServicesTax.isZero {
            taxes.append(StorefrontTax(kind: .vat, rate: tax, location: location))
        }
        if !digitalServicesTax.isZero {
            taxes.append(StorefrontTax(kind: .dst, rate: digitalServicesTax, location: location))
        }
        self.init(
            territory: territory, name: name, currency: currency, taxIncluded: taxIncluded,
            taxes: taxes, paymentScale: paymentScale, commission: commission,
            placeholder: placeholder, note: note, location: location)
    }

    /// The taxes in force on `date`, summed by kind.
    func rates(on date: CalendarDate) -> TaxRates {
        let now = taxes.filter { $0.applies(on: date) }
        func sum(_ kind: StorefrontTax.Kind) -> Exact {
            now.filter { $0.kind == kind }.reduce(Exact.zero) { (try? $0.adding($1.rate)) ?? $0 }
        }
        return TaxRates(
            vat: taxIncluded ? sum(.vat) : .zero, digitalServicesTax: sum(.dst),
            withholding: sum(.withholding), entries: now)
    }

    /// Every date a tax of this storefront starts or ends, ascending.
    var taxChangeDates: [CalendarDate] {
        Array(Set(taxes.flatMap { [$0.from, $0.until].compactMap { $0 } })).sorted()
    }
}

extension Storefront {
    /// The smallest amount Apple pays here, as an exact value (0.01, or 1 for HUF).
    var paymentUnit: Exact {
        (try? Exact(1, over: Exact.powerOfTen(paymentScale))) ?? .one
    }
}
