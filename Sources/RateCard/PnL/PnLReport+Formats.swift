/// `margin pnl`'s four formats (`PnLReport+Text`, `PnLReport+JSON`) and its exit code.
/// With `--proceeds` the table and Markdown end with the proceeds section, the JSON has
/// it as `proceeds`, and the CSV is the proceeds section's rows (one header; the P&L's own
/// CSV is the run without `--proceeds`).
extension PnLReport: RenderableReport {
    func renderTable(bold: Bool) -> String {
        table(bold: bold) + (proceeds.map { "\n" + $0.renderTable(bold: bold) } ?? "")
    }
    func renderJSON() -> String {
        guard let proceeds else { return json() }
        var o = jsonObject()
        o["proceeds"] = proceeds.json
        return JSONOutput.object(o).rendered()
    }
    func renderCSV() -> String { proceeds?.renderCSV() ?? csv() }
    func renderMarkdown() -> String {
        markdown() + (proceeds.map { "\n" + $0.renderMarkdown() } ?? "")
    }

    /// 1 for the takings' findings (any rejection under `strict`) or a figure that could
    /// not be computed.
    var exitCode: Int32 { hasFindings(strict: strict) ? 1 : 0 }
}
