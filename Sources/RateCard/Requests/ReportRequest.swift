/// `margin report`: regenerate the reports finance reviews from the rate-card folder, or
/// (`check`) find the committed ones that are not current, writing nothing.
public struct ReportRequest: Sendable {
    /// The rate-card folder; reports cover every card version in it.
    var cardsDirectory: String
    /// The reports folder (`Reports` by default).
    var reportsDirectory: String
    /// Write nothing: stale, missing or unexpected generated files are findings (exit 1).
    var check: Bool

    init(cardsDirectory: String = "RateCards", reportsDirectory: String, check: Bool) {
        self.cardsDirectory = cardsDirectory
        self.reportsDirectory = reportsDirectory
        self.check = check
    }

    /// The request the command line makes: `--cards`, `--out`, `--check` and no operand.
    public init(arguments args: ParsedArguments) throws {
        if let first = args.positionals.first {
            throw UsageError("'margin report' takes no arguments (got '\(first)'); use --cards DIR")
        }
        self.init(
            cardsDirectory: args.value("cards") ?? "RateCards",
            reportsDirectory: args.value("out") ?? "Reports", check: args.flag("check"))
    }

    /// What `margin report` prints: a line per file written or removed on stdout, the
    /// summary on stderr.
    public func output(bold: Bool) throws -> CommandOutput {
        let outcome = try run()
        return CommandOutput([
            .data(outcome.lines.map { $0 + "\n" }.joined()),
            .message("margin: \(outcome.summary)\n"),
        ])
    }

    /// What a run did: the files it wrote and removed (data) and its summary line.
    struct Outcome: Sendable, Hashable {
        /// One line per file written or removed, for stdout.
        let lines: [String]
        /// "7 written, 0 unchanged, 0 removed in Reports", for stderr.
        let summary: String
    }

    /// The one call. A card whose worst case cannot be computed gives the same findings as
    /// in every command; with `check`, a report that is not current is a finding (exit 1).
    func run() throws -> Outcome {
        let repo = try CardSelection(directory: cardsDirectory).repository()
        let set = try ReportSet(repository: repo, cardsDirectory: cardsDirectory)
        let out = reportsDirectory
        if check {
            let findings = set.findings(in: out)
            guard findings.isEmpty else {
                let n = findings.count
                throw RunFailure(
                    findings.map { $0.diagnostic(directory: out) },
                    message:
                        "\(n) of the generated reports in \(out) \(n == 1 ? "is" : "are") not current; run 'margin report' and commit the result",
                    failureClass: .findings)
            }
            return Outcome(
                lines: [], summary: "\(set.files.count) generated files in \(out) are current")
        }
        let result = try set.write(to: out)
        let lines =
            result.written.map { "wrote \(FilePath.join(out, $0))" }
            + result.removed.map { "removed \(FilePath.join(out, $0))" }
        return Outcome(
            lines: lines,
            summary:
                "\(result.written.count) written, \(result.unchanged.count) unchanged, \(result.removed.count) removed in \(out)"
        )
    }
}
