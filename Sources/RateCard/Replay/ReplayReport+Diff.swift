/// `margin diff OLD NEW --usage FILE…`: the replay of the usage under NEW against OLD, as a
/// section after the diff in the same format. JSON becomes one object with the diff and
/// the replay side by side (`{"diff": …, "usage": …}`), so the output stays one document;
/// CSV has one table per document and is refused by the command.
extension ReplayReport {
    func appended(toDiff diff: String, format: OutputFormat, bold: Bool) -> String {
        switch format {
        case .table:
            return diff + "\nUsage replayed\n" + renderTable(bold: bold)
        case .markdown:
            return diff + "\n## Usage replayed\n\n" + renderMarkdown()
        case .json:
            func nested(_ text: String) -> String {
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                if lines.last == "" { lines.removeLast() }
                return lines.enumerated().map {
                    $0.offset == 0 ? String($0.element) : "  " + $0.element
                }
                .joined(separator: "\n")
            }
            return "{\n  \"diff\": \(nested(diff)),\n  \"usage\": \(nested(renderJSON()))\n}\n"
        case .csv:
            return diff + "\n" + renderCSV()
        }
    }
}
