/// The storefront data file (`"kind": "storefronts"`): for each App Store territory its
/// currency, tax treatment and commission regimes, dated and sourced.
///
/// Used to model what Apple pays where no App Store Connect price-point file is given, and
/// to cross-check Apple's figures where one is.
struct StorefrontTable: Sendable, Hashable {
    /// When the data was reviewed.
    let date: CalendarDate
    /// The figures are placeholders until reviewed against Apple's own tables.
    let placeholder: Bool
    /// Where the figures come from, in words or as URLs.
    let sourceNote: String
    /// Regimes that apply in every territory that does not list its own for the program.
    let commission: [CommissionRegime]
    /// Sorted by territory code.
    let storefronts: [Storefront]
    let notes: [String]
    let source: SourceFile
    /// The first day the data's tax histories cover: the earliest `from` of any tax entry
    /// (2023-01-01 in the repository's file); nil when no entry is dated. Before it the
    /// taxes Apple removed are unknown, so nothing is modelled (`modelsTaxes(on:)`).
    let historyStart: CalendarDate?

    init(
        date: CalendarDate, placeholder: Bool, sourceNote: String, commission: [CommissionRegime],
        storefronts: [Storefront], notes: [String] = [], source: SourceFile
    ) {
        self.date = date
        self.placeholder = placeholder
        self.sourceNote = sourceNote
        self.commission = commission
        self.storefronts = storefronts.sorted { $0.territory < $1.territory }
        self.notes = notes
        self.source = source
        self.historyStart = storefronts.flatMap { $0.taxes.compactMap(\.from) }.min()
    }

    /// The note for a day after the data's own date: what it holds is assumed to hold
    /// still, and nothing announced since is in it; nil on or before that date.
    func lateNote(_ day: CalendarDate) -> String? {
        guard date < day else { return nil }
        return
            "\(day) is after the storefront data's date (\(date)): its taxes and regimes are taken as still in force, and a change announced since is not in it"
    }

    /// "the storefront data's tax histories start on 2023-01-01, and 2022-06-01 is before
    /// them, so the taxes Apple removed are unknown": why nothing is modelled on `day`; nil
    /// when the histories cover it. One wording for storefronts, plans and check.
    func beforeHistoryText(_ day: CalendarDate) -> String? {
        guard let start = historyStart, !modelsTaxes(on: day) else { return nil }
        return
            "the storefront data's tax histories start on \(start), and \(day) is before them, so the taxes Apple removed are unknown"
    }

    /// False before the data's tax histories start: a storefront's taxes on that day are
    /// unknown (not zero), so its proceeds cannot be modelled.
    func modelsTaxes(on date: CalendarDate) -> Bool {
        historyStart.map { $0 <= date } ?? true
    }

    /// The storefront of `territory` ("DEU"), or nil.
    func storefront(_ territory: String) -> Storefront? {
        storefronts.first { $0.territory == territory }
    }

    /// The ISO 3166-1 alpha-2 code of the territory `alpha3` ("DEU" → "DE") that App Store
    /// transactions name as their `storefront`, for matching them to the reports' countries;
    /// nil when the territory is not listed or has no `countryCode`.
    func countryCode(ofTerritory alpha3: String) -> String? {
        storefront(alpha3)?.countryCode
    }

    /// The storefronts that price in `currency`.
    func storefronts(in currency: Currency) -> [Storefront] {
        storefronts.filter { $0.currency == currency }
    }

    /// The regime for `program` in `storefront` on `date`: the territory's own when it lists
    /// one in force, else the file's default offered there; nil when the program is not
    /// offered in the storefront on that date (the EU terms outside the EU), and nil before
    /// the data's tax histories start, since the model needs both (`modelsTaxes(on:)`).
    func regime(for storefront: Storefront, program: StoreProgram, on date: CalendarDate)
        -> CommissionRegime?
    {
        guard modelsTaxes(on: date) else { return nil }
        return CommissionRegime.inForce(storefront.commission, program: program, on: date)
            ?? CommissionRegime.inForce(
                commission, program: program, on: date, in: storefront.territory)
    }

    /// The file's own regime of `program` in force on `date`, wherever it is offered (the EU
    /// terms' regime, though it lists its territories); nil when the file has none then.
    func defaultRegime(_ program: StoreProgram, on date: CalendarDate) -> CommissionRegime? {
        commission.filter { $0.program == program && $0.applies(on: date) }.max {
            $0.from < $1.from
        }
    }

    /// What the model says Apple pays for `price` in `storefront` on `date`.
    func proceeds(
        _ price: Money, in storefront: Storefront, regime: CommissionRegime,
        on date: CalendarDate
    ) throws(MoneyError) -> ModelledProceeds {
        try ModelledProceeds(price: price, storefront: storefront, regime: regime, on: date)
    }
}
