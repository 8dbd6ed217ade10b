/// `Reports/index.md`: one line per card version, linking its report and chart.
extension ReportSet {
    static func index(_ reports: [CardReport], paths: ReportPaths, proceeds: [String] = [])
        -> String
    {
        var t = TextTable([
            .init("card"), .init("version", .right), .init("effective"), .init("title"),
            .init("lowest worst-case margin (highest commission)"), .init("status"), .init("chart"),
        ])
        for r in reports {
            let m = r.margins
            // Packs that all lack a margin share (priced 0, or adding no credits) are not
            // "no packs".
            var lowest = m.rows.isEmpty ? "no packs" : "no margin share"
            if let l = m.lowestMarginShare {
                lowest =
                    "\(l.line.margin.map(CardReport.money) ?? Format.missing) (\(Format.humanMinus(Format.percent(l.share)))), \(ReportText.code(l.row.pack.productId)) at \(CardReport.percent(l.line.rate))"
                if l.line.margin?.amount.isNegative == true { lowest = "**loss** " + lowest }
            }
            t.append([
                "[\(ReportText.escape(r.card.id))](\(r.markdownName))", String(r.card.version),
                ReportText.timestamp(r.card.effective),
                ReportText.escape(r.card.title), lowest,
                r.isPlaceholder ? "**placeholders**" : "final", "[svg](\(r.chartName))",
            ])
        }
        var lines = [
            "<!-- \(CardReport.generatedMarker) from \(paths.folderName)/; do not edit: change the cards and run `margin report` -->",
            "",
            "# Rate-card reports",
            "",
            "One report per card version in \(ReportText.code(paths.folderName + "/")): its price list, the worst-case cost and margin of every pack at each App Store commission rate, grant costs, and the provider sheets and FX rates the figures rest on.",
            "Regenerate with `margin report`; CI runs `margin report --check`, which fails when a report here differs from what the cards give.",
            "",
        ]
        if reports.isEmpty {
            lines.append("No rate cards.")
        } else {
            lines.append(t.markdown())
        }
        if !proceeds.isEmpty {
            lines += [
                "", "## Proceeds", "",
                "Each card family with a folder `Proceeds/<card-id>/` (the ledger in `ledger/`, Apple's reports and transactions in `apple/`): the P&L at Apple's proceeds, the liability and breakage (docs/proceeds.md).",
                "",
            ]
            lines += proceeds.map { "- [\($0)](\($0))" }
        }
        return lines.joined(separator: "\n").trimmingTrailingNewlines() + "\n"
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
