/// A fixed-cost sheet applied to the window of a P&L.
///
/// The rule: a sheet states what each feature cost over its own period. A window inside
/// that period gets the share of it the window covers, **prorated by time** (days, and
/// fractions of a day for a window that starts or ends inside one): a 7-day window in a
/// 30-day sheet carries 7/30 of each cost. A window that reaches outside the sheet's
/// period is **refused** (`PnLError.costSheetPeriod`): what the days outside cost is not
/// known, and a P&L that left them out would understate its costs without a word. An
/// open end of the window (`--window all`, or only one of `--since`/`--until`) is closed
/// by the sheet's period before anything is read, so that the takings and the costs cover
/// the same time.
struct FixedCosts: Sendable, Hashable {
    let sheet: FixedCostSheet
    /// Each feature's cost for the sheet's whole period, in the reporting currency.
    let perFeature: [String: Money]
    /// The window the costs are applied to, `[since, until)`, inside the sheet's period.
    let since: Timestamp
    let until: Timestamp
    /// The part of the sheet's period the window covers, exact (1 when it is the period).
    let share: Exact

    /// How the sheet is applied, for JSON: `full` or `prorated`.
    var application: String { share == .one ? "full" : "prorated" }

    /// Applies `sheet` to `[since, until)` (which must lie inside its period) with costs
    /// already converted into the reporting currency.
    init(sheet: FixedCostSheet, perFeature: [String: Money], since: Timestamp, until: Timestamp)
        throws(ArithmeticError)
    {
        self.sheet = sheet
        self.perFeature = perFeature
        self.since = since
        self.until = until
        share = try FixedCosts.fraction(of: sheet, from: since, to: until)
    }

    /// The closed window for a sheet: the open ends of `window` taken from the sheet.
    static func closing(_ window: TakingsWindow, with sheet: FixedCostSheet) -> TakingsWindow {
        guard window.since == nil || window.until == nil else { return window }
        let since = window.since ?? sheet.start
        let until = window.until ?? sheet.end
        return TakingsWindow(
            since: since, until: until,
            name:
                "\(since.rfc3339UTC) to \(until.rfc3339UTC) (\(window.name), closed by the cost sheet's period)"
        )
    }

    /// The cost of `feature` over `[from, to)` (a period of a series, or the window): its
    /// sheet cost × the part of the sheet's period that span covers. Nil for a feature the
    /// sheet does not name.
    func cost(of feature: String, from: Timestamp, to: Timestamp) throws(MoneyError) -> Money? {
        guard let whole = perFeature[feature] else { return nil }
        return try whole.multiplied(by: share(from: from, to: to))
    }

    /// Every period of `series` that overlaps the window and has a label, in order.
    func periods(of series: TakingsSeries) -> [(label: String, period: CalendarPeriod)] {
        var all: [(String, CalendarPeriod)] = []
        var p = CalendarPeriod(
            length: series.period,
            number: CalendarPeriod.number(
                containing: since.seconds, length: series.period,
                offsetMinutes: series.offsetMinutes),
            offsetMinutes: series.offsetMinutes)
        while Timestamp(seconds: p.startSeconds) < until {
            // A period without a label (outside the years 0001–9999) is not in the series.
            if let label = p.label { all.append((label, p)) }
            p = p.next
        }
        return all
    }

    /// The sum over every feature of the sheet for `[from, to)`, in `currency`.
    func total(from: Timestamp, to: Timestamp, currency: Currency) throws(MoneyError) -> Money {
        var sum = Money.zero(currency)
        for key in perFeature.keys.sorted() {
            if let m = try cost(of: key, from: from, to: to) { sum = try sum.adding(m) }
        }
        return sum
    }

    /// The part of the sheet's period that `[from, to)` ∩ the window covers.
    func share(from: Timestamp, to: Timestamp) throws(MoneyError) -> Exact {
        let a = max(from, since)
        let b = min(to, until)
        guard a < b else { return .zero }
        if a == since && b == until { return share }
        do { return try FixedCosts.fraction(of: sheet, from: a, to: b) } catch {
            throw .arithmetic(error)
        }
    }

    /// `(to − from) ÷ (sheet end − sheet start)`, in nanoseconds, exact.
    static func fraction(of sheet: FixedCostSheet, from: Timestamp, to: Timestamp)
        throws(ArithmeticError) -> Exact
    {
        try Exact(nanoseconds(from, to), over: nanoseconds(sheet.start, sheet.end))
    }

    static func nanoseconds(_ a: Timestamp, _ b: Timestamp) -> Int128 {
        (Int128(b.seconds) - Int128(a.seconds)) * 1_000_000_000 + Int128(b.nanoseconds)
            - Int128(a.nanoseconds)
    }

    /// Days as people read them: "7", or "6.5" (rounded half-even to two places when a
    /// window starts or ends inside a day).
    static func days(_ a: Timestamp, _ b: Timestamp) -> String {
        guard let d = try? Exact(nanoseconds(a, b), over: 86_400 * 1_000_000_000) else {
            return "?"
        }
        if d.isInteger { return d.decimalText() }
        return (try? d.formatted(scale: 2, rule: .halfEven)) ?? d.decimalText()
    }

    /// For the report: the file, its period and how it was applied.
    var note: String {
        let period = "\(sheet.path), \(sheet.since) to \(sheet.until)"
        if share == .one { return "\(period), applied in full: the window is the sheet's period" }
        return
            "\(period), prorated by days: the window covers \(FixedCosts.days(since, until)) of the sheet's "
            + "\(FixedCosts.days(sheet.start, sheet.end)) days (\(share.decimalText(maxScale: 6)) of each cost)"
    }
}
