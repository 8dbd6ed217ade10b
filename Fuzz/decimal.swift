// Fuzz target `decimal`: `Exact(decimal:)` against an independent reading of the same
// text, the canonical form round trip, rounding, and exact arithmetic on two values
// (input `a|b`).
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let parts = bytes.split(
        separator: UInt8(ascii: "|"), maxSplits: 1, omittingEmptySubsequences: false)
    var values: [Exact] = []
    for part in parts {
        let text = String(decoding: part, as: UTF8.self)
        let expected = oracleCanonical(Array(text.utf8))
        let parsed = try? Exact(decimal: text)
        require(
            (parsed == nil) == (expected == nil),
            "accept/reject disagrees for \(Array(text.utf8)): parser \(String(describing: parsed)), oracle \(String(describing: expected))"
        )
        guard let value = parsed, let expected else { continue }
        let canonical = value.canonicalDecimal
        require(
            canonical == expected,
            "canonical \(String(describing: canonical)) != oracle \(expected) for \(text)")
        require(
            (try? Exact(decimal: expected)) == value,
            "canonical text \(expected) does not read back")
        for rule in RoundingRule.allCases {
            for scale in [0, 2, 12] {
                guard let shown = try? value.formatted(scale: scale, rule: rule) else { continue }
                let back: Exact
                do {
                    back = try Exact(decimal: shown)
                } catch {
                    // Rounding to 12 places can need more than the 38 digits text may have.
                    require(
                        error == .tooManyDigits, "formatted \(shown) does not read back: \(error)")
                    continue
                }
                let step = try! Exact(1, over: Exact.powerOfTen(scale))
                if let diff = try? back.subtracting(value) {
                    let magnitude = diff.isNegative ? try! diff.negated() : diff
                    require(
                        magnitude < step,
                        "\(text) rounded \(rule) to \(scale) places is \(shown), a step or more away"
                    )
                }
            }
        }
        _ = value.decimalText()
        values.append(value)
    }
    if values.count == 2 { checkArithmetic(values[0], values[1]) }
    return 0
}

/// Identities that must hold whenever the operations do not overflow.
private func checkArithmetic(_ a: Exact, _ b: Exact) {
    if let sum = try? a.adding(b), let back = try? sum.subtracting(b) {
        require(back == a, "(\(a) + \(b)) - \(b) = \(back)")
    }
    if let difference = try? a.subtracting(b) {
        require(
            (a < b) == difference.isNegative, "\(a) < \(b) disagrees with the sign of \(difference)"
        )
        require((a == b) == difference.isZero, "\(a) == \(b) disagrees with \(difference)")
    }
    if !b.isZero, let product = try? a.multiplied(by: b), let back = try? product.divided(by: b) {
        require(back == a, "(\(a) × \(b)) ÷ \(b) = \(back)")
    }
    if let product = try? a.multiplied(by: b), let swapped = try? b.multiplied(by: a) {
        require(product == swapped, "\(a) × \(b) is not commutative")
    }
    for rule in RoundingRule.allCases { _ = try? a.rounded(rule) }
}

/// The canonical text of strict decimal `text`, worked out on the characters alone, or nil
/// when the parser must reject it.
private func oracleCanonical(_ text: [UInt8]) -> String? {
    var body = text[...]
    var negative = false
    if body.first == UInt8(ascii: "-") {
        negative = true
        body = body.dropFirst()
    }
    let pieces = body.split(
        separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
    let isDigits = { (s: ArraySlice<UInt8>) in
        !s.isEmpty && s.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
    guard let integer = pieces.first, isDigits(integer) else { return nil }
    let fraction = pieces.count == 2 ? pieces[1] : []
    if pieces.count == 2 { guard isDigits(fraction) else { return nil } }
    let significant = (Array(integer) + Array(fraction)).drop { $0 == 0x30 }
    guard significant.count <= 38, fraction.count <= 38 else { return nil }
    var int = String(decoding: integer.drop { $0 == 0x30 }, as: UTF8.self)
    if int.isEmpty { int = "0" }
    var frac = String(decoding: fraction, as: UTF8.self)
    while frac.last == "0" { frac.removeLast() }
    let magnitude = frac.isEmpty ? int : int + "." + frac
    return negative && magnitude != "0" ? "-" + magnitude : magnitude
}
