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

    static func run(_ args: ParsedArguments, _ io: Terminal) -> Int32 {
        let format: String
        let fxOverrides: [FXRate]
        let options: StorefrontArguments
        do {
            format = try OutputFormat.parse(args.value("format"))
            fxOverrides = try Common.fxOverrides(args)
            options = try Common.storefrontArguments(args)
        } catch {
            io.error(error.message)
            io.err("Usage: \(usage)\n")
            return 2
        }
        guard let (repo, cards) = Common.loadCards(args, io) else { return 2 }
        let dir = Common.cardsDirectory(args)
        guard
            let lists = Common.priceLists(
                options, known: Set(cards.flatMap(\.packs).map(\.productId)), what: "pack",
                cards: cards, io)
        else { return 2 }
        if repo.storefronts == nil && lists.isEmpty {
            io.error(
                "no storefront data in \(dir) and no --price-points: nothing to compute proceeds from"
            )
            return 2
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
                io.report([
                    Diagnostic(
                        path: card.source.path, location: card.source.location,
                        message: "\(card.reference): \(error)")
                ])
                return 2
            }
        }
        io.report(Array(Set(all.flatMap(\.warnings))))
        io.out(StorefrontMargins.render(all, format: format, bold: io.colour))
        return 0
    }
}
