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
        for d in diagnostics.sorted() { err(d.rendered(colour: errColour) + "\n") }
    }

    /// A command's output, each part to its stream in order; returns its exit code.
    func show(_ output: CommandOutput) -> Int32 {
        for part in output.parts {
            switch part {
            case .data(let text): out(text)
            case .diagnostics(let items): report(items)
            case .message(let text): err(text)
            }
        }
        return output.exitCode
    }
}
