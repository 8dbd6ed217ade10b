import Foundation

/// Rows and columns of text, rendered for people (aligned plain text, Markdown) or for
/// programs (CSV). Every command builds one of these from its model, so the same numbers
/// appear in every format.
struct TextTable: Sendable, Hashable {
    enum Alignment: Sendable, Hashable { case left, right }

    /// What a column holds, which decides how its cells are written.
    enum Content: Sendable, Hashable {
        /// Text the tool wrote itself (labels, codes, figures): written as it is.
        case plain
        /// Text that came from an input file (a feature key from an export): neutralised
        /// against formula injection in CSV, escaped in Markdown, control characters
        /// replaced in plain text (`CellText`).
        case untrusted
    }

    struct Column: Sendable, Hashable {
        let title: String
        let alignment: Alignment
        let content: Content

        init(_ title: String, _ alignment: Alignment = .left, _ content: Content = .plain) {
            self.title = title
            self.alignment = alignment
            self.content = content
        }
    }

    let columns: [Column]
    private(set) var rows: [[String]] = []
    /// Rows shown in bold in Markdown (a totals row), by index.
    private(set) var emphasizedRows: Set<Int> = []

    init(_ columns: [Column]) {
        self.columns = columns
    }

    mutating func append(_ row: [String], emphasized: Bool = false) {
        // Rows are built by the renderers, never from input; a renderer that builds a short
        // or long row is a bug the tests (debug builds) stop at. A release build never traps:
        // a missing cell shows the missing glyph and no cell is dropped from view silently
        // (an extra one is kept in the last cell).
        assert(row.count == columns.count, "a row needs one cell per column")
        var cells = row
        if cells.count < columns.count {
            cells += Array(repeating: Format.missing, count: columns.count - cells.count)
        } else if cells.count > columns.count, let last = columns.indices.last {
            cells = Array(cells[..<last]) + [cells[last...].joined(separator: " ")]
        }
        if emphasized { emphasizedRows.insert(rows.count) }
        rows.append(cells)
    }

    /// The cells of row `r` with untrusted text made safe by `safe`, and for people
    /// (`human`) the tool's own figures signed with `Format.minus`.
    private func cells(_ r: [String], human: Bool, _ safe: (String) -> String) -> [String] {
        zip(columns, r).map {
            $0.content == .untrusted ? safe($1) : human ? Format.humanMinus($1) : $1
        }
    }

    /// Aligned columns separated by two spaces, with a rule under the header.
    func plain(bold: Bool = false) -> String {
        let shown = rows.map { cells($0, human: true, CellText.terminalSafe) }
        var widths = columns.map { $0.title.count }
        for r in shown {
            for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, c) in cells.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - c.count)
                let last = i == cells.count - 1
                parts.append(columns[i].alignment == .right ? pad + c : (last ? c : c + pad))
            }
            return parts.joined(separator: "  ")
        }
        var out = line(columns.map(\.title))
        if bold { out = "\u{1B}[1m" + out + "\u{1B}[0m" }
        var lines = [out, widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines.append(contentsOf: shown.map(line))
        return lines.joined(separator: "\n") + "\n"
    }

    /// A GitHub-flavoured Markdown table; `|` in cells is escaped, untrusted text fully
    /// (`CellText.markdownEscaped`); emphasized rows in bold.
    func markdown() -> String {
        func esc(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        var lines = ["| " + columns.map { esc($0.title) }.joined(separator: " | ") + " |"]
        lines.append(
            "|" + columns.map { $0.alignment == .right ? "---:" : "---" }.joined(separator: "|")
                + "|")
        for (i, r) in rows.enumerated() {
            var c = zip(columns, r).map {
                $0.content == .untrusted
                    ? CellText.markdownEscaped($1) : esc(Format.humanMinus($1))
            }
            if emphasizedRows.contains(i) { c = c.map { "**\($0)**" } }
            lines.append("| " + c.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 4180 CSV with a header row, CRLF-free (LF line ends), quoting where needed;
    /// untrusted text neutralised against formula injection (`CellText.csvNeutralised`).
    func csv() -> String {
        func q(_ s: String) -> String {
            if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
                return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return s
        }
        var lines = [columns.map { q($0.title) }.joined(separator: ",")]
        for r in rows {
            lines.append(
                cells(r, human: false, CellText.csvNeutralised).map(q).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
