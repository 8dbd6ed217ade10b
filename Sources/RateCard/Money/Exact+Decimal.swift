/// Strict decimal text in and canonical decimal text out.
///
/// Accepted: an optional `-`, one or more digits, optionally a `.` followed by one or more
/// digits. Nothing else: no `+`, no blanks, no exponent, no thousands separators, no
/// leading `.` or trailing `.`. At most 38 significant digits.
extension Exact {
    /// Parses strict decimal text, or says what is wrong with it.
    public init(decimal text: some StringProtocol) throws(DecimalParseError) {
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
                if seenPoint { fracDigits += 1; scale += 1 } else { intDigits += 1 }
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
    /// otherwise nil.
    public var canonicalDecimal: String? {
        guard let scale = terminatingScale,
              let factor = try? Exact.powerOfTen(scale) else { return nil }
        guard let scaled = try? multiplied(by: Exact(integer: factor)).integerValue else { return nil }
        return Exact.format(scaled: scaled, scale: scale, trimTrailingZeros: true)
    }

    /// Exact decimal text when the expansion terminates within `maxScale` places, otherwise
    /// the value rounded half-even to `maxScale` places. Machine output uses this.
    public func decimalText(maxScale: Int = 12) -> String {
        if let exact = canonicalDecimal, (terminatingScale ?? 0) <= maxScale { return exact }
        if let scaled = try? scaled(maxScale, rule: .halfEven) {
            return Exact.format(scaled: scaled, scale: maxScale, trimTrailingZeros: true)
        }
        return "\(numerator)/\(denominator)"
    }

    /// The value rounded by `rule` to exactly `scale` places, keeping trailing zeros
    /// ("11.25", "8.30", "3").
    public func formatted(scale: Int, rule: RoundingRule) throws(ArithmeticError) -> String {
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
    public var description: String { decimalText() }
}

/// Why decimal text was not accepted.
public enum DecimalParseError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case missingDigits
    case exponent
    case invalidCharacter(Character)
    case tooManyDigits

    public var description: String {
        switch self {
        case .empty: "empty number"
        case .missingDigits: "a decimal needs digits on both sides of the point"
        case .exponent: "exponent notation is not accepted; write the digits out"
        case .invalidCharacter(let c): "unexpected character '\(c)' in a decimal"
        case .tooManyDigits: "more than 38 digits: beyond the range of exact arithmetic"
        }
    }
}
