extension MarginChart {
    /// The chart as a standalone SVG document (UTF-8 text, no external resources).
    ///
    /// The output depends only on the chart's figures and labels: the same chart gives
    /// byte-identical text. Segment lengths are proportional to the figures: each edge is
    /// the exact position rounded half-even to 0.1 px, so a segment's width is within
    /// 0.1 px of its exact length. Money labels are rounded half-even to the currency's
    /// minor units.
    func svg() throws(MarginChartError) -> String {
        var drawing = MarginChartDrawing()
        do {
            try drawing.draw(self)
        } catch {
            throw .arithmetic(error)
        }
        return drawing.document(title: title, subtitle: subtitle)
    }
}

/// Builds the SVG text of a `MarginChart`, top to bottom, tracking the vertical cursor.
///
/// Geometry is integer: layout constants in whole pixels, bar edges in tenths of a pixel.
struct MarginChartDrawing {
    // Layout, in pixels.
    static let width = 960
    static let sideMargin = 24
    static let plotLeft = 210
    static let plotRight = 770
    static let barHeight = 22
    static let barGap = 6
    static let groupGap = 18

    /// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. The
    /// loss is also hatched, so it never relies on colour alone.
    enum Palette {
        static let commission = "#C9C9C9"
        static let cost = "#0072B2"
        static let margin = "#009E73"
        static let loss = "#D55E00"
        static let lossText = "#A63C00"
        static let ink = "#1A1A1A"
        static let muted = "#5C5C5C"
        static let grid = "#E6E6E6"
        static let axis = "#8A8A8A"
    }

    static let fontFamily =
        "'Helvetica Neue', Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"
    static let moneyRounding: RoundingRule = .halfEven

    private(set) var body: [String] = []
    private(set) var height = 0
    private var y = 0

    mutating func draw(_ chart: MarginChart) throws(ArithmeticError) {
        y = 40
        text(chart.title, x: Self.sideMargin, y: y, size: 20, weight: "bold")
        if let subtitle = chart.subtitle {
            y += 24
            text(subtitle, x: Self.sideMargin, y: y, size: 13, fill: Palette.muted)
        }
        let hasBars = chart.panels.contains { !$0.groups.allSatisfy(\.bars.isEmpty) }
        if hasBars {
            y += 30
            legend()
        }
        if chart.panels.isEmpty {
            y += 34
            text(
                "No packs on this card: nothing to chart.", x: Self.sideMargin, y: y, size: 14,
                fill: Palette.muted)
        }
        for panel in chart.panels {
            y += 36
            try draw(panel)
        }
        height = y + 24
    }

    // MARK: Legend

