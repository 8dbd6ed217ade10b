/// A command's result that renders itself in every `--format`: the one `render(_:bold:)`
/// switch, so a new report only writes its four renderings. Renderers live beside their
/// model (`Type+Formats.swift`) and only format figures the model computed.
public protocol RenderableReport {
    /// Aligned columns for a terminal; `bold` marks headings (never under `NO_COLOR`).
    func table(bold: Bool) -> String
    /// Exact decimal strings, a stable key order.
    func json() -> String
    /// RFC 4180, one header row.
    func csv() -> String
    /// GitHub-flavoured Markdown tables.
    func markdown() -> String
    /// Warnings to print on stderr before the data (compiler style); none by default.
    var warnings: [Diagnostic] { get }
    /// How the run ends when it printed its result: 0, or 1 when it holds findings.
    var exitCode: Int32 { get }
}

extension RenderableReport {
    public var warnings: [Diagnostic] { [] }
    public var exitCode: Int32 { 0 }

    public func render(_ format: OutputFormat, bold: Bool = false) -> String {
        switch format {
        case .table: table(bold: bold)
        case .json: json()
        case .csv: csv()
        case .markdown: markdown()
        }
    }
}
