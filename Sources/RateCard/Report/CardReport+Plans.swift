/// The report's section on subscription plans and the free tier; absent when the card has
/// neither, so reports of credit-pack cards are unchanged.
extension CardReport {
    func planSection() -> [String] {
        guard !plans.isEmpty else { return [] }
        var lines = ["## Subscriptions and the free tier", ""]
        lines.append(
            "The worst case of a period uses every included credit, quota and allowance in full, in the costliest way, in every window that can start in the period. Year one is at the year-one commission (30% standard, 15% in the Small Business Program), later years at 15%."
        )
        lines.append("")
        if !plans.rows.isEmpty { lines.append(plans.planTable.markdown()) }
        if plans.rows.contains(where: { $0.intro != nil }) {
            lines.append(
                "Introductory offers: their worst-case margin, and the regular paid periods until it is earned back."
            )
            lines.append("")
            lines.append(plans.offerTable.markdown())
        }
        if plans.freeTier != nil {
            lines.append(
                "The free tier: one free user's worst case, and the share of one subscriber's worst-case margin a year it consumes."
            )
            lines.append("")
            lines.append(plans.freeTierTable.markdown())
        }
        lines.append(
            contentsOf: plans.notes.filter {
                !$0.hasPrefix("placeholder:") && !$0.hasPrefix("amounts rounded")
            }.map { "- \(ReportText.escape($0))" })
        lines.append("")
        return lines
    }
}
