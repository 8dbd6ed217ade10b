/// The takings report as JSON, CSV, Markdown and a plain text table: the same numbers in
/// every format, from one model.
///
/// Credits are whole numbers in the card's credit unit. Money is exact in JSON
/// (canonical decimal strings) and rounded half-even to the currency's minor unit in the
/// formats for people. The decline rate is exact in JSON and CSV when its decimal
/// expansion terminates (otherwise rounded half-even to 12 places), a percentage with one
/// decimal (half-even) for people.
extension TakingsReport {
    // MARK: JSON

    /// Pretty-printed JSON with sorted keys. Per feature `feature`, `charges`, `charged`,
    /// `declines`, `givenBack`, `left` (integer strings), `declineRate`, `cost`; an `input`
    /// object with `lines`, `entries`, `duplicates`, `rejected`, `blank`.
    public func json(valuation: PnLValuation? = nil) -> String {
        var out = ""
        TakingsOutputJSON.object(jsonObject(valuation)).write(into: &out, indent: 0)
        return out + "\n"
    }

    private func jsonObject(_ v: PnLValuation?) -> [String: TakingsOutputJSON] {
        let jsonRow = { (r: Row) in Self.jsonRow(r, v) }
        var o: [String: TakingsOutputJSON] = [
            "window": .object([
                "name": .string(window.name),
                "since": window.since.map { .string($0.rfc3339UTC) } ?? .null,
                "until": window.until.map { .string($0.rfc3339UTC) } ?? .null,
            ]),
            "features": .array(rows.map { .object(jsonRow($0)) }),
            "totals": .object(jsonRow(totals)),
            "belowTheLine": .object([
                "grants": .string(String(belowTheLine.grants)),
                "granted": .string(String(belowTheLine.granted)),
                "topups": .string(String(belowTheLine.topups)),
                "toppedUp": .string(String(belowTheLine.toppedUp)),
                "topupMoney": .array(belowTheLine.topupMoney.map {
                    .object(["currency": .string($0.currency.code), "amount": .string($0.amount.decimalText())])
                }),
                "outstanding": .string(String(belowTheLine.outstanding)),
            ]),
            "input": .object([
                "lines": .number(input.lines),
                "entries": .number(input.entries),
                "duplicates": .number(input.duplicates),
                "rejected": .number(input.rejected),
                "blank": .number(input.blank),
                "inWindow": .number(input.inWindow),
                "rejectedByClass": .object(Dictionary(uniqueKeysWithValues: input.rejectedByClass.map { ($0.key.rawValue, TakingsOutputJSON.number($0.value)) })),
            ]),
            "rejections": .array(rejections.map {
                .object(["path": .string($0.place.path), "line": .number($0.place.line), "column": .number($0.place.column),
                         "reason": .string($0.reason.rawValue), "message": .string($0.message)])
            }),
            "unknownFeatures": .array(unknownFeatures.map { .string($0) }),
            "warnings": .array(warnings.map { .string($0.rendered) }),
            "errors": .array(errors.map { .string($0.rendered) }),
            "costCurrency": costCurrency.map { .string($0.code) } ?? .null,
        ]
        if let v {
            var valuation: [String: TakingsOutputJSON] = [
                "currency": .string(v.currency.code),
                "perCredit": .string(v.credit.perCredit.amount.decimalText()),
                "basis": .string(v.credit.basis),
                "stated": .string(v.credit.stated ? "true" : "false"),
                "meteredCosts": .string(v.meteredNote),
            ]
            if let note = v.fixedCostNote { valuation["fixedCosts"] = .string(note) }
            o["valuation"] = .object(valuation)
        }
        if let chargeAudit {
            o["chargeAudit"] = .object([
                "mismatches": .string(String(chargeAudit.mismatches)),
                "missingQuantity": .string(String(chargeAudit.missingQuantity)),
                "unchecked": .string(String(chargeAudit.unchecked)),
                "features": .array(chargeAudit.features.map { f in
                    .object([
                        "feature": .string(f.feature), "checked": .string(String(f.checked)), "mismatches": .string(String(f.mismatches)),
                        "overCharged": .string(String(f.overCharged)), "underCharged": .string(String(f.underCharged)),
                        "missingQuantity": .string(String(f.missingQuantity)), "unchecked": .string(String(f.unchecked)),
                        "costIncomplete": .string(f.costIncomplete ? "true" : "false"),
                        "findings": .array(f.findings.map { x in
                            .object(["place": .string(x.place.description), "charged": .string(String(x.charged)),
                                     "expected": x.expected.map { .string(String($0)) } ?? .null, "message": .string(x.message)])
                        }),
                    ])
                }),
            ])
        }
        if let series {
            o["series"] = .object(["by": .string(series.period.rawValue), "offsetMinutes": .number(series.offsetMinutes)])
            o["periods"] = .array(periods.map {
                .object(["period": .string($0.label), "since": $0.since.map { .string($0.rfc3339UTC) } ?? .null, "until": $0.until.map { .string($0.rfc3339UTC) } ?? .null,
                         "features": .array($0.rows.map { .object(jsonRow($0)) }), "totals": .object(jsonRow($0.totals))])
            })
        }
        return o
    }

