import RateCard

/// `margin plans [CARD…]`: worst-case margin of every subscription plan by subscription
/// year, introductory offers and the free tier; with `--price-points`, from Apple's own
/// proceeds in each territory too.
enum PlansCommand: Command {
    static let name = "plans"
    static let summary =
        "Worst-case margin of every subscription plan in year one and after, offers' payback, and the free tier's cost."
    static let usage =
        "margin plans [CARD…] [--cards DIR] [--format table|json|csv|markdown] [--fx BASE/QUOTE=RATE] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program PROGRAM]"
    static let parser = ArgumentParser(Common.storefrontCommandOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try PlanRequest(arguments: args).output(bold: io.colour))
    }
}
