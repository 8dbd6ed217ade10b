/// A tab-separated report of App Store Connect (sales and financial reports): a header row
/// naming the columns, then one row per line; no quoting. A UTF-8 byte-order mark and CRLF
/// line ends are accepted. Reading stops at the first blank line: what follows in a
/// financial report is Apple's totals (`Total_Rows`, `Total_Amount`, …), not sales.
struct AppleTabFile {
    struct Cell {
        let text: String
        /// 1-based byte offset of the cell in its line.
        let column: Int
    }

    struct Row {
        let line: Int
        let cells: [Cell]
    }

    let path: String
    let columns: [String: Int]
    let rows: [Row]

    /// Reads `bytes`, requiring every column of `required` in the header (`report` names
    /// the kind of report in the message).
    static func read(_ bytes: [UInt8], path: String, required: [String], report: String)
        throws(AppleRecordError) -> AppleTabFile
    {
        let bytes = try AppleProblems.gunzipped(bytes, path: path)
        let lines = AppleTransactionReader.splitLines(bytes)
        guard let headerLine = lines.first, !headerLine.bytes.isEmpty else {
            throw AppleRecordError(
                path: path, line: 1, column: 1, "the file is empty: expected a \(report) header row"
            )
        }
        let header = cells(headerLine.bytes)
        var columns: [String: Int] = [:]
        for (k, c) in header.enumerated() where columns[c.text] == nil { columns[c.text] = k }
        let missing = required.filter { columns[$0] == nil }
        if !missing.isEmpty {
            let hint =
                header.count == 1
                ? " (the header has no tabs: Apple's reports are tab-separated)" : ""
            throw AppleRecordError(
                path: path, line: 1, column: 1,
                "wrong column set for a \(report): missing \(missing.map { "\"\($0)\"" }.joined(separator: ", "))\(hint)"
            )
        }
        var problems = AppleProblems(path: path)
        var rows: [Row] = []
        for (k, line) in lines.enumerated().dropFirst() {
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { break }
            let row = cells(line.bytes)
            guard row.count == header.count else {
                problems.add(
                    line: k + 1, column: 1,
                    "the row has \(row.count) fields, the header has \(header.count)")
                continue
            }
            rows.append(Row(line: k + 1, cells: row))
        }
        try problems.check()
        return AppleTabFile(path: path, columns: columns, rows: rows)
    }

    static func cells(_ line: ArraySlice<UInt8>) -> [Cell] {
        var out: [Cell] = []
        var start = line.startIndex
        for k in line.indices where line[k] == 0x09 {
            out.append(
                Cell(
                    text: String(decoding: line[start..<k], as: UTF8.self),
                    column: start - line.startIndex + 1))
            start = k + 1
        }
        out.append(
            Cell(
                text: String(decoding: line[start..<line.endIndex], as: UTF8.self),
                column: start - line.startIndex + 1))
        return out
    }

    func cell(_ row: Row, _ name: String) -> Cell? {
        columns[name].map { row.cells[$0] }
    }
}

/// Typed reading of one row's cells; each problem names the column and its place.
struct AppleRowReader {
    let file: AppleTabFile
    let row: AppleTabFile.Row
    var problems: AppleProblems
    private(set) var ok = true

    init(_ file: AppleTabFile, _ row: AppleTabFile.Row, _ problems: AppleProblems) {
        self.file = file
        self.row = row
        self.problems = problems
    }

    mutating func fail(_ name: String, _ message: String) {
        ok = false
        problems.add(
            line: row.line, column: file.cell(row, name)?.column ?? 1, "\(name): \(message)")
    }

    mutating func text(_ name: String, required: Bool = true) -> String? {
        let t = file.cell(row, name)?.text.trimmingWhitespaceString ?? ""
        if t.isEmpty {
            if required { fail(name, "empty") }
            return nil
        }
        return t
    }

    /// A decimal as Apple writes it: an optional `-`, digits, a point and digits; a
    /// leading point (`.70`, `-.99`) is Apple's and accepted.
    mutating func decimal(_ name: String) -> Exact? {
        guard let t = text(name) else { return nil }
        var s = t
        if s.hasPrefix(".") { s = "0" + s } else if s.hasPrefix("-.") { s = "-0" + s.dropFirst() }
        do { return try Exact(decimal: s) } catch {
            if error == .tooManyDigits {
                fail(name, "\"\(FieldReader.excerpt(t))\" is too large (overflow: \(error))")
            } else {
                fail(name, "\"\(FieldReader.excerpt(t))\" is not a decimal amount (\(error))")
            }
            return nil
        }
    }

    /// A whole number, written with or without places of zeros (`3`, `-1.00`).
    mutating func whole(_ name: String, what: String) -> Int64? {
        guard let v = decimal(name) else { return nil }
        guard let n = v.integerValue else {
            fail(name, "\"\(v.decimalText())\" is not a whole number of \(what)")
            return nil
        }
        guard let i = Int64(exactly: n) else {
            fail(
                name,
                "\"\(v.decimalText())\" is too large for a number of \(what) (overflow: the largest is \(Int64.max))"
            )
            return nil
        }
        return i
    }

    mutating func currency(_ name: String) -> Currency? {
        guard let t = text(name) else { return nil }
        guard let c = Currency(code: t) else {
            fail(name, "\"\(FieldReader.excerpt(t))\" is not an ISO 4217 currency code")
            return nil
        }
        return c
    }

    /// Apple's `MM/DD/YYYY`.
    mutating func date(_ name: String) -> CalendarDate? {
        guard let t = text(name) else { return nil }
        let parts = t.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 2, parts[1].count == 2, parts[2].count == 4,
            let m = Int(parts[0]), let d = Int(parts[1]), let y = Int(parts[2]),
            let date = CalendarDate(year: y, month: m, day: d)
        else {
            fail(name, "\"\(FieldReader.excerpt(t))\" is not a date MM/DD/YYYY")
            return nil
        }
        return date
    }
}
