import RateCard

/// `margin report [--cards DIR] [--out DIR] [--check]`: regenerates the reports finance
/// reviews, or (with `--check`) fails when the committed ones are not current.
enum ReportCommand: Command {
    static let name = "report"
    static let summary =
        "Write a Markdown report and SVG chart for every card version, or check they are current."
    static let usage = "margin report [--cards DIR] [--out DIR] [--check]"
    static let parser = ArgumentParser([
        Common.cardsOption,
        ArgumentParser.Option("out", value: "DIR", help: "The reports folder (default: Reports)."),
        ArgumentParser.Option(
            "check",
            help: "Write nothing; exit 1 naming each stale, missing or unexpected generated file."),
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        if let first = args.positionals.first {
            throw UsageError("'margin report' takes no arguments (got '\(first)'); use --cards DIR")
        }
        let cardsDirectory = Common.cardsDirectory(args)
        let out = args.value("out") ?? "Reports"
        let repo = try Common.loadRepository([cardsDirectory])
        let set: ReportSet
        do {
            set = try ReportSet(repository: repo, cardsDirectory: cardsDirectory)
        } catch {
            throw CommandFailure([Diagnostic(path: error.path, message: error.description)])
        }
        if args.flag("check") {
            let findings = set.findings(in: out)
            if findings.isEmpty {
                io.err("margin: \(set.files.count) generated files in \(out) are current\n")
                return 0
            }
            throw CommandFailure(
                findings.map { $0.diagnostic(directory: out) },
                message:
                    "\(findings.count) of the generated reports in \(out) \(findings.count == 1 ? "is" : "are") not current; run 'margin report' and commit the result",
                exitCode: 1)
        }
        do {
            let result = try set.write(to: out)
            for name in result.written { io.out("wrote \(FilePath.join(out, name))\n") }
            for name in result.removed { io.out("removed \(FilePath.join(out, name))\n") }
            io.err(
                "margin: \(result.written.count) written, \(result.unchanged.count) unchanged, \(result.removed.count) removed in \(out)\n"
            )
            return 0
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
