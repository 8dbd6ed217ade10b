/// Strict decimal text in and canonical decimal text out.
///
/// Accepted: an optional `-`, one or more digits, optionally a `.` followed by one or more
/// digits. Nothing else: no `+`, no blanks, no exponent, no thousands separators, no
/// leading `.` or trailing `.`. At most 38 significant digits.
extension Exact {
    /// Parses strict decimal text, or says what is wrong with it.
    init(decimal text: some StringProtocol) throws(DecimalParseError) {
        var negative = false
        var digits: Int128 = 0
        var scale = 0
        var seenPoint = false
        var intDigits = 0
        var fracDigits = 0
        var significant = 0
        var index = text.utf8.startIndex
        let bytes = text.utf8
        if index == bytes.endIndex { throw .empty }
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index = bytes.index(after: index)
        }
        while index != bytes.endIndex {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint {
                    fracDigits += 1
                    scale += 1
                } else {
                    intDigits += 1
                }
                if digits != 0 || b != UInt8(ascii: "0") { significant += 1 }
                guard significant <= 38, scale <= 38 else { throw .tooManyDigits }
                digits = digits * 10 + Int128(b - UInt8(ascii: "0"))
            case UInt8(ascii: "."):
                guard !seenPoint else { throw .invalidCharacter(".") }
                guard intDigits > 0 else { throw .missingDigits }
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                throw .exponent
            default:
                throw .invalidCharacter(Character(Unicode.Scalar(b)))
            }
            index = bytes.index(after: index)
        }
        guard intDigits > 0 else { throw .missingDigits }
        guard !seenPoint || fracDigits > 0 else { throw .missingDigits }
        do {
            let value = try Exact(negative ? -digits : digits, over: Exact.powerOfTen(scale))
            self = value
        } catch {
            throw .tooManyDigits
        }
    }

    /// The exact decimal text when the expansion terminates ("11.25", "0.00375", "-3"),
    /// however many places it needs (a denominator of 2^100 needs 100), otherwise nil.
    var canonicalDecimal: String? {
        guard terminatingScale != nil else { return nil }
        return Exact.longDivision(numerator, denominator, places: Int.max).text
    }

    /// The places a non-terminating value is rounded to in machine output (JSON, CSV) of
    /// every command: 12, half-even. See `decimalText(maxScale:)`.
    static let nonTerminatingPlaces = 12

    /// **The one rule for exact decimals in machine output** (every command's JSON and CSV):
    ///
    /// - a value whose decimal expansion terminates is written exactly, however many places
    ///   it has ("0.0000000000004", "11.25", "-3"; never an exponent, no trailing zeros);
    /// - only a value whose expansion never ends (a cost converted at 7.1 CNY per USD, a
    ///   third) is rounded, half-even, to `maxScale` places (default and for machine output:
    ///   `Exact.nonTerminatingPlaces`, 12), trailing zeros trimmed ("0.333333333333").
    ///
    /// `JSONOutput.decimal(_:)` and `JSONOutput.money(_:)` write this text. It never fails
    /// and never overflows: digits come from long division in full width.
    func decimalText(maxScale: Int = Exact.nonTerminatingPlaces) -> String {
        if terminatingScale != nil {
            return Exact.longDivision(numerator, denominator, places: Int.max).text
        }
        let (digits, remainder) = Exact.longDivision(
            numerator, denominator, places: max(0, maxScale))
        // Half-even at the last place: compare twice the remainder with the denominator.
        let twice = remainder.magnitude << 1  // remainder < denominator ≤ 2^127: no overflow
        let d = denominator.magnitude
        let lastOdd = digits.last.map { ($0.wholeNumberValue ?? 0) % 2 == 1 } ?? false
        let up = twice > d || (twice == d && lastOdd)
        var text = up ? Exact.incrementLastDigit(digits) : digits
        if text.contains(".") {
            while text.last == "0" { text.removeLast() }
            if text.last == "." { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        return text
    }

    /// `n / d` as decimal text with at most `places` digits after the point (stopping
    /// early when the remainder is zero), and the remainder left. The sign is written when
    /// `n` is negative, even when the digits shown are all zero (the caller trims "-0").
    static func longDivision(_ n: Int128, _ d: Int128, places: Int) -> (
        text: String, remainder: Int128
    ) {
        let divisor = d.magnitude
        let magnitude = n.magnitude
        let (whole, rest) = magnitude.quotientAndRemainder(dividingBy: divisor)
        var text = (n < 0 ? "-" : "") + String(whole)
        var r = rest
        var written = 0
        if r != 0 && places > 0 { text += "." }
        while r != 0 && written < places {
            // 10 × r may exceed 128 bits; divide the full-width product.
            let product = r.multipliedFullWidth(by: 10)
            let (digit, next) = divisor.dividingFullWidth((high: product.high, low: product.low))
            text += String(digit)
            r = next
            written += 1
        }
        return (text, Int128(r))  // r < divisor ≤ 2^127 fits
    }

    /// "0.129" → "0.130", "9.99" → "10.00", "-0.9" → "-1.0": one added to the last digit.
    static func incrementLastDigit(_ text: String) -> String {
        var chars = Array(text)
        var i = chars.count - 1
        while i >= 0 {
            if let v = chars[i].wholeNumberValue {
                if v < 9 {
                    chars[i] = Character(String(v + 1))
                    return String(chars)
                }
                chars[i] = "0"
            }
            i -= 1
        }
        // Every digit carried: a new leading 1 after the sign.
        let signEnd = chars.first == "-" ? 1 : 0
        chars.insert("1", at: signEnd)
        return String(chars)
    }

    /// The value rounded by `rule` to exactly `scale` places, keeping trailing zeros
    /// ("11.25", "8.30", "3").
    func formatted(scale: Int, rule: RoundingRule) throws(ArithmeticError) -> String {
        let scaled = try scaled(scale, rule: rule)
        return Exact.format(scaled: scaled, scale: scale, trimTrailingZeros: false)
    }

    static func format(scaled: Int128, scale: Int, trimTrailingZeros: Bool) -> String {
        let negative = scaled < 0
        var digits = String(scaled.magnitude)
        if scale > 0 {
            if digits.count <= scale {
                digits = String(repeating: "0", count: scale - digits.count + 1) + digits
            }
            let split = digits.index(digits.endIndex, offsetBy: -scale)
            var integerPart = String(digits[..<split])
            var fraction = String(digits[split...])
            if trimTrailingZeros {
                while fraction.last == "0" { fraction.removeLast() }
            }
            if integerPart.isEmpty { integerPart = "0" }
            digits = fraction.isEmpty ? integerPart : integerPart + "." + fraction
        }
        return (negative && scaled != 0 ? "-" : "") + digits
    }
}

extension Exact: CustomStringConvertible {
    var description: String { decimalText() }
}

/// Why decimal text was not accepted.
enum DecimalParseError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case missingDigits
    case exponent
    case invalidCharacter(Character)
    case tooManyDigits

    var description: String {
        switch self {
        case .empty: "empty number"
        case .missingDigits: "a decimal needs digits on both sides of the point"
        case .exponent: "exponent notation is not accepted; write the digits out"
        case .invalidCharacter(let c): "unexpected character '\(c)' in a decimal"
        case .tooManyDigits: "more than 38 digits: beyond the range of exact arithmetic"
        }
    }
}
