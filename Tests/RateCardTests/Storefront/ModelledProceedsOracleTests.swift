import Testing

@testable import RateCard

/// The proceeds model against an independent oracle in integer arithmetic (cents and basis
/// points, a half rounded up by hand, as Apple pays), over generated storefronts: VAT, DST,
/// withholding, commission and payment processing, in cents and in whole units.
@Suite struct ModelledProceedsOracleTests {
    /// Integer division of non-negative `n` by positive `d`, a half rounded up.
    static func halfUpDivide(_ n: Int128, _ d: Int128) -> Int128 {
        let q = n / d
        return 2 * (n % d) >= d ? q + 1 : q
    }

    /// A half is paid up: 0.99 ÷ 1.10 × 0.85 = 0.765 → 0.77 (Bahrain's point of
    /// 2023-04-07), 2.90 × 0.85 = 2.465 → 2.47 (Israel's); 2.975 → 2.98 either way.
    @Test(arguments: [("0.765", "0.77"), ("2.465", "2.47"), ("2.975", "2.98"), ("0.764", "0.76")])
    func aHalfIsPaidUp(exact value: String, paid: String) throws {
        #expect(try ModelledProceeds.round(exact(value), to: exact("0.01")) == exact(paid))
    }

    @Test(arguments: [("EUR", 1), ("HUF", 100), ("JPY", 1)])
    func agreesWithTheOracle(code: String, unitInMinor: Int) throws {
        let currency = try #require(Currency(code: code))
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let scale = Int128(currency.minorUnits == 0 ? 1 : 100)
        let day = try #require(CalendarDate("2026-01-01"))
        for _ in 0..<400 {
            let p = Int128(1 + next(2_000_000))  // price in minor units
            let v = Int128(next(28) * 100 + next(100))  // VAT in basis points
            let d = Int128(next(6) * 100)  // DST
            let w = Int128(next(4) * 250)  // withholding
            let c = Int128(500 + next(26) * 100)  // commission
            let q = Int128(next(2) * 300)  // payment processing
            let bp = { (x: Int128) in try Exact(x, over: 10_000) }
            let sf = Storefront(
                territory: "XXX", name: "x", currency: currency, taxIncluded: true,
                taxes: [
                    StorefrontTax(kind: .vat, rate: try bp(v), source: "t"),
                    StorefrontTax(kind: .dst, rate: try bp(d), source: "t"),
                    StorefrontTax(kind: .withholding, rate: try bp(w), source: "t"),
                ])
            let regime = CommissionRegime(
                program: .standard, rate: try bp(c), paymentProcessing: try bp(q),
                from: day, status: .confirmed)
            let unit = try Exact(Int128(unitInMinor), over: scale)
            let m = try ModelledProceeds(
                price: Money(try Exact(p, over: scale), currency), storefront: sf, regime: regime,
                on: day, unit: unit)
            // proceeds in minor units = p × 10⁴/(10⁴+v) × (10⁴−c−q−d)/10⁴ × (10⁴−w)/10⁴
            let num = p * 10_000 * (10_000 - c - q - d) * (10_000 - w)
            let den = (10_000 + v) * 10_000 * 10_000
            let steps = Self.halfUpDivide(num, den * Int128(unitInMinor))
            let expected = try Exact(steps * Int128(unitInMinor), over: scale)
            #expect(m.rounded.amount == expected, "p=\(p) v=\(v) d=\(d) w=\(w) c=\(c) q=\(q)")
            #expect(m.exact.amount == (try Exact(num, over: den * scale)))
        }
    }
}