    private mutating func legend() {
        var x = Self.sideMargin
        let items: [(fill: String, label: String)] = [
            (Palette.commission, "App Store commission"),
            (Palette.cost, "Worst-case provider cost"),
            (Palette.margin, "Margin left"),
            ("url(#loss-hatch)", "Loss: cost beyond the price"),
        ]
        for item in items {
            body.append(
                #"<rect x="\#(x)" y="\#(y - 11)" width="14" height="14" fill="\#(item.fill)"/>"#)
            text(item.label, x: x + 20, y: y, size: 13)
            x += 20 + Self.textWidth(item.label, size: 13, emPercent: 55) + 26
        }
        body.append(
            #"<line x1="\#(x + 7)" y1="\#(y - 13)" x2="\#(x + 7)" y2="\#(y + 5)" stroke="\#(Palette.ink)" stroke-width="2"/>"#
        )
        text("Sale price", x: x + 20, y: y, size: 13)
    }

    // MARK: Panels

    private mutating func draw(_ panel: MarginChart.Panel) throws(ArithmeticError) {
        let currency = panel.currency
        text(currency.code, x: Self.sideMargin, y: y, size: 16, weight: "bold")
        let bars = panel.groups.flatMap(\.bars)
        guard !bars.isEmpty else {
            y += 24
            text(
                "No packs are priced in \(currency.code).", x: Self.sideMargin, y: y, size: 13,
                fill: Palette.muted)
            return
        }
        var largest = Exact.zero
        for bar in bars {
            largest = max(largest, bar.price, try bar.commission.adding(bar.cost))
        }
        let axis = try ChartAxis(
            fitting: largest, minorUnits: currency.minorUnits,
            width: (Self.plotRight - Self.plotLeft) * 10)
        let ticks = try axis.ticks()

        let top = y + 18
        var rows: [(group: MarginChart.Group, tops: [Int])] = []
        var cursor = top
        for group in panel.groups where !group.bars.isEmpty {
            var tops: [Int] = []
            for _ in group.bars {
                tops.append(cursor)
                cursor += Self.barHeight + Self.barGap
            }
            rows.append((group, tops))
            cursor += Self.groupGap - Self.barGap
        }
        let bottom = cursor - Self.groupGap + 6

        // Grid first, so that bars are drawn over it.
        for tick in ticks {
            let x = try Self.plotLeft * 10 + axis.offset(tick.value)
            let stroke = tick.value.isZero ? Palette.axis : Palette.grid
            body.append(
                #"<line x1="\#(Self.px(x))" y1="\#(top - 6)" x2="\#(Self.px(x))" y2="\#(bottom)" stroke="\#(stroke)" stroke-width="1"/>"#
            )
        }
        for row in rows {
            try draw(row.group, tops: row.tops, axis: axis, currency: currency)
        }
        body.append(
            #"<line x1="\#(Self.plotLeft)" y1="\#(bottom)" x2="\#(Self.plotRight)" y2="\#(bottom)" stroke="\#(Palette.axis)" stroke-width="1"/>"#
        )
        for tick in ticks {
            let x = try Self.plotLeft * 10 + axis.offset(tick.value)
            body.append(
                #"<line x1="\#(Self.px(x))" y1="\#(bottom)" x2="\#(Self.px(x))" y2="\#(bottom + 5)" stroke="\#(Palette.axis)" stroke-width="1"/>"#
            )
            text(
                tick.label, tenthsX: x, y: bottom + 19, size: 11, fill: Palette.muted,
                anchor: "middle")
        }
        text(
            "\(currency.code) · labels rounded half-even to \(Self.minorUnitText(currency))",
            tenthsX: (Self.plotLeft + Self.plotRight) * 5, y: bottom + 37, size: 11,
            fill: Palette.muted, anchor: "middle")
        y = bottom + 37
    }

    private mutating func draw(
        _ group: MarginChart.Group, tops: [Int], axis: ChartAxis, currency: Currency
    ) throws(ArithmeticError) {
        let middle = (tops[0] + tops[tops.count - 1] + Self.barHeight) / 2
        // The left column holds the group label, then the bar labels right-aligned against
        // the plot; long labels are shortened (in full in each bar's <title>).
        let barLabelWidth =
            group.bars.map { Self.textWidth(Self.barLabel($0), size: 12) }.max() ?? 0
        let label = Self.fitted(
            group.label, width: Self.plotLeft - 10 - Self.sideMargin - barLabelWidth - 12, size: 14)
        let prices = Set(group.bars.map(\.price))
        if prices.count == 1, let price = prices.first {
            text(label, x: Self.sideMargin, y: middle - 2, size: 14, weight: "bold")
            text(
                "\(currency.code) \(try Self.money(price, currency))", x: Self.sideMargin,
                y: middle + 14, size: 12, fill: Palette.muted)
        } else {
            text(label, x: Self.sideMargin, y: middle + 5, size: 14, weight: "bold")
        }
        for (bar, top) in zip(group.bars, tops) {
            try draw(bar, group: group.label, top: top, axis: axis, currency: currency)
        }
    }

    private mutating func draw(
        _ bar: MarginChart.Bar, group: String, top: Int, axis: ChartAxis, currency: Currency
    ) throws(ArithmeticError) {
        let origin = Self.plotLeft * 10
        let commissionEnd = try axis.offset(bar.commission)
        let costEnd = try axis.offset(bar.commission.adding(bar.cost))
        let priceEnd = try axis.offset(bar.price)
        let baseline = top + Self.barHeight / 2 + 4
        let code = currency.code

        let percent =
            bar.price.isZero
            ? nil
            : try Self.signed(bar.margin.divided(by: bar.price).multiplied(by: 100), scale: 1) + "%"
        var summary =
            "\(group) at \(bar.label): price \(code) \(try Self.money(bar.price, currency)), "
            + "commission \(code) \(try Self.money(bar.commission, currency)), "
            + "worst-case cost \(code) \(try Self.money(bar.cost, currency)), "
            + (bar.margin.isNegative ? "loss" : "margin")
            + " \(code) \(try Self.money(bar.margin.isNegative ? bar.margin.negated() : bar.margin, currency))"
        if let percent { summary += " (\(percent) of price)" }
        body.append("<g>")
        body.append("<title>\(Self.escape(summary))</title>")
        text(
            Self.barLabel(bar), x: Self.plotLeft - 10, y: baseline, size: 12, fill: Palette.ink,
            anchor: "end")

        try segment(
            "commission", value: bar.commission, from: 0, to: commissionEnd, top: top,
            fill: Palette.commission, labelFill: Palette.ink, currency: currency)
        try segment(
            "cost", value: bar.cost, from: commissionEnd, to: costEnd, top: top, fill: Palette.cost,
            labelFill: "#FFFFFF", currency: currency, visibleTo: min(costEnd, priceEnd))
        var marginLabelShown = false
        if bar.margin.isPositive {
            marginLabelShown = try segment(
                "margin", value: bar.margin, from: costEnd, to: priceEnd, top: top,
                fill: Palette.margin, labelFill: Palette.ink, currency: currency)
        } else if bar.margin.isNegative {
            let loss = try bar.margin.negated()
            body.append(
                #"<rect class="loss" data-value="\#(loss.decimalText())" x="\#(Self.px(origin + priceEnd))" y="\#(top)" width="\#(Self.px(costEnd - priceEnd))" height="\#(Self.barHeight)" fill="url(#loss-hatch)"/>"#
            )
        }
        let priceX = Self.px(origin + priceEnd)
        body.append(
            #"<line class="price" x1="\#(priceX)" y1="\#(top - 4)" x2="\#(priceX)" y2="\#(top + Self.barHeight + 4)" stroke="\#(Palette.ink)" stroke-width="2"/>"#
        )

        let endX = origin + max(priceEnd, costEnd) + 80
        if bar.margin.isNegative {
            let loss = try Self.money(bar.margin.negated(), currency)
            let note = "loss \(loss)" + (percent.map { " (\($0))" } ?? "")
            text(note, tenthsX: endX, y: baseline, size: 12, fill: Palette.lossText, weight: "bold")
        } else {
            let amount = try Self.money(bar.margin, currency)
            let note =
                switch (marginLabelShown, percent) {
                case (true, let percent?): "\(percent) margin"
                case (false, let percent?): "margin \(amount) (\(percent))"
                case (_, nil): "margin \(amount)"
                }
            text(note, tenthsX: endX, y: baseline, size: 12, fill: Palette.ink)
        }
        body.append("</g>")
    }

    /// Draws one segment from `from` to `to` (tenths of a pixel from the axis origin) and its
    /// value inside it when the label fits in the visible part; returns whether it did.
    @discardableResult
    private mutating func segment(
        _ kind: String, value: Exact, from: Int, to: Int, top: Int, fill: String, labelFill: String,
        currency: Currency, visibleTo: Int? = nil
    ) throws(ArithmeticError) -> Bool {
        guard to > from else { return false }
        let origin = Self.plotLeft * 10
        body.append(
            #"<rect class="\#(kind)" data-value="\#(value.decimalText())" x="\#(Self.px(origin + from))" y="\#(top)" width="\#(Self.px(to - from))" height="\#(Self.barHeight)" fill="\#(fill)"/>"#
        )
        let label = try Self.money(value, currency)
        let visible = (visibleTo ?? to) - from
        guard Self.textWidth(label, size: 12) * 10 + 100 <= visible else { return false }
        text(
            label, tenthsX: origin + from + visible / 2, y: top + Self.barHeight / 2 + 4, size: 12,
            fill: labelFill, anchor: "middle")
        return true
    }

    // MARK: Document

    /// The complete SVG document around the drawn body.
    func document(title: String, subtitle: String?) -> String {
        Self.document(
            width: Self.width, height: height, title: title,
            description: Self.description(subtitle: subtitle), body: body)
    }

    /// An SVG document: the header, the title (and description), the loss hatch pattern, a
    /// white background, then `body`.
    static func document(
        width w: Int, height: Int, title: String, description: String?, body: [String]
    ) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(w)" height="\#(height)" viewBox="0 0 \#(w) \#(height)" font-family="\#(Self.fontFamily)" role="img" aria-labelledby="chart-title\#(description == nil ? "" : " chart-desc")">"#,
            #"<title id="chart-title">\#(Self.escape(title))</title>"#,
        ]
        if let description {
            lines.append(#"<desc id="chart-desc">\#(Self.escape(description))</desc>"#)
        }
        lines += [
            "<defs>",
            #"<pattern id="loss-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
            #"<rect width="6" height="6" fill="\#(Palette.loss)"/>"#,
            ##"<rect width="2" height="6" fill="#FFFFFF" fill-opacity="0.45"/>"##,
            "</pattern>",
            "</defs>",
            ##"<rect width="100%" height="100%" fill="#FFFFFF"/>"##,
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func description(subtitle: String?) -> String {
        var text =
            "Each bar is a sale price split into App Store commission, worst-case provider cost and the margin left; cost beyond the price line is a loss. One panel and axis per currency."
        if let subtitle { text += " " + subtitle }
        return text
    }

    // MARK: Text

    private mutating func text(
        _ string: String, x: Int, y: Int, size: Int, fill: String = Palette.ink,
        weight: String? = nil, anchor: String? = nil
    ) {
        text(string, tenthsX: x * 10, y: y, size: size, fill: fill, weight: weight, anchor: anchor)
    }

    private mutating func text(
        _ string: String, tenthsX: Int, y: Int, size: Int, fill: String = Palette.ink,
        weight: String? = nil, anchor: String? = nil
    ) {
        var attributes = #"x="\#(Self.px(tenthsX))" y="\#(y)" font-size="\#(size)" fill="\#(fill)""#
        if let weight { attributes += #" font-weight="\#(weight)""# }
        if let anchor { attributes += #" text-anchor="\#(anchor)""# }
        body.append("<text \(attributes)>\(Self.escape(string))</text>")
    }

    /// A width estimate in pixels (no font metrics without a dependency). The default,
    /// 0.62 em per character, is conservative for digits and lower case in the listed
    /// fonts, so a label judged to fit does fit; spacing uses a closer average.
    static func textWidth(_ string: String, size: Int, emPercent: Int = 62) -> Int {
        (string.count * size * emPercent + 99) / 100
    }

    /// A bar's label as drawn: at most a third of the left column.
    static func barLabel(_ bar: MarginChart.Bar) -> String {
        fitted(bar.label, width: (plotLeft - 10 - sideMargin) / 3 + 10, size: 12)
    }

    /// `string` shortened with "…" to fit `width` pixels at `size`.
    static func fitted(_ string: String, width: Int, size: Int, emPercent: Int = 62) -> String {
        guard textWidth(string, size: size, emPercent: emPercent) > width else { return string }
        let characters = max(1, width * 100 / (size * emPercent) - 1)
        return String(string.prefix(characters)) + "…"
    }

    /// Tenths of a pixel as SVG number text: "212.5", "210".
    static func px(_ tenths: Int) -> String {
        Exact.format(scaled: Int128(tenths), scale: 1, trimTrailingZeros: true)
    }

    /// A money amount as label text, rounded to the currency's minor units ("8.40").
    static func money(_ amount: Exact, _ currency: Currency) throws(ArithmeticError) -> String {
        try signed(amount, scale: currency.minorUnits)
    }

    /// Rounded decimal text with a typographic minus ("−13.7").
    static func signed(_ value: Exact, scale: Int) throws(ArithmeticError) -> String {
        let text = try value.formatted(scale: scale, rule: moneyRounding)
        return text.hasPrefix("-") ? "\u{2212}" + text.dropFirst() : text
    }

    static func minorUnitText(_ currency: Currency) -> String {
        currency.minorUnits == 0
            ? "1" : "0." + String(repeating: "0", count: currency.minorUnits - 1) + "1"
    }

    static func escape(_ string: String) -> String {
        var out = ""
        out.reserveCapacity(string.utf8.count)
        for character in string {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
