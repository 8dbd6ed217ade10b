import RateCard

/// `margin diff OLD NEW`: what changed between two card versions and what it does to the
/// worst-case margin of every pack.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary =
        "What changed between two card versions: prices, features, packs, and every pack's worst-case margin before and after."
    static let usage =
        "margin diff OLD NEW [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE] [--usage FILE… [--max-credit-change PCT] [--max-margin-drop POINTS] [--memory SIZE]]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
        .init(
            "usage", value: "FILE", repeatable: true,
            help:
                "Also replay this ledger export under NEW against OLD (docs/replay.md), as a section. Repeatable."
        ),
        .init(
            "max-credit-change", value: "PCT",
            help: "With --usage: exit 1 when a feature's credits move by more than PCT%."),
        .init(
            "max-margin-drop", value: "POINTS",
            help: "With --usage: exit 1 when the overall margin falls by more than POINTS."),
        .init(
            "memory", value: "SIZE",
            help:
                "With --usage: cap the memory of the entries kept, as margin replay --memory (partitioned by device past it; the same section)."
        ),
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        io.show(try DiffRequest(arguments: args).output(bold: io.colour))
    }
}
