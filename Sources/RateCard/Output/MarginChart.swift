/// A chart of what each pack's sale price pays for: the App Store's commission, the
/// worst-case provider cost, and the margin left (or the loss, when cost overruns the price).
///
/// The chart holds figures only; `svg()` draws it. One panel per currency, each with its
/// own axis, so amounts in different currencies never share a scale. Within a panel, bars
/// are grouped (typically one group per pack, one bar per commission rate).
///
/// Every figure is an exact amount in the panel's currency. Drawing rounds only at the
/// edge: money labels half-even to the currency's minor units, pixel positions half-even
/// to a tenth of a pixel.
struct MarginChart: Sendable, Hashable {
    /// The headline, e.g. "V10 (osg) · worst-case margin per pack".
    let title: String
    /// A second line under the title: the FX rates and sheets the figures came from.
    let subtitle: String?
    /// One panel per currency, drawn top to bottom in this order.
    let panels: [Panel]

    init(title: String, subtitle: String? = nil, panels: [Panel]) {
        self.title = title
        self.subtitle = subtitle
        self.panels = panels
    }

    /// The bars of one currency, drawn against their own axis.
    struct Panel: Sendable, Hashable {
        let currency: Currency
        let groups: [Group]

    }

    /// Bars drawn together under one label, typically a pack at each commission rate.
    struct Group: Sendable, Hashable {
        /// The pack, e.g. "3000tks".
        let label: String
        let bars: [Bar]

    }

    /// One sale price split into commission, worst-case cost and margin.
    ///
    /// `margin` is `price − commission − cost`, computed exactly here so that the three
    /// segments always add up to the price; it is negative for a loss.
    struct Bar: Sendable, Hashable {
        /// What distinguishes this bar within its group, e.g. "30%".
        let label: String
        let price: Exact
        let commission: Exact
        let cost: Exact
        let margin: Exact

        /// Throws `.negativeFigure` when a price, commission or cost is below zero, and
        /// `.arithmetic` when the margin cannot be computed exactly.
        init(label: String, price: Exact, commission: Exact, cost: Exact)
            throws(MarginChartError)
        {
            for (name, value) in [("price", price), ("commission", commission), ("cost", cost)]
            where value.isNegative {
                throw .negativeFigure(bar: label, field: name, value: value)
            }
            self.label = label
            self.price = price
            self.commission = commission
            self.cost = cost
            do {
                margin = try price.subtracting(commission).subtracting(cost)
            } catch {
                throw .arithmetic(error)
            }
        }
    }
}

/// Why a margin chart could not be built or drawn.
enum MarginChartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A bar was given a figure below zero; a chart of parts of a price cannot show it.
    case negativeFigure(bar: String, field: String, value: Exact)
    case arithmetic(ArithmeticError)

    var description: String {
        switch self {
        case .negativeFigure(let bar, let field, let value):
            "chart bar '\(bar)': \(field) \(value.decimalText()) is negative"
        case .arithmetic(let error):
            "cannot draw the margin chart: \(error)"
        }
    }
}
