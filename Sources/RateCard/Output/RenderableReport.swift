/// A command's result that renders itself in every `--format`: the one `render(_:bold:)`
/// switch, so a report only writes its four renderings. Renderers live beside their
/// model (`Type+Formats.swift`) and only format figures the model computed.
protocol RenderableReport {
    /// Aligned columns for a terminal; `bold` marks headings (never under `NO_COLOR`).
    func renderTable(bold: Bool) -> String
    /// Exact decimal strings, a stable key order.
    func renderJSON() -> String
    /// RFC 4180, one header row.
    func renderCSV() -> String
    /// GitHub-flavoured Markdown tables.
    func renderMarkdown() -> String
    /// Warnings to print on stderr before the data (compiler style); none by default.
    var warnings: [Diagnostic] { get }
    /// How the run ends when it printed its result: 0, or 1 when it holds findings.
    var exitCode: Int32 { get }
}

extension RenderableReport {
    var warnings: [Diagnostic] { [] }
    var exitCode: Int32 { 0 }

    func render(_ format: OutputFormat, bold: Bool = false) -> String {
        switch format {
        case .table: renderTable(bold: bold)
        case .json: renderJSON()
        case .csv: renderCSV()
        case .markdown: renderMarkdown()
        }
    }
}
