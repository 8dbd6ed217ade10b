import Foundation
import RateCard

/// Standard output and error, and whether colour may be used.
final class Terminal: Sendable {
    let colour: Bool
    let errColour: Bool

    init() {
        let env = ProcessInfo.processInfo.environment
        let noColour = env["NO_COLOR"].map { !$0.isEmpty } ?? false
        colour = !noColour && isatty(1) == 1 && env["TERM"] != "dumb"
        errColour = !noColour && isatty(2) == 1 && env["TERM"] != "dumb"
    }

    func out(_ s: String) {
        FileHandle.standardOutput.write(Data(s.utf8))
    }

    func err(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }

    /// `margin: error: message`
    func error(_ message: String) {
        err((errColour ? "margin: \u{1B}[31merror:\u{1B}[0m " : "margin: error: ") + message + "\n")
    }

    /// Each diagnostic on its own line, compiler style.
    func report(_ diagnostics: [Diagnostic]) {
        for d in diagnostics.sorted() {
            if errColour {
                let colourCode =
                    d.severity == .error ? "31" : (d.severity == .warning ? "33" : "36")
                var s =
                    "\u{1B}[1m\(d.path):\(d.location.line):\(d.location.column):\u{1B}[0m \u{1B}[\(colourCode)m\(d.severity.rawValue):\u{1B}[0m \(d.message)"
                if let r = d.ruleID { s += " [\(r)]" }
                err(s + "\n")
            } else {
                err(d.rendered + "\n")
            }
        }
    }
}

extension Terminal {
    /// A command's result: its warnings on stderr, its data on stdout; returns its exit code.
    func show(_ report: some RenderableReport, format: OutputFormat) -> Int32 {
        self.report(Array(Set(report.warnings)))
        out(report.render(format, bold: colour))
        return report.exitCode
    }

    /// `check`'s result: text (the findings and the summary on stderr), github (workflow
    /// commands on stdout, the summary on stderr) or json (stdout); returns its exit code.
    func show(_ report: CheckReport, format: CheckFormat) -> Int32 {
        switch format {
        case .github:
            out(report.githubAnnotations())
            err(report.summary + "\n")
        case .json:
            out(report.json())
        case .text:
            self.report(report.diagnostics)
            err(report.summary + "\n")
        }
        return report.exitCode
    }
}
