import Foundation
import Testing

@testable import RateCard

/// A day the storefront data cannot model is said, never modelled as if no tax applied: a
/// date before the tax histories start (2023-01-01), and a program not offered where a
/// plan is sold.
@Suite struct StorefrontHistoryTests {
    let repo: CardRepository
    let osg: RateCard

    init() throws {
        repo = try CardRepository.load(paths: [repositoryCards])
        osg = try #require(repo.card(reference: "osg@10"))
    }

    func margins(_ day: String) throws -> StorefrontMargins {
        try StorefrontMargins(
            card: osg, repository: repo, program: .standard,
            date: StorefrontFixtures.date(day))
    }

    @Test func theHistoryStartsOnTheEarliestDatedTax() throws {
        let table = try #require(repo.storefronts)
        #expect(table.historyStart == CalendarDate("2023-01-01"))
        #expect(!table.modelsTaxes(on: try StorefrontFixtures.date("2022-12-31")))
        #expect(table.modelsTaxes(on: try StorefrontFixtures.date("2023-01-01")))
    }

    /// The day before the history: Albania's 20% VAT is unknown, not 0%, so no row is
    /// modelled, the tax reads "unknown", and one warning says why. On the first day of the
    /// history every row is modelled again.
    @Test func aDayBeforeTheHistoryModelsNothing() throws {
        let before = try margins("2022-12-31")
        #expect(!before.rows.isEmpty)
        #expect(before.rows.allSatisfy { $0.gap == .noTaxHistory && $0.proceeds == nil })
        let alb = try #require(before.rows.first { $0.territory == "ALB" })
        #expect(
            StorefrontMargins.taxText(alb.storefront, on: before.date, gap: alb.gap) == "unknown")
        let warning = try #require(before.warnings.first { $0.rule == .check(.storefrontRegime) })
        #expect(
            warning.message.contains(
                "the storefront data's tax histories start on 2023-01-01, and 2022-12-31 is before them"
            ))
        #expect(before.warnings.filter { $0.rule == .check(.storefrontRegime) }.count == 1)

        let first = try margins("2023-01-01")
        #expect(first.rows.allSatisfy { $0.gap == nil && $0.proceedsSource == .modelled })
        let alb2023 = try #require(first.rows.first { $0.territory == "ALB" })
        #expect(alb2023.modelled?.taxes.vat == exact("0.2"))
    }

    /// A day after the data's date models the data as it stands, and a note says so.
    @Test func aDayAfterTheDataSaysTheDataIsTakenAsStillInForce() throws {
        let late = try margins("2030-01-01").notes
        #expect(
            late.contains(
                "2030-01-01 is after the storefront data's date (2026-12-01): its taxes and regimes are taken as still in force, and a change announced since is not in it"
            ))
        #expect(
            !(try margins("2026-12-01")).notes.contains {
                $0.contains("is after the storefront data's date")
            })
    }

    @Test func theCommandSaysSo() throws {
        let r = try runMargin(["storefronts", "osg", "--at", "2022-06-01", "--format", "json"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: osg@10: the storefront data's tax histories start"))
        #expect(r.stderr.contains("[storefront-regime]"))
        #expect(r.stdout.contains("\"missing\": \"no tax history\""))
        #expect(!r.stdout.contains("\"proceedsSource\": \"modelled\""))
    }
}

/// The same for plans (Tests/RateCardTests/Fixtures/plans-storefront, GBP 3.99 a month).
@Suite(.serialized) struct PlanStorefrontHistoryTests {
    func margins(_ day: String, program: StoreProgram? = nil) throws -> PlanMargins {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try PlanStorefrontTests().folder(tmp)
        let repo = try CardRepository.load(paths: [dir])
        let card = try #require(repo.card(reference: "uk@1"))
        return try PlanMargins(
            card: card, repository: repo, date: try #require(CalendarDate(day)), program: program)
    }

    @Test func beforeTheHistoryNoPlanIsModelledAndAWarningSaysSo() throws {
        let m = try margins("2022-06-01")
        #expect(m.storefrontRows.isEmpty)
        #expect(m.storefrontCoverage.isEmpty)
        let w = try #require(m.historyWarnings.first)
        #expect(w.message.contains("2022-06-01 is before them"))
        #expect(w.message.contains("tax not removed"))
        #expect(try margins("2023-01-01").historyWarnings.isEmpty)
    }

    /// The EU alternative terms are not offered in the UK: the GBP price reaches GBR, no row
    /// is modelled there, and a warning names the program and the storefront.
    @Test func aProgramNotOfferedWhereThePlanIsSoldIsSaid() throws {
        let m = try margins("2026-12-01", program: .euAlternative)
        #expect(m.storefrontRows.isEmpty)
        let u = try #require(m.unofferedStorefronts.first)
        #expect(u.program == .euAlternative && u.territories == ["GBR"])
        #expect(
            m.warnings.contains {
                $0.message.contains(
                    "the eu-alternative program is not offered on 2026-12-01 in GBR")
            })
        // GBR is reached by the price, so it is not among the storefronts "not shown since
        // no price is in their currency".
        let coverage = try #require(m.storefrontCoverage.first?.coverage)
        #expect(coverage.missing.allSatisfy { !$0.territories.contains("GBR") })
        #expect(try margins("2026-12-01").unofferedStorefronts.isEmpty)
    }
}

/// `margin check` with a floor: a plan the storefront data cannot model on the day is an
/// error (the floor is not checked as Apple pays), as a pack's is.
@Suite(.serialized) struct PlanCheckHistoryTests {
    func found(at day: String, program: String? = nil) throws -> [Diagnostic] {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try PlanStorefrontTests().folder(tmp)
        var options = CardChecker.Options(minMargin: exact("0.15"))
        options.storefronts = try StorefrontArguments(
            pricePoints: [], at: day, program: program,
            today: try #require(CalendarDate("2026-12-01")))
        return CardChecker.check(paths: [dir], options: options).diagnostics.filter {
            $0.rule == .check(.storefrontRegime)
        }
    }

    @Test func beforeTheHistoryTheFloorCannotBeChecked() throws {
        let before = try found(at: "2022-06-01")
        #expect(before.count == 1)
        #expect(before.first?.severity == .error)
        #expect(
            before.first?.message.hasSuffix(
                "; the 15.0% floor cannot be checked as Apple pays") == true)
        #expect(try found(at: "2026-12-01").isEmpty)
    }

    @Test func aProgramNotOfferedWhereThePlanIsSoldCannotBeChecked() throws {
        let unoffered = try found(at: "2026-12-01", program: "eu-alternative")
        #expect(unoffered.count == 1)
        #expect(unoffered.first?.severity == .error)
        #expect(unoffered.first?.message.contains("not offered on 2026-12-01 in GBR") == true)
    }
}
