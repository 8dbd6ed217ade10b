/// One commission rate of one program, in force from a date (and until one, when it ended).
///
/// A storefront file lists regimes for every storefront and, where a territory differs, for
/// that territory; the latest regime whose dates cover the sale date applies.
public struct CommissionRegime: Sendable, Hashable {
    /// Whether a rate is Apple's own published figure or only reported (press, notices).
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case confirmed
        case reported
    }

    public let program: StoreProgram
    /// The share of the tax-exclusive price Apple keeps, e.g. 0.30.
    public let rate: Exact
    /// The first day the rate applies.
    public let from: CalendarDate
    /// The first day it no longer applies, when it ended.
    public let until: CalendarDate?
    public let status: Status
    public let source: String?
    public let location: SourceLocation

    public init(
        program: StoreProgram, rate: Exact, from: CalendarDate, until: CalendarDate? = nil,
        status: Status, source: String? = nil, location: SourceLocation = .start
    ) {
        self.program = program
        self.rate = rate
        self.from = from
        self.until = until
        self.status = status
        self.source = source
        self.location = location
    }

    /// True when the regime applies on `date`: on or after `from`, before `until`.
    public func applies(on date: CalendarDate) -> Bool {
        from <= date && (until.map { date < $0 } ?? true)
    }

    /// Of `regimes`, the one for `program` in force on `date` that started last.
    static func inForce(_ regimes: [CommissionRegime], program: StoreProgram, on date: CalendarDate)
        -> CommissionRegime?
    {
        regimes.filter { $0.program == program && $0.applies(on: date) }.max { $0.from < $1.from }
    }
}
