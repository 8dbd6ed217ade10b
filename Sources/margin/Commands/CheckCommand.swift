import Foundation
import RateCard

/// `margin check [PATH…]`: the CI guard over rate-card files.
enum CheckCommand: Command {
    static let name = "check"
    static let summary =
        "Validate rate cards for CI: prices, feature keys, versions, published cards, margins, StoreKit."
    static let usage =
        "margin check [PATH…] [--min-margin PCT] [--all-versions] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program PROGRAM] [--storekit FILE]… [--storekit-ignore PRODUCT_ID]… [--lock FILE] [--fx BASE/QUOTE=RATE] [--commission RATES] [--tax CUR=RATE] [--now TIME] [--replay FILE… --max-credit-change PCT --max-margin-drop POINTS [--memory SIZE]] [--format text|github|json]"
    static let parser = ArgumentParser(
        [
            ArgumentParser.Option(
                "min-margin", value: "PCT",
                help:
                    "Fail a pack whose worst-case margin at the highest commission is below PCT% of its price (default 0)."
            ),
            ArgumentParser.Option(
                "all-versions",
                help:
                    "Apply the margin floor to every version, also those a newer version replaced (default: the version in force now and later ones)."
            ),
            ArgumentParser.Option(
                "storekit", value: "FILE", repeatable: true,
                help:
                    "Compare an Xcode StoreKit configuration file with the newest card's packs. Repeatable."
            ),
            ArgumentParser.Option(
                "storekit-ignore", value: "PRODUCT_ID", repeatable: true,
                help:
                    "A StoreKit product that is not a credit pack (a tip): never compared. Repeatable."
            ),
            ArgumentParser.Option(
                "lock", value: "FILE",
                help:
                    "The publish lock (default: published.lock in the first PATH). A lock named here must exist."
            ),
            Common.fxOption, Common.commissionOption, Common.taxOption,
            ArgumentParser.Option(
                "replay", value: "FILE", repeatable: true,
                help:
                    "Replay this ledger export under each card's newest version (docs/replay.md) and fail past the limits below. Repeatable."
            ),
            ArgumentParser.Option(
                "max-credit-change", value: "PCT",
                help: "With --replay: fail a feature whose credits move by more than PCT%."),
            ArgumentParser.Option(
                "max-margin-drop", value: "POINTS",
                help: "With --replay: fail when the overall margin falls by more than POINTS."),
            ArgumentParser.Option(
                "memory", value: "SIZE",
                help:
                    "With --replay: cap the memory of the entries kept, as margin replay --memory (partitioned by device past it; the same findings)."
            ),
            ArgumentParser.Option(
                "now", value: "TIME",
                help:
                    "RFC 3339 time that decides which versions are in force (default: the current time)."
            ),
            ArgumentParser.Option(
                "format", value: "FORMAT",
                help:
                    "text (default: findings and a summary on stderr), github (workflow commands on stdout) or json."
            ),
        ] + Common.storefrontOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try CheckRequest(arguments: args).output(bold: io.colour))
    }
}
