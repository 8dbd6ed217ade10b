/// The P&L for people (a plain table, Markdown) and for spreadsheets (CSV), built as
/// `TextTable`s from the figures `PnLReport` computed: the same numbers in every format.
///
/// Money is rounded once, here, half-even to the currency's minor unit; percentages
/// half-even to one place; a missing figure is `Format.missing`. CSV carries exact
/// decimals (`PnLReport.exact`). Feature keys come from the exports, so they are
/// untrusted text: neutralised against formula injection in CSV, escaped in Markdown.
/// With a card, credits are grouped by thousands for people and their unit is named.
extension PnLReport {
    /// The rounding of every money figure shown to people.
    static let displayRounding = RoundingRule.halfEven

    /// Exact decimal text, as JSON writes it (CSV uses the same).
    static func exact(_ v: Exact) -> String { v.decimalText() }

    // MARK: CSV

    /// One row per feature (and per period with a series), no totals row:
    /// `[period,]feature,charges,charged,declines,givenBack,left,declineRate,cost` and,
    /// when valued, `value,meteredCost,fixedCost,profit,margin,currency` (`cost` is then the
    /// metered plus the fixed cost). A missing figure is an empty cell.
    func csv() -> String {
        var columns: [TextTable.Column] =
            [.init("feature", .left, .untrusted)]
            + ["charges", "charged", "declines", "givenBack", "left", "declineRate", "cost"].map {
                .init($0, .right)
            }
        if valuation != nil {
            columns += ["value", "meteredCost", "fixedCost", "profit", "margin", "currency"].map {
                .init($0, .right)
            }
        }
        if takings.series != nil { columns.insert(.init("period"), at: 0) }
        var t = TextTable(columns)
        func cells(_ l: Line) -> [String] {
            let r = l.takings
            var c = [
                r.feature, String(r.charges), String(r.charged), String(r.declines),
                String(r.givenBack), String(r.left),
                r.declineRate.map(Self.exact) ?? "", r.cost.map { Self.exact($0.amount) } ?? "",
            ]
            if let v = valuation {
                if let f = l.figures {
                    c[7] = Self.exact(f.cost.amount)
                    c +=
                        [f.value, f.meteredCost, f.fixedCost, f.profit].map {
                            Self.exact($0.amount)
                        } + [f.margin.map(Self.exact) ?? ""]
                } else {
                    c[7] = ""
                    c += ["", "", "", "", ""]
                }
                c.append(v.currency.code)
            }
            return c
        }
        if takings.series != nil {
            for p in periods { for l in p.lines { t.append([p.label] + cells(l)) } }
        } else {
            for l in lines { t.append(cells(l)) }
        }
        return t.csv()
    }

    // MARK: For people

    /// A plain text table for a terminal: the window table, each period, then the notes.
    func table(bold: Bool = false) -> String {
        var out = [headline, ""]
        out.append(peopleTable(lines, totals).plain(bold: bold).dropLast().description)
        for p in periods {
            out += [
                "", p.label,
                peopleTable(p.lines, p.totals).plain(bold: bold).dropLast().description,
            ]
        }
        out += [""] + valuationLines + belowLines(CellText.terminalSafe) + [inputLine]
        return out.joined(separator: "\n") + "\n"
    }

