/// An exact rational number: a numerator over a positive denominator, both `Int128`.
///
/// Every price, cost, credit amount and margin in `margin` is an `Exact`. It never rounds:
/// each operation either gives the exact result or throws `ArithmeticError.overflow`.
/// Rounding happens only when a value is shown, through `rounded(scale:rule:)`.
///
/// The value is always in lowest terms, so equal values have equal representations and
/// `Hashable` agrees with `==`.
struct Exact: Sendable, Hashable {
    /// The numerator, carrying the sign.
    let numerator: Int128
    /// The denominator, always positive.
    let denominator: Int128

    static let zero = Exact(integer: 0)
    static let one = Exact(integer: 1)

    /// A whole number.
    init(integer: Int128) {
        numerator = integer
        denominator = 1
    }

    /// A whole number.
    init(_ integer: Int) {
        self.init(integer: Int128(integer))
    }

    /// A whole number of percent (`percent / 100` in lowest terms), which cannot fail.
    init(percent: UInt8) {
        let g = Int128(Exact.gcd(UInt128(percent), 100))
        numerator = Int128(percent) / g
        denominator = 100 / g
    }

    /// `numerator / denominator` in lowest terms.
    ///
    /// Throws `.divisionByZero` for a zero denominator and `.overflow` when the value cannot
    /// be represented (the only case is `Int128.min` that cannot be negated).
    init(_ numerator: Int128, over denominator: Int128) throws(ArithmeticError) {
        guard denominator != 0 else { throw .divisionByZero }
        guard numerator != .min, denominator != .min else { throw .overflow }
        var n = numerator
        var d = denominator
        if d < 0 {
            n = -n
            d = -d
        }
        let g = Exact.gcd(n.magnitude, d.magnitude)
        if g > 1 {
            n /= Int128(g)
            d /= Int128(g)
        }
        self.numerator = n
        self.denominator = d
    }

    /// Assumes the pair is already reduced and the denominator positive.
    init(reduced numerator: Int128, _ denominator: Int128) {
        self.numerator = numerator
        self.denominator = denominator
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var a = a
        var b = b
        while b != 0 {
            (a, b) = (b, a % b)
        }
        return a
    }

    var isZero: Bool { numerator == 0 }
    var isNegative: Bool { numerator < 0 }
    var isPositive: Bool { numerator > 0 }
    var isInteger: Bool { denominator == 1 }

    /// The whole value when the number is an integer.
    var integerValue: Int128? { denominator == 1 ? numerator : nil }

    func negated() throws(ArithmeticError) -> Exact {
        guard numerator != .min else { throw .overflow }
        return Exact(reduced: -numerator, denominator)
    }

    func adding(_ other: Exact) throws(ArithmeticError) -> Exact {
        if denominator == other.denominator {
            let (sum, o) = numerator.addingReportingOverflow(other.numerator)
            guard !o else { throw .overflow }
            return try Exact(sum, over: denominator)
        }
        let g = Int128(Exact.gcd(denominator.magnitude, other.denominator.magnitude))
        let left = try Exact.multiply(numerator, other.denominator / g)
        let right = try Exact.multiply(other.numerator, denominator / g)
        let (sum, o) = left.addingReportingOverflow(right)
        guard !o else { throw .overflow }
        let den = try Exact.multiply(denominator / g, other.denominator)
        return try Exact(sum, over: den)
    }

    func subtracting(_ other: Exact) throws(ArithmeticError) -> Exact {
        try adding(other.negated())
    }

    func multiplied(by other: Exact) throws(ArithmeticError) -> Exact {
        // Cross-reduce first so that products stay as small as they can.
        let g1 = Int128(Exact.gcd(numerator.magnitude, other.denominator.magnitude))
        let g2 = Int128(Exact.gcd(other.numerator.magnitude, denominator.magnitude))
        let a = g1 > 1 ? g1 : 1
        let b = g2 > 1 ? g2 : 1
        let n = try Exact.multiply(numerator / a, other.numerator / b)
        let d = try Exact.multiply(denominator / b, other.denominator / a)
        return try Exact(n, over: d)
    }

    func multiplied(by integer: Int128) throws(ArithmeticError) -> Exact {
        try multiplied(by: Exact(integer: integer))
    }

