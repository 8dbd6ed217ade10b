/// What `margin replay` is asked: which ledger exports, the candidate card (NEW), what it
/// is compared with (OLD: the ledger's own charges, or a card re-pricing them too), and
/// how credits and costs become money. `ReplayRun.run(_:)` answers it with a
/// `ReplayReport`.
public struct ReplayRequest: Sendable {
    /// The exports, in the order given (the same inputs as `margin pnl`).
    var inputs: [TakingsInput]
    /// The rate-card folders or files (provider sheets, FX, commission come from them).
    var cards: [String]
    /// The candidate card: a card file or a reference into the folder (`osg@11`).
    var new: String
    /// A card that re-prices the "before" side too; nil for the ledger's own charges.
    var against: String?
    var fxOverrides: [FXRate]
    /// The reporting currency; nil for NEW's cost currency.
    var currency: Currency?
    /// A stated value per credit; nil for the lowest per-credit proceeds of NEW's packs.
    var creditValue: Money?
    /// What the error says to do when no credit value is given and NEW's packs give none:
    /// `--credit-value` for `margin replay`; what `diff --usage` and `check --replay`,
    /// which do not take it, say instead.
    var valueHint = "give --credit-value"
    /// Price NEW's provider costs as if every request ran at this instant (its schedule
    /// period), instead of at each request's own time.
    var costsAt: Timestamp?
    /// Commission rates for the per-pack margins; nil for the commission file's.
    var rates: [Exact]?
    /// The most bytes the entries kept may take (`--memory`; nil: no cap). When the
    /// inputs' sizes say they would take more, the run is partitioned by device into
    /// temporary files and each partition replayed on its own; the report is the same.
    var memoryLimit: Int?
    /// Threads the devices are replayed on (`ReplayShards`), as `margin pnl` reads on
    /// `TakingsOptions.threads` (2 by default); the report is the same for any number.
    var threads: Int
    /// `--format`.
    var format = OutputFormat.table
    /// `--strict`: exit 1 on any finding of the report (`ReplayReport.hasFindings`).
    var strict = false

    init(
        inputs: [TakingsInput], cards: [String] = ["RateCards"], new: String,
        against: String? = nil, fxOverrides: [FXRate] = [], currency: Currency? = nil,
        creditValue: Money? = nil, costsAt: Timestamp? = nil, rates: [Exact]? = nil,
        memoryLimit: Int? = nil, threads: Int = 2
    ) {
        self.inputs = inputs
        self.cards = cards
        self.new = new
        self.against = against
        self.fxOverrides = fxOverrides
        self.currency = currency
        self.creditValue = creditValue
        self.costsAt = costsAt
        self.rates = rates
        self.memoryLimit = memoryLimit
        self.threads = max(1, threads)
    }
}

extension ReplayRequest {
    /// `--memory SIZE`, else `pnl`'s default cap (half of the machine's memory); standard
    /// input has no size to plan by, so it is partitioned only under an explicit cap.
    mutating func readMemory(_ args: ParsedArguments) throws {
        memoryLimit = try Self.memoryLimit(args, inputs: args.positionals)
    }

    /// The cap `--memory SIZE` gives a replay of `inputs`, else `pnl`'s default; nil (no
    /// cap) for standard input without `--memory`. `check --replay` and `diff --usage`
    /// read their `--memory` with it, so that their replays plan as `margin replay` does;
    /// they name their replay option as `requires`: `--memory` without it (no `inputs`) is
    /// a usage error ("--memory needs --replay"), not an option silently ignored.
    static func memoryLimit(
        _ args: ParsedArguments, inputs: [String], requires option: String? = nil
    ) throws -> Int? {
        if let option, inputs.isEmpty {
            guard args.value("memory") == nil else {
                throw UsageError("--memory needs --\(option)")
            }
            return nil
        }
        return try args.value("memory", as: ByteSize.self)?.bytes
            ?? (inputs.contains("-") ? nil : TakingsOptions.defaultMemoryLimit)
    }
}
