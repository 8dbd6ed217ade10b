/// The money of a P&L query as integers an engine sums exactly.
///
/// Every money figure of the table is a sum of terms `quantity × rate` (metered cost),
/// `credits × value per credit` (value) and constants (fixed costs), each rate an exact
/// rational. One common denominator `D` is chosen so that every rate times `D` is an
/// integer: the query sums integer numerators (128-bit, exact) and divides by `D` once, at
/// the end. When `D` divides a power of ten (up to 10^18) the division is exact at that
/// scale; otherwise the result is rounded half-even, once, at the places `margin pnl`'s
/// JSON gives such a figure (`Exact.nonTerminatingPlaces`, 12).
struct SQLCostPlan: Sendable {
    /// Places a quantity is read with (`DECIMAL(38, 6)`); a finer quantity stops the query.
    static let quantityScale = 6
    /// The most places a result has (Spark's `div` returns 64 bits: digits below 10^18).
    static let maxScale = 18

    /// One metered dimension of a feature in one card version.
    struct Term: Sendable {
        let dimension: String
        /// Index into `schedules`, or nil when the provider has one price at all times.
        let schedule: Int?
        /// Per schedule period (nil: no schedule), the integer constants of the term.
        let rates: [(period: String?, rate: Rate)]
    }

    /// Integer constants of a term at one period: `linear` × quantity numerator without an
    /// increment; with one, `step` per started increment of `perStep` quantity numerators;
    /// at least `minimum`.
    struct Rate: Sendable {
        let linear: Int128
        let step: Int128
        /// Quantity numerators (units × 10^6) per increment, as a fraction: ceil(q × num / den).
        let stepNumerator: Int128
        let stepDenominator: Int128
        let minimum: Int128
        let hasIncrement: Bool
    }

    /// The metered features of one version.
    struct Priced: Sendable {
        let version: Int
        let feature: String
        let terms: [Term]
    }

    let effective: [Timestamp]
    let priced: [Priced]
    let schedules: [PriceSchedule]
    /// The common denominator of every money figure.
    let denominator: Int128
    /// Places of the result columns.
    let scale: Int
    /// True when every figure is exact at `scale` (the denominator divides 10^scale).
    let exact: Bool
    /// `perCredit × D`.
    let valueRate: Int128
    /// Fixed cost × D per period (`''` without a series) and feature.
    let fixed: [(period: String, feature: String, numerator: Int128)]

    /// The plan of `request`'s money: the rational rates of every metered term
    /// (`rawTerms`), their common denominator (`commonDenominator`) and the result's
    /// places (`resultScale`), then each rate as an integer numerator over it
    /// (`integerTerms`).
    init(_ request: PnLSQLRequest) throws(SQLCompileError) {
        let versions = request.versions
        effective = versions.map(\.effective)
        var schedules: [PriceSchedule] = []
        let (raw, termDenominators) = try Self.rawTerms(
            request, versions: versions, schedules: &schedules)
        var denominators = termDenominators
        denominators.append(
            (request.perCredit.amount.denominator, "the value of a credit (\(request.perCredit))"))
        for c in request.fixedCostRows {
            denominators.append(
                (
                    c.cost.amount.denominator,
                    "the fixed cost of \(c.feature)\(c.period.isEmpty ? "" : " in \(c.period)")"
                ))
        }
        let d = try Self.commonDenominator(denominators)
        denominator = d
        (scale, exact) = Self.resultScale(d)
        self.schedules = schedules
        priced = try Self.integerTerms(raw, versions: versions, denominator: d)
        valueRate = try Self.integer(request.perCredit.amount, d, "the value of a credit")
        var fixed: [(String, String, Int128)] = []
        for c in request.fixedCostRows {
            fixed.append(
                (
                    c.period, c.feature,
                    try Self.integer(c.cost.amount, d, "the fixed cost of \(c.feature)")
                ))
        }
        self.fixed = fixed
    }

