/// A bar chart of the worst-case margin % of every pack in every storefront, sorted worst
/// first: one horizontal bar per pack and territory, losses drawn left of zero in the loss
/// colour, hatched, and labelled "loss".
///
/// Bar lengths are exact shares scaled to tenths of a pixel, rounded half-even once.
struct StorefrontChart: Sendable, Hashable {
    let title: String
    let subtitle: String?
    let bars: [Bar]

    struct Bar: Sendable, Hashable {
        /// "3000tks · DEU"
        let label: String
        /// Margin as a share of the customer price (0.133 for 13.3%).
        let share: Exact

    }

    /// `bars` sorted worst (lowest share) first; ties by label.
    init(title: String, subtitle: String? = nil, bars: [Bar]) {
        self.title = title
        self.subtitle = subtitle
        self.bars = bars.sorted { ($0.share, $0.label) < ($1.share, $1.label) }
    }

    /// The rows of `margins` that have a margin, as bars.
    init(_ margins: StorefrontMargins, title: String) {
        let bars = margins.rows.compactMap { r in
            r.marginShare.map { Bar(label: "\(r.pack.productId) · \(r.territory)", share: $0) }
        }
        self.init(
            title: title,
            subtitle:
                "margin % of the customer price after Apple's proceeds and the worst-case cost; \(margins.program.rawValue) program on \(margins.date)",
            bars: bars)
    }

    static let width = 960
    static let labelRight = 200
    static let plotLeft = 220
    static let plotRight = 860
    static let barHeight = 16
    static let barGap = 6

    func svg() throws(ArithmeticError) -> String {
        typealias D = MarginChartDrawing
        let top = subtitle == nil ? 50 : 70
        let height = top + bars.count * (Self.barHeight + Self.barGap) + 40
        // The axis spans from the lowest share (or 0) to the highest (or 0).
        let low = min(Exact.zero, bars.map(\.share).min() ?? .zero)
        let high = max(Exact.zero, bars.map(\.share).max() ?? .zero)
        let span = high == low ? Exact.one : try high.subtracting(low)
        let plotWidth = Exact(Self.plotRight - Self.plotLeft)
        func x(_ v: Exact) throws(ArithmeticError) -> Int {
            let offset = try v.subtracting(low).divided(by: span).multiplied(by: plotWidth)
                .multiplied(by: 10)
            return Int(try offset.rounded(.halfEven)) + Self.plotLeft * 10
        }
        let zero = try x(.zero)
        var body: [String] = []
        body.append(
            #"<text x="24" y="28" font-size="18" font-weight="bold" fill="\#(D.Palette.ink)">\#(D.escape(title))</text>"#
        )
        if let subtitle {
            body.append(
                #"<text x="24" y="50" font-size="13" fill="\#(D.Palette.muted)">\#(D.escape(subtitle))</text>"#
            )
        }
        if bars.isEmpty {
            body.append(
                #"<text x="24" y="\#(top + 16)" font-size="14" fill="\#(D.Palette.muted)">No storefront has a margin to chart.</text>"#
            )
        }
        for (i, bar) in bars.enumerated() {
            let y = top + i * (Self.barHeight + Self.barGap)
            let end = try x(bar.share)
            let left = min(zero, end)
            let right = max(zero, end)
            let loss = bar.share.isNegative
            let fill = loss ? "url(#loss-hatch)" : D.Palette.margin
            let percent = Format.humanMinus(Format.percent(bar.share))
            body.append(
                #"<text x="\#(Self.labelRight)" y="\#(y + 12)" font-size="12" fill="\#(D.Palette.ink)" text-anchor="end">\#(D.escape(bar.label))</text>"#
            )
            body.append(
                #"<rect x="\#(D.px(left))" y="\#(y)" width="\#(D.px(right - left))" height="\#(Self.barHeight)" fill="\#(fill)"><title>\#(D.escape("\(bar.label): \(percent)\(loss ? " (loss)" : "")"))</title></rect>"#
            )
            let labelX = loss ? zero + 40 : right + 40
            body.append(
                #"<text x="\#(D.px(labelX))" y="\#(y + 12)" font-size="12" fill="\#(loss ? D.Palette.lossText : D.Palette.ink)">\#(D.escape(percent + (loss ? " loss" : "")))</text>"#
            )
        }
        let axisBottom = top + bars.count * (Self.barHeight + Self.barGap)
        body.append(
            #"<line x1="\#(D.px(zero))" y1="\#(top - 4)" x2="\#(D.px(zero))" y2="\#(axisBottom)" stroke="\#(D.Palette.axis)" stroke-width="1"/>"#
        )
        body.append(
            #"<text x="\#(D.px(zero))" y="\#(axisBottom + 16)" font-size="11" fill="\#(D.Palette.muted)" text-anchor="middle">0%</text>"#
        )
        return D.document(
            width: Self.width, height: height, title: title, description: subtitle, body: body)
    }
}