    private static func jsonRow(_ r: Row, _ v: PnLValuation?) -> [String: TakingsOutputJSON] {
        var o: [String: TakingsOutputJSON] = [
            "feature": .string(r.feature),
            "charges": .string(String(r.charges)),
            "charged": .string(String(r.charged)),
            "declines": .string(String(r.declines)),
            "givenBack": .string(String(r.givenBack)),
            "left": .string(String(r.left)),
            "declineRate": r.declineRate.map { .string($0.decimalText()) } ?? .null,
            "cost": r.cost.map { .string($0.amount.decimalText()) } ?? .null,
        ]
        if let v, let f = try? v.figures(r, fixed: try? v.fixedCost(for: r.feature)) {
            func text(_ m: Money) -> TakingsOutputJSON { .string(m.amount.decimalText()) }
            o["value"] = text(f.value)
            o["meteredCost"] = text(f.meteredCost)
            o["fixedCost"] = text(f.fixedCost)
            o["cost"] = text(f.cost)
            o["profit"] = text(f.profit)
            o["margin"] = f.margin.map { .string($0.decimalText()) } ?? .null
        }
        return o
    }

    // MARK: CSV

    /// One row per feature (and per period with a series), no totals row:
    /// `[period,]feature,charges,charged,declines,givenBack,left,declineRate,cost`.
    public func csv(valuation v: PnLValuation? = nil) -> String {
        var lines: [String] = []
        var head = ["feature", "charges", "charged", "declines", "givenBack", "left", "declineRate", "cost"]
        if v != nil { head += ["value", "meteredCost", "fixedCost", "profit", "margin", "currency"] }
        func cells(_ r: Row) -> [String] {
            var c = [Self.csvField(r.feature), String(r.charges), String(r.charged), String(r.declines), String(r.givenBack), String(r.left),
                     r.declineRate?.decimalText() ?? "", r.cost.map { $0.amount.decimalText() } ?? ""]
            if let v, let f = try? v.figures(r, fixed: try? v.fixedCost(for: r.feature)) {
                c[7] = f.cost.amount.decimalText()
                c += [f.value, f.meteredCost, f.fixedCost, f.profit].map { $0.amount.decimalText() }
                c += [f.margin?.decimalText() ?? "", v.currency.code]
            }
            return c
        }
        if series != nil {
            lines.append((["period"] + head).joined(separator: ","))
            for p in periods {
                for r in p.rows { lines.append(([p.label] + cells(r)).joined(separator: ",")) }
            }
        } else {
            lines.append(head.joined(separator: ","))
            for r in rows { lines.append(cells(r).joined(separator: ",")) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
    }

    // MARK: For people

    private func columns(_ v: PnLValuation?) -> [String] {
        let base = ["feature", "charges", "charged", "declines", "given back", "left", "decline rate"]
        if let v {
            let c = v.currency.code
            return base + ["value (\(c))", "cost (\(c))", "profit (\(c))", "margin"]
        }
        return base + (costCurrency.map { ["cost (\($0.code))"] } ?? [])
    }

    private func cells(_ r: Row, _ v: PnLValuation?) -> [String] {
        var c = [r.feature, String(r.charges), String(r.charged), String(r.declines), String(r.givenBack), String(r.left), Self.percent(r.declineRate)]
        if let v {
            if let f = try? v.figures(r, fixed: try? v.fixedCost(for: r.feature)) {
                c += [f.value, f.cost, f.profit].map { $0.formatted(rule: .halfEven) } + [Self.percent(f.margin)]
            } else {
                c += ["–", "–", "–", "–"]
            }
        } else if costCurrency != nil {
            c.append(r.cost?.formatted(rule: .halfEven) ?? "–")
        }
        return c
    }

    private func valuationLines(_ v: PnLValuation?) -> [String] {
        guard let v else { return [] }
        var lines = ["value: \(v.credit.perCredit) per credit (\(v.credit.basis))", "metered costs: \(v.meteredNote)"]
        if let f = v.fixedCostNote { lines.append("fixed costs: \(f)") }
        lines.append("money rounded half-even to the currency's minor unit; margin = profit ÷ value")
        return lines
    }

    static func percent(_ rate: Exact?) -> String {
        guard let rate, let hundred = try? rate.multiplied(by: Exact(100)),
              let text = try? hundred.formatted(scale: 1, rule: .halfEven) else { return "–" }
        return text + "%"
    }

    private var headline: String {
        "Takings by feature, window \(window.name)"
            + (window.since.map { " from \($0.rfc3339UTC)" } ?? "") + (window.until.map { " until \($0.rfc3339UTC)" } ?? "")
            + ". Credits are in the card's credit unit."
    }

    private var belowLines: [String] {
        var lines = [
            "grants: \(belowTheLine.grants) (\(belowTheLine.granted) credits)",
            "top-ups: \(belowTheLine.topups) (\(belowTheLine.toppedUp) credits"
                + (belowTheLine.topupMoney.isEmpty ? ")" : "; " + belowTheLine.topupMoney.map { "\($0.currency.code) \($0.formatted(rule: .halfEven))" }.joined(separator: ", ") + ")"),
            "outstanding balance: \(belowTheLine.outstanding) credits (granted or bought and not yet spent: a liability)",
        ]
        if !unknownFeatures.isEmpty { lines.append("unknown feature keys: " + unknownFeatures.joined(separator: ", ")) }
        if let a = chargeAudit {
            let checked = a.features.reduce(0) { $0 + $1.checked }
            let over = a.features.reduce(Int128(0)) { $0 &+ $1.overCharged }, under = a.features.reduce(Int128(0)) { $0 &+ $1.underCharged }
            var audit = "charge audit: \(checked) charges checked against the card, \(a.mismatches) differ"
                + (a.mismatches > 0 ? " (over-charged \(over) credits, under-charged \(under))" : "")
            if a.missingQuantity > 0 { audit += "; \(a.missingQuantity) without a quantity" }
            if a.unchecked > 0 { audit += "; \(a.unchecked) cannot be checked" }
            lines.append(audit)
            let incomplete = a.features.filter(\.costIncomplete).map(\.feature)
            if !incomplete.isEmpty { lines.append("metered cost incomplete (charges without a quantity): " + incomplete.joined(separator: ", ")) }
        }
        return lines
    }

    private var inputLine: String {
        "input: \(input.lines) lines read = \(input.entries) entries used + \(input.duplicates) duplicates + \(input.rejected) rejected + \(input.blank) blank; \(input.inWindow) entries in the window"
    }

    /// A Markdown report: the table with a totals row, the series, below the line, the
    /// input accounting, the first rejections and the warnings.
    public func markdown(valuation v: PnLValuation? = nil) -> String {
        var out: [String] = ["# Takings by feature", "", headline, ""]
        let columns = columns(v)
        func table(_ rows: [Row], _ totals: Row) {
            out.append("| " + columns.joined(separator: " | ") + " |")
            out.append("|" + columns.enumerated().map { $0.offset == 0 ? "---|" : "---:|" }.joined())
            for r in rows { out.append("| " + cells(r, v).map(Self.markdownCell).joined(separator: " | ") + " |") }
            out.append("| " + cells(totals, v).map { "**\(Self.markdownCell($0))**" }.joined(separator: " | ") + " |")
        }
        table(rows, totals)
        for p in periods {
            out += ["", "## \(p.label)", ""]
            table(p.rows, p.totals)
        }
        if v != nil { out += [""] + valuationLines(v).map { "- " + $0 } }
        out += ["", "## Below the line", ""] + belowLines.map { "- " + $0 }
        out += ["", "## Input", "", "- " + inputLine]
        for r in rejections { out.append("- `\(r.place.path):\(r.place.line)`: \(r.message) [\(r.reason.rawValue)]") }
        if input.rejected > rejections.count { out.append("- … and \(input.rejected - rejections.count) more rejected") }
        if !errors.isEmpty || !warnings.isEmpty {
            out += ["", "## Findings", ""]
            for d in errors + warnings { out.append("- `\(d.rendered)`") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func markdownCell(_ s: String) -> String { s.replacingAll("|", with: "\\|") }

    /// A plain text table for a terminal: columns aligned, numbers right-aligned.
    public func table(valuation v: PnLValuation? = nil) -> String {
        var out: [String] = [headline, ""]
        let columns = columns(v)
        func block(_ rows: [Row], _ totals: Row) {
            let all = [columns] + rows.map { cells($0, v) } + [cells(totals, v)]
            let widths = columns.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
            func line(_ cells: [String]) -> String {
                cells.enumerated().map { c, text in
                    let pad = String(repeating: " ", count: widths[c] - text.count)
                    return c == 0 ? text + pad : pad + text
                }.joined(separator: "  ")
            }
            out.append(line(columns))
            out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            for r in rows { out.append(line(cells(r, v))) }
            out.append(line(cells(totals, v)))
        }
        block(rows, totals)
        for p in periods {
            out += ["", p.label]
            block(p.rows, p.totals)
        }
        out += [""] + valuationLines(v) + belowLines + [inputLine]
        return out.joined(separator: "\n") + "\n"
    }
}

/// A JSON value for output, written with sorted keys.
enum TakingsOutputJSON {
    case null
    case number(Int)
    case string(String)
    case array([TakingsOutputJSON])
    case object([String: TakingsOutputJSON])

    func write(into out: inout String, indent: Int) {
        var bytes: [UInt8] = []
        write(bytes: &bytes, indent: indent)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Writes into bytes rather than a string: no intermediate strings per value.
    private func write(bytes out: inout [UInt8], indent: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .number(let n): out.append(contentsOf: String(n).utf8)
        case .string(let s): TakingsJSONWriter.string(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out.append(contentsOf: "[]".utf8); return }
            out.append(contentsOf: "[\n".utf8)
            for (k, item) in items.enumerated() {
                Self.pad(&out, indent + 1)
                item.write(bytes: &out, indent: indent + 1)
                out.append(contentsOf: (k == items.count - 1 ? "\n" : ",\n").utf8)
            }
            Self.pad(&out, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { out.append(contentsOf: "{}".utf8); return }
            out.append(contentsOf: "{\n".utf8)
            let sorted = members.sorted { $0.key < $1.key }
            for (k, member) in sorted.enumerated() {
                Self.pad(&out, indent + 1)
                TakingsJSONWriter.string(member.key, into: &out)
                out.append(contentsOf: ": ".utf8)
                member.value.write(bytes: &out, indent: indent + 1)
                out.append(contentsOf: (k == sorted.count - 1 ? "\n" : ",\n").utf8)
            }
            Self.pad(&out, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func pad(_ out: inout [UInt8], _ levels: Int) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * levels))
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