    func divided(by other: Exact) throws(ArithmeticError) -> Exact {
        guard !other.isZero else { throw .divisionByZero }
        let reciprocal = try Exact(other.denominator, over: other.numerator)
        return try multiplied(by: reciprocal)
    }

    static func multiply(_ a: Int128, _ b: Int128) throws(ArithmeticError) -> Int128 {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        guard !o else { throw .overflow }
        return p
    }

    /// The integer nearest to this value by `rule`.
    func rounded(_ rule: RoundingRule) throws(ArithmeticError) -> Int128 {
        let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
        // Swift truncates toward zero: q * d + r == n, with r carrying n's sign.
        if r == 0 { return q }
        let positive = numerator > 0
        let twice = r.magnitude * 2
        let half: Int  // -1 below half, 0 exactly half, 1 above half
        if twice < denominator.magnitude {
            half = -1
        } else if twice == denominator.magnitude {
            half = 0
        } else {
            half = 1
        }
        let awayFromZero: Bool
        switch rule {
        case .towardZero: awayFromZero = false
        case .awayFromZero: awayFromZero = true
        case .up: awayFromZero = positive
        case .down: awayFromZero = !positive
        case .halfUp: awayFromZero = half >= 0
        case .halfDown: awayFromZero = half > 0
        case .halfEven: awayFromZero = half > 0 || (half == 0 && q % 2 != 0)
        }
        guard awayFromZero else { return q }
        let (v, o) = q.addingReportingOverflow(positive ? 1 : -1)
        guard !o else { throw .overflow }
        return v
    }

    /// This value rounded to `scale` decimal places by `rule`, as an integer count of
    /// `10^-scale` steps.
    func scaled(_ scale: Int, rule: RoundingRule) throws(ArithmeticError) -> Int128 {
        try multiplied(by: Exact.powerOfTen(scale)).rounded(rule)
    }

    /// The number of decimal places the value needs when its expansion terminates, or nil.
    var terminatingScale: Int? {
        var d = denominator
        var twos = 0
        var fives = 0
        while d % 2 == 0 {
            d /= 2
            twos += 1
        }
        while d % 5 == 0 {
            d /= 5
            fives += 1
        }
        return d == 1 ? max(twos, fives) : nil
    }

    static func powerOfTen(_ n: Int) throws(ArithmeticError) -> Int128 {
        guard n >= 0, n <= 38 else { throw .overflow }
        var p: Int128 = 1
        for _ in 0..<n { p *= 10 }
        return p
    }
}

extension Exact: Comparable {
    static func < (lhs: Exact, rhs: Exact) -> Bool {
        if lhs.denominator == rhs.denominator { return lhs.numerator < rhs.numerator }
        // Compare a*d with c*b in full width so that comparison can never overflow.
        let left = lhs.numerator.multipliedFullWidth(by: rhs.denominator)
        let right = rhs.numerator.multipliedFullWidth(by: lhs.denominator)
        if left.high != right.high { return left.high < right.high }
        return left.low < right.low
    }
}

/// Why an exact computation could not give a result.
enum ArithmeticError: Error, Sendable, Hashable {
    /// A result needs more than 128 bits in its numerator or denominator.
    case overflow
    case divisionByZero
}

extension ArithmeticError: CustomStringConvertible {
    var description: String {
        switch self {
        case .overflow:
            "the result is too large to compute exactly (beyond 128-bit numerator or denominator)"
        case .divisionByZero: "division by zero"
        }
    }
}

/// How a value that falls between two representable ones is rounded.
///
/// The names follow the usual financial meanings: `up` is toward positive infinity
/// (ceiling), `down` toward negative infinity (floor).
enum RoundingRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Toward positive infinity (ceiling): a started interval counts whole.
    case up
    /// Toward negative infinity (floor).
    case down
    case towardZero
    case awayFromZero
    /// To nearest; a tie goes away from zero.
    case halfUp
    /// To nearest; a tie goes toward zero.
    case halfDown
    /// To nearest; a tie goes to the even neighbour (banker's rounding).
    case halfEven

    /// The name shown in reports, e.g. "half-even".
    var displayName: String {
        switch self {
        case .up: "up (ceiling)"
        case .down: "down (floor)"
        case .towardZero: "toward zero"
        case .awayFromZero: "away from zero"
        case .halfUp: "half-up"
        case .halfDown: "half-down"
        case .halfEven: "half-even"
        }
    }
}
