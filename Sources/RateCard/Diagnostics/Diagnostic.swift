/// One finding about an input file, printed compiler-style:
/// `path:line:column: error: message [rule]`.
public struct Diagnostic: Sendable, Hashable, Comparable, Error {
    enum Severity: String, Sendable, Hashable, Comparable {
        case error
        case warning
        case note

        static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }

        /// Errors first, then warnings, then notes.
        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }
    }

    let path: String
    let location: SourceLocation
    let severity: Severity
    let message: String
    /// The rule it reports (printed as `[price-step]`), or nil for load errors.
    let rule: DiagnosticRule?
    /// The rule's id (`price-step`), or nil for load errors.
    var ruleID: String? { rule?.id }

    init(
        path: String, location: SourceLocation = .start, severity: Severity = .error,
        message: String, rule: DiagnosticRule? = nil
    ) {
        self.path = path
        self.location = location
        self.severity = severity
        self.message = message
        self.rule = rule
    }

    /// `path:line:column: error: message [rule]`
    public var rendered: String {
        var s =
            location == .wholeFile
            ? "\(path): \(severity.rawValue): \(message)"
            : "\(path):\(location.line):\(location.column): \(severity.rawValue): \(message)"
        if let rule { s += " [\(rule.id)]" }
        return s
    }

    /// `rendered`, with the place in bold and the severity in its colour (red errors,
    /// yellow warnings, cyan notes) when `colour` is true, for a terminal.
    public func rendered(colour: Bool) -> String {
        guard colour else { return rendered }
        let code = severity == .error ? "31" : (severity == .warning ? "33" : "36")
        var s =
            "\u{1B}[1m\(path):\(location.line):\(location.column):\u{1B}[0m \u{1B}[\(code)m\(severity.rawValue):\u{1B}[0m \(message)"
        if let rule { s += " [\(rule.id)]" }
        return s
    }

    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        (lhs.path, lhs.location, lhs.severity, lhs.message) < (
            rhs.path, rhs.location, rhs.severity, rhs.message
        )
    }
}

extension Diagnostic: CustomStringConvertible {
    public var description: String { rendered }
}

/// Several findings at once: loading collects every problem in a file before it stops.
struct Diagnostics: Error, Sendable, Hashable {
    let items: [Diagnostic]

    init(_ items: [Diagnostic]) {
        self.items = items.sorted()
    }
}

extension Diagnostics: CustomStringConvertible {
    var description: String { items.map(\.rendered).joined(separator: "\n") }
}
