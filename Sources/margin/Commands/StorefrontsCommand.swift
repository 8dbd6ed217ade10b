import RateCard

/// `margin storefronts [CARD…]`: every pack in every storefront, from Apple's price points
/// or the storefront data file, worst margin first.
enum StorefrontsCommand: Command {
    static let name = "storefronts"
    static let summary =
        "Worst-case margin of every pack in every App Store storefront, from Apple's proceeds or the storefront data."
    static let usage =
        "margin storefronts [CARD…] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program PROGRAM] [--changes [--since DATE]] [--cards DIR] [--fx BASE/QUOTE=RATE] [--format table|json|csv|markdown]"
    static let parser = ArgumentParser(
        Common.storefrontCommandOptions + [
            ArgumentParser.Option(
                "changes",
                help:
                    "List every tax or commission change in the storefront data and each pack's margin in each affected storefront the day before and the day of it."
            ),
            ArgumentParser.Option(
                "since", value: "DATE",
                help: "With --changes: changes on or after DATE (default 2023-01-01)."),
        ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try StorefrontRequest(arguments: args).output(bold: io.colour))
    }
}
