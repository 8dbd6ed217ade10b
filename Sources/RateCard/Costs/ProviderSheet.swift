/// A provider's price sheet, as reviewed on a date from a source.
///
/// Prices are in the provider's own currency. A meter may have variants (cache hit or
/// miss); a time-of-day schedule may scale every meter (off-peak at half price).
struct ProviderSheet: Sendable, Hashable {
    let id: String
    let name: String
    let currency: Currency
    let reviewed: CalendarDate
    let sourceURL: String
    let meters: [Meter]
    let schedule: PriceSchedule?
    let placeholder: Bool
    let notes: [String]
    let source: SourceFile

    func meter(_ key: String) -> Meter? { meters.first { $0.key == key } }
}

/// One billed quantity of a provider: a price per `per` units, per variant.
struct Meter: Sendable, Hashable {
    let key: String
    let unit: MeterUnit
    /// Units the price is quoted for (1,000,000 tokens; 3,600 seconds).
    let per: Exact
    let variants: [Variant]
    /// The provider bills in whole multiples of this many units (started increments count).
    let increment: Exact?
    /// The provider bills at least this many units for any request that uses the meter.
    let minimum: Exact?
    let location: SourceLocation

    /// The most expensive variant.
    var worstVariant: Variant {
        variants.max { a, b in a.price < b.price || (a.price == b.price && a.name > b.name) }!
    }

    /// Units billed for a request of `quantity` units: rounded up to the increment, then
    /// raised to the minimum. A zero quantity is not billed.
    func billedUnits(_ quantity: Exact) throws(ArithmeticError) -> Exact {
        guard quantity.isPositive else { return .zero }
        var billed = quantity
        if let increment {
            let steps = try quantity.divided(by: increment).rounded(.up)
            billed = try increment.multiplied(by: steps)
        }
        if let minimum, billed < minimum { billed = minimum }
        return billed
    }
}

/// A priced variant of a meter ("cacheMiss").
struct Variant: Sendable, Hashable {
    let name: String
    /// Price per `Meter.per` units, in the sheet's currency, at the schedule's base rate.
    let price: Exact
}

/// Time-of-day pricing: named periods on weekdays at local hours, each with a multiplier.
struct PriceSchedule: Sendable, Hashable {
    /// Fixed offset of the provider's local time, minutes east of UTC.
    let offsetMinutes: Int
    /// The period in force outside every listed window.
    let defaultPeriod: String
    let windows: [Window]
    /// Multiplier per period name; the listed prices are multiplied by it.
    let multipliers: [String: Exact]
    let reviewed: CalendarDate?
    let sourceURL: String?
    /// Where `default` and each multiplier are written, for findings.
    let defaultLocation: SourceLocation
    let multiplierLocations: [String: SourceLocation]

    struct Window: Sendable, Hashable {
        let period: String
        /// ISO weekdays, 1 = Monday … 7 = Sunday.
        let weekdays: Set<Int>
        /// Seconds since local midnight, half-open [from, until).
        let from: Int
        let until: Int
        /// The window's object in the sheet.
        let location: SourceLocation
    }

    /// The period in force at an instant: the first window that holds it, else the default.
    func period(at instant: Timestamp) -> String {
        let (date, second) = instant.local(offsetMinutes: offsetMinutes)
        return period(weekday: date.isoWeekday, second: second)
    }

    /// The period in force at a local weekday (1…7) and second of the day.
    func period(weekday: Int, second: Int) -> String {
        for w in windows where w.weekdays.contains(weekday) && second >= w.from && second < w.until
        {
            return w.period
        }
        return defaultPeriod
    }

    /// The periods that are in force at some instant, sorted by name.
    ///
    /// The week is cut at every window's `from` and `until` on each day; within one piece
    /// the same period holds throughout (the first window that covers it, else the
    /// default), so one look per piece finds every period that can hold. A fixed offset
    /// means every local weekday and second occurs. A `default` is missing here when the
    /// windows cover the whole week, a window's period when the window has no days or
    /// earlier windows cover it, and a multiplier's name when nothing names it.
    var periodsInForce: [String] {
        var found = Set<String>()
        for day in 1...7 {
            var cuts: Set<Int> = [0, 86_400]
            for w in windows where w.weekdays.contains(day) {
                cuts.insert(w.from)
                cuts.insert(w.until)
            }
            for start in cuts.sorted().dropLast() {
                found.insert(period(weekday: day, second: start))
            }
        }
        return found.sorted()
    }

    /// Multiplier names that are never in force, each with why, sorted by name.
    var periodsNeverInForce: [(period: String, reason: String)] {
        let inForce = Set(periodsInForce)
        return multipliers.keys.sorted().filter { !inForce.contains($0) }.map { name in
            let named = windows.filter { $0.period == name }
            let reason: String
            if name == defaultPeriod {
                reason = "it is the default, but the windows cover the whole week"
            } else if named.isEmpty {
                reason = "no window names it and it is not the default"
            } else if named.allSatisfy({ $0.weekdays.isEmpty }) {
                reason = "its window\(named.count == 1 ? " has" : "s have") no days"
            } else {
                reason =
                    "earlier windows cover every time its window\(named.count == 1 ? "" : "s") name\(named.count == 1 ? "s" : "")"
            }
            return (name, reason)
        }
    }

    /// The most expensive period that can be in force, and its multiplier (ties broken by
    /// name). Periods never in force are not priced: a whole-week set of windows leaves
    /// the default unused, an empty-day window or a multiplier no window names prices
    /// nothing.
    var worstPeriod: (name: String, multiplier: Exact) {
        var best: (name: String, multiplier: Exact) = (
            defaultPeriod, multipliers[defaultPeriod] ?? .one
        )
        var first = true
        for name in periodsInForce {
            let m = multipliers[name] ?? .one
            if first || best.multiplier < m {
                best = (name, m)
                first = false
            }
        }
        return best
    }
}
