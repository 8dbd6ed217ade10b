import RateCard

/// `margin publish CARD`: freezes a card version by recording its digest in the lock.
enum PublishCommand: Command {
    static let name = "publish"
    static let summary =
        "Record a card version as published (its SHA-256 in the lock); a published version never changes."
    static let usage =
        "margin publish CARD [--cards DIR] [--lock FILE] [--fx BASE/QUOTE=RATE] [--commission RATES] [--tax CUR=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption,
        ArgumentParser.Option(
            "lock", value: "FILE", help: "The publish lock (default: DIR/published.lock)."),
        Common.fxOption, Common.commissionOption, Common.taxOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try PublishRequest(arguments: args).output(bold: io.colour))
    }
}
