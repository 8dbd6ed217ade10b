/// One exact figure of a diff, old → new, with its change computed once, in the model:
/// the difference and the relative change that every renderer of `CardDiff` shows.
///
/// A figure that cannot be computed exactly (beyond 128 bits) is an error when the diff is
/// built; a ratio that has no meaning (the old value is zero, or the two sides are in
/// different units) is the explicit `.notApplicable`, never an empty string decided by a
/// renderer.
struct ValueChange: Sendable, Hashable {
    let old: Exact?
    let new: Exact?
    /// new − old, when both sides exist.
    let difference: Exact?
    let relative: Relative

    enum Relative: Sendable, Hashable {
        /// A side is missing, or the figure is not one a ratio is taken of (a count of
        /// credits per unit step, a share): no relative change.
        case none
        /// Both sides exist but new ÷ old has no meaning: the old value is zero, or the two
        /// sides are not in the same unit.
        case notApplicable
        /// new ÷ old − 1.
        case ratio(Exact)

        /// The ratio, when there is one.
        var ratio: Exact? {
            if case .ratio(let r) = self { return r }
            return nil
        }
    }

    /// `old` → `new`; `relative`: whether the figure has a relative change at all;
    /// `comparable`: whether the two sides are in one unit (else `.notApplicable`).
    init(_ old: Exact?, _ new: Exact?, relative: Bool = true, comparable: Bool = true)
        throws(ArithmeticError)
    {
        self.old = old
        self.new = new
        guard let old, let new else {
            difference = nil
            self.relative = .none
            return
        }
        difference = try new.subtracting(old)
        if !relative {
            self.relative = .none
        } else if !comparable || old.isZero {
            self.relative = .notApplicable
        } else {
            self.relative = .ratio(try new.divided(by: old).subtracting(.one))
        }
    }

    /// Whole numbers (credits), old → new.
    init(counts old: Int128?, _ new: Int128?, relative: Bool = true) throws(ArithmeticError) {
        try self.init(
            old.map { Exact(integer: $0) }, new.map { Exact(integer: $0) }, relative: relative)
    }

    /// Money amounts, old → new (the amounts alone: the caller pairs them by currency).
    init(amounts old: Money?, _ new: Money?) throws(ArithmeticError) {
        try self.init(old?.amount, new?.amount)
    }
}
