import RateCard

/// What the user sees for an error a command throws, and the exit code: the one mapping
/// from errors to output (the shape of argument-parser's `MessageInfo`), over the library's
/// `DiagnosedError`: bad usage gets its message and the usage line; problems in files their
/// diagnostics and closing message; anything else its message, exit 2.
enum MessageInfo {
    /// `--help`, also among arguments that do not parse: the help on stdout, exit 0.
    case help(text: String)
    /// Bad usage: `margin: error: message` and `Usage: …` on stderr, exit 2.
    case validation(message: String, usage: String)
    /// Findings in input files, each compiler style, then an optional closing message.
    case diagnostics([Diagnostic], message: String?, exitCode: Int32)
    /// Anything else: `margin: error: message` on stderr.
    case other(message: String, exitCode: Int32)

    init(error: any Error, command: CommandEntry) {
        guard let e = error as? any DiagnosedError else {
            self = .other(message: "\(error)", exitCode: 2)
            return
        }
        if e.failureClass == .usage {
            let text = ([e.summary].compactMap { $0 } + e.diagnostics.map(\.rendered))
            self = .validation(message: text.joined(separator: "\n"), usage: command.usage)
        } else if e.diagnostics.isEmpty {
            self = .other(message: e.summary ?? "\(error)", exitCode: e.failureClass.exitCode)
        } else {
            self = .diagnostics(
                e.diagnostics, message: e.summary, exitCode: e.failureClass.exitCode)
        }
    }

    /// Prints it and returns the exit code.
    func show(_ io: Terminal) -> Int32 {
        switch self {
        case .help(let text):
            io.out(text)
            return 0
        case .validation(let message, let usage):
            io.error(message)
            io.err("Usage: \(usage)\n")
            return 2
        case .diagnostics(let items, let message, let exitCode):
            io.report(items)
            if let message { io.error(message) }
            return exitCode
        case .other(let message, let exitCode):
            io.error(message)
            return exitCode
        }
    }
}
