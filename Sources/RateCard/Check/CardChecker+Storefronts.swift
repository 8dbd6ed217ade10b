/// The storefront rules: the margin floor in every storefront a pack is sold in, and the
/// cross-check of Apple's proceeds against the storefront data.
extension CardChecker {
    /// `storefront-margin` for the newest version of each card family (the one on sale),
    /// plus the findings of `StorefrontMargins` (card prices for no territory, Apple's price
    /// differing from the card's, cross-check, paging). A storefront whose margin cannot be
    /// computed (no FX rate, no proceeds, no regime in force, a territory the data lacks) is
    /// an error: the floor cannot be said to hold there. A pack Apple sells for nothing is
    /// an error whatever the floor. Cards whose worst case cannot be computed are left to
    /// `worstCaseFindings`. `fx` is the FX table with `--fx` applied.
    static func storefrontFindings(
        _ cards: [LoadedCard], repository: CardRepository, lists: [String: ApplePriceList],
        arguments: StorefrontArguments, floor: Exact, fx: FXTable
    ) -> [Diagnostic] {
        let newest = Set(repository.newestCards.map(\.reference))
        var out: [Diagnostic] = []
        for loaded in cards where newest.contains(loaded.card.reference) {
            let margins: StorefrontMargins
            do {
                margins = try StorefrontMargins(
                    card: loaded.card, repository: repository, priceLists: lists,
                    program: arguments.program, date: arguments.date, fx: fx)
            } catch {
                // Free usage and an engine that cannot be built are `worstCaseFindings`'; any
                // other failure (an overflow in one storefront's currency) is said here, never
                // a storefront rule skipped in silence.
                if case .unbounded = error { continue }
                if (try? WorstCaseEngine(card: loaded.card, providers: repository.providers))
                    == nil
                {
                    continue
                }
                out.append(
                    Diagnostic(
                        path: loaded.file.path, location: loaded.versionLocation,
                        message:
                            "\(loaded.card.reference): the storefront margins cannot be computed: \(error)",
                        rule: .check(.worstCase)))
                continue
            }
            out.append(contentsOf: margins.findings)
            for gap in margins.gaps {
                out.append(
                    Diagnostic(
                        path: gap.path, location: gap.location, severity: .error,
                        message:
                            "\(gap.message); the \(Format.floor(floor)) floor cannot be checked",
                        rule: gap.rule))
            }
            for row in margins.rows where row.pack.credits > 0 {
                let place =
                    "pack \"\(row.pack.productId)\" in \(row.territory)\(row.storefront.map { " (\($0.name))" } ?? "")"
                let fxText = fxNote(row.fxUsed, fx: margins.fx)
                if row.isFree, row.apple != nil {
                    // A card price of 0 is already `free-price`; Apple's point of 0 is new here.
                    out.append(
                        Diagnostic(
                            path: row.path, location: row.location,
                            message:
                                "\(place): Apple's price is \(StorefrontMargins.show(row.customerPrice)), so \(Format.grouped(row.pack.credits)) credits are given away\(row.margin.map { "; the worst-case margin is \(StorefrontMargins.show($0))" } ?? "") (\(margins.program.rawValue) program, \(margins.date))\(fxText)",
                            rule: .check(.storefrontMargin)))
                    continue
                }
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
                            "\(place): the worst-case margin at \(StorefrontMargins.show(row.customerPrice)) is \(StorefrontMargins.show(margin)) (\(Format.percent(share)) of the price), below the \(Format.floor(floor)) floor; \(source) \(StorefrontMargins.show(proceeds)), worst-case cost \(StorefrontMargins.show(cost)) (\(margins.program.rawValue) program, \(margins.date))\(fxText)",
                        rule: .check(.storefrontMargin)))
            }
        }
        return out
    }
}
