/// The per-storefront section of a card report and its margin % chart.
extension CardReport {
    /// The chart of margin % by storefront, marked as generated; nil without storefronts.
    func storefrontChartSVG() throws(ReportError) -> String? {
        guard let storefronts else { return nil }
        let chart = StorefrontChart(
            storefronts, title: "\(card.id) v\(card.version) · worst-case margin % by storefront")
        do {
            return CardReport.markSVG(try chart.svg(), source: paths.display(card.source.path))
        } catch {
            throw .worstCase(
                WorstCaseFailure(.arithmetic("the storefront chart: \(error)"), card: card))
        }
    }

    func storefrontSection() -> [String] {
        let planLines = storefrontPlanLines()
        guard let s = storefronts, let data = s.storefronts else {
            return planLines.isEmpty ? [] : ["## Every storefront", ""] + planLines
        }
        var lines = ["## Every storefront", ""]
        lines.append(
            "What Apple pays in each storefront the card's prices reach, modelled from \(ReportText.code(paths.display(data.source.path))) (dated \(data.date)\(data.placeholder ? ", placeholder" : "")) for the \(s.program.rawValue) program on \(s.date): the tax Apple removes first, any digital services tax, then the commission in force. Worst margin first; pass App Store Connect's own price points to `margin storefronts --price-points` to use Apple's figures."
        )
        if let note = s.coverage?.note {
            lines.append("")
            lines.append(ReportText.escape(note.prefix(1).uppercased() + note.dropFirst()) + ".")
        }
        lines.append("")
        lines.append("![margin % by storefront](\(storefrontChartName))")
        lines.append("")
        var t = TextTable([
            .init("pack"), .init("territory"), .init("currency"), .init("price", .right),
            .init("tax", .right), .init("commission"),
            .init("proceeds", .right), .init("worst cost", .right), .init("margin", .right),
            .init("margin %", .right),
        ])
        for r in s.rows {
            t.append([
                ReportText.code(r.pack.productId),
                "\(r.territory)\(r.storefront.map { " (\($0.name))" } ?? "")",
                r.customerPrice.currency.code,
                StorefrontMargins.money(r.customerPrice),
                StorefrontMargins.taxText(r.storefront, on: s.date, gap: r.gap),
                StorefrontMargins.commissionText(r.modelled?.regime),
                StorefrontMargins.money(r.proceeds), StorefrontMargins.money(r.worstCost),
                StorefrontMargins.money(r.margin),
                StorefrontMargins.shareText(r),
            ])
        }
        lines.append(t.markdown())
        for w in s.worstPerPack {
            lines.append(
                "- Worst storefront of \(ReportText.code(w.pack.productId)): \(w.territory), \(StorefrontMargins.shareText(w)) of \(StorefrontMargins.show(w.customerPrice))."
            )
        }
        if !s.fxUsed.isEmpty {
            lines.append(
                "- Worst costs converted at \(s.fxUsed.map(CardReport.fxText).joined(separator: ", "))\(s.fx.placeholder ? " (placeholder rates)" : "")."
            )
        }
        for gap in s.warnings.filter({ $0.severity != .note }) {
            lines.append("- \(gap.severity == .error ? "Error" : "Warning"): \(gap.message).")
        }
        lines.append(
            "- Modelled proceeds = price ÷ (1 + tax) × (1 − commission) − digital services tax, rounded \(ModelledProceeds.rounding.displayName) to the unit Apple pays in (the currency's minor unit unless the storefront data gives a `currencyUnit`)."
        )
        lines.append("")
        return lines + planLines
    }

    /// The plans through the same model: each plan price in each storefront it reaches, in
    /// year one and after one year of paid service.
    func storefrontPlanLines() -> [String] {
        guard !plans.storefrontRows.isEmpty else { return [] }
        var lines = [
            "Subscriptions in every storefront, modelled from \(ReportText.escape(plans.storefrontSourceText)): year one at the program's commission, after one year of paid service at its reduced rate (15% for the standard program), less the worst case of one period.",
            "",
        ]
        lines.append(plans.storefrontMarginTable.markdown())
        return lines
    }
}
