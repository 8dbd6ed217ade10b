/// `margin diff OLD NEW`: what changed between two card versions, and what it does to the
/// worst-case margin of every pack and plan.
public struct DiffRequest: Sendable {
    /// The folder, and exactly two operands: OLD and NEW (card files or `id@version`).
    var cards: CardSelection
    var fxOverrides: [FXRate]
    var commissionRates: [Exact]?
    /// `--format`.
    var format = OutputFormat.table
    /// `--usage`: ledger exports replayed under NEW against OLD, as a section after the
    /// diff; none for the diff alone.
    var usage: [String] = []
    /// `--max-credit-change` and `--max-margin-drop` as given: with `usage`, the gate that
    /// makes the run exit 1 (`ReplayGate`); neither: no gate.
    var maxCreditChange: String? = nil
    var maxMarginDrop: String? = nil
    /// `--memory`: the cap of the replay's entries, as `margin replay` plans.
    var usageMemory: Int? = nil

    init(cards: CardSelection, fxOverrides: [FXRate] = [], commissionRates: [Exact]? = nil) {
        self.cards = cards
        self.fxOverrides = fxOverrides
        self.commissionRates = commissionRates
    }

    /// The request the command line makes; bad values are usage errors, and so are
    /// `--memory` without `--usage` and `--usage` in CSV (one table per document).
    public init(arguments args: ParsedArguments) throws {
        let format = try args.choice("format", default: OutputFormat.table)
        self.init(
            cards: CardSelection(arguments: args), fxOverrides: try args.fxOverrides(),
            commissionRates: try args.commissionRates())
        self.format = format
        usage = args.all("usage")
        if !usage.isEmpty && format == .csv {
            throw UsageError("--usage has no CSV form (one table per document): use json")
        }
        usageMemory = try ReplayRequest.memoryLimit(args, inputs: usage, requires: "usage")
        maxCreditChange = args.value("max-credit-change")
        maxMarginDrop = args.value("max-margin-drop")
    }

    /// What `margin diff` prints: the diff, and with `usage` the replay beside it (its
    /// warnings first, the gate's findings last, exit 1 on any).
    public func output(bold: Bool) throws -> CommandOutput {
        guard !usage.isEmpty else { return try run().output(format, bold: bold) }
        let diff = try run()
        var request = ReplayRequest(
            inputs: usage.map { TakingsInput(path: $0) }, cards: [cards.directory],
            new: cards.operands[1], against: cards.operands[0], fxOverrides: fxOverrides,
            rates: commissionRates, memoryLimit: usageMemory)
        request.valueHint = ReplayGate.valueHint
        let replay = try ReplayRun.run(request)
        let parts: [CommandOutput.Part] = [
            .diagnostics(replay.warnings),
            .data(
                replay.appended(
                    toDiff: diff.render(format, bold: bold), format: format, bold: bold)),
        ]
        guard maxCreditChange != nil || maxMarginDrop != nil else { return CommandOutput(parts) }
        let findings = ReplayGate.findings(
            replay,
            limits: try ReplayLimits(maxCreditChange: maxCreditChange, maxMarginDrop: maxMarginDrop)
        )
        return CommandOutput(parts + [.diagnostics(findings)], exitCode: findings.isEmpty ? 0 : 1)
    }

    /// The one call. Two operands are required (a usage error otherwise); a card file
    /// outside the folder is read on its own and priced against the folder's sheets.
    func run() throws -> CardDiff {
        guard cards.operands.count == 2 else {
            throw UsageError(
                "expected two cards, OLD and NEW (card files or id@version), found \(cards.operands.count)"
            )
        }
        let repo = try CardSelection(directory: cards.directory).repository()
        let old = try repo.card(operand: cards.operands[0])
        let new = try repo.card(operand: cards.operands[1])
        return try CardDiff(
            old: old, new: new, repository: repo, fx: repo.fx.overriding(with: fxOverrides),
            rates: commissionRates)
    }
}
