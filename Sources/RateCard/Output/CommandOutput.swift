/// What a command prints, in order, and how it ends: the one value a request hands the
/// command-line tool (`output(bold:)`), whatever its report. The tool writes each part to
/// its stream and exits with `exitCode`; it names no report type.
public struct CommandOutput: Sendable, Hashable {
    /// One piece of what is printed.
    public enum Part: Sendable, Hashable {
        /// The result, for standard output.
        case data(String)
        /// Findings or warnings, for standard error, compiler style, sorted.
        case diagnostics([Diagnostic])
        /// A line for standard error as it is (a summary, a closing note).
        case message(String)
    }

    public let parts: [Part]
    /// 0 for success, 1 when the result holds findings.
    public let exitCode: Int32

    init(_ parts: [Part], exitCode: Int32 = 0) {
        self.parts = parts
        self.exitCode = exitCode
    }
}

extension RenderableReport {
    /// The report's warnings (each once), then its rendering in `format`.
    func output(_ format: OutputFormat, bold: Bool) -> CommandOutput {
        CommandOutput(
            [.diagnostics(Array(Set(warnings))), .data(render(format, bold: bold))],
            exitCode: exitCode)
    }
}
