/// How a run that cannot give its result ends. The command-line tool turns it into the exit
/// code (findings 1, the rest 2); the library never exits.
public enum FailureClass: Sendable, Hashable {
    /// Findings about the input: a card that lets credits be used for free, a stale report,
    /// a check that failed. Exit 1.
    case findings
    /// The request itself is wrong (an unknown option value, a missing operand): the usage
    /// line is printed after the message. Exit 2.
    case usage
    /// The input cannot be read, or cannot answer the request. Exit 2.
    case unreadable

    public var exitCode: Int32 { self == .findings ? 1 : 2 }
}

/// An error that knows how it is shown: its located diagnostics (`path:line:column: error:
/// message [rule]`), a closing message, and how the run ends. Every error the library throws
/// to a command adopts it, so the command-line tool maps errors in one place.
public protocol DiagnosedError: Error {
    /// The findings, each with its file, line, column and rule; empty when only the
    /// message is said.
    var diagnostics: [Diagnostic] { get }
    /// Said after the diagnostics as `margin: error: summary`; nil for none.
    var summary: String? { get }
    var failureClass: FailureClass { get }
}

/// A run that cannot give its result: the findings, a closing message and how it ends. The
/// general `DiagnosedError` for code that has no error type of its own.
struct RunFailure: DiagnosedError, Sendable, Hashable, CustomStringConvertible {
    let diagnostics: [Diagnostic]
    let summary: String?
    let failureClass: FailureClass

    init(
        _ diagnostics: [Diagnostic] = [], message: String? = nil,
        failureClass: FailureClass = .unreadable
    ) {
        self.diagnostics = diagnostics.sorted()
        self.summary = message
        self.failureClass = failureClass
    }

    init(_ message: String, failureClass: FailureClass = .unreadable) {
        self.init([], message: message, failureClass: failureClass)
    }

    /// The problems of loading `what` ("the rate-card files"), counted in the message.
    static func problems(_ items: [Diagnostic], in what: String) -> RunFailure {
        RunFailure(
            items, message: "\(items.count) problem\(items.count == 1 ? "" : "s") in \(what)")
    }

    var description: String {
        (diagnostics.map(\.rendered) + (summary.map { [$0] } ?? [])).joined(separator: "\n")
    }
}

extension UsageError: DiagnosedError {
    public var diagnostics: [Diagnostic] { [] }
    public var failureClass: FailureClass { .usage }
    public var summary: String? { message }
}

extension Diagnostics: DiagnosedError {
    var diagnostics: [Diagnostic] { items }
    var summary: String? { nil }
    var failureClass: FailureClass { .unreadable }
}

extension PnLError: DiagnosedError {
    var diagnostics: [Diagnostic] {
        if case .diagnostics(let items) = self { return items }
        return []
    }
    var summary: String? {
        switch self {
        case .usage(let m), .valuation(let m): m
        case .diagnostics: nil
        }
    }
    var failureClass: FailureClass {
        if case .usage = self { return .usage }
        return .unreadable
    }
}

extension SQLCompileError: DiagnosedError {
    var diagnostics: [Diagnostic] { [] }
    var summary: String? { description }
    var failureClass: FailureClass {
        if case .usage = self { return .usage }
        return .unreadable
    }
}

extension Diagnostic: DiagnosedError {
    public var diagnostics: [Diagnostic] { [self] }
    public var summary: String? { nil }
    public var failureClass: FailureClass { .unreadable }
}
