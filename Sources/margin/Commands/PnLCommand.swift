import Foundation
import RateCard

/// `margin pnl FILE…`: per-feature profit and loss from exported takings. Options become a
/// `PnLRequest` (its options are declared beside it), whose `output(bold:)` is the report in
/// the chosen format; `--sql` prints the same P&L as a query (`PnLQueryRequest`).
enum PnLCommand: Command {
    static let name = "pnl"
    static let summary =
        "Per-feature profit and loss from exported ledger entries (JSON Lines, ledger documents, CSV, roll-ups)."
    static let usage =
        """
        margin pnl FILE… [--card ID] [--cards DIR] [--window all|7d|30d|Nd] [--now TIME] [--since TIME] [--until TIME] [--by day|week|month [--tz OFFSET]] [--input-format FORMAT] [--strict] [--quiet] [--memory SIZE] [--credit-value MONEY] [--currency CUR] [--costs FILE] [--fx BASE/QUOTE=RATE]… [--proceeds FILE]… [--transactions FILE]… [--format table|json|csv|markdown]
               margin pnl [FILE… | --table NAME] --sql|--sql-audit duckdb|clickhouse|spark|postgres [--sql-columns text|typed] [--sql-params] [the options above]
               margin pnl --sql-schema DIALECT [--sql-columns text|typed]
        """
    static let parser = ArgumentParser(
        PnLRequest.options.map(\.option) + PnLQueryRequest.options)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        if let schema = try SQLSchemaRequest(arguments: args) {
            return io.show(schema.output(bold: io.colour))
        }
        var request = try PnLRequest(arguments: args)
        if let query = try PnLQueryRequest(arguments: args, pnl: request) {
            return io.show(try query.output(bold: io.colour))
        }
        installCleanup()
        let environment = ProcessInfo.processInfo.environment
        var display: ProgressDisplay?
        if ProgressDisplay.isWanted(
            stderrIsTerminal: isatty(2) == 1, environment: environment, quiet: args.flag("quiet"))
        {
            let progress = TakingsProgress()
            request.progress = progress
            display = ProgressDisplay(progress, delay: ProgressDisplay.delay(environment))
        }
        let output: CommandOutput
        do {
            defer { display?.stop() }
            output = try request.output(bold: io.colour)
        }
        return io.show(output)
    }

    /// On SIGINT, SIGTERM, SIGHUP (the terminal closed) or SIGQUIT, the temporary files
    /// of a partitioned run are deleted before the process ends as the signal says.
    static func installCleanup() {
        // A parent may have blocked them (some process launchers do): unblocked, so that
        // an interrupt still ends the run.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(sig) { sig in
                TakingsRun.removeTemporaryFiles()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }
}
