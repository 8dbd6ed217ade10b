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
        io.show(try ReportRequest(arguments: args).output(bold: io.colour))
    }
}
