/// A linear money axis from zero to a round maximum, mapped onto a plot width in tenths of
/// a pixel.
///
/// Ticks are whole multiples of a "nice" step (1, 2 or 5 × 10ⁿ, never finer than the
/// currency's minor unit), so the labels read 0, 5, 10 … or 0.0, 0.5, 1.0 … Positions are
/// exact until the last step, where they are rounded by `ChartAxis.pixelRounding`.
struct ChartAxis: Sendable, Hashable {
    /// Distance between ticks, in the currency.
    let step: Exact
    /// The right end of the axis: a whole number of steps, at least the largest figure.
    let maximum: Exact
    /// The plot width in tenths of a pixel.
    let width: Int

    /// How exact positions become tenths of a pixel.
    static let pixelRounding: RoundingRule = .halfEven

    /// An axis that fits `largest` with about `targetTicks` intervals.
    init(fitting largest: Exact, minorUnits: Int, width: Int, targetTicks: Int = 6)
        throws(ArithmeticError)
    {
        let raw = try largest.divided(by: Exact(targetTicks))
        var chosen: Exact?
        search: for exponent in -minorUnits...36 {
            for mantissa in [1, 2, 5] {
                let candidate =
                    exponent < 0
                    ? try Exact(Int128(mantissa), over: Exact.powerOfTen(-exponent))
                    : try Exact(integer: Int128(mantissa)).multiplied(
                        by: Exact.powerOfTen(exponent))
                if candidate >= raw {
                    chosen = candidate
                    break search
                }
            }
        }
        guard let step = chosen else { throw .overflow }
        var steps = try largest.divided(by: step).rounded(.up)
        if steps < 1 { steps = 1 }
        self.step = step
        self.maximum = try step.multiplied(by: steps)
        self.width = width
    }

    /// Tenths of a pixel per unit of the currency.
    var scale: Exact {
        get throws(ArithmeticError) { try Exact(width).divided(by: maximum) }
    }

    /// The distance of `value` from the axis origin, in tenths of a pixel.
    func offset(_ value: Exact) throws(ArithmeticError) -> Int {
        Int(try value.multiplied(by: scale).rounded(ChartAxis.pixelRounding))
    }

    /// Every tick from zero to `maximum`, with its label (as many decimals as the step
    /// needs: "0.5" steps give "1.0", never "1").
    func ticks() throws(ArithmeticError) -> [(value: Exact, label: String)] {
        let count = try maximum.divided(by: step).rounded(.towardZero)
        let decimals = step.terminatingScale ?? 0
        var result: [(value: Exact, label: String)] = []
        for index in 0...count {
            let value = try step.multiplied(by: index)
            result.append((value, try value.formatted(scale: decimals, rule: .halfEven)))
        }
        return result
    }
}
