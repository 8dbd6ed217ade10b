import Foundation
import Testing

@testable import RateCard

/// Issue 24, cases 9 to 12 (plans), through the built binary: stdout, stderr and the exit
/// status of `margin plans` and `margin check`.
@Suite(.serialized) struct PlanTrustCLITests {
    typealias F = PlanTrustFixtures
    static let before = ["--now", "2026-11-01T00:00:00Z"]

    /// Case 9: the rates in every format, and in check's messages.
    @Test func plansNamesEveryRate() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, _) = try F.write(tmp)
        try expectMargin(
            ["plans", "--cards", cards], exits: 0,
            stdout: .contains(
                "FX dated 2026-11-15 (\(cards)/fx.json, placeholder): USD/CNY 7.1, EUR/CNY 7.8"))
        try expectMargin(
            ["plans", "--cards", cards, "--format", "markdown"], exits: 0,
            stdout: .contains("- FX dated 2026-11-15 (\(cards)/fx.json, placeholder): USD/CNY 7.1"))
        try expectMargin(
            ["plans", "--cards", cards, "--format", "csv"], exits: 0,
            stdout: .contains(",\"USD/CNY 7.1 (\(cards)/fx.json, placeholder)\"\n"))
        let json = try expectMargin(["plans", "--cards", cards, "--format", "json"], exits: 0)
        let root = try JSONParser.parse(json.stdout)
        #expect(root["cards"]?[0]?["fx"]?["used"]?[0]?["from"]?.value == .string("file"))
        #expect(root["cards"]?[0]?["fx"]?["restsOnPlaceholder"]?.value == .bool(true))
        // --fx: credited to the command line, never to the file.
        try expectMargin(
            ["plans", "--cards", cards, "--fx", "USD/CNY=7.2"], exits: 0,
            stdout: .all(
                .contains("FX given on the command line: USD/CNY 7.2"),
                .contains("FX dated 2026-11-15 (\(cards)/fx.json, placeholder): EUR/CNY 7.8"),
                .lacks("USD/CNY 7.1")))
        try expectMargin(
            ["check", cards, "--min-margin", "50", "--fx", "USD/CNY=7.2"] + Self.before, exits: 1,
            stderr: .contains(
                "the worst-case margin of a period in year one (30% commission) is USD 2.20 (44.1% of the price), below the 50.0% floor; proceeds USD 3.49, worst-case cost USD 1.29 as quota 31 × (100 × 3 s of asr.second (billed 3 s)); FX USD/CNY 7.2 (given on the command line) [min-margin]"
            ))
    }

    /// Case 10: `proceedsYear2` above the price, a point without it, a territory without
    /// an FX rate.
    @Test func applesFilesThatLeaveAFloorUnchecked() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, points) = try F.write(tmp)
        let apple = ["--price-points", "p=\(points)", "--at", "2026-12-01"]
        let r = try expectMargin(
            ["check", cards] + apple + Self.before, exits: 0,
            stderr: .all(
                .contains(
                    "\(points):5:1: warning: p in USA: Apple's file states no proceedsYear2 for USD 4.99"
                ),
                .contains(
                    "\(points):8:1: warning: p in JPN: no FX rate from CNY to JPY; add one to the FX file or pass --fx CNY/JPY=RATE; the row has no margin and the margin floor is not checked here [storefront-fx]"
                ),
                .lacks("0 warnings")))
        #expect(r.stderr.hasSuffix("0 errors, 4 warnings in 3 files\n"), "\(r.stderr)")
        try expectMargin(
            ["plans", "--cards", cards] + apple, exits: 0,
            stdout: .contains(
                "t@1   p     USA        USD        4.99        1.31         3.49       2.18        43.7%"
            ),
            stderr: .contains("[apple-proceeds]", "[storefront-fx]"))

        try tmp.write(
            "bad.json",
            F.applePoints([
                .init(
                    territory: "USA", currency: "USD", price: "4.99", proceeds: "3.49",
                    year2: "5.99")
            ]))
        for command in [["plans", "--cards", cards], ["check", cards]] {
            try expectMargin(
                command + ["--price-points", "p=\(tmp.path)/bad.json", "--at", "2026-12-01"],
                exits: 2, stdout: command[0] == "plans" ? .empty : nil,
                stderr: .contains(
                    "\(tmp.path)/bad.json:3:",
                    "error: data[0].attributes.proceedsYear2: USD 5.99 is more than the customer price USD 4.99"
                ))
        }
    }

    /// Case 11: one spelling of the program, the free tier's columns in CSV.
    @Test func oneProgramSpellingAndTheFreeTierInCSV() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, _) = try F.write(tmp)
        for format in ["table", "json", "csv", "markdown"] {
            try expectMargin(
                ["plans", "--cards", cards, "--format", format], exits: 0,
                stdout: .all(.contains("small-business"), .lacks("small business")))
        }
        try expectMargin(
            ["plans", "--cards", cards, "--format", "csv", "--program", "standard"], exits: 0,
            stdout: .all(
                .hasPrefix(
                    "card,kind,key,period,currency,price,worst_cost,program,rate,proceeds,margin,margin_share,periods,margin_total,payback_periods,territory,storefront,free_tier_share,free_tier_covered,fx\n"
                ),
                .contains(
                    "t@1,year-one,p,P1M,CNY,30,9.3,standard,0.3,21,11.7,0.39,12,140.4,,,,0.15641025641,6,\n"
                ),
                .contains(
                    "t@1,later-year,p,P1M,EUR,2.49,1.192307692308,standard,0.15,2.1165,0.924192307692,0.371161569354,12,11.090307692308,,,FRA,"
                )))
    }

    /// Case 12: an offer priced in only some of the plan's currencies.
    @Test func anUnpricedOfferIsWarnedAndMarked() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let (cards, _) = try F.write(tmp)
        let warning =
            "\(cards)/t.json:10:81: warning: subscription \"p\" is priced in USD but its payAsYouGo introductory offer is not (it is priced in CNY, EUR, EUR (storefront FRA)): that row's offer is unpriced, with no margin and no payback; give the offer a USD price, or drop the plan price [offer-currency]"
        try expectMargin(
            ["plans", "--cards", cards], exits: 0,
            stdout: .contains(
                "t@1   p     payAsYouGo 3 × P1M  USD        unpriced        3.89  standard                                     "
            ),
            stderr: .contains(warning))
        try expectMargin(
            ["plans", "--cards", cards, "--format", "csv", "--program", "standard"], exits: 0,
            stdout: .contains(
                "t@1,offer-unpriced,p,P3M,USD,,3.887323943662,standard,0.3,,,,3,,,,,,,\"USD/CNY 7.1 (\(cards)/fx.json, placeholder)\"\n"
            ))
        try expectMargin(
            ["check", cards] + Self.before, exits: 0, stderr: .contains(warning))
    }
}
