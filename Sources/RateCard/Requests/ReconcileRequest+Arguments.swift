/// `margin reconcile`'s command line: the request it makes, run and rendered, so that the
/// command only parses and prints.
extension ReconcileRequest {
    /// What `margin reconcile LEDGER… --transactions FILE…` prints: the reconciliation in
    /// `--format`, its ledger warnings first; exit 1 on any finding. No ledger or no
    /// transactions is a usage error.
    public static func output(arguments args: ParsedArguments, bold: Bool) throws
        -> CommandOutput
    {
        let format = try args.choice("format", default: OutputFormat.table)
        guard !args.positionals.isEmpty else {
            throw UsageError("give at least one ledger export")
        }
        let transactions = args.all("transactions")
        guard !transactions.isEmpty else {
            throw UsageError("give Apple's transactions with --transactions FILE")
        }
        var request = ReconcileRequest(
            cards: [args.value("cards") ?? "RateCards"], card: args.value("card"),
            ledger: args.positionals, inputFormat: try args.inputFormat(),
            transactions: transactions, sales: args.all("sales"),
            financial: args.all("financial"))
        try request.readMemory(args)
        return try ReconcileRun.run(request).output(format, bold: bold)
    }
}
