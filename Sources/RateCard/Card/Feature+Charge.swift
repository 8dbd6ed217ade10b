/// What the card charges for a request.
extension Dimension {
    /// Credits charged for `quantity` units of this dimension. A zero quantity costs nothing.
    ///
    /// Throws when the quantity is negative, or not a whole number of intervals under
    /// `exact` rounding, or too large to compute.
    func credits(for quantity: Exact) throws(ChargeError) -> Int128 {
        guard !quantity.isNegative else { throw .negativeQuantity(dimension: name) }
        if quantity.isZero { return 0 }
        if let whole = quantity.integerValue {
            return try Dimension.credits(
                whole: whole, credits: credits, per: per, rounding: rounding, name: name)
        }
        do {
            let intervals = try quantity.divided(by: Exact(integer: per))
            let whole: Int128
            switch rounding {
            case .up: whole = try intervals.rounded(.up)
            case .down: whole = try intervals.rounded(.down)
            case .exact:
                guard let i = intervals.integerValue else {
                    throw ChargeError.notWholeIntervals(dimension: name, per: per)
                }
                whole = i
            }
            return try Exact.multiply(whole, credits)
        } catch let e as ChargeError {
            throw e
        } catch {
            throw .overflow(dimension: name)
        }
    }
}

extension Dimension {
    /// Credits charged for a whole, non-negative number of units: `credits` per `per`
    /// units, a part interval rounded by `rounding`. The integer core of
    /// `credits(for:)`, which the charge audit calls with a feature's precomputed terms.
    @inline(__always)
    static func credits(
        whole quantity: Int128, credits: Int128, per: Int128, rounding: ChargeRounding,
        name: @autoclosure () -> String
    ) throws(ChargeError) -> Int128 {
        guard quantity >= 0 else { throw .negativeQuantity(dimension: name()) }
        guard per > 0 else { throw .overflow(dimension: name()) }
        let (q, r) = quantity.quotientAndRemainder(dividingBy: per)
        let intervals: Int128
        switch rounding {
        case .up: intervals = r == 0 ? q : q + 1
        case .down: intervals = q
        case .exact:
            guard r == 0 else { throw .notWholeIntervals(dimension: name(), per: per) }
            intervals = q
        }
        let (c, o) = intervals.multipliedReportingOverflow(by: credits)
        guard !o else { throw .overflow(dimension: name()) }
        return c
    }
}

extension Feature {
    /// Credits charged for a request with these quantities (dimension name → units);
    /// dimensions are rounded separately and summed. Unknown dimensions are an error.
    func credits(for quantities: [String: Exact]) throws(ChargeError) -> Int128 {
        for key in quantities.keys where !dimensions.contains(where: { $0.name == key }) {
            throw .unknownDimension(feature: self.key, dimension: key)
        }
        return try credits { quantities[dimensions[$0].name] }
    }

    /// Credits charged when dimension number `k` was used `quantity(k)` units (nil:
    /// none): each dimension rounded separately, then summed. The charge audit reads
    /// quantities straight from a scanned line through this, without a dictionary.
    @inline(__always)
    func credits(_ quantity: (Int) -> Exact?) throws(ChargeError) -> Int128 {
        var total: Int128 = 0
        for (k, d) in dimensions.enumerated() {
            let c = try d.credits(for: quantity(k) ?? .zero)
            let (s, o) = total.addingReportingOverflow(c)
            guard !o else { throw .overflow(dimension: d.name) }
            total = s
        }
        return total
    }
}

/// Why a charge could not be computed.
enum ChargeError: Error, Sendable, Hashable, CustomStringConvertible {
    case negativeQuantity(dimension: String)
    case notWholeIntervals(dimension: String, per: Int128)
    case unknownDimension(feature: String, dimension: String)
    case overflow(dimension: String)

    var description: String {
        switch self {
        case .negativeQuantity(let d): "quantity of \(d) is negative"
        case .notWholeIntervals(let d, let per):
            "quantity of \(d) must be a whole multiple of \(per) (the card charges it exactly)"
        case .unknownDimension(let f, let d): "feature \(f) has no dimension \"\(d)\""
        case .overflow(let d): "the charge for \(d) is too large to compute exactly"
        }
    }
}
