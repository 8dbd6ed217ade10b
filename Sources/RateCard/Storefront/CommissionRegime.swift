/// One commission rate of one program, in force from a date (and until one, when it ended).
///
/// A storefront file lists regimes for every storefront and, where a territory differs, for
/// that territory; the latest regime whose dates cover the sale date applies.
struct CommissionRegime: Sendable, Hashable {
    /// Whether a rate is Apple's own published figure or only reported (press, notices).
    enum Status: String, Sendable, Hashable, CaseIterable {
        case confirmed
        case reported
    }

    let program: StoreProgram
    /// The share of the tax-exclusive price Apple keeps, e.g. 0.30.
    let rate: Exact
    /// The first day the rate applies.
    let from: CalendarDate
    /// The first day it no longer applies, when it ended.
    let until: CalendarDate?
    let status: Status
    let source: String?
    let location: SourceLocation

    init(
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
    func applies(on date: CalendarDate) -> Bool {
        from <= date && (until.map { date < $0 } ?? true)
    }

    /// Of `regimes`, the one for `program` in force on `date` that started last.
    static func inForce(_ regimes: [CommissionRegime], program: StoreProgram, on date: CalendarDate)
        -> CommissionRegime?
    {
        regimes.filter { $0.program == program && $0.applies(on: date) }.max { $0.from < $1.from }
    }
}
