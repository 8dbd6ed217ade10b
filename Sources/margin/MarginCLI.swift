import RateCard

/// The `margin` entry point: finds the subcommand, parses its options, runs it.
enum MarginCLI {
    static let version = "0.1.0"

    static let commands: [CommandEntry] = [
        CommandEntry(PacksCommand.self),
        CommandEntry(PlansCommand.self),
        CommandEntry(StorefrontsCommand.self),
        CommandEntry(DiffCommand.self),
        CommandEntry(ReportCommand.self),
        CommandEntry(CheckCommand.self),
        CommandEntry(PublishCommand.self),
        CommandEntry(PnLCommand.self),
        CommandEntry(ReconcileCommand.self),
        CommandEntry(ReplayCommand.self),
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map {
            "  \($0.name)" + String(repeating: " ", count: width - $0.name.count + 3) + $0.summary
        }.joined(separator: "\n")
        return """
            margin \(version): exact pricing and worst-case margins for App Store credit packs.

            Usage: margin <command> [options]

            Commands:
            \(list)

            Run 'margin <command> --help' for a command's options.
            Exit codes: 0 success, 1 findings (a check failed), 2 bad usage or unreadable input.

            """
    }

    static func run(_ arguments: [String]) -> Int32 {
        let io = Terminal()
        guard let first = arguments.first else {
            io.err(overview)
            return 2
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1,
                let c = commands.first(where: { $0.name == arguments[1] })
            {
                io.out(c.help)
            } else {
                io.out(overview)
            }
            return 0
        case "--version":
            io.out("margin \(version)\n")
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let hint =
                FieldReader.closest(first, in: commands.map(\.name)).map {
                    "; did you mean '\($0)'?"
                } ?? ""
            io.error("unknown command '\(first)'\(hint)")
            io.err("Run 'margin --help' for the list of commands.\n")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        let args: ParsedArguments
        do {
            args = try command.parser.parse(rest)
        } catch {
            // `--help` anywhere asks for help, even beside an option that does not parse.
            let asksForHelp = rest.contains("--help") || rest.contains("-h")
            return
                (asksForHelp
                ? .help(text: command.help) : MessageInfo(error: error, command: command))
                .show(io)
        }
        if args.flag("help") {
            io.out(command.help)
            return 0
        }
        do {
            return try command.run(args, io)
        } catch {
            return MessageInfo(error: error, command: command).show(io)
        }
    }
}