    /// A Markdown report: the table with a totals row, the series, the valuation, below
    /// the line, the input accounting, the first rejections and the findings.
    func markdown() -> String {
        var out = [
            "# Takings by feature", "", headline, "",
            peopleTable(lines, totals).markdown().dropLast().description,
        ]
        for p in periods {
            out += [
                "", "## \(p.label)", "",
                peopleTable(p.lines, p.totals).markdown().dropLast().description,
            ]
        }
        if valuation != nil { out += [""] + valuationLines.map { "- " + $0 } }
        out +=
            ["", "## Below the line", ""] + belowLines(CellText.markdownEscaped).map { "- " + $0 }
        out += ["", "## Input", "", "- " + inputLine]
        for r in takings.rejections {
            out.append(
                "- \(Self.codeSpan("\(r.place.path):\(r.place.line)")): \(CellText.markdownEscaped(r.message)) [\(r.reason.rawValue)]"
            )
        }
        if rejectionsNotShown > 0 { out.append("- … and \(rejectionsNotShown) more rejected") }
        let findings = takings.errors + errors + takings.warnings
        if !findings.isEmpty {
            out += ["", "## Findings", ""]
            for d in findings { out.append("- " + Self.codeSpan(d.rendered)) }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Text as a Markdown code span, shown literally: a backtick or line break in it (which
    /// would end the span or the item) becomes a quote or a space.
    static func codeSpan(_ s: String) -> String {
        "`" + String(s.map { $0 == "`" ? "'" : ($0.isNewline ? " " : $0) }) + "`"
    }

    /// Credits and counts for people: grouped by thousands when a card names the unit,
    /// a negative one signed with `Format.minus` (as money and percentages below).
    func count(_ v: Int128) -> String {
        Format.humanMinus(valuation == nil ? String(v) : Format.grouped(v))
    }

    func money(_ m: Money) -> String { Format.humanMinus(m.formatted(rule: Self.displayRounding)) }

    func percent(_ v: Exact?) -> String {
        v.map { Format.humanMinus(Format.percent($0)) } ?? Format.missing
    }

    /// The rows of one table for people, with its totals row.
    func peopleTable(_ rows: [Line], _ totals: Line) -> TextTable {
        var columns: [TextTable.Column] =
            [.init("feature", .left, .untrusted)]
            + ["charges", "charged", "declines", "given back", "left", "decline rate"].map {
                .init($0, .right)
            }
        if let v = valuation {
            let c = v.currency.code
            columns += ["value (\(c))", "cost (\(c))", "profit (\(c))", "margin"].map {
                .init($0, .right)
            }
        } else if let c = takings.costCurrency {
            columns.append(.init("cost (\(c.code))", .right))
        }
        var t = TextTable(columns)
        for l in rows + [totals] {
            let r = l.takings
            var c = [
                l.isTotal ? "total" : r.feature, count(Int128(r.charges)), count(r.charged),
                count(Int128(r.declines)),
                count(r.givenBack), count(r.left), percent(r.declineRate),
            ]
            if valuation != nil {
                if let f = l.figures {
                    c += [money(f.value), money(f.cost), money(f.profit), percent(f.margin)]
                } else {
                    c += Array(repeating: Format.missing, count: 4)
                }
            } else if takings.costCurrency != nil {
                c.append(r.cost.map(money) ?? Format.missing)
            }
            t.append(c, emphasized: l.isTotal)
        }
        return t
    }

    var headline: String {
        let w = takings.window
        var s = "Takings by feature, window \(w.name)"
        if !w.name.contains(" to ") {
            s +=
                (w.since.map { " from \($0.rfc3339UTC)" } ?? "")
                + (w.until.map { " until \($0.rfc3339UTC)" } ?? "")
        }
        guard let unit = valuation?.creditUnit else {
            return s + ". Credits are in the card's credit unit."
        }
        let face = unit.faceValue.map { ", one worth \($0) at face value" } ?? ""
        return s + ". Credits are in the card's credit unit, the \(unit.name)\(face)."
    }

    /// The card versions, the value of a credit, how costs were computed, the FX rates and
    /// the rounding.
    var valuationLines: [String] {
        guard let v = valuation else { return [] }
        var lines: [String] = []
        if !v.versionsInForce.isEmpty {
            var s = "card: \(v.versionsInForce.joined(separator: ", ")) in force over the window"
            if let at = v.valuedAt, v.versionsInForce.count > 1 {
                s += "; credits valued at \(at), the lowest value per credit of these"
            }
            lines.append(s)
        }
        lines.append(
            "value: \(v.credit.perCredit) per \(v.creditUnit?.name ?? "credit") (\(v.valuedAt.map { "\($0): " } ?? "")\(v.credit.basis))"
        )
        lines.append("metered costs: \(v.meteredNote)")
        if let f = v.fixedCosts { lines.append("fixed costs: \(f.note)") }
        let fileRates = v.fxUsed.filter { !$0.fromCommandLine }
        let commandLineRates = v.fxUsed.filter(\.fromCommandLine)
        if !fileRates.isEmpty {
            lines.append(
                "FX" + (v.fxSource.map { " (\($0))" } ?? "") + ": "
                    + fileRates.map(\.description).joined(separator: ", "))
        }
        if !commandLineRates.isEmpty {
            lines.append(
                "FX given on the command line: "
                    + commandLineRates.map(\.description).joined(separator: ", "))
        }
        lines.append(
            "money rounded \(Self.displayRounding.displayName) to the currency's minor unit; \(PnLValuation.marginBasis)"
        )
        if let note = roundingNote { lines.append(note) }
        return lines
    }

    /// The note `diff` carries, when it applies: a rounded total (or profit) that is not the
    /// sum (or difference) of the rounded figures shown.
    var roundingNote: String? {
        guard valuation != nil else { return nil }
        var off: [String] = []
        for (rows, totals) in [(lines, totals)] + periods.map({ ($0.lines, $0.totals) }) {
            let figures = rows.compactMap(\.figures)
            guard let t = totals.figures, figures.count == rows.count else { continue }
            for (name, pick) in [
                ("value", \PnLValuation.Figures.value), ("cost", \.cost), ("profit", \.profit),
            ] where !off.contains(name) {
                var sum: Exact? = .zero
                for f in figures {
                    let shown = rounded(f[keyPath: pick])
                    sum = shown.flatMap { x in sum.flatMap { try? $0.adding(x) } }
                }
                if let sum, let total = rounded(t[keyPath: pick]), sum != total {
                    off.append(name)
                }
            }
            for f in figures + [t] where !off.contains("profit of a row") {
                if let v = rounded(f.value), let c = rounded(f.cost), let p = rounded(f.profit),
                    (try? v.subtracting(c)) != p
                {
                    off.append("profit of a row")
                }
            }
        }
        guard !off.isEmpty else { return nil }
        return
            "rounding: figures are computed exactly and then rounded, so a rounded total or profit can differ by a minor unit from the sum or difference of the rounded figures shown (here: \(off.joined(separator: ", ")))"
    }

    /// Money rounded as shown, as an exact value.
    func rounded(_ m: Money) -> Exact? {
        guard
            let text = try? m.amount.formatted(
                scale: m.currency.minorUnits, rule: Self.displayRounding)
        else { return nil }
        return try? Exact(decimal: text)
    }

    /// Grants, top-ups, the outstanding balance and the unknown feature keys (made safe for
    /// the format by `safe`: they come from the exports).
    func belowLines(_ safe: (String) -> String) -> [String] {
        let b = takings.belowTheLine
        let money =
            b.topupMoney.isEmpty
            ? ")"
            : "; "
                + b.topupMoney.map { "\($0.currency.code) \(self.money($0))" }.joined(
                    separator: ", ") + ")"
        var lines = [
            "grants: \(count(Int128(b.grants))) (\(count(b.granted)) credits)",
            "top-ups: \(count(Int128(b.topups))) (\(count(b.toppedUp)) credits" + money,
        ]
        if let v = valuation {
            let worth =
                outstandingValue.map {
                    "\($0.currency.code) \(self.money($0)) at \(v.credit.perCredit) per credit"
                } ?? "its value \(Format.missing)"
            lines.append(
                "outstanding balance: \(count(b.outstanding)) credits, \(worth) (granted or bought and not yet spent: a liability)"
            )
        } else {
            lines.append(
                "outstanding balance: \(count(b.outstanding)) credits (granted or bought and not yet spent: a liability)"
            )
        }
        if !takings.unknownFeatures.isEmpty {
            lines.append(
                "unknown feature keys: " + takings.unknownFeatures.map(safe).joined(separator: ", ")
            )
        }
        if let a = takings.chargeAudit {
            let checked = a.features.reduce(0) { $0 + $1.checked }
            let over = a.features.reduce(Int128(0)) { $0 &+ $1.overCharged }
            let under = a.features.reduce(Int128(0)) { $0 &+ $1.underCharged }
            var audit =
                "charge audit: \(count(Int128(checked))) charges checked against the card, \(count(Int128(a.mismatches))) differ"
                + (a.mismatches > 0
                    ? " (over-charged \(count(over)) credits, under-charged \(count(under)))" : "")
            if a.missingQuantity > 0 {
                audit += "; \(count(Int128(a.missingQuantity))) without a quantity"
            }
            if a.unchecked > 0 { audit += "; \(count(Int128(a.unchecked))) cannot be checked" }
            lines.append(audit)
            let incomplete = a.features.filter(\.costIncomplete).map(\.feature)
            if !incomplete.isEmpty {
                lines.append(
                    "metered cost incomplete (charges without a quantity): "
                        + incomplete.map(safe).joined(separator: ", "))
            }
        }
        return lines
    }

    var inputLine: String {
        let i = takings.input
        return
            "input: \(i.lines) lines read = \(i.entries) entries used + \(i.duplicates) duplicates + \(i.rejected) rejected + \(i.blank) blank; \(i.inWindow) entries in the window"
    }
}
