/// The margin chart of a card report, built from the same `PackMargins` as the tables.
extension CardReport {
    /// One panel per currency (in the order the card first prices it), one group per
    /// pack, one bar per commission rate: the sale price split into commission, worst-case
    /// cost and margin.
    func chart() throws(ReportError) -> MarginChart {
        var currencies: [Currency] = []
        // A pack of no credits has no worst case: no bar (the tables say why).
        let rows = margins.rows.filter(\.addsCredits)
        for r in rows where !currencies.contains(r.price.price.currency) {
            currencies.append(r.price.price.currency)
        }
        var panels: [MarginChart.Panel] = []
        do {
            for currency in currencies {
                var groups: [MarginChart.Group] = []
                for r in rows where r.price.price.currency == currency {
                    let bars = try r.lines.map { l throws(MarginChartError) in
                        do throws(MarginChartError) {
                            return try MarginChart.Bar(
                                label: CardReport.percent(l.rate), price: r.price.price.amount,
                                commission: l.commission.amount, cost: r.worst.cost.amount)
                        } catch {
                            // Said with the pack and its market, not only the bar's rate.
                            guard case .negativeFigure(let bar, let field, let value) = error
                            else { throw error }
                            throw .negativeFigure(
                                bar:
                                    "\(r.pack.productId) in \(PackMargins.market(r.price)) at \(bar)",
                                field: field, value: value)
                        }
                    }
                    var label = ReportText.shortLabel(r.pack.productId)
                    if let sf = r.price.storefront { label += " (\(sf))" }
                    groups.append(MarginChart.Group(label: label, bars: bars))
                }
                panels.append(MarginChart.Panel(currency: currency, groups: groups))
            }
        } catch {
            throw .chart(card: card.reference, path: paths.display(card.source.path), error)
        }
        return MarginChart(
            title: "\(card.id) v\(card.version) · worst-case margin per pack",
            subtitle: chartSubtitle, panels: panels)
    }

    /// The chart as an SVG document, marked as generated.
    func chartSVG() throws(ReportError) -> String {
        let chart = try chart()
        let svg: String
        do {
            svg = try chart.svg()
        } catch {
            throw .chart(card: card.reference, path: paths.display(card.source.path), error)
        }
        return CardReport.markSVG(svg, source: paths.display(card.source.path))
    }

    /// What the worst case assumes, and the FX rates behind converted panels.
    var chartSubtitle: String {
        var parts: [String] = []
        let features = Set(margins.rows.compactMap(\.worst.witnessFeature)).sorted()
        parts.append(
            features.isEmpty
                ? "No feature has a provider running cost"
                : "Worst case: every credit spent on \(ReportText.list(features))")
        if !margins.fxUsed.isEmpty {
            var fx = "FX " + margins.fxUsed.map(CardReport.fxText).joined(separator: ", ")
            var facts: [String] = []
            if let d = margins.fx.date { facts.append("\(d)") }
            if margins.fxRestsOnPlaceholder { facts.append("placeholder") }
            if !facts.isEmpty { fx += " (\(facts.joined(separator: ", ")))" }
            parts.append(fx)
        }
        if isPlaceholder { parts.append("contains placeholders") }
        return parts.joined(separator: " · ")
    }

    /// `svg` with a generated-file comment after the XML declaration.
    static func markSVG(_ svg: String, source: String) -> String {
        let comment =
            "<!-- \(generatedMarker) from \(source.replacingOccurrences(of: "--", with: "-")); do not edit -->"
        guard let newline = svg.firstIndex(of: "\n"), svg.hasPrefix("<?xml") else {
            return comment + "\n" + svg
        }
        return String(svg[...newline]) + comment + "\n" + svg[svg.index(after: newline)...]
    }
}
