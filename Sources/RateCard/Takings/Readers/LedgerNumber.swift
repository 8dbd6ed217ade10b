/// The one reader of the numbers in takings: whole numbers (an entry's `amount` and
/// `balanceAfter`, a roll-up's counts and sums) and decimals (a quantity member), for JSON
/// Lines, ledger documents, ledger CSV (whose rows are read as entries) and roll-ups (JSON
/// and CSV) alike: one set of limits (18 digits, `LedgerEntry.maxAmount`; 30 digits for a
/// quantity) and one set of messages, each naming the field and its 1-based column.
enum LedgerNumber {
    /// A whole number in `n` bytes at `p`: an optional `-` and 1 to 18 digits. `quoted`
    /// says the text was a string (a JSON string or a CSV cell), where a leading zero is
    /// refused as the JSON grammar refuses it in a number; a fraction or an exponent is
    /// `fractional-amount`, more than 18 digits `amount-out-of-range`, anything else
    /// `wrong-type`.
    static func whole(
        _ p: UnsafePointer<UInt8>, _ n: Int, name: String, column: Int, quoted: Bool
    ) throws(LineProblem) -> Int64 {
        let text = {
            FieldReader.excerpt(
                String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        }
        var k = 0
        var negative = false
        if k < n, p[k] == UInt8(ascii: "-") {
            negative = true
            k += 1
        }
        let digitsStart = k
        var value: Int64 = 0
        var tooLarge = false
        while k < n, p[k] >= 0x30, p[k] <= 0x39 {
            if !tooLarge {
                let d = Int64(p[k] - 0x30)
                if value > (LedgerEntry.maxAmount - d) / 10 {
                    tooLarge = true
                } else {
                    value = value * 10 + d
                }
            }
            k += 1
        }
        let digits = k - digitsStart
        if digits == 0 {
            throw LineProblem(
                .wrongType, "\(name): \"\(text())\" is not a whole number", column: column)
        }
        if k < n {
            if p[k] == UInt8(ascii: ".") || p[k] == UInt8(ascii: "e") || p[k] == UInt8(ascii: "E") {
                throw LineProblem(
                    .fractionalAmount,
                    "\(name): \(text()) is not a whole number: credits and counts are whole numbers (credits of the card's credit unit)",
                    column: column)
            }
            throw LineProblem(
                .wrongType, "\(name): \"\(text())\" is not a whole number", column: column)
        }
        if quoted, digits > 1, p[digitsStart] == UInt8(ascii: "0") {
            throw LineProblem(
                .wrongType, "\(name): \"\(text())\" has a leading zero", column: column)
        }
        if tooLarge {
            throw LineProblem(
                .amountOutOfRange,
                "\(name): \(text()) is too large: at most 18 digits (±\(LedgerEntry.maxAmount))",
                column: column)
        }
        return negative ? -value : value
    }

    /// The same for text held in a `String` (a roll-up's cell).
    static func whole(_ text: String, name: String, column: Int = 1) throws(LineProblem) -> Int64 {
        try Array(text.utf8).withUnsafeBufferPointer { buf throws(LineProblem) in
            try whole(
                buf.baseAddress ?? JSONScanner.emptyBase, buf.count, name: name, column: column,
                quoted: true)
        }
    }

    /// The decimal digits that start the eight bytes at `p`, when fewer than eight do
    /// (so that the number ends inside the word): their value and count. The digits are
    /// found and combined eight lanes at a time (SWAR), with no loop.
    @inline(__always)
    static func digitsInWord(_ p: UnsafePointer<UInt8>) -> (value: Int64, digits: Int)? {
        let w = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let x = w &- 0x3030_3030_3030_3030
        // A lane's high bit is set when its byte is no digit (below '0' borrows, above
        // '9' carries past 0x7F). The lowest such lane is exact: a borrow or carry only
        // moves upward, out of a lane already flagged.
        let flagged = ((x &+ 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080
        let digits = flagged.trailingZeroBitCount >> 3
        guard digits > 0, digits < 8 else { return nil }
        // The digits moved to the top lanes (zeros before them), then paired, quadrupled
        // and joined: the first digit is the lowest byte, the most significant.
        var v = (x << UInt64(8 * (8 - digits))) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v &* 2561) >> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
        return (Int64(truncatingIfNeeded: v), digits)
    }

    /// The most significant digits a quantity written as a JSON number with a fraction or
    /// an exponent may have: what a double holds exactly, since the engines' JSON readers
    /// (DuckDB's `read_ndjson`, Spark's, ClickHouse's) read such a number through one
    /// (docs/takings.md, the quantity member).
    static let numberDigits = 15

    /// A quantity member → significand and scale without trailing zeros, by the one
    /// definition `margin pnl --sql` follows too (docs/takings.md): digits with an optional
    /// fraction, not negative (a negative zero, `-0` or `-0.0`, is zero); a JSON number
    /// (`number`) may also carry an exponent (`1e3` is 1000) and, when it has a fraction
    /// or an exponent, at most `numberDigits` significant digits; a string has no exponent.
    static func decimal(
        _ p: UnsafePointer<UInt8>, _ n: Int, name: String, column: Int, number: Bool = false
    )
        throws(LineProblem) -> (Int128, Int)
    {
        // Most quantities are whole numbers of a few digits ("784"): read those as one
        // word. Eighteen digits or fewer fit in 63 bits; anything else (a sign, a point,
        // a leading zero, more digits) takes the full reading below.
        if n > 0, n <= 18, n == 1 || p[0] != 0x30 {
            var whole: UInt64 = 0
            var k = 0
            while k < n, p[k] &- 0x30 < 10 {
                whole = whole &* 10 &+ UInt64(p[k] &- 0x30)
                k += 1
            }
            if k == n { return (Int128(whole), 0) }
        }
        var d = DecimalText(p, n, name: name, column: column, number: number)
        try d.read()
        try d.checkShape()
        if d.seenExponent, d.value != 0 { try d.applyExponent() }
        while d.scale > 0, d.value % 10 == 0 {
            d.value /= 10
            d.scale -= 1
        }
        if d.value == 0 { d.scale = 0 }
        return (d.value, d.scale)
    }
}

/// The full reading of a quantity's text (`LedgerNumber.decimal` past its fast path), in
/// stages: the characters, the shape of the whole, the exponent.
private struct DecimalText {
    let p: UnsafePointer<UInt8>
    let n: Int
    let name: String
    let column: Int
    let number: Bool
    var negative = false
    var value: Int128 = 0
    var exponent = 0
    var exponentDigits = 0
    var seenExponent = false
    var exponentNegative = false
    var scale = 0
    var intDigits = 0
    var fracDigits = 0
    var significant = 0
    var seenPoint = false

    init(_ p: UnsafePointer<UInt8>, _ n: Int, name: String, column: Int, number: Bool) {
        self.p = p
        self.n = n
        self.name = name
        self.column = column
        self.number = number
    }

    /// The text, shortened, for a message.
    func text() -> String {
        FieldReader.excerpt(
            String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
    }

    func notDecimal() -> LineProblem {
        LineProblem(.wrongType, "\(name): \"\(text())\" is not a decimal number", column: column)
    }

    func tooManyDigits() -> LineProblem {
        LineProblem(.amountOutOfRange, "\(name): \(text()) has more than 30 digits", column: column)
    }

    /// Every character: an optional '-', digits, an optional fraction, an exponent (a JSON
    /// number's only).
    mutating func read() throws(LineProblem) {
        var k = 0
        if k < n, p[k] == UInt8(ascii: "-") {
            negative = true
            k += 1
        }
        while k < n {
            let c = p[k]
            if seenExponent {
                try readExponent(c, after: p[k - 1])
            } else if c >= 0x30, c <= 0x39 {
                try readDigit(c)
            } else if c == UInt8(ascii: "."), !seenPoint, intDigits > 0 {
                seenPoint = true
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                guard number else {
                    throw LineProblem(
                        .badValue,
                        "\(name): \(text()): a string with an exponent is not accepted; write the digits out",
                        column: column)
                }
                seenExponent = true
            } else {
                throw notDecimal()
            }
            k += 1
        }
    }

    /// One digit of the significand, at most 30 significant and 30 after the point.
    mutating func readDigit(_ c: UInt8) throws(LineProblem) {
        if seenPoint {
            fracDigits += 1
            scale += 1
        } else {
            intDigits += 1
        }
        if value != 0 || c != 0x30 { significant += 1 }
        guard significant <= 30, scale <= 30 else { throw tooManyDigits() }
        value = value * 10 + Int128(c - 0x30)
    }

    /// One character of the exponent: a sign right after the `e`, then up to 4 digits.
    mutating func readExponent(_ c: UInt8, after previous: UInt8) throws(LineProblem) {
        if c == UInt8(ascii: "-") || c == UInt8(ascii: "+"), exponentDigits == 0,
            previous | 0x20 == UInt8(ascii: "e")
        {
            exponentNegative = c == UInt8(ascii: "-")
        } else if c >= 0x30, c <= 0x39, exponentDigits < 4 {
            exponent = exponent * 10 + Int(c - 0x30)
            exponentDigits += 1
        } else if c >= 0x30, c <= 0x39 {
            throw LineProblem(
                .amountOutOfRange, "\(name): \(text()) has an exponent beyond 9999",
                column: column)
        } else {
            throw notDecimal()
        }
    }

    /// The whole: digits on both sides of a point, an exponent with digits, no leading
    /// zero, not negative, and a JSON number with a fraction or an exponent within what a
    /// double holds.
    func checkShape() throws(LineProblem) {
        guard intDigits > 0, !seenPoint || fracDigits > 0, !seenExponent || exponentDigits > 0
        else { throw notDecimal() }
        if intDigits > 1, p[negative ? 1 : 0] == 0x30 {
            throw LineProblem(
                .wrongType, "\(name): \"\(text())\" has a leading zero", column: column)
        }
        if negative, value != 0 {
            throw LineProblem(
                .badValue, "\(name): \(text()) is negative: a quantity used is zero or more",
                column: column)
        }
        var digits = value
        while digits != 0, digits % 10 == 0 { digits /= 10 }
        let limit = LedgerNumber.numberDigits
        if number, seenPoint || seenExponent, digits != 0, String(digits).count > limit {
            throw LineProblem(
                .badValue,
                "\(name): \(text()) has more than \(limit) significant digits, more than a double holds, and the SQL engines read a JSON number through one: write it as a string",
                column: column)
        }
    }

    /// value × 10^(±exponent − scale), kept as a significand and a scale of at most 30.
    mutating func applyExponent() throws(LineProblem) {
        scale += exponentNegative ? exponent : -exponent
        while scale < 0 {
            let (v, o) = value.multipliedReportingOverflow(by: 10)
            guard !o, v < 1_000_000_000_000_000_000_000_000_000_000 else {
                throw tooManyDigits()
            }
            value = v
            scale += 1
        }
        while scale > 0, value % 10 == 0 {
            value /= 10
            scale -= 1
        }
        guard scale <= 30 else {
            throw LineProblem(
                .amountOutOfRange, "\(name): \(text()) has more than 30 decimal places",
                column: column)
        }
    }
}
