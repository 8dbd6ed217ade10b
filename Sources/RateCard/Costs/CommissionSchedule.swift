/// Store commission rates: a default list (15% and 30%), and per-currency overrides that
/// apply from a date on.
public struct CommissionSchedule: Sendable, Hashable {
    public let defaultRates: [Exact]
    public let overrides: [Override]
    public let note: String?
    public let source: SourceFile?

    public struct Override: Sendable, Hashable {
        public let currency: Currency
        public let from: CalendarDate
        public let rates: [Exact]
        public let note: String?
    }

    public init(
        defaultRates: [Exact], overrides: [Override] = [], note: String? = nil,
        source: SourceFile? = nil
    ) {
        self.defaultRates = defaultRates
        self.overrides = overrides
        self.note = note
        self.source = source
    }

    /// 15% and 30%: Apple's reduced and standard rates.
    public static let appStoreDefault = CommissionSchedule(
        defaultRates: [Exact(percent: 15), Exact(percent: 30)],
        note:
            "App Store defaults: 15% (Small Business Program, or after a subscriber's first year) and 30% (standard)"
    )

    /// The rates for a sale in `currency` on `date`, ascending.
    public func rates(currency: Currency, on date: CalendarDate) -> [Exact] {
        let applicable = overrides.filter { $0.currency == currency && $0.from <= date }.max {
            $0.from < $1.from
        }
        return (applicable?.rates ?? defaultRates).sorted()
    }
}
