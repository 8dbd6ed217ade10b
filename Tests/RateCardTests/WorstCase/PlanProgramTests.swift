import Foundation
import Testing

@testable import RateCard

/// `--program` reaches a plan's currency rows and offers (issue 26, item 4): under the EU
/// alternative terms the currency row takes the commission and the payment processing fee
/// the storefront rows take, not the standard program's.
@Suite(.serialized) struct PlanProgramTests {
    /// `Tests/RateCardTests/Fixtures/plans-program`: a EUR 4.76 monthly plan sold in Germany
    /// only, 3,000 credits of speech recognition at EUR 0.572 an hour (9,000 s = 2.5 h =
    /// EUR 1.43), with a EUR 1.19 offer paid up front for three months.
    static let fixture = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/plans-program"
    ).path
    static let storefrontFile = packageRoot.appendingPathComponent("RateCards/storefronts.json")
        .path
    static let day = "2026-12-01"

    /// The fixture with the repository's storefront file beside it, in a temporary folder.
    func folder(_ tmp: TemporaryFolder) throws -> String {
        let dest = tmp.url.appendingPathComponent("de").path
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: dest)
        try FileManager.default.copyItem(
            atPath: Self.storefrontFile, toPath: dest + "/storefronts.json")
        return dest
    }

    func line(_ dir: String, card: String, program: StoreProgram) throws -> PlanMargins.Line {
        let repo = try CardRepository.load(paths: [dir])
        let c = try #require(repo.card(reference: card))
        let m = try PlanMargins(
            card: c, repository: repo, date: try #require(CalendarDate(Self.day)),
            program: program)
        #expect(m.programs.map(\.store) == [program])
        return try #require(m.rows.first?.lines.first)
    }

    /// Worked by hand. Germany's 19% VAT comes off first: 4.76 ÷ 1.19 = 4.00.
    /// - eu-alternative, year one: 17% + 3% = 20%: 4.00 × 0.80 = 3.20 (already whole cents);
    ///   margin 3.20 − 1.43 = 1.77 (1.77 ÷ 4.76 = 37.2%); a year of 12 periods 21.24.
    /// - after one year, eu-alternative-reduced: 10% + 3% = 13%: 4.00 × 0.87 = 3.48; margin
    ///   3.48 − 1.43 = 2.05; a later year 12 × 2.05 = 24.60.
    /// - the offer at the year-one terms: 1.19 ÷ 1.19 = 1.00 × 0.80 = 0.80, less three
    ///   months' worst case 3 × 1.43 = 4.29: −3.49; paid back after 3.49 ÷ 1.77 = 1.97 → 2
    ///   regular periods.
    /// The standard program, as the currency row modelled it before: 4.00 × 0.70 = 2.80
    /// (margin 1.37), 4.00 × 0.85 = 3.40 (1.97), offer 1.00 × 0.70 − 4.29 = −3.59, paid back
    /// after 3.59 ÷ 1.37 = 2.62 → 3.
    @Test func euAlternativeTermsReachTheCurrencyRowAndItsOffer() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let eu = try line(dir, card: "de@1", program: .euAlternative)
        #expect(eu.program.name == "eu-alternative")
        #expect(eu.storefront?.territory == "DEU")
        #expect(eu.yearOne.rate == exact("0.2"))
        #expect(eu.yearOne.proceeds.amount == exact("3.2"))
        #expect(eu.yearOne.margin.amount == exact("1.77"))
        #expect(eu.yearOne.marginShare == (try exact("1.77").divided(by: exact("4.76"))))
        #expect(eu.afterYearOne.rate == exact("0.13"))
        #expect(eu.afterYearOne.proceeds.amount == exact("3.48"))
        #expect(eu.afterYearOne.margin.amount == exact("2.05"))
        #expect(eu.yearOneTotal.amount == exact("21.24"))
        #expect(eu.laterYearTotal.amount == exact("24.6"))
        #expect(eu.introMargin?.amount == exact("-3.49"))
        #expect(eu.paybackPeriods == 2)
        let standard = try line(dir, card: "de@1", program: .standard)
        #expect(standard.yearOne.proceeds.amount == exact("2.8"))
        #expect(standard.afterYearOne.proceeds.amount == exact("3.4"))
        #expect(standard.introMargin?.amount == exact("-3.59"))
        #expect(standard.paybackPeriods == 3)
    }

    /// The 2025 link-out terms take 20% throughout (2% + 13% + 5%, no payment processing):
    /// 4.00 × 0.80 = 3.20 in year one and after it. Where the program is offered in no
    /// storefront the price reaches, or there is no storefront file, the row is the card's
    /// price × (1 − the program's rate), tax not removed: the UK fixture's GBP 3.99 under
    /// eu-alternative is 3.99 × 0.80 = 3.192 (margin 3.192 − 1.43 = 1.762) in year one and
    /// 3.99 × 0.87 = 3.4713 (margin 2.0413) after it.
    @Test func linkOutAndTheFallbackTakeTheProgramsRates() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let out = try line(dir, card: "de@1", program: .euLinkOut)
        #expect(out.yearOne.rate == exact("0.2") && out.afterYearOne.rate == exact("0.2"))
        #expect(out.yearOne.proceeds.amount == exact("3.2"))
        #expect(out.afterYearOne.proceeds.amount == exact("3.2"))
        let uk = packageRoot.appendingPathComponent(
            "Tests/RateCardTests/Fixtures/plans-storefront"
        ).path
        let bare = try line(uk, card: "uk@1", program: .euAlternative)
        #expect(bare.storefront == nil && bare.yearOne.modelled == nil)
        #expect(bare.yearOne.proceeds.amount == exact("3.192"))
        #expect(bare.yearOne.margin.amount == exact("1.762"))
        #expect(bare.afterYearOne.proceeds.amount == exact("3.4713"))
        #expect(bare.afterYearOne.margin.amount == exact("2.0413"))
    }

    /// The built binary: `margin plans --program eu-alternative` prints the currency row, the
    /// offer and the storefront row under the EU terms, with the same figures.
    @Test func thePlansCommandModelsTheChosenProgram() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let r = try runMargin([
            "plans", "--cards", dir, "--at", Self.day, "--program", "eu-alternative",
            "--format", "csv",
        ])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(rows.dropFirst()) == [
                "de@1,year-one,de.monthly,P1M,EUR,4.76,1.43,eu-alternative,0.2,3.2,1.77,0.371848739496,12,21.24,,DEU,DEU,,,",
                "de@1,later-year,de.monthly,P1M,EUR,4.76,1.43,eu-alternative,0.13,3.48,2.05,0.430672268908,12,24.6,,DEU,DEU,,,",
                "de@1,offer,de.monthly,P3M,EUR,1.19,4.29,eu-alternative,0.2,,-3.49,,1,,2,DEU,DEU,,,",
                "de@1,storefront-year-one,de.monthly,P1M,EUR,4.76,1.43,eu-alternative,0.2,3.2,1.77,0.371848739496,,,,DEU,DEU,,,",
                "de@1,storefront-later-year,de.monthly,P1M,EUR,4.76,1.43,eu-alternative-reduced,0.13,3.48,2.05,0.430672268908,,,,DEU,DEU,,,",
            ])
        let table = try runMargin([
            "plans", "--cards", dir, "--at", Self.day, "--program", "eu-alternative",
        ])
        #expect(table.status == 0)
        #expect(
            table.stdout.contains(
                "de@1  de.monthly  P1M     EUR (DEU)   4.76        1.43  eu-alternative   20% → 13%  DEU (19.0% VAT removed)         3.20       1.77        37.2%          2.05           43.1%     21.24       24.60"
            ), "\(table.stdout)")
        #expect(!table.stdout.contains("  standard  "))
    }

    /// One owner of the rates: with a storefront file, a program's plan terms are the file's
    /// own regimes on the day (the EU terms' 17% + 3% though they list their territories),
    /// and the terms used without a file are the repository file's of today, program by
    /// program, so the two cannot drift apart unnoticed.
    @Test(arguments: StoreProgram.allCases)
    func theTermsAreTheStorefrontFilesRegimes(program: StoreProgram) throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        let table = try #require(repo.storefronts)
        let day = try #require(CalendarDate(Self.day))
        let terms = PlanMargins.Program.of(program, in: table, on: day)
        let one = try #require(table.commission.first { $0.program == program })
        let later = PlanStorefrontRow.laterProgram(program)
        let after = try #require(table.commission.first { $0.program == later })
        #expect(terms.yearOne == (try one.rate.adding(one.paymentProcessing)))
        #expect(terms.afterYearOne == (try after.rate.adding(after.paymentProcessing)))
        #expect(terms == PlanMargins.Program.of(program))
    }

    /// A change to the file's regimes reaches the plan terms: with the standard rate at 27%
    /// and the after-one-year rate at 12% (a made-up file), the standard program's terms are
    /// 27% → 12%; before a regime starts (the Mini Apps Partner Program on 2025-11-12) the
    /// terms fall back to `of(_:)`, 15%.
    @Test func aChangedFileChangesTheTerms() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try folder(tmp)
        let path = dir + "/storefronts.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(
                of: #"{"program": "standard", "rate": "0.30", "from": "2008-07-10""#,
                with: #"{"program": "standard", "rate": "0.27", "from": "2008-07-10""#
            )
            .replacingOccurrences(
                of: #"{"program": "subscription-after-one-year", "rate": "0.15""#,
                with: #"{"program": "subscription-after-one-year", "rate": "0.12""#)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let repo = try CardRepository.load(paths: [dir])
        let c = try #require(repo.card(reference: "de@1"))
        let m = try PlanMargins(
            card: c, repository: repo, date: try #require(CalendarDate(Self.day)),
            program: .standard)
        let terms = try #require(m.programs.first)
        #expect(terms.yearOne == exact("0.27") && terms.afterYearOne == exact("0.12"))
        let table = try #require(repo.storefronts)
        let before = PlanMargins.Program.of(
            .miniAppsPartner, in: table, on: try #require(CalendarDate("2025-11-12")))
        #expect(before == PlanMargins.Program.of(.miniAppsPartner))
        #expect(before.yearOne == exact("0.15"))
    }
}
