import Testing

@testable import RateCard

/// Issue 25: the tool is handed one `CommandOutput` per request (`output(bold:)`), so it
/// names no report type; each request's output is its report's rendering in the request's
/// format, in the order the command has always printed it.
@Suite struct CommandOutputTests {
    private static let parser = ArgumentParser([
        .cards, .format, .fx, .commission,
        .init("tax", value: "CUR=RATE", repeatable: true, help: ""),
    ])

    private func arguments(_ words: [String]) throws -> ParsedArguments {
        try Self.parser.parse(words + ["--cards", repositoryCards])
    }

    @Test(arguments: OutputFormat.allCases)
    func aPackRequestPrintsItsReportsWarningsThenItsRendering(format: OutputFormat) throws {
        let request = try PackRequest(arguments: arguments(["--format", format.rawValue]))
        #expect(request.format == format)
        let report = try request.run()
        let output = try request.output(bold: false)
        #expect(
            output.parts == [
                .diagnostics(Array(Set(report.warnings))), .data(report.render(format)),
            ])
        #expect(output.exitCode == report.exitCode)
    }

    @Test func theRequestReadsTheSharedOptionsAsTheirTypes() throws {
        let request = try PackRequest(
            arguments: arguments(["osg", "--commission", "0.15", "--tax", "GBP=0.2"]))
        #expect(request.cards.operands == ["osg"])
        #expect(request.cards.directory == repositoryCards)
        #expect(request.commissionRates == [Exact(percent: 15)])
        #expect(request.taxRates == [Currency(code: "GBP")!: Exact(percent: 20)])
        #expect(request.format == .table)
    }

    @Test func aBadFormatIsAUsageErrorBeforeAnythingIsRead() throws {
        #expect(throws: UsageError.self) {
            try PackRequest(arguments: arguments(["nosuch", "--format", "xml"]))
        }
    }

    @Test func checkPrintsTextGithubAndJSONOnTheirStreams() throws {
        let report = CheckReport(
            diagnostics: [Diagnostic(path: "a.json", message: "bad")], files: ["a.json"],
            unreadable: false)
        let summary = "1 error, 0 warnings in 1 file\n"
        #expect(
            report.output(.text).parts == [.diagnostics(report.diagnostics), .message(summary)])
        #expect(
            report.output(.github).parts == [
                .data(report.githubAnnotations()), .message(summary),
            ])
        #expect(report.output(.json).parts == [.data(report.json())])
        #expect(report.output(.json).exitCode == 1)
    }

    @Test func aDiagnosticInColourIsItsPlainTextWithEscapes() {
        let d = Diagnostic(
            path: "a.json", location: SourceLocation(line: 3, column: 7), severity: .warning,
            message: "odd")
        #expect(d.rendered(colour: false) == d.rendered)
        let coloured = d.rendered(colour: true)
        #expect(coloured == "\u{1B}[1ma.json:3:7:\u{1B}[0m \u{1B}[33mwarning:\u{1B}[0m odd")
        #expect(coloured.replacing(/\u{1B}\[[0-9]+m/, with: "") == d.rendered)
    }
}
