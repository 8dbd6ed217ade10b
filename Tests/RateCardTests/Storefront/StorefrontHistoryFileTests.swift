import Testing

@testable import RateCard

/// The dated, sourced form of the storefront file (`taxes`, `currencies`, program regimes
/// with `paymentProcessing` and `territories`), read strictly: every problem names the file,
/// line, column and field.
@Suite struct StorefrontHistoryFileTests {
    static let good = #"""
        { "kind": "storefronts", "date": "2026-12-01", "source": "test",
          "commission": [
            { "program": "standard", "rate": "0.30", "from": "2008-07-10", "status": "confirmed" },
            { "program": "small-business", "rate": "0.15", "from": "2021-01-01", "status": "confirmed" },
            { "program": "eu-alternative", "rate": "0.17", "paymentProcessing": "0.03", "territories": ["EST"], "from": "2024-03-07", "status": "confirmed" } ],
          "territories": [
            { "territory": "EST", "countryCode": "EE", "name": "Estonia", "currency": "EUR", "taxIncluded": true,
              "taxes": [
                { "kind": "vat", "rate": "0.22", "from": "2024-01-01", "until": "2025-08-21", "source": "s" },
                { "kind": "vat", "rate": "0.24", "from": "2025-08-21", "source": "s" },
                { "kind": "dst", "rate": "0.01", "from": "2025-01-01", "placeholder": true } ] },
            { "territory": "HUN", "countryCode": "HU", "name": "Hungary", "currency": "HUF", "taxIncluded": true, "currencyUnit": "1",
              "taxes": [ { "kind": "vat", "rate": "0.27", "source": "s" } ] } ] }
        """#

    func table() throws -> StorefrontTable {
        guard
            case .storefronts(let t) = try CardFileLoader.load(
                bytes: Array(Self.good.utf8), path: "s.json")
        else { throw CardLoadFailure("not a storefront file") }
        return t
    }

    struct CardLoadFailure: Error {
        let message: String
        init(_ m: String) { message = m }
    }

    @Test func readsTheHistory() throws {
        let t = try table()
        let est = try #require(t.storefront("EST"))
        #expect(est.rates(on: try #require(CalendarDate("2025-08-20"))).vat == exact("0.22"))
        #expect(est.rates(on: try #require(CalendarDate("2025-08-21"))).vat == exact("0.24"))
        #expect(
            est.rates(on: try #require(CalendarDate("2025-08-21"))).digitalServicesTax
                == exact("0.01"))
        #expect(est.rates(on: try #require(CalendarDate("2023-12-31"))).vat == .zero)
        let day = try #require(CalendarDate("2026-12-01"))
        #expect(t.regime(for: est, program: .euAlternative, on: day)?.charge == exact("0.2"))
        let hun = try #require(t.storefront("HUN"))
        #expect(t.countryCode(ofTerritory: "EST") == "EE")
        #expect(t.countryCode(ofTerritory: "HUN") == "HU")
        #expect(t.countryCode(ofTerritory: "FRA") == nil)
        #expect(t.regime(for: hun, program: .euAlternative, on: day) == nil)
        // HUF 1,190 pays whole forints: 1190 ÷ 1.27 × 0.70 = 655.905… → 656.
        let standard = try #require(t.regime(for: hun, program: .standard, on: day))
        let m = try t.proceeds(
            Money(exact("1190"), hun.currency), in: hun, regime: standard, on: day)
        #expect(m.rounded.amount == exact("656"))
    }

    @Test(arguments: [
        (
            #""kind": "dst""#, #""kind": "gst""#,
            "territories[0].taxes[2].kind: \"gst\" is not one of vat, dst, withholding", 11
        ),
        (
            #""until": "2025-08-21""#, #""until": "2023-08-21""#,
            "territories[0].taxes[0].until: 2023-08-21 is not after \"from\"", 9
        ),
        (
            #", "placeholder": true } ]"#, " } ]",
            "territories[0].taxes[2]: no \"source\"", 11
        ),
        (
            #""rate": "0.24""#, #""rate": "24%""#,
            "territories[0].taxes[1].rate: \"24%\" is not a decimal", 10
        ),
        (
            #""paymentProcessing": "0.03""#, #""paymentProcessing": "3""#,
            "commission[2].paymentProcessing: 3 must be from 0 to below 1", 5
        ),
        (
            #""territories": ["EST"]"#, #""territories": ["EU"]"#,
            "commission[2].territories[0]: \"EU\" is not a territory code", 5
        ),
        (
            #""territories": ["EST"]"#, #""territories": ["FRA"]"#,
            "commission: the eu-alternative regime from 2024-03-07 names FRA", 5
        ),
        (
            #""currencyUnit": "1""#, #""currencyUnit": "0.005""#,
            "territories[1].currencyUnit: 0.005 is not a unit HUF can be paid in",
            12
        ),
        (
            #""countryCode": "EE""#, #""countryCode": "EST""#,
            "territories[0].countryCode: \"EST\" is not a country code (two capital letters, ISO 3166-1 alpha-2",
            7
        ),
        (
            #""countryCode": "HU""#, #""countryCode": "EE""#,
            "territories: HUN has countryCode EE, which EST (line 7) already has", 12
        ),
        (
            #""program": "eu-alternative""#, #""program": "eu-alternativ""#,
            "commission[2].program: \"eu-alternativ\" is not a program", 5
        ),
        (
            #""taxes": [ { "kind": "vat", "rate": "0.27", "source": "s" } ]"#,
            #""tax": "0.27", "taxes": [ { "kind": "vat", "rate": "0.27", "source": "s" } ]"#,
            "territories[1].tax: give either \"taxes\"", 13
        ),
    ])
    func badFileNamesFileLineColumnAndField(from: String, to: String, message: String, line: Int) {
        let text = Self.good.replacingOccurrences(of: from, with: to)
        #expect(text != Self.good)
        let diagnostics = loadDiagnostics(text, path: "s.json")
        let hit = diagnostics.first { $0.message.hasPrefix(message) }
        #expect(hit != nil, "\(diagnostics.map(\.message))")
        #expect(hit?.path == "s.json")
        #expect(hit?.location.line == line, "\(hit.map { "\($0.location)" } ?? "")")
        #expect((hit?.location.column ?? 0) > 0)
    }
}
