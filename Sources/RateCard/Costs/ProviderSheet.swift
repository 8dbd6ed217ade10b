/// A provider's price sheet, as reviewed on a date from a source.
///
/// Prices are in the provider's own currency. A meter may have variants (cache hit or
/// miss); a time-of-day schedule may scale every meter (off-peak at half price).
public struct ProviderSheet: Sendable, Hashable {
    public let id: String
    public let name: String
    public let currency: Currency
    public let reviewed: CalendarDate
    public let sourceURL: String
    public let meters: [Meter]
    public let schedule: PriceSchedule?
    public let placeholder: Bool
    public let notes: [String]
    public let source: SourceFile

    public func meter(_ key: String) -> Meter? { meters.first { $0.key == key } }
}

/// One billed quantity of a provider: a price per `per` units, per variant.
public struct Meter: Sendable, Hashable {
    public let key: String
    public let unit: MeterUnit
    /// Units the price is quoted for (1,000,000 tokens; 3,600 seconds).
    public let per: Exact
    public let variants: [Variant]
    /// The provider bills in whole multiples of this many units (started increments count).
    public let increment: Exact?
    /// The provider bills at least this many units for any request that uses the meter.
    public let minimum: Exact?
    public let location: SourceLocation

    /// The most expensive variant.
    public var worstVariant: Variant {
        variants.max { a, b in a.price < b.price || (a.price == b.price && a.name > b.name) }!
    }

    /// Units billed for a request of `quantity` units: rounded up to the increment, then
    /// raised to the minimum. A zero quantity is not billed.
    public func billedUnits(_ quantity: Exact) throws(ArithmeticError) -> Exact {
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
public struct Variant: Sendable, Hashable {
    public let name: String
    /// Price per `Meter.per` units, in the sheet's currency, at the schedule's base rate.
    public let price: Exact
}

/// Time-of-day pricing: named periods on weekdays at local hours, each with a multiplier.
public struct PriceSchedule: Sendable, Hashable {
    /// Fixed offset of the provider's local time, minutes east of UTC.
    public let offsetMinutes: Int
    /// The period in force outside every listed window.
    public let defaultPeriod: String
    public let windows: [Window]
    /// Multiplier per period name; the listed prices are multiplied by it.
    public let multipliers: [String: Exact]
    public let reviewed: CalendarDate?
    public let sourceURL: String?

    public struct Window: Sendable, Hashable {
        public let period: String
        /// ISO weekdays, 1 = Monday … 7 = Sunday.
        public let weekdays: Set<Int>
        /// Seconds since local midnight, half-open [from, until).
        public let from: Int
        public let until: Int
    }

    /// The period in force at an instant.
    public func period(at instant: Timestamp) -> String {
        let (date, second) = instant.local(offsetMinutes: offsetMinutes)
        let weekday = date.isoWeekday
        for w in windows where w.weekdays.contains(weekday) && second >= w.from && second < w.until {
            return w.period
        }
        return defaultPeriod
    }

    /// The most expensive period and its multiplier (ties broken by name).
    public var worstPeriod: (name: String, multiplier: Exact) {
        let best = multipliers.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }!
        return (best.key, best.value)
    }
}
