/// The profit and loss of a set of takings: every row's credits and, when valued, its
/// money figures, computed once here and only formatted by the renderers.
///
/// A figure that cannot be computed (an overflow) is nil in its row and an error in
/// `errors`: every format then shows the row with its money cells missing, never a
/// shorter row or a dropped column.
struct PnLReport: Sendable {
    /// One row: a feature's takings (or the totals) and its figures.
    struct Line: Sendable, Hashable {
        let takings: TakingsReport.Row
        /// Nil when the report is not valued, or when a figure overflowed.
        let figures: PnLValuation.Figures?
        /// The totals row, told by position rather than by name: a feature may be called
        /// "total".
        let isTotal: Bool
    }

    /// One period of a series.
    struct Period: Sendable, Hashable {
        let label: String
        /// Nil at the ends of the range (`TakingsReport.Period`).
        let since: Timestamp?
        let until: Timestamp?
        let lines: [Line]
        let totals: Line
    }

    /// What was read and summed.
    let takings: TakingsReport
    /// How credits were turned into money; nil for takings that were not valued.
    let valuation: PnLValuation?
    /// Per feature, sorted by key, one row each (every feature of the card versions in
    /// force and of the cost sheet, used or not).
    let lines: [Line]
    let totals: Line
    let periods: [Period]
    /// The outstanding balance at the value per credit.
    let outstandingValue: Money?
    /// Problems found while valuing (an overflow in a row's figures).
    let errors: [Diagnostic]
    /// Whether any rejection makes the run exit 1 (`PnLRequest.strict`).
    var strict = false
    /// The features' credits at Apple's proceeds, the liability and breakage
    /// (`--proceeds`); nil without it.
    var proceeds: ProceedsReport? = nil

    /// The window of the report (closed by a cost sheet when one was given).
    var window: TakingsWindow { takings.window }

    /// True when the run should exit 1: the takings' findings or a figure that could not
    /// be computed.
    func hasFindings(strict: Bool) -> Bool {
        takings.hasFindings(strict: strict) || !errors.isEmpty
    }

    /// Every diagnostic for standard error: the first rejections, warnings and errors, and
    /// with `--proceeds` what Apple's transactions files say (empty, repeated ids).
    var diagnostics: [Diagnostic] {
        takings.rejections.map(\.diagnostic) + takings.warnings + takings.errors + errors
            + (proceeds?.appleWarnings ?? [])
    }

    /// Rejections counted but not listed one by one.
    var rejectionsNotShown: Int { max(0, takings.input.rejected - takings.rejections.count) }

    /// Said on standard error after the diagnostics when some rejections are not listed.
    var closingNote: String? {
        rejectionsNotShown > 0
            ? "margin: \(rejectionsNotShown) more rejected lines not shown (all are counted)\n"
            : nil
    }
}

extension PnLReport {
    /// Takings that were not valued (no card): the rows as read, no money figures beyond
    /// the metered cost.
    init(takings: TakingsReport) {
        func line(_ r: TakingsReport.Row, total: Bool = false) -> Line {
            Line(takings: r, figures: nil, isTotal: total)
        }
        self.init(
            takings: takings, valuation: nil, lines: takings.rows.map { line($0) },
            totals: line(takings.totals, total: true),
            periods: takings.periods.map {
                Period(
                    label: $0.label, since: $0.since, until: $0.until,
                    lines: $0.rows.map { line($0) }, totals: line($0.totals, total: true))
            },
            outstandingValue: nil, errors: [])
    }

