/// The storefront rules: the margin floor in every storefront a pack is sold in, and the
/// cross-check of Apple's proceeds against the storefront data.
extension CardChecker {
    /// `storefront-margin` for the newest version of each card family (the one on sale),
    /// plus the warnings of `StorefrontMargins` (cross-check, FX, paging). Cards whose worst
    /// case cannot be computed are left to `worstCaseFindings`.
    static func storefrontFindings(
        _ cards: [LoadedCard], repository: CardRepository, lists: [String: ApplePriceList],
        arguments: StorefrontArguments, floor: Exact
    ) -> [Diagnostic] {
        let newest = Set(repository.newestCards.map(\.reference))
        var out: [Diagnostic] = []
        for loaded in cards where newest.contains(loaded.card.reference) {
            guard
                let margins = try? StorefrontMargins(
                    card: loaded.card, repository: repository, priceLists: lists,
                    program: arguments.program, date: arguments.date)
            else { continue }
            out.append(contentsOf: margins.warnings)
            for row in margins.rows
            where row.pack.credits > 0 && row.customerPrice.amount.isPositive {
                guard let share = row.marginShare, share < floor, let margin = row.margin,
                    let proceeds = row.proceeds, let cost = row.worstCost
                else { continue }
                let source =
                    row.proceedsSource == .apple
                    ? "Apple's proceeds"
                    : "modelled proceeds (\(row.modelled.map { StorefrontMargins.modelText(row.storefront, $0) } ?? ""))"
                out.append(
                    Diagnostic(
                        path: row.path, location: row.location,
                        message:
                            "pack \"\(row.pack.productId)\" in \(row.territory)\(row.storefront.map { " (\($0.name))" } ?? ""): the worst-case margin at \(StorefrontMargins.show(row.customerPrice)) is \(StorefrontMargins.show(margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; \(source) \(StorefrontMargins.show(proceeds)), worst-case cost \(StorefrontMargins.show(cost)) (\(margins.program.rawValue) program, \(margins.date))",
                        rule: .check(.storefrontMargin)))
            }
        }
        return out
    }
}
