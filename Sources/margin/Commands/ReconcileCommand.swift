import RateCard

/// `margin reconcile LEDGER… --transactions FILE…`: the ledger's top-ups and revokes against
/// Apple's transactions, refunds and reports. The library reads the options into its
/// request, runs it and renders the result in the chosen format
/// (`ReconcileRequest.output(arguments:bold:)`). Exit 1 on any finding, so CI or a nightly
/// job can gate on it.
enum ReconcileCommand: Command {
    static let name = "reconcile"
    static let summary =
        "The ledger against Apple's records: purchases never credited, credits with no purchase, refunds not taken back, duplicates, sandbox credits, prices off the card."
    static let usage =
        "margin reconcile LEDGER… --transactions FILE… [--sales FILE…] [--financial FILE…] [--cards DIR] [--card ID] [--input-format FORMAT] [--memory SIZE] [--format table|json|csv|markdown]"
    static let parser = ArgumentParser([
        Common.cardsOption,
        .init(
            "card", value: "ID",
            help:
                "The card family whose packs the purchases bought (needed when the folder has several)."
        ),
        .init(
            "transactions", value: "FILE", repeatable: true,
            help:
                "App Store transactions: decoded or signed (JWS), Get Transaction History pages, V2 notifications. Repeatable."
        ),
        .init(
            "sales", value: "FILE", repeatable: true,
            help: "A Summary Sales Report (tab-separated, decompressed). Repeatable."),
        .init(
            "financial", value: "FILE", repeatable: true,
            help: "A financial report (tab-separated). Repeatable."),
        .init(
            "input-format", value: "FORMAT",
            help: "Force the ledger format: jsonl, ledger or csv (default: detected)."),
        .init(
            "memory", value: "SIZE",
            help:
                "Cap on what the matching holds, e.g. 256M or 2G (default: half the machine's memory); past it the run is partitioned into temporary files."
        ),
        Common.formatOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        // A partitioned run's temporary files are deleted on SIGINT, SIGTERM, SIGHUP, SIGQUIT.
        PnLCommand.installCleanup()
        return io.show(try ReconcileRequest.output(arguments: args, bold: io.colour))
    }
}
