/// An exact amount of one currency.
///
/// Only operations that make sense exist: adding and subtracting amounts of the same
/// currency, scaling by an exact quantity, converting through an `FXRate`. Mixing
/// currencies throws.
struct Money: Sendable, Hashable {
    let currency: Currency
    let amount: Exact

    init(_ amount: Exact, _ currency: Currency) {
        self.amount = amount
        self.currency = currency
    }

    static func zero(_ currency: Currency) -> Money { Money(.zero, currency) }

    func adding(_ other: Money) throws(MoneyError) -> Money {
        guard other.currency == currency else { throw .currencyMismatch(currency, other.currency) }
        do { return Money(try amount.adding(other.amount), currency) } catch {
            throw .arithmetic(error)
        }
    }

    func subtracting(_ other: Money) throws(MoneyError) -> Money {
        guard other.currency == currency else { throw .currencyMismatch(currency, other.currency) }
        do { return Money(try amount.subtracting(other.amount), currency) } catch {
            throw .arithmetic(error)
        }
    }

    func multiplied(by factor: Exact) throws(MoneyError) -> Money {
        do { return Money(try amount.multiplied(by: factor), currency) } catch {
            throw .arithmetic(error)
        }
    }

    /// The amount rounded to the currency's minor unit by `rule`, as display text with
    /// exactly the currency's decimals ("28.00", "8.35").
    func formatted(rule: RoundingRule = .halfEven) -> String {
        (try? amount.formatted(scale: currency.minorUnits, rule: rule)) ?? amount.decimalText()
    }

    /// True when the amount is a whole number of the currency's minor unit.
    var isWholeMinorUnits: Bool {
        guard let scale = amount.terminatingScale else { return false }
        return scale <= currency.minorUnits
    }
}

extension Money: CustomStringConvertible {
    /// "CNY 11.25", exact (not rounded).
    var description: String { "\(currency.code) \(amount.decimalText())" }
}

/// Why a money operation failed.
enum MoneyError: Error, Sendable, Hashable, CustomStringConvertible {
    case currencyMismatch(Currency, Currency)
    case noRate(from: Currency, to: Currency)
    case arithmetic(ArithmeticError)

    var description: String {
        switch self {
        case .currencyMismatch(let a, let b):
            "cannot combine \(a.code) with \(b.code) without an FX rate"
        case .noRate(let a, let b):
            "no FX rate from \(a.code) to \(b.code); add one to the FX file or pass --fx \(a.code)/\(b.code)=RATE"
        case .arithmetic(let e): e.description
        }
    }
}
