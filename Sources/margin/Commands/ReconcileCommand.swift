import RateCard

/// `margin reconcile LEDGER… --transactions FILE…`: the ledger's top-ups and revokes against
/// Apple's transactions, refunds and reports. Options become a `ReconcileRequest`;
/// `ReconcileRun` computes the `Reconciliation`; the chosen format renders it. Exit 1 on
/// any finding, so CI or a nightly job can gate on it.
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
        let format = try args.choice("format", default: OutputFormat.table)
        guard !args.positionals.isEmpty else {
            throw UsageError("give at least one ledger export")
        }
        let transactions = args.all("transactions")
        guard !transactions.isEmpty else {
            throw UsageError("give Apple's transactions with --transactions FILE")
        }
        var inputFormat: TakingsFormat?
        if let f = args.value("input-format") {
            guard let v = TakingsFormat(rawValue: f) else {
                throw UsageError(
                    "unknown input format '\(f)' (one of: \(TakingsFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            inputFormat = v
        }
        var request = ReconcileRequest(
            cards: [Common.cardsDirectory(args)], card: args.value("card"),
            ledger: args.positionals, inputFormat: inputFormat, transactions: transactions,
            sales: args.all("sales"), financial: args.all("financial"))
        try request.readMemory(args)
        // A partitioned run's temporary files are deleted on SIGINT, SIGTERM, SIGHUP, SIGQUIT.
        PnLCommand.installCleanup()
        let report = try ReconcileRun.run(request)
        io.report(report.warnings)
        io.out(report.render(format, bold: io.colour))
        return report.exitCode
    }
}