    /// Values `takings`: one row per feature of `features` (deduplicated) and per feature
    /// read, each row's figures computed once; a failure is an error diagnostic and a row
    /// without figures.
    init(takings: TakingsReport, valuation v: PnLValuation, features: [String]) {
        var errors: [Diagnostic] = []
        let currency = v.currency
        let fixed = v.fixedCosts
        func figures(
            _ r: TakingsReport.Row, total: Bool, from: Timestamp?, to: Timestamp?, place: String
        ) -> PnLValuation.Figures? {
            do throws(MoneyError) {
                var fixedCost: Money?
                if let fixed, let from, let to {
                    fixedCost =
                        total
                        ? try fixed.total(from: from, to: to, currency: currency)
                        : try fixed.cost(of: r.feature, from: from, to: to)
                }
                return try v.figures(credits: r.left, metered: r.cost, fixed: fixedCost)
            } catch {
                errors.append(
                    Diagnostic(
                        path: "-",
                        message:
                            "\(place)\(total ? "totals" : r.feature): the money figures cannot be computed exactly: \(error)",
                        rule: .pnl(.pnlFigures)))
                return nil
            }
        }
        func lines(
            _ rows: [TakingsReport.Row], keys: [String], from: Timestamp?, to: Timestamp?,
            place: String
        ) -> [Line] {
            // Keys by their bytes, as the takings keep them (docs/takings.md).
            var seen = Set(rows.map { Array($0.feature.utf8) })
            var all = rows
            for key in keys where seen.insert(Array(key.utf8)).inserted {
                all.append(
                    TakingsReport.Row(
                        feature: key, charges: 0, charged: 0, declines: 0, givenBack: 0,
                        cost: takings.costCurrency.map { Money.zero($0) }))
            }
            return all.sorted { $0.feature.utf8.lexicographicallyPrecedes($1.feature.utf8) }.map {
                Line(
                    takings: $0,
                    figures: figures($0, total: false, from: from, to: to, place: place),
                    isTotal: false)
            }
        }
        let since = fixed?.since
        let until = fixed?.until
        let fixedKeys = fixed.map { $0.perFeature.keys.sorted() } ?? []
        let main = lines(
            takings.rows, keys: features + fixedKeys, from: since, to: until, place: "")
        let totals = Line(
            takings: takings.totals,
            figures: figures(takings.totals, total: true, from: since, to: until, place: ""),
            isTotal: true)
        let periods = PnLReport.everyPeriod(takings, fixed: fixed).map { p in
            // A period at the edge of the window carries the fixed cost of the part inside it.
            let from = since.map { s in p.since.map { max(s, $0) } ?? s }
            let to = until.map { u in p.until.map { min(u, $0) } ?? u }
            return Period(
                label: p.label, since: p.since, until: p.until,
                lines: lines(p.rows, keys: fixedKeys, from: from, to: to, place: "\(p.label): "),
                totals: Line(
                    takings: p.totals,
                    figures: figures(
                        p.totals, total: true, from: from, to: to, place: "\(p.label): "),
                    isTotal: true))
        }
        var outstanding: Money?
        do {
            outstanding = try v.credit.perCredit.multiplied(
                by: Exact(integer: takings.belowTheLine.outstanding))
        } catch {
            errors.append(
                Diagnostic(
                    path: "-",
                    message: "outstanding balance: its value cannot be computed exactly: \(error)",
                    rule: .pnl(.pnlFigures)))
        }
        self.init(
            takings: takings, valuation: v, lines: main, totals: totals, periods: periods,
            outstandingValue: outstanding, errors: errors)
    }

    /// The periods of the series and, with fixed costs, also every period of the window
    /// that had no takings (it still carries its share of the fixed costs, so that the
    /// periods add up to the window). Without fixed costs, the periods with takings.
    static func everyPeriod(_ takings: TakingsReport, fixed: FixedCosts?) -> [TakingsReport.Period]
    {
        guard let series = takings.series, let fixed else { return takings.periods }
        let zero = TakingsReport.Row(
            feature: "total", charges: 0, charged: 0, declines: 0, givenBack: 0,
            cost: takings.costCurrency.map { Money.zero($0) })
        let present = Set(takings.periods.map(\.label))
        var all = takings.periods
        for (label, p) in fixed.periods(of: series) where !present.contains(label) {
            all.append(
                TakingsReport.Period(
                    label: label, since: p.since, until: p.until, rows: [], totals: zero))
        }
        return all.sorted { ($0.since?.seconds ?? .min) < ($1.since?.seconds ?? .min) }
    }
}
