import RateCard

/// A subcommand: its name, help, options and what it does.
protocol Command: SendableMetatype {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static var parser: ArgumentParser { get }
    /// Returns the exit code of a run that printed its result: 0 success, 1 findings.
    /// Anything else is thrown, and `MessageInfo` decides what is printed and the exit code.
    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32
}

extension Command {
    static var help: String {
        "\(summary)\n\nUsage: \(usage)\n\nOptions:\n\(parser.helpText)\n  --help                 Show this help.\n"
    }
}

/// A registered subcommand, captured as plain values (existential metatypes crash
/// this compiler version's SIL generation when used in closures).
struct CommandEntry: Sendable {
    let name: String
    let summary: String
    let usage: String
    let help: String
    let parser: ArgumentParser
    let run: @Sendable (ParsedArguments, Terminal) throws -> Int32

    init<C: Command>(_ c: C.Type) {
        name = C.name
        summary = C.summary
        usage = C.usage
        help = C.help
        parser = C.parser
        run = { try C.run($0, $1) }
    }
}
