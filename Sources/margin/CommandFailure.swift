import RateCard

/// A command that cannot give its result: the findings to print, a closing message, and
/// the exit code (2: unreadable input or a request the data cannot answer; 1: findings,
/// such as a card that lets credits be used for free or a stale report).
struct CommandFailure: DiagnosedError {
    let diagnostics: [Diagnostic]
    let summary: String?
    let exitCode: Int32

    init(_ diagnostics: [Diagnostic] = [], message: String? = nil, exitCode: Int32 = 2) {
        self.diagnostics = diagnostics
        self.summary = message
        self.exitCode = exitCode
    }

    init(_ message: String, exitCode: Int32 = 2) {
        self.init([], message: message, exitCode: exitCode)
    }

    var failureClass: FailureClass { exitCode == 1 ? .findings : .unreadable }
}
