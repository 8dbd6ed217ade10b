import RateCard

/// What the user sees for an error a command throws, and the exit code: the one mapping
/// from errors to output (the shape of argument-parser's `MessageInfo`). Bad usage gets its
/// message and the usage line; problems in files their diagnostics; anything else its
/// message.
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
        switch error {
        case let e as UsageError:
            self = .validation(message: e.message, usage: command.usage)
        case let e as CommandFailure:
            self = .diagnostics(e.diagnostics, message: e.message, exitCode: e.exitCode)
        case let e as Diagnostics:
            self = .diagnostics(e.items, message: nil, exitCode: 2)
        case let e as PnLError:
            switch e {
            case .usage(let message): self = .validation(message: message, usage: command.usage)
            case .valuation(let message): self = .other(message: message, exitCode: 2)
            case .diagnostics(let items): self = .diagnostics(items, message: nil, exitCode: 2)
            }
        default:
            self = .other(message: "\(error)", exitCode: 2)
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
