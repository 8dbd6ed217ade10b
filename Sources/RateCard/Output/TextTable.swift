import Foundation

/// Rows and columns of text, rendered for people (aligned plain text, Markdown) or for
/// programs (CSV). Every command builds one of these from its model, so the same numbers
/// appear in every format.
public struct TextTable: Sendable, Hashable {
    public enum Alignment: Sendable, Hashable { case left, right }

    public struct Column: Sendable, Hashable {
        public let title: String
        public let alignment: Alignment

        public init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    public let columns: [Column]
    public private(set) var rows: [[String]] = []

    public init(_ columns: [Column]) {
        self.columns = columns
    }

    public mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a row needs one cell per column")
        rows.append(row)
    }

    /// Aligned columns separated by two spaces, with a rule under the header.
    public func plain(bold: Bool = false) -> String {
        var widths = columns.map { $0.title.count }
        for r in rows {
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
        lines.append(contentsOf: rows.map(line))
        return lines.joined(separator: "\n") + "\n"
    }

    /// A GitHub-flavoured Markdown table; `|` in cells is escaped.
    public func markdown() -> String {
        func esc(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        var lines = ["| " + columns.map { esc($0.title) }.joined(separator: " | ") + " |"]
        lines.append("|" + columns.map { $0.alignment == .right ? "---:" : "---" }.joined(separator: "|") + "|")
        for r in rows { lines.append("| " + r.map(esc).joined(separator: " | ") + " |") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 4180 CSV with a header row, CRLF-free (LF line ends), quoting where needed.
    public func csv() -> String {
        func q(_ s: String) -> String {
            if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
                return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return s
        }
        var lines = [columns.map { q($0.title) }.joined(separator: ",")]
        for r in rows { lines.append(r.map(q).joined(separator: ",")) }
        return lines.joined(separator: "\n") + "\n"
    }
}
