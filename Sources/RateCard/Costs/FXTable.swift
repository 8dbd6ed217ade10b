/// Dated exchange rates: `1 base = rate quote`.
struct FXTable: Sendable, Hashable {
    let date: CalendarDate?
    let sourceNote: String
    let placeholder: Bool
    let rates: [FXRate]
    let source: SourceFile

    /// An empty table: only same-currency amounts can be combined.
    static let empty = FXTable(
        date: nil, sourceNote: "none", placeholder: false, rates: [],
        source: SourceFile(path: "(none)"))

    /// This table with `overrides` replacing any rate for the same pair (either direction).
    func overriding(with overrides: [FXRate]) -> FXTable {
        var kept = rates.filter { r in
            !overrides.contains {
                ($0.base == r.base && $0.quote == r.quote)
                    || ($0.base == r.quote && $0.quote == r.base)
            }
        }
        kept.append(contentsOf: overrides)
        return FXTable(
            date: date, sourceNote: sourceNote, placeholder: placeholder, rates: kept,
            source: source)
    }

    /// How many units of `to` one unit of `from` is worth, and the rates used to get it
    /// (directly, inverted, or through one intermediate currency).
    func factor(from: Currency, to: Currency) throws(MoneyError) -> (
        factor: Exact, used: [FXRate]
    ) {
        if from == to { return (.one, []) }
        do {
            if let f = try direct(from, to) { return f }
            for mid in Set(rates.flatMap { [$0.base, $0.quote] }).sorted()
            where mid != from && mid != to {
                if let a = try direct(from, mid), let b = try direct(mid, to) {
                    return (try a.factor.multiplied(by: b.factor), a.used + b.used)
                }
            }
        } catch let e as ArithmeticError {
            throw .arithmetic(e)
        } catch {}
        throw .noRate(from: from, to: to)
    }

    private func direct(_ from: Currency, _ to: Currency) throws -> (factor: Exact, used: [FXRate])?
    {
        if let r = rates.first(where: { $0.base == from && $0.quote == to }) {
            return (r.rate, [r])
        }
        if let r = rates.first(where: { $0.base == to && $0.quote == from }) {
            return (try Exact.one.divided(by: r.rate), [r])
        }
        return nil
    }

    /// `money` in `currency`.
    func convert(_ money: Money, to currency: Currency) throws(MoneyError) -> Money {
        let (f, _) = try factor(from: money.currency, to: currency)
        return try money.multiplied(by: f).reCurrency(currency)
    }
}

/// `1 base = rate quote`.
struct FXRate: Sendable, Hashable {
    let base: Currency
    let quote: Currency
    let rate: Exact
    let location: SourceLocation?
    /// Given on the command line (`--fx`), not read from the FX file: outputs credit it to
    /// the command line and never to the file (nor to the file's placeholder status).
    let fromCommandLine: Bool

    init(
        base: Currency, quote: Currency, rate: Exact, location: SourceLocation? = nil,
        fromCommandLine: Bool = false
    ) {
        self.base = base
        self.quote = quote
        self.rate = rate
        self.location = location
        self.fromCommandLine = fromCommandLine
    }
}

extension FXRate: CustomStringConvertible {
    /// "USD/CNY 7.1"
    var description: String { "\(base.code)/\(quote.code) \(rate.decimalText())" }
}

extension Money {
    func reCurrency(_ c: Currency) -> Money { Money(amount, c) }
}
