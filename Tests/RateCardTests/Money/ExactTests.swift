import Testing

@testable import RateCard

@Suite struct ExactDecimalTests {
    @Test(arguments: [
        ("11.25", "11.25"), ("0.00375", "0.00375"), ("28", "28"), ("28.000", "28"),
        ("-0.5", "-0.5"),
        ("0", "0"), ("-0", "0"), ("0.10", "0.1"), ("00012", "12"),
        ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
    ])
    func parsesAndPrintsCanonically(input: String, canonical: String) throws {
        let v = try Exact(decimal: input)
        #expect(v.canonicalDecimal == canonical)
        #expect(v.decimalText() == canonical)
    }

    @Test(arguments: [
        "", "-", ".5", "5.", "1e3", "1E-2", "+1", " 1", "1 ", "1,000", "0x10", "1.2.3", "NaN",
        "Infinity", "１", "1_000",
        "123456789012345678901234567890123456789",
    ])
    func rejectsLooseDecimalText(input: String) {
        #expect(throws: DecimalParseError.self) { try Exact(decimal: input) }
    }

    @Test func keepsFractionsExact() throws {
        let third = try Exact(1, over: 3)
        #expect(third.canonicalDecimal == nil)
        #expect(third.decimalText(maxScale: 4) == "0.3333")
        let back = try third.multiplied(by: 3)
        #expect(back == .one)
    }

    @Test(arguments: [
        ("2.5", RoundingRule.halfEven, Int128(2)), ("3.5", .halfEven, 4), ("2.5", .halfUp, 3),
        ("2.5", .halfDown, 2),
        ("-2.5", .halfUp, -3), ("-2.5", .halfEven, -2), ("2.1", .up, 3), ("-2.1", .up, -2),
        ("2.9", .down, 2),
        ("-2.1", .down, -3), ("-2.9", .towardZero, -2), ("2.1", .awayFromZero, 3), ("7", .up, 7),
    ])
    func roundsByNamedRule(value: String, rule: RoundingRule, expected: Int128) throws {
        #expect(try exact(value).rounded(rule) == expected)
    }

    @Test func formatsWithCurrencyDecimals() throws {
        #expect(try exact("5.625").formatted(scale: 2, rule: .halfEven) == "5.62")
        #expect(try exact("5.635").formatted(scale: 2, rule: .halfEven) == "5.64")
        #expect(try exact("8.35").formatted(scale: 2, rule: .halfEven) == "8.35")
        #expect(try exact("28").formatted(scale: 2, rule: .halfEven) == "28.00")
        #expect(try exact("-0.004").formatted(scale: 2, rule: .halfEven) == "0.00")
    }

    @Test func overflowIsAnErrorNotATrap() throws {
        let big = Exact(integer: Int128.max / 2 + 1)
        #expect(throws: ArithmeticError.overflow) { try big.adding(big) }
        #expect(throws: ArithmeticError.overflow) { try big.multiplied(by: 3) }
        #expect(throws: ArithmeticError.divisionByZero) { try Exact.one.divided(by: .zero) }
        #expect(throws: ArithmeticError.overflow) { try Exact(integer: .min).negated() }
        // Comparison never overflows, even for values whose cross products would.
        let a = try Exact(Int128.max - 1, over: Int128.max)
        let b = try Exact(Int128.max - 2, over: Int128.max - 1)
        #expect(b < a)
    }

    /// Invariant: for many values, (a + b) − b == a and (a × b) ÷ b == a, exactly.
    @Test func arithmeticInvariants() throws {
        var rng = SplitMix(seed: 7)
        for _ in 0..<2000 {
            let a = try Exact(
                Int128(rng.next(in: -1_000_000...1_000_000)), over: Int128(rng.next(in: 1...10_000))
            )
            let b = try Exact(
                Int128(rng.next(in: -1_000_000...1_000_000)), over: Int128(rng.next(in: 1...10_000))
            )
            #expect(try a.adding(b).subtracting(b) == a)
            if !b.isZero { #expect(try a.multiplied(by: b).divided(by: b) == a) }
            #expect((a < b) == (try b.subtracting(a).isPositive))
        }
    }
}

@Suite struct MoneyTests {
    @Test func refusesToMixCurrencies() throws {
        let cny = Money(exact("28"), Currency(code: "CNY")!)
        let usd = Money(exact("2.99"), Currency(code: "USD")!)
        #expect(throws: MoneyError.self) { try cny.adding(usd) }
        #expect(try cny.subtracting(Money(exact("11.25"), cny.currency)).amount == exact("16.75"))
    }

    @Test func convertsOnlyThroughAnFXRate() throws {
        let usd = Currency(code: "USD")!
        let cny = Currency(code: "CNY")!
        let gbp = Currency(code: "GBP")!
        let table = FXTable(
            date: nil, sourceNote: "test", placeholder: false,
            rates: [
                FXRate(base: usd, quote: cny, rate: exact("7.1")),
                FXRate(base: gbp, quote: cny, rate: exact("9.2")),
            ],
            source: SourceFile(path: "fx.json"))
        #expect(try table.convert(Money(exact("1"), usd), to: cny).amount == exact("7.1"))
        #expect(try table.convert(Money(exact("7.1"), cny), to: usd).amount == .one)
        // Through CNY: 1 GBP = 9.2/7.1 USD, exactly.
        #expect(try table.convert(Money(exact("1"), gbp), to: usd).amount == Exact(92, over: 71))
        #expect(throws: MoneyError.self) { try FXTable.empty.convert(Money(.one, usd), to: cny) }
    }

    @Test func knowsMinorUnits() {
        #expect(Currency(code: "JPY")!.minorUnits == 0)
        #expect(Currency(code: "KWD")!.minorUnits == 3)
        #expect(Currency(code: "XXX") == nil)
        #expect(Money(exact("0.999"), Currency(code: "USD")!).isWholeMinorUnits == false)
        #expect(Money(exact("0.99"), Currency(code: "USD")!).isWholeMinorUnits)
        #expect(Money(exact("1.5"), Currency(code: "JPY")!).isWholeMinorUnits == false)
    }
}

/// A small deterministic generator for property tests.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}
