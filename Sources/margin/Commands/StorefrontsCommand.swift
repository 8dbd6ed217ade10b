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
        let report = try StorefrontsReport(
            cards: input.cards, repository: input.repository, priceLists: input.priceLists,
            arguments: input.arguments, fx: input.fx)
        io.report(report.warnings)
        io.out(report.render(input.format, bold: io.colour))
        return report.exitCode
    }
}
