import RateCard

/// Shared option handling.
enum Common {
    static let formatOption = ArgumentParser.Option.format
    static let cardsOption = ArgumentParser.Option.cards
    static let fxOption = ArgumentParser.Option.fx
    static let taxOption = ArgumentParser.Option(
        "tax", value: "CUR=RATE", repeatable: true,
        help:
            "Remove a sales tax from tax-inclusive prices in CUR before commission, e.g. GBP=0.20. Repeatable. Default: tax not modelled."
    )
    static let commissionOption = ArgumentParser.Option.commission

    /// The options of `plans` and `storefronts`.
    static let storefrontCommandOptions = [cardsOption, formatOption, fxOption] + storefrontOptions

    /// `--price-points`, `--at` and `--program` of `storefronts` and `check`.
    static let storefrontOptions = [
        ArgumentParser.Option(
            "price-points", value: "PRODUCT_ID=FILE", repeatable: true,
            help:
                "An App Store Connect response saved as JSON (price points, equalizations or a price schedule) for a pack's product id. Repeatable: several pages are several files."
        ),
        ArgumentParser.Option(
            "at", value: "DATE",
            help:
                "The day prices and commission regimes are taken at, YYYY-MM-DD (default: today, UTC)."
        ),
        ArgumentParser.Option(
            "program", value: "PROGRAM",
            help:
                "the commission program: standard, small-business, subscription-after-one-year, mini-apps-partner, eu-alternative, eu-alternative-reduced or eu-link-out (default: the card's storeProgram, else standard); a plan takes the program in year one and its after-one-year rate later (eu-alternative: 17% + 3%, then 10% + 3%)."
        ),
    ]
}
