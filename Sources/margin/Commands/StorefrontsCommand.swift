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
    static let parser = ArgumentParser(StorefrontInputs.options)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let input = try StorefrontInputs(
            args, products: { $0.packs.map(\.productId) }, what: "pack")
        if input.repository.storefronts == nil && input.priceLists.isEmpty {
            throw CommandFailure(
                "no storefront data in \(Common.cardsDirectory(args)) and no --price-points: nothing to compute proceeds from"
            )
        }
        var all: [StorefrontMargins] = []
        for card in input.cards {
            do {
                all.append(
                    try StorefrontMargins(
                        card: card, repository: input.repository, priceLists: input.priceLists,
                        program: input.arguments.program, date: input.arguments.date,
                        fx: input.fx))
            } catch {
                throw CommandFailure([
                    Diagnostic(
                        path: card.source.path, location: card.source.location,
                        message: "\(card.reference): \(error)")
                ])
            }
        }
        io.report(Array(Set(all.flatMap(\.warnings))).sorted())
        io.out(StorefrontMargins.render(all, format: input.format, bold: io.colour))
        return all.map(\.exitCode).max() ?? 0
    }
}
