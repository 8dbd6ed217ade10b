/// `margin pnl`'s four formats (`PnLReport+Text`, `PnLReport+JSON`) and its exit code.
extension PnLReport: RenderableReport {
    public func renderTable(bold: Bool) -> String { table(bold: bold) }
    public func renderJSON() -> String { json() }
    public func renderCSV() -> String { csv() }
    public func renderMarkdown() -> String { markdown() }

    /// 1 for the takings' findings (any rejection under `strict`) or a figure that could
    /// not be computed.
    public var exitCode: Int32 { hasFindings(strict: strict) ? 1 : 0 }
}
