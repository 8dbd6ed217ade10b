import Foundation
import RateCard

/// `margin storefronts [CARD…]`: every pack in every storefront, from Apple's price points
/// or the storefront data file, worst margin first.
enum StorefrontsCommand: Command {
    static let name = "storefronts"
    static let summary =
        "Worst-case margin of every pack in every App Store storefront, from Apple's proceeds or the storefront data."
    static let usage =
        "margin storefronts [CARD…] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program standard|small-business] [--cards DIR] [--fx BASE/QUOTE=RATE] [--format table|json|csv|markdown]"
    static let parser = ArgumentParser(
        [Common.cardsOption, Common.formatOption, Common.fxOption] + Common.storefrontOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let format = try args.choice("format", default: OutputFormat.table)
        let fxOverrides = try Common.fxOverrides(args)
        let options = try Common.storefrontArguments(args)
        let (repo, cards) = try Common.loadCards(args)
        let dir = Common.cardsDirectory(args)
        let lists = try Common.priceLists(
            options, known: Set(cards.flatMap(\.packs).map(\.productId)), what: "pack",
            cards: cards)
        if repo.storefronts == nil && lists.isEmpty {
            throw CommandFailure(
                "no storefront data in \(dir) and no --price-points: nothing to compute proceeds from"
            )
        }
        let fx = repo.fx.overriding(with: fxOverrides)
        var all: [StorefrontMargins] = []
        for card in cards {
            do {
                all.append(
                    try StorefrontMargins(
                        card: card, repository: repo, priceLists: lists, program: options.program,
                        date: options.date, fx: fx))
            } catch {
                throw CommandFailure([
                    Diagnostic(
                        path: card.source.path, location: card.source.location,
                        message: "\(card.reference): \(error)")
                ])
            }
        }
        io.report(Array(Set(all.flatMap(\.warnings))))
        io.out(StorefrontMargins.render(all, format: format, bold: io.colour))
        return 0
    }
}
