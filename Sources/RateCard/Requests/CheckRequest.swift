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
    /// `--format`.
    var format = CheckFormat.text

    init(
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

    /// The request the command line makes; bad values are usage errors, and so is
    /// `--memory` without `--replay`.
    public init(arguments args: ParsedArguments) throws {
        let format = try args.choice("format", default: CheckFormat.text)
        var options = try args.checkOptions()
        options.storeKitPaths = args.all("storekit")
        options.storeKitIgnore = Set(args.all("storekit-ignore"))
        options.allVersions = args.flag("all-versions")
        options.storefronts = try StorefrontArguments(arguments: args)
        if let floor = args.value("min-margin") {
            options.minMargin = try CardChecker.Options.marginFloor(percent: floor)
        }
        self.init(
            paths: args.positionals, options: options, replay: args.all("replay"),
            maxCreditChange: args.value("max-credit-change"),
            maxMarginDrop: args.value("max-margin-drop"),
            replayMemory: try ReplayRequest.memoryLimit(
                args, inputs: args.all("replay"), requires: "replay"))
        self.format = format
    }

    /// What `margin check` prints in the request's format (`bold` is not used: no format
    /// of `check` has headings).
    public func output(bold: Bool) throws -> CommandOutput {
        try run().output(format)
    }

    /// The one call: every finding of the files, then the replay gate's. The report's
    /// `exitCode` is 1 when any finding is an error.
    func run() throws -> CheckReport {
        let report = CardChecker.check(paths: paths, options: options)
        guard !replay.isEmpty else { return report }
        let limits = try ReplayLimits(
            maxCreditChange: maxCreditChange, maxMarginDrop: maxMarginDrop)
        return try report.replaying(
            replay, cards: paths, limits: limits, fxOverrides: options.fxOverrides,
            memoryLimit: replayMemory)
    }
}
