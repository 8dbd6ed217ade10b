/// Store commission rates: a default list (15% and 30%), and per-currency overrides that
/// apply from a date on.
struct CommissionSchedule: Sendable, Hashable {
    let defaultRates: [Exact]
    let overrides: [Override]
    let note: String?
    let source: SourceFile?

    struct Override: Sendable, Hashable {
        let currency: Currency
        let from: CalendarDate
        let rates: [Exact]
        let note: String?
    }

    init(
        defaultRates: [Exact], overrides: [Override] = [], note: String? = nil,
        source: SourceFile? = nil
    ) {
        self.defaultRates = defaultRates
        self.overrides = overrides
        self.note = note
        self.source = source
    }

    /// 15% and 30%: Apple's reduced and standard rates.
    static let appStoreDefault = CommissionSchedule(
        defaultRates: [Exact(percent: 15), Exact(percent: 30)],
        note:
            "App Store defaults: 15% (Small Business Program, or after a subscriber's first year) and 30% (standard)"
    )

    /// The rates for a sale in `currency` on `date`, ascending.
    func rates(currency: Currency, on date: CalendarDate) -> [Exact] {
        let applicable = overrides.filter { $0.currency == currency && $0.from <= date }.max {
            $0.from < $1.from
        }
        return (applicable?.rates ?? defaultRates).sorted()
    }
}
