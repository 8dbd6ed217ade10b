/// Reads roll-up summaries: takings already summed per feature key and period, as the
/// opt-in roll-up of seed 000 sends them from many devices.
///
/// JSON Lines, one `{"rollup": {...}}` per line, or CSV with a header naming the same
/// fields. Fields: `period` (required: `2026-11-29` a day, `2026-W48` an ISO week,
/// `2026-11` a month), `tz` (the offset the period is drawn in, default `Z`), `feature`,
/// `charges`, `charged`, `declines`, `givenBack`, `grants`, `granted`, `topups`,
/// `toppedUp` (whole numbers, zero when absent; credits positive), and `id` (optional:
/// rows with the same id are de-duplicated like entries). Rows add up.
enum RollupReader {
    struct Rollup: Sendable, Hashable {
        var id: String?
        var period: String
        var since: Timestamp
        var until: Timestamp
        var feature: String?
        var charges: Int128 = 0
        var charged: Int128 = 0
        var declines: Int128 = 0
        var givenBack: Int128 = 0
        var grants: Int128 = 0
        var granted: Int128 = 0
        var topups: Int128 = 0
        var toppedUp: Int128 = 0

        var contentHash: UInt64 {
            var h = ContentHasher()
            h.add(rollupPeriod: period)
            h.add(.at, seconds: since.seconds, nanoseconds: 0)
            if let feature { h.add(.feature, string: feature) }
            for (k, v) in [
                charges, charged, declines, givenBack, grants, granted, topups, toppedUp,
            ].enumerated() {
                h.add(.amount, integer: Int64(truncatingIfNeeded: v) &+ Int64(k) << 60)
            }
            return h.value
        }
    }

    struct Row {
        let line: Int
        /// nil for a blank line.
        let result: Result<Rollup, LineProblem>?
    }

    static let numberFields = [
        "charges", "charged", "declines", "givenBack", "grants", "granted", "topups", "toppedUp",
    ]