    /// A term's rational rates, before the common denominator is known.
    struct RawTerm {
        let dimension: String
        let schedule: Int?
        let periods: [(String?, Exact)]
        let factor: Exact
        let increment: Exact?
        let minimum: Exact?
    }

    /// Places of a quantity numerator: a quantity is read as units × 10^6.
    static let quantityUnit = Exact(integer: 1_000_000)

    /// The error of a rate that is no 128-bit fraction.
    static func tooWide(_ what: String) -> SQLCompileError {
        .cannotExpress(what: what, why: "a rate needs more than 128 bits as an exact fraction")
    }

    /// First pass: each version's metered features with their rational rates (per schedule
    /// period, the schedules gathered into `schedules`), and the denominator every money
    /// figure needs, with what it is for.
    static func rawTerms(
        _ request: PnLSQLRequest, versions: [RateCard], schedules: inout [PriceSchedule]
    )
        throws(SQLCompileError) -> (
            raw: [(Int, String, [RawTerm])], denominators: [(Int128, String)]
        )
    {
        let fx = request.repository.fx
        let qUnit = quantityUnit
        var raw: [(Int, String, [RawTerm])] = []
        var denominators: [(Int128, String)] = []
        var current = ""
        func need(_ x: Exact) { denominators.append((x.denominator, current)) }
        let fail = tooWide
        for (i, card) in versions.enumerated() {
            for f in card.features {
                var terms: [RawTerm] = []
                for d in f.dimensions {
                    guard case .provider(let sheetID, let meterKey, _) = d.cost else { continue }
                    let what = "\(card.reference) feature \(f.key), dimension \(d.name)"
                    current = "\(what) (provider \(sheetID), meter \(meterKey))"
                    guard let sheet = request.repository.providers[sheetID],
                        let meter = sheet.meter(meterKey)
                    else {
                        throw .cannotExpress(
                            what: what,
                            why: "its provider meter \(sheetID)/\(meterKey) is not loaded")
                    }
                    guard let factor = d.unit.size(in: meter.unit) else {
                        throw .cannotExpress(
                            what: what,
                            why:
                                "its unit \(d.unit.rawValue) does not convert into the meter's \(meter.unit.rawValue)"
                        )
                    }
                    let fxFactor: Exact
                    do {
                        fxFactor = try fx.factor(from: sheet.currency, to: request.currency).factor
                    } catch {
                        throw .cannotExpress(what: what, why: "\(error)")
                    }
                    var scheduleIndex: Int?
                    var periods: [(String?, Exact)] = []
                    do {
                        let base = try meter.worstVariant.price.divided(by: meter.per).multiplied(
                            by: fxFactor)
                        if let schedule = sheet.schedule {
                            if let k = schedules.firstIndex(of: schedule) {
                                scheduleIndex = k
                            } else {
                                schedules.append(schedule)
                                scheduleIndex = schedules.count - 1
                            }
                            for name in Set(
                                schedule.windows.map(\.period) + [schedule.defaultPeriod]
                            ).sorted() {
                                periods.append(
                                    (
                                        name,
                                        try base.multiplied(by: schedule.multipliers[name] ?? .one)
                                    ))
                            }
                        } else {
                            periods.append((nil, base))
                        }
                        for (_, rate) in periods {
                            if let inc = meter.increment {
                                need(try inc.multiplied(by: rate))
                            } else {
                                need(try factor.multiplied(by: rate).divided(by: qUnit))
                            }
                            if let m = meter.minimum { need(try m.multiplied(by: rate)) }
                        }
                    } catch {
                        throw fail(what)
                    }
                    terms.append(
                        RawTerm(
                            dimension: d.name, schedule: scheduleIndex, periods: periods,
                            factor: factor,
                            increment: meter.increment, minimum: meter.minimum))
                }
                if !terms.isEmpty { raw.append((i, f.key, terms)) }
            }
        }
        return (raw, denominators)
    }

