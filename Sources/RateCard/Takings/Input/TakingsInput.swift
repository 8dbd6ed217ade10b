/// One input of `margin pnl`: a file, standard input, or bytes in memory (tests).
struct TakingsInput: Sendable {
    enum Source: Sendable {
        case file(String)
        case standardInput
        case bytes([UInt8])
    }

    /// The name shown in messages (`-` for standard input).
    let path: String
    let source: Source
    /// A forced format (`--input-format`), or nil to detect it from the content.
    let format: TakingsFormat?

    /// A path as given on the command line: `-` is standard input.
    init(path: String, format: TakingsFormat? = nil) {
        self.path = path
        self.source = path == "-" ? .standardInput : .file(path)
        self.format = format
    }

    init(name: String, bytes: [UInt8], format: TakingsFormat? = nil) {
        self.path = name
        self.source = .bytes(bytes)
        self.format = format
    }

    init(name: String, text: String, format: TakingsFormat? = nil) {
        self.init(name: name, bytes: Array(text.utf8), format: format)
    }
}

/// The kinds of takings input.
public enum TakingsFormat: String, Sendable, Hashable, CaseIterable {
    /// One ledger entry per line.
    case jsonLines = "jsonl"
    /// A device ledger file: one object whose `entries` array holds the entries.
    case ledgerDocument = "ledger"
    /// A header row naming the entry fields, `quantity.<dimension>` columns.
    case csv
    /// Takings already summed per feature and period, as JSON Lines `{"rollup": {…}}`.
    case rollupJSONLines = "rollup-jsonl"
    /// Takings already summed per feature and period, CSV with a `period` column.
    case rollupCSV = "rollup-csv"
}

/// Why an input could not be read at all (exit 2), as opposed to a rejected line: shown
/// compiler style, `path:line:column: error: message`, at the place the reading stopped
/// (line 1, column 1 when the problem is the file as a whole: its format, a temporary
/// directory, a full disk).
struct TakingsInputError: Error, Sendable, Hashable, CustomStringConvertible {
    let path: String
    let message: String
    let line: Int
    let column: Int

    init(path: String, message: String, line: Int = 1, column: Int = 1) {
        self.path = path
        self.message = message
        self.line = max(1, line)
        self.column = max(1, column)
    }

    var diagnostic: Diagnostic {
        Diagnostic(
            path: path, location: SourceLocation(line: line, column: column), severity: .error,
            message: message)
    }

    var description: String { diagnostic.rendered }
}

extension TakingsInputError: DiagnosedError {
    var diagnostics: [Diagnostic] { [diagnostic] }
    var summary: String? { nil }
    var failureClass: FailureClass { .unreadable }
}
