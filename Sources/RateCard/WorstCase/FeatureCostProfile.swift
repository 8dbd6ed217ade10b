/// Every request shape of one feature that could be the most expensive per credit.
///
/// For each dimension and each number of charged intervals `k`, the costliest request is
/// the largest quantity the card still charges as `k` intervals (`k × per` when started
/// intervals count whole; one unit short of `k + 1` intervals when only complete ones do),
/// because a provider's bill never falls as the quantity grows. Beyond the provider's
/// minimum, a request of `k + P` intervals (P: the number of intervals after which the
/// card's interval and the provider's increment line up again) costs exactly the request
/// of `k` plus `P` intervals at the plain rate, so it is never worse than two separate
/// requests. That bounds the search: `k` up to `ceil(minimum / interval) + P`.
///
/// A request that uses several dimensions charges and costs the sum of its parts, so its
/// cost per credit never exceeds that of its best single part; single-dimension shapes
/// are therefore enough.
struct FeatureCostProfile: Sendable, Hashable {
    let feature: Feature
    /// Candidate requests with a positive charge, sorted by credits then cost.
    let shapes: [RequestShape]
    /// Requests charged nothing that still cost the provider money: one per dimension that
    /// allows one, in the feature's dimension order (every one, not only the first).
    let freeUsage: [RequestShape]
    /// Why the feature has no running cost, when none of its dimensions has one.
    let noRunningCost: [String]

    /// The largest number of intervals the engine searches per dimension.
    static let maxIntervals: Int128 = 200_000

    /// The shape with the highest cost per credit (ties: fewer credits, then dimension name).
    func best() throws(ArithmeticError) -> RequestShape? {
        var best: (RequestShape, Exact)?
        for s in shapes where s.cost.amount.isPositive {
            let r = try s.costPerCredit()
            if let b = best {
                if r > b.1 || (r == b.1 && (s.credits, s.dimension) < (b.0.credits, b.0.dimension))
                {
                    best = (s, r)
                }
            } else {
                best = (s, r)
            }
        }
        return best?.0
    }

    init(feature: Feature, providers: [String: ProviderSheet]) throws(WorstCaseError) {
        self.feature = feature
        var shapes: [RequestShape] = []
        var free: [RequestShape] = []
        var none: [String] = []
        for d in feature.dimensions {
            switch d.cost {
            case .none(let reason):
                none.append("\(d.name): \(reason)")
            case .provider(let sheetID, let meterKey, _):
                guard let sheet = providers[sheetID], let meter = sheet.meter(meterKey),
                    let factor = d.unit.size(in: meter.unit)
                else {
                    throw .unboundMeter(feature: feature.key, dimension: d.name)
                }
                do {
                    let (dimShapes, dimFree) = try FeatureCostProfile.shapes(
                        for: d, feature: feature.key, sheet: sheet, meter: meter, factor: factor)
                    shapes.append(contentsOf: dimShapes)
                    if let dimFree { free.append(dimFree) }
                } catch let e as WorstCaseError {
                    throw e
                } catch {
                    throw .overflow(feature: feature.key, dimension: d.name)
                }
            }
        }
        self.shapes = shapes.sorted {
            ($0.credits, $0.cost.amount, $0.dimension) < ($1.credits, $1.cost.amount, $1.dimension)
        }
        self.freeUsage = free
        self.noRunningCost = none
    }

    static func shapes(
        for d: Dimension, feature: String, sheet: ProviderSheet, meter: Meter, factor: Exact
    ) throws -> ([RequestShape], RequestShape?) {
        let variant = meter.worstVariant
        let period = sheet.schedule?.worstPeriod
        // Price per provider unit at the worst variant and period.
        var unitPrice = try variant.price.divided(by: meter.per)
        if let period { unitPrice = try unitPrice.multiplied(by: period.multiplier) }
        // provider units per card interval
        let interval = try Exact(integer: d.per).multiplied(by: factor)

        func shape(quantity: Int128, intervals: Int128) throws -> RequestShape {
            let billed = try meter.billedUnits(Exact(integer: quantity).multiplied(by: factor))
            let credits = try Exact.multiply(intervals, d.credits)
            return RequestShape(
                feature: feature, dimension: d.name, quantity: quantity, unit: d.unit,
                credits: credits,
                billedUnits: billed, providerUnit: meter.unit,
                cost: Money(try billed.multiplied(by: unitPrice), sheet.currency),
                meter: "\(sheet.id)/\(meter.key)", variant: variant.name, period: period?.name
            )
        }

        // P: intervals after which interval × P is a whole number of provider increments.
        var periodLength: Int128 = 1
        if let inc = meter.increment {
            periodLength = try interval.divided(by: inc).denominator
        }
        var first: Int128 = 0
        if let minimum = meter.minimum, minimum.isPositive {
            first = try minimum.divided(by: interval).rounded(.up)
        }
        let (limit, o) = first.addingReportingOverflow(periodLength + 1)
        guard !o, limit <= maxIntervals else {
            throw WorstCaseError.searchTooLarge(
                feature: feature, dimension: d.name, intervals: o ? .max : limit)
        }

        var out: [RequestShape] = []
        var free: RequestShape?
        switch d.rounding {
        case .up, .exact:
            for k in Int128(1)...limit {
                out.append(try shape(quantity: try Exact.multiply(k, d.per), intervals: k))
            }
        case .down:
            if d.per > 1 {
                let s = try shape(quantity: d.per - 1, intervals: 0)
                if s.cost.amount.isPositive { free = s }
            }
            for k in Int128(1)...limit {
                let q = try Exact.multiply(k + 1, d.per) - 1
                out.append(try shape(quantity: q, intervals: k))
            }
        }
        if d.credits <= 0 {
            // A free or negative price: every request costs money and earns nothing.
            if let s = out.first(where: { $0.cost.amount.isPositive }) { free = free ?? s }
            out = []
        }
        return (out, free)
    }
}

/// Why a worst case could not be computed.
enum WorstCaseError: Error, Sendable, Hashable, CustomStringConvertible {
    case unboundMeter(feature: String, dimension: String)
    case overflow(feature: String, dimension: String)
    case searchTooLarge(feature: String, dimension: String, intervals: Int128)
    case packTooLarge(pack: String, searchSize: Int128)
    case arithmetic(String)
    case fx(MoneyError)
    /// Requests charged no credits that cost the provider money (every such dimension of
    /// the card): no finite worst case.
    case unbounded([RequestShape])

    var description: String {
        switch self {
        case .unboundMeter(let f, let d):
            "feature \(f), dimension \(d): its provider meter is not loaded"
        case .overflow(let f, let d):
            "feature \(f), dimension \(d): a request's cost is too large to compute exactly"
        case .searchTooLarge(let f, let d, let n):
            "feature \(f), dimension \(d): the card's interval and the provider's increment only line up after \(n) intervals, beyond the \(FeatureCostProfile.maxIntervals) the engine searches"
        case .packTooLarge(let p, let n):
            "pack \(p): the exact search would need \(n) steps; simplify the card's intervals"
        case .arithmetic(let s): s
        case .fx(let e): e.description
        case .unbounded(let shapes): shapes.map(\.freeUsageMessage).joined(separator: "; ")
        }
    }
}

extension Dimension {
    /// True when a provider bills the dimension: whether charging it nothing is free usage
    /// depends on the meter's price.
    var isProviderBilled: Bool {
        if case .provider = cost { return true }
        return false
    }
}
