/// `margin check [PATH…]`: the CI guard over rate-card files (`CardChecker`), and with
/// `replay` the gate over a ledger replayed under each card's newest version.
public struct CheckRequest: Sendable {
    /// The files and folders to check (`RateCards` when none is named).
    var paths: [String]
    /// `--min-margin`, `--storekit`, `--lock`, `--fx`, `--commission`, `--tax`, `--now`, …
    var options: CardChecker.Options
    /// `--replay`: ledger exports to replay; none for no replay gate.
    var replay: [String]
    /// `--max-credit-change` and `--max-margin-drop` as given, read only with `replay`.
    var maxCreditChange: String?
    var maxMarginDrop: String?
    /// `--memory`: the cap of each replay's entries (nil: none), as `margin replay` plans.
    var replayMemory: Int?

    public init(
        paths: [String], options: CardChecker.Options = CardChecker.Options(),
        replay: [String] = [], maxCreditChange: String? = nil, maxMarginDrop: String? = nil,
        replayMemory: Int? = nil
    ) {
        self.paths = paths.isEmpty ? ["RateCards"] : paths
        self.options = options
        self.replay = replay
        self.maxCreditChange = maxCreditChange
        self.maxMarginDrop = maxMarginDrop
        self.replayMemory = replayMemory
    }

    /// The one call: every finding of the files, then the replay gate's. The report's
    /// `exitCode` is 1 when any finding is an error.
    public func run() throws -> CheckReport {
        let report = CardChecker.check(paths: paths, options: options)
        guard !replay.isEmpty else { return report }
        let limits = try ReplayLimits(
            maxCreditChange: maxCreditChange, maxMarginDrop: maxMarginDrop)
        return try report.replaying(
            replay, cards: paths, limits: limits, fxOverrides: options.fxOverrides,
            memoryLimit: replayMemory)
    }
}
