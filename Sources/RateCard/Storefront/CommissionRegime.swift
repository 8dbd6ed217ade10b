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
    /// A payment processing fee on top of the commission, as a share of the tax-exclusive
    /// price (0.03 under the EU alternative terms); zero elsewhere.
    let paymentProcessing: Exact
    /// The storefronts the regime is offered in; nil: every storefront.
    let territories: Set<String>?
    /// The first day the rate applies.
    let from: CalendarDate
    /// The first day it no longer applies, when it ended.
    let until: CalendarDate?
    let status: Status
    let source: String?
    let location: SourceLocation

    init(
        program: StoreProgram, rate: Exact, paymentProcessing: Exact = .zero,
        territories: Set<String>? = nil, from: CalendarDate, until: CalendarDate? = nil,
        status: Status, source: String? = nil, location: SourceLocation = .start
    ) {
        self.program = program
        self.rate = rate
        self.paymentProcessing = paymentProcessing
        self.territories = territories
        self.from = from
        self.until = until
        self.status = status
        self.source = source
        self.location = location
    }

    /// What Apple takes in all: commission plus payment processing.
    var charge: Exact { (try? rate.adding(paymentProcessing)) ?? rate }

    /// True when the regime applies on `date`: on or after `from`, before `until`.
    func applies(on date: CalendarDate) -> Bool {
        from <= date && (until.map { date < $0 } ?? true)
    }

    /// True when the regime is offered in `territory` (every territory when it names none).
    func offered(in territory: String?) -> Bool {
        guard let territories else { return true }
        return territory.map { territories.contains($0) } ?? false
    }

    /// Of `regimes`, the one for `program` in force on `date` (and offered in `territory`)
    /// that started last.
    static func inForce(
        _ regimes: [CommissionRegime], program: StoreProgram, on date: CalendarDate,
        in territory: String? = nil
    ) -> CommissionRegime? {
        regimes.filter {
            $0.program == program && $0.applies(on: date) && $0.offered(in: territory)
        }.max { $0.from < $1.from }
    }
}
