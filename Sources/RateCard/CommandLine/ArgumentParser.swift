/// A small, strict command-line parser: `--key value`, `--key=value`, flags, `--` and
/// positionals. An unknown option gets "did you mean …?".
public struct ArgumentParser: Sendable {
    public struct Option: Sendable, Hashable {
        let name: String
        /// The placeholder of its value, e.g. "FORMAT"; nil for a flag.
        let value: String?
        let help: String
        let repeatable: Bool

        public init(_ name: String, value: String? = nil, repeatable: Bool = false, help: String) {
            self.name = name
            self.value = value
            self.help = help
            self.repeatable = repeatable
        }
    }

    let options: [Option]

    public init(_ options: [Option]) {
        self.options = options
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
                result.positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            guard arg.hasPrefix("--") else {
                if arg == "-h" {
                    result.flags.insert("help")
                    continue
                }
                throw UsageError("unknown option '\(arg)'\(hint(for: String(arg.dropFirst())))")
            }
            var name = String(arg.dropFirst(2))
            var inline: String?
            // Split on the scalar '=': as a Character it would merge with a combining mark
            // that starts the value ("--fx=\u{301}…"), and the option would go unrecognised.
            let scalars = name.unicodeScalars
            if let eq = scalars.firstIndex(of: "=") {
                inline = String(Substring(scalars[scalars.index(after: eq)...]))
                name = String(Substring(scalars[..<eq]))
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'\(hint(for: name))")
            }
            guard let placeholder = option.value else {
                guard inline == nil else { throw UsageError("option '--\(name)' takes no value") }
                result.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < arguments.count else {
                    throw UsageError("option '--\(name)' needs a value (\(placeholder))")
                }
                value = arguments[i]
                i += 1
            }
            if !option.repeatable, result.values[name] != nil {
                throw UsageError("option '--\(name)' is given more than once")
            }
            result.values[name, default: []].append(value)
        }
        return result
    }

    private func hint(for name: String) -> String {
        FieldReader.closest(name, in: options.map(\.name)).map { "; did you mean '--\($0)'?" } ?? ""
    }

    /// The options block of a help text.
    public var helpText: String {
        let rows = options.map { o in ("--\(o.name)" + (o.value.map { " \($0)" } ?? ""), o.help) }
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map {
            "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1
        }.joined(separator: "\n")
    }
}

/// What the command line said.
public struct ParsedArguments: Sendable, Hashable {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init() {}

    func value(_ name: String) -> String? { values[name]?.last }

    /// The value of option `name` as one of `T`'s words, `fallback` when it is not given;
    /// any other word is bad usage with a "did you mean" hint.
    func choice<T: OptionChoice>(_ name: String, default fallback: T) throws(UsageError)
        -> T
    {
        guard let text = value(name) else { return fallback }
        return try T(choosing: text)
    }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// Bad usage: exit 2 with this message.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
