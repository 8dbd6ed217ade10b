import Testing

@testable import RateCard

/// `margin storefronts --changes [--since DATE]`: every dated change, and each pack's margin
/// the day before and the day of it.
@Suite struct StorefrontChangesCommandTests {
    @Test func listsChangesWithMarginsBeforeAndAfter() throws {
        let r = try runMargin(["storefronts", "osg", "--changes", "--since", "2026-01-01"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2026-01-29  RUS        Russia"))
        #expect(r.stdout.contains("VAT 20.0% → 22.0%"))
        // China's commission change: CNY 28 ÷ 1.009 = 27.7502 pays × 0.70 = 19.43 the day
        // before and × 0.75 = 20.81 from the day; margins (less 11.25) 8.18 and 9.56 of 28.
        let chn = try #require(
            r.stdout.split(separator: "\n").first {
                $0.contains("2026-03-15  CHN") && $0.contains("3000tks")
            })
        #expect(chn.contains("19.43") && chn.contains("20.81"))
        #expect(chn.contains("29.2%") && chn.contains("34.1%"))
        #expect(!r.stdout.contains("2025-08-21"))
    }

    @Test func jsonIsExact() throws {
        let r = try runMargin([
            "storefronts", "osg", "--changes", "--since", "2023-05-31", "--format", "json",
        ])
        #expect(r.status == 0)
        let root = try JSONParser.parse(r.stdout)
        guard case .array(let changes) = root["changes"]?.value else {
            Issue.record("shape")
            return
        }
        let esp = try #require(
            changes.first {
                $0["territory"]?.value == .string("ESP")
                    && $0["date"]?.value == .string("2023-05-31")
            })
        #expect(esp["change"]?.value == .string("DST 0.0% → 3.0%"))
        guard case .array(let sources) = esp["sources"]?.value else {
            Issue.record("sources")
            return
        }
        #expect(!sources.isEmpty)
    }

    @Test(arguments: [
        (["--since", "2025-01-01"], "--since applies to --changes only"),
        (["--changes", "--since", "soon"], "--since soon: expected a date YYYY-MM-DD"),
    ])
    func badUsage(extra: [String], message: String) throws {
        try expectMargin(["storefronts", "osg"] + extra, exits: 2, stderr: .contains(message))
    }
}

/// Plans through the same model in `--changes`: a CNY 10 monthly plan in China mainland on
/// the day before and the day of the 2026-03-15 commission change, year one (standard) and
/// after a year (subscription-after-one-year), less the plan's worst case of one period.
@Suite struct StorefrontChangesPlanTests {
    @Test func planRowsAtBothRates() throws {
        let storefronts = try String(
            contentsOfFile: repositoryCards + "/storefronts.json", encoding: .utf8)
        let card = PlanFixtures.card(
            subscriptions:
                #"[{"productId": "p", "group": "g", "period": "P1M", "prices": [{"currency": "CNY", "amount": "10"}]}]"#
        )
        let repo = try RateCardTests.repository([
            "t.json": card, "providers/asr.json": PlanFixtures.provider(),
            "storefronts.json": storefronts,
        ])
        let c = try #require(repo.cards.first)
        let report = try StorefrontChanges(
            StorefrontChanges.Request(
                cards: [c], repository: repo, since: try #require(CalendarDate("2026-03-01"))))
        let rows = report.rows.filter { $0.change.territory == "CHN" && $0.pack == "p" }
        let one = try #require(rows.first { $0.kind == "plan, year one" })
        let later = try #require(rows.first { $0.kind == "plan, after a year" })
        // 10 ÷ 1.009 = 9.9108; × 0.70 = 6.9376 → 6.94; × 0.75 = 7.4331 → 7.43
        #expect(one.proceedsBefore?.amount == exact("6.94"))
        #expect(one.proceedsAfter?.amount == exact("7.43"))
        // 9.9108 × 0.85 = 8.4242 → 8.42; × 0.88 = 8.7215 → 8.72
        #expect(later.proceedsBefore?.amount == exact("8.42"))
        #expect(later.proceedsAfter?.amount == exact("8.72"))
        // The margin is the proceeds less the same worst case on both days.
        let worstBefore = try #require(one.proceedsBefore).subtracting(
            try #require(one.marginBefore))
        let worstAfter = try #require(one.proceedsAfter).subtracting(try #require(one.marginAfter))
        #expect(worstBefore == worstAfter)
        #expect(report.renderTable(bold: false).contains("plan, after a year"))
    }
}
