import Testing

@testable import RateCard

/// The diff's figures are the model's: difference and relative change are computed once in
/// `ValueChange`, and an impossible ratio or an overflow is explicit there.
@Suite("Diff: ValueChange")
struct ValueChangeTests {
    @Test func bothSidesGiveTheDifferenceAndTheRatio() throws {
        let c = try ValueChange(exact("2.99"), exact("3.99"))
        #expect(c.difference == exact("1"))
        #expect(c.relative == .ratio(try Exact(100, over: 299)))
    }

    @Test func aZeroOldValueHasNoRatioButADifference() throws {
        let c = try ValueChange(counts: 0, 500)
        #expect(c.difference == exact("500"))
        #expect(c.relative == .notApplicable)
        #expect(CardDiff.relativeText(c.relative) == "n/a")
    }

    @Test func differentUnitsHaveNoRatio() throws {
        let c = try ValueChange(exact("1"), exact("2"), comparable: false)
        #expect(c.difference == exact("1") && c.relative == .notApplicable)
    }

    @Test func aMissingSideHasNeitherDifferenceNorRatio() throws {
        let added = try ValueChange(nil, exact("4"))
        #expect(added.difference == nil && added.relative == .none)
        let share = try ValueChange(exact("0.5"), exact("0.25"), relative: false)
        #expect(share.difference == exact("-0.25") && share.relative == .none)
    }

    @Test func anOverflowIsAnErrorNotAnEmptyCell() throws {
        let big = Exact(integer: Int128.max)
        #expect(throws: ArithmeticError.overflow) {
            try ValueChange(Exact(integer: -2), big)
        }
    }

    @Test func theCSVRowPrintsTheModelsFigures() throws {
        var sheet = CardDiff.CSVSheet()
        sheet.number("grant", "signup", "", nil, "credits", try ValueChange(counts: 0, 500))
        sheet.number("grant", "bonus", "", nil, "credits", try ValueChange(counts: 1000, 500))
        #expect(sheet.rows[0] == ["grant", "signup", "", "", "credits", "0", "500", "500", "", ""])
        #expect(
            sheet.rows[1] == [
                "grant", "bonus", "", "", "credits", "1000", "500", "-500", "-0.5", "",
            ])
    }
}