    /// The least common multiple of `denominators`, or an error naming the figure that
    /// takes it past the 38 digits of an exact 128-bit sum.
    static func commonDenominator(_ denominators: [(Int128, String)]) throws(SQLCompileError)
        -> Int128
    {
        var d: Int128 = 1
        for (x, what) in denominators {
            let g = Int128(Exact.gcd(d.magnitude, x.magnitude))
            let (p, o) = (d / g).multipliedReportingOverflow(by: x)
            guard !o, String(p).count <= 36 else {
                throw .cannotExpress(
                    what: what,
                    why:
                        "with the rates before it, the common denominator of the money figures (\(d) × \(x / g)) exceeds the 38 digits of an exact 128-bit sum; the query sums integer numerators over one denominator and divides once at the end"
                )
            }
            d = p
        }
        return d
    }

    /// The result scale: exact when `d` divides a power of ten that fits; otherwise
    /// rounded as margin pnl's machine output rounds a figure that never ends.
    static func resultScale(_ d: Int128) -> (scale: Int, exact: Bool) {
        var rest = d
        var twos = 0
        var fives = 0
        while rest % 2 == 0 {
            rest /= 2
            twos += 1
        }
        while rest % 5 == 0 {
            rest /= 5
            fives += 1
        }
        let digits = String(d).count
        if rest == 1, max(twos, fives) <= maxScale, digits + max(twos, fives) <= 37 {
            return (max(twos, fives), true)
        }
        return (max(0, min(Exact.nonTerminatingPlaces, 37 - digits)), false)
    }

    /// `x × d` as an integer, or the error naming `what`.
    static func integer(_ x: Exact, _ d: Int128, _ what: String) throws(SQLCompileError) -> Int128 {
        do {
            guard let v = try x.multiplied(by: Exact(integer: d)).integerValue else {
                throw tooWide(what)
            }
            return v
        } catch {
            throw tooWide(what)
        }
    }

    /// Second pass: each term's rates as integer numerators over `denominator`.
    static func integerTerms(
        _ raw: [(Int, String, [RawTerm])], versions: [RateCard], denominator d: Int128
    ) throws(SQLCompileError) -> [Priced] {
        let qUnit = quantityUnit
        let fail = tooWide
        func integer(_ x: Exact, _ what: String) throws(SQLCompileError) -> Int128 {
            try Self.integer(x, d, what)
        }
        var priced: [Priced] = []
        for (i, key, terms) in raw {
            var out: [Term] = []
            for t in terms {
                var rates: [(String?, Rate)] = []
                let what = "\(versions[i].reference) feature \(key), dimension \(t.dimension)"
                for (period, rate) in t.periods {
                    do {
                        var minimum: Int128 = 0
                        if let m = t.minimum {
                            minimum = try integer(try m.multiplied(by: rate), what)
                        }
                        if let inc = t.increment {
                            // steps = ceil(q × factor / inc) with q = numerator / 10^6.
                            let perStep = try t.factor.divided(by: inc).divided(by: qUnit)
                            rates.append(
                                (
                                    period,
                                    Rate(
                                        linear: 0,
                                        step: try integer(try inc.multiplied(by: rate), what),
                                        stepNumerator: perStep.numerator,
                                        stepDenominator: perStep.denominator,
                                        minimum: minimum, hasIncrement: true)
                                ))
                        } else {
                            rates.append(
                                (
                                    period,
                                    Rate(
                                        linear: try integer(
                                            try t.factor.multiplied(by: rate).divided(by: qUnit),
                                            what), step: 0,
                                        stepNumerator: 0, stepDenominator: 1, minimum: minimum,
                                        hasIncrement: false)
                                ))
                        }
                    } catch let e as SQLCompileError {
                        throw e
                    } catch {
                        throw fail(what)
                    }
                }
                out.append(Term(dimension: t.dimension, schedule: t.schedule, rates: rates))
            }
            priced.append(Priced(version: i, feature: key, terms: out))
        }
        return priced
    }
}
