/// Apple's records could not be read: every problem found in the files, each at its file,
/// line and column and naming the field (`sales.txt:4:37: error: Units: "1.5" is not a
/// whole number of units`). Exit 2: a reconciliation over records read in part would
/// report purchases as missing that were only unreadable.
struct AppleRecordError: DiagnosedError, Sendable, Hashable, CustomStringConvertible {
    let diagnostics: [Diagnostic]

    init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics.sorted()
    }

    init(path: String, line: Int, column: Int, _ message: String) {
        self.init([
            Diagnostic(
                path: path, location: SourceLocation(line: line, column: column), message: message)
        ])
    }

    var summary: String? {
        let n = diagnostics.count
        return "\(n) problem\(n == 1 ? "" : "s") in Apple's records"
    }

    var failureClass: FailureClass { .unreadable }

    var description: String {
        (diagnostics.map(\.rendered) + (summary.map { [$0] } ?? [])).joined(separator: "\n")
    }
}

/// Where one Apple record was read: the file, and the line and column it starts at.
struct ApplePlace: Sendable, Hashable, Comparable, CustomStringConvertible {
    let path: String
    let line: Int
    let column: Int

    init(path: String, line: Int, column: Int = 1) {
        self.path = path
        self.line = line
        self.column = column
    }

    var description: String { "\(path):\(line)" }

    static func < (a: ApplePlace, b: ApplePlace) -> Bool {
        (a.path, a.line, a.column) < (b.path, b.line, b.column)
    }
}

/// Collects the problems of one Apple file, so that every bad field is reported at once.
struct AppleProblems {
    let path: String
    private(set) var items: [Diagnostic] = []

    init(path: String) { self.path = path }

    mutating func add(line: Int, column: Int, _ message: String) {
        items.append(
            Diagnostic(
                path: path, location: SourceLocation(line: line, column: column), message: message))
    }

    func check() throws(AppleRecordError) {
        if !items.isEmpty { throw AppleRecordError(items) }
    }

    /// The bytes of an Apple file, decompressed when they are gzip's (App Store Connect
    /// delivers its reports as `.txt.gz`): told by the magic bytes, not the name. A corrupt
    /// or cut-short gzip file is an error naming the file and the byte offset.
    static func gunzipped(_ bytes: [UInt8], path: String) throws(AppleRecordError) -> [UInt8] {
        guard Gzip.isGzip(bytes) else { return bytes }
        do { return try Gzip.decompress(bytes) } catch {
            throw AppleRecordError(
                path: path, line: 1, column: 1, "cannot decompress the gzip file: \(error)")
        }
    }
}
