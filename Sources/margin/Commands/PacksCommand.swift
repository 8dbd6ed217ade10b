import RateCard

/// `margin packs [CARD…]`: worst-case cost and margin of every pack and grant.
enum PacksCommand: Command {
    static let name = "packs"
    static let summary =
        "Worst-case cost and margin of every pack and grant, per currency and commission rate."
    static let usage =
        "margin packs [CARD…] [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE] [--tax CUR=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
        Common.taxOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try PackRequest(arguments: args).output(bold: io.colour))
    }
}
