/// One input of `margin pnl`: a file, standard input, or bytes in memory (tests).
public struct TakingsInput: Sendable {
    public enum Source: Sendable {
        case file(String)
        case standardInput
        case bytes([UInt8])
    }

    /// The name shown in messages (`-` for standard input).
    public let path: String
    public let source: Source
    /// A forced format (`--input-format`), or nil to detect it from the content.
    public let format: TakingsFormat?

    /// A path as given on the command line: `-` is standard input.
    public init(path: String, format: TakingsFormat? = nil) {
        self.path = path
        self.source = path == "-" ? .standardInput : .file(path)
        self.format = format
    }

    public init(name: String, bytes: [UInt8], format: TakingsFormat? = nil) {
        self.path = name
        self.source = .bytes(bytes)
        self.format = format
    }

    public init(name: String, text: String, format: TakingsFormat? = nil) {
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

/// Why an input could not be read at all (exit 2), as opposed to a rejected line.
public struct TakingsInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): error: \(message)" }
}
