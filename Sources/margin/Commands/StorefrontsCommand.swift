import RateCard

/// `margin storefronts [CARD…]`: every pack in every storefront, from Apple's price points
/// or the storefront data file, worst margin first.
enum StorefrontsCommand: Command {
    static let name = "storefronts"
    static let summary =
        "Worst-case margin of every pack in every App Store storefront, from Apple's proceeds or the storefront data."
    static let usage =
        "margin storefronts [CARD…] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program standard|small-business] [--cards DIR] [--fx BASE/QUOTE=RATE] [--format table|json|csv|markdown]"
    static let parser = ArgumentParser(Common.storefrontCommandOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        let format = try args.choice("format", default: OutputFormat.table)
        let request = StorefrontRequest(
            cards: Common.selection(args), fxOverrides: try Common.fxOverrides(args),
            arguments: try Common.storefrontArguments(args))
        return io.show(try request.run(), format: format)
    }
}