    static func jsonLines(_ bytes: inout BufferedBytes) -> [Row] {
        var rows: [Row] = []
        var line = 0
        while let (text, newline) = bytes.nextLine() {
            line += 1
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                rows.append(Row(line: line, result: nil))
                continue
            }
            rows.append(
                Row(
                    line: line,
                    result: Result { () throws(LineProblem) in
                        try parse(jsonLine: text, lastWithoutNewline: !newline)
                    }))
        }
        return rows
    }

    static func parse(jsonLine text: [UInt8], lastWithoutNewline: Bool) throws(LineProblem)
        -> Rollup
    {
        let node: JSONNode
        do {
            node = try JSONParser.parse(text)
        } catch {
            let truncated =
                error.message.contains("truncated") || error.message.contains("end of file")
            throw LineProblem(
                truncated ? .truncated : .malformedJSON,
                (truncated && lastWithoutNewline ? "truncated last line: " : "") + error.message,
                column: error.location.column)
        }
        guard let outer = node.members,
            let inner = outer.first(where: { $0.key == "rollup" })?.value
        else {
            throw LineProblem(
                .missingField,
                "rollup: missing required field (a roll-up line is {\"rollup\": {...}})")
        }
        guard let members = inner.members else {
            throw LineProblem(
                .wrongType, "rollup: expected an object, found \(inner.value.kindName)",
                column: inner.location.column)
        }
        var cells: [String: String] = [:]
        var columns: [String: Int] = [:]
        for m in members {
            columns[m.key] = m.value.location.column
            switch m.value.value {
            case .string(let s): cells[m.key] = s
            case .number(let s): cells[m.key] = s
            case .null: break
            default:
                throw LineProblem(
                    .wrongType,
                    "rollup.\(m.key): expected a string or a number, found \(m.value.value.kindName)",
                    column: m.value.location.column)
            }
        }
        return try rollup(cells, columns: columns)
    }

    static func csv(_ bytes: inout BufferedBytes) -> [Row] {
        var reader = CSVRecordReader(bytes)
        defer { bytes = reader.bytes }
        guard let head = reader.next() else { return [] }
        let header = head.fields.map {
            String(decoding: $0, as: UTF8.self).trimmingWhitespaceString
        }
        var rows: [Row] = []
        while let record = reader.next() {
            if let problem = record.problem {
                rows.append(Row(line: record.line, result: .failure(problem)))
                continue
            }
            guard record.fields.count == header.count else {
                rows.append(
                    Row(
                        line: record.line,
                        result: .failure(
                            LineProblem(
                                .malformedJSON,
                                "the row has \(record.fields.count) fields, the header has \(header.count)"
                            ))))
                continue
            }
            var cells: [String: String] = [:]
            for (name, cell) in zip(header, record.fields) where !cell.isEmpty {
                cells[name] = String(decoding: cell, as: UTF8.self)
            }
            rows.append(
                Row(
                    line: record.line,
                    result: Result { () throws(LineProblem) in try rollup(cells) }))
        }
        return rows
    }

    /// A roll-up row from its cells; a problem with a field is reported at its column
    /// (`columns`: a JSON row's members; a CSV row's messages give the line, column 1).
    static func rollup(_ cells: [String: String], columns: [String: Int] = [:]) throws(LineProblem)
        -> Rollup
    {
        func at(_ name: String) -> Int { columns[name] ?? 1 }
        guard let period = cells["period"] else {
            throw LineProblem(.missingField, "period: missing required field")
        }
        var offset = 0
        if let tz = cells["tz"] {
            do { offset = try TakingsSeries.offset(tz) } catch {
                throw LineProblem(.badTimestamp, "tz: \(error)", column: at("tz"))
            }
        }
        guard let calendar = CalendarPeriod(label: period, offsetMinutes: offset) else {
            throw LineProblem(
                .badTimestamp,
                "period: \"\(FieldReader.excerpt(period))\" is not a day (2026-11-29), an ISO week (2026-W48) or a month (2026-11)",
                column: at("period"))
        }
        guard let since = calendar.since else {
            throw LineProblem(
                .badTimestamp,
                "period: \(FieldReader.excerpt(period)) at \(UTCOffset.text(offset)) starts before 0001-01-01T00:00:00Z, outside the years 0001 to 9999 in UTC",
                column: at("period"))
        }
        // The end may be past 9999-12-31T23:59:59Z (the last period runs to the end of the
        // range); it is only compared with, never written.
        let until = Timestamp(seconds: calendar.endSeconds)
        var r = Rollup(
            id: cells["id"], period: period + (offset == 0 ? "" : " (\(cells["tz"] ?? ""))"),
            since: since, until: until, feature: cells["feature"])
        var values: [Int128] = []
        for name in numberFields {
            guard let text = cells[name] else {
                values.append(0)
                continue
            }
            let v = try LedgerNumber.whole(text, name: name, column: at(name))
            guard v >= 0 else {
                throw LineProblem(
                    .wrongSign,
                    "\(name): a roll-up counts and sums are zero or more, found \(FieldReader.excerpt(text))",
                    column: at(name))
            }
            values.append(Int128(v))
        }
        (r.charges, r.charged, r.declines, r.givenBack) = (
            values[0], values[1], values[2], values[3]
        )
        (r.grants, r.granted, r.topups, r.toppedUp) = (values[4], values[5], values[6], values[7])
        if r.feature == nil, r.charges != 0 || r.charged != 0 || r.declines != 0 || r.givenBack != 0
        {
            throw LineProblem(
                .missingField, "feature: missing required field for a roll-up row with takings")
        }
        if let f = r.feature, f.isEmpty {
            throw LineProblem(.badValue, "feature: must not be empty", column: at("feature"))
        }
        // Declines are charges given back: there cannot be more of them, or more credits.
        if r.declines > r.charges {
            throw LineProblem(
                .impossibleRollup,
                "declines: \(r.declines) declines of \(r.charges) charges: a decline gives back a charge, so there cannot be more",
                column: at("declines"))
        }
        if r.givenBack > r.charged {
            throw LineProblem(
                .impossibleRollup,
                "givenBack: \(r.givenBack) credits given back of \(r.charged) charged: more than was charged",
                column: at("givenBack"))
        }
        return r
    }
}
