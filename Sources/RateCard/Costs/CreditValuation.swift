/// What one credit is worth in money, for a profit and loss: either a rate the user states,
/// or conservatively the lowest per-credit proceeds of any pack of the card after the
/// highest commission rate (the least a credit can have brought in).
struct CreditValuation: Sendable, Hashable {
    /// Money per credit, exact.
    let perCredit: Money
    /// How the value was chosen, for the report ("stated: …" or "lowest per-credit …").
    let basis: String
    /// True when the user gave the rate.
    let stated: Bool
    /// The FX rates the value was converted with (none when no conversion was needed).
    let fxUsed: [FXRate]

    /// A value stated as `given` (nil: as `perCredit`), converted into `perCredit`'s
    /// currency with `fxUsed`; the basis names both when the currencies differ.
    init(stated perCredit: Money, fxUsed: [FXRate] = [], given: Money? = nil) {
        self.perCredit = perCredit
        if let given, given.currency != perCredit.currency {
            self.basis =
                "stated on the command line as \(given) per credit, converted into \(perCredit.currency.code) at the FX rates in use: \(perCredit) per credit"
        } else {
            self.basis = "stated on the command line: \(perCredit) per credit"
        }
        self.stated = true
        self.fxUsed = fxUsed
    }

    /// The lowest per-credit proceeds of any pack price after the highest commission rate
    /// for its currency, converted into `currency` with `fx`.
    init(card: RateCard, commission: CommissionSchedule, fx: FXTable, currency: Currency)
        throws(CreditValuationError)
    {
        var lowest: (value: Exact, text: String, used: [FXRate])?
        let date = card.effective.local(offsetMinutes: card.effective.offsetMinutes).date
        for pack in card.packs where pack.credits > 0 {
            for price in pack.prices where price.price.amount.isPositive {
                let rates = commission.rates(currency: price.price.currency, on: date)
                let top = rates.max() ?? .zero
                do {
                    let proceeds = try price.price.amount.multiplied(by: Exact.one.subtracting(top))
                    let perCredit = try proceeds.divided(by: Exact(integer: pack.credits))
                    let (factor, used) = try fx.factor(from: price.price.currency, to: currency)
                    let converted = try perCredit.multiplied(by: factor)
                    if lowest.map({ converted < $0.value }) ?? true {
                        var text =
                            "lowest per-credit proceeds of any pack after the highest commission: \(pack.productId) at \(price.price.currency.code) \(price.price.formatted()) less \(Format.percent(top, places: 0)) for \(Format.grouped(pack.credits)) credits"
                        if price.price.currency != currency {
                            text += ", converted at " + Self.rates(used)
                        }
                        lowest = (converted, text, used)
                    }
                } catch let e as MoneyError {
                    throw .fx(e)
                } catch {
                    throw .arithmetic(pack.productId)
                }
            }
        }
        guard let lowest else { throw .noPacks(card.reference) }
        perCredit = Money(lowest.value, currency)
        basis = lowest.text
        stated = false
        fxUsed = lowest.used
    }
}

extension CreditValuation {
    /// The rates a value was converted with, each with where it came from (a `--fx` rate
    /// replaces the FX file's, so "the FX file's rate" would name the wrong one).
    static func rates(_ used: [FXRate]) -> String {
        let named = used.map { "\($0) (\($0.fromCommandLine ? "--fx" : "the FX file"))" }
        return named.isEmpty ? "the FX file's rate" : named.joined(separator: ", ")
    }
}

/// Why a credit could not be valued.
enum CreditValuationError: Error, Sendable, Hashable, CustomStringConvertible {
    case noPacks(String)
    case fx(MoneyError)
    case arithmetic(String)

    var description: String {
        switch self {
        case .noPacks(let c): "card \(c) sells no pack with a positive price"
        case .fx(let e): e.description
        case .arithmetic(let p): "pack \(p): the per-credit value is too large to compute exactly"
        }
    }
}
