import Foundation
import RateCard

/// `margin replay FILE… --card NEW [--against OLD]`: the ledger's real usage priced under a
/// candidate card. Options become a `ReplayRequest` (its options are declared beside it),
/// whose `output(bold:)` is the report in the chosen format. `--sql` prints the
/// per-feature re-pricing as a query instead (`ReplayRequest.query(arguments:)`).
enum ReplayCommand: Command {
    static let name = "replay"
    static let summary =
        "Replay exported ledger entries under a candidate card: credits, declines, cost and margin per feature before and after."
    static let usage =
        "margin replay FILE… --card NEW [--against OLD] [--cards DIR] [--costs-at TIME] [--credit-value MONEY] [--currency CUR] [--commission RATES] [--fx BASE/QUOTE=RATE]… [--input-format FORMAT] [--memory SIZE] [--threads N] [--strict] [--format table|json|csv|markdown] [--sql duckdb|clickhouse|spark|postgres [--table NAME] [--sql-columns text|typed]]"
    static let parser = ArgumentParser(ReplayRequest.options)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        if let query = try ReplayRequest.query(arguments: args) {
            io.out(query)
            return 0
        }
        PnLCommand.installCleanup()
        return io.show(try ReplayRequest(arguments: args).output(bold: io.colour))
    }
}
