/// Everything `margin check` found, sorted, and what it means for the exit code.
struct CheckReport: Sendable, Hashable {
    /// Every finding and load problem, sorted by file, place, severity and message.
    let diagnostics: [Diagnostic]
    /// The rate-card files (cards, provider sheets, FX and commission files) that were read.
    let files: [String]
    /// True when an input could not be read or parsed, or the files do not form a
    /// repository (exit 2): some rules could not run.
    let unreadable: Bool

    init(diagnostics: [Diagnostic], files: [String], unreadable: Bool) {
        self.diagnostics = diagnostics.sorted()
        self.files = files
        self.unreadable = unreadable
    }

    var errorCount: Int { diagnostics.count { $0.severity == .error } }
    var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// 0 when nothing is an error (warnings allowed), 1 on any error finding, 2 when an
    /// input is unreadable or malformed.
    var exitCode: Int32 {
        if unreadable { return 2 }
        return errorCount > 0 ? 1 : 0
    }
}
