/// One tax Apple removes or withholds in a storefront, in force from a date (and until
/// one, when it ended), with where the figure comes from.
///
/// Three kinds, applied in this order (`ModelledProceeds`):
/// - `vat`: VAT, GST or consumption tax included in the customer price; Apple removes it
///   first (price ÷ (1 + rate)). Several in force at once add up.
/// - `dst`: a digital services tax, equalisation levy or income tax Apple deducts as a share
///   of the tax-exclusive price, after its commission.
/// - `withholding`: a tax withheld from the proceeds themselves (Brazil's CIDE and IOF).
struct StorefrontTax: Sendable, Hashable {
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case vat
        case dst
        case withholding
    }

    let kind: Kind
    /// 0.19 for 19%.
    let rate: Exact
    /// The first day the rate applies; nil: since before the file's history starts.
    let from: CalendarDate?
    /// The first day it no longer applies, when it ended.
    let until: CalendarDate?
    /// Apple's notice, Apple's tax page or a government notice, in words.
    let source: String?
    /// No source was found for the figure.
    let placeholder: Bool
    let note: String?
    let location: SourceLocation

    init(
        kind: Kind, rate: Exact, from: CalendarDate? = nil, until: CalendarDate? = nil,
        source: String? = nil, placeholder: Bool = false, note: String? = nil,
        location: SourceLocation = .start
    ) {
        self.kind = kind
        self.rate = rate
        self.from = from
        self.until = until
        self.source = source
        self.placeholder = placeholder
        self.note = note
        self.location = location
    }

    /// True when the tax applies on `date`: on or after `from`, before `until`.
    func applies(on date: CalendarDate) -> Bool {
        (from.map { $0 <= date } ?? true) && (until.map { date < $0 } ?? true)
    }

    /// "VAT", "DST", "withholding"
    var label: String {
        switch kind {
        case .vat: "VAT"
        case .dst: "DST"
        case .withholding: "withholding"
        }
    }
}

/// The taxes of one storefront in force on one date, summed by kind.
struct TaxRates: Sendable, Hashable {
    /// Removed from a tax-inclusive price before commission.
    let vat: Exact
    /// Deducted as a share of the tax-exclusive price.
    let digitalServicesTax: Exact
    /// Withheld as a share of the proceeds.
    let withholding: Exact
    /// The entries summed.
    let entries: [StorefrontTax]

    static let none = TaxRates(
        vat: .zero, digitalServicesTax: .zero, withholding: .zero, entries: [])
}
