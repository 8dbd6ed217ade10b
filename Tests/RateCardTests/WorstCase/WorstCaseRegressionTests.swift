import Foundation
import Testing

@testable import RateCard

/// Issue 10, items 1–5: the worst case, through the library and through the built binary.
@Suite struct WorstCaseRegressionTests {
    let gbp = Currency(code: "GBP")!
    let usd = Currency(code: "USD")!

    // MARK: 1. Every FX rate a figure uses is named

    @Test func ratesOfEveryProviderCurrencyAreNamed() throws {
        let repo = try repository(WorstCaseCaseFixture.twoCurrencies)
        let card = try #require(repo.cards.first)
        let margins = try PackMargins(card: card, repository: repo)
        let row = try #require(margins.rows.first)
        // USD 0.002 a credit = GBP 0.0016, above ASR's CNY 0.00375 = GBP 0.000407…
        #expect(row.worst.cost.amount == exact("1.6"))
        #expect(row.fxUsed.map(\.description) == ["GBP/CNY 9.2", "GBP/USD 1.25"])
        #expect(margins.fxUsed.map(\.description) == ["GBP/CNY 9.2", "GBP/USD 1.25"])
        #expect(
            row.providerCost == nil, "two provider currencies: no single provider-currency figure")
        #expect(margins.fxRestsOnPlaceholder)
        #expect(
            margins.notes.contains {
                $0.hasPrefix("FX dated 2026-01-01 (")
                    && $0.hasSuffix("placeholder): GBP/CNY 9.2, GBP/USD 1.25")
            })
        let json = margins.json.rendered()
        #expect(json.contains("\"restsOnPlaceholder\": true"))
        #expect(json.contains("\"quote\": \"CNY\"") && json.contains("\"quote\": \"USD\""))
        // The report says which rates, and that they are placeholders.
        let report = try CardReport(
            card: card, repository: repo, paths: ReportPaths(cardsDirectory: "RateCards"))
        let text = report.markdown()
        #expect(text.contains("contains **placeholders**"))
        #expect(text.contains("The FX rates are placeholders"))
        #expect(!text.contains("No conversion was needed"))
        #expect(text.contains("1 GBP = 9.2 CNY") && text.contains("1 GBP = 1.25 USD"))
    }

    @Test func aCommandLineRateIsCreditedToTheCommandLine() throws {
        let repo = try repository(WorstCaseCaseFixture.twoCurrencies)
        let card = try #require(repo.cards.first)
        let override = FXRate(base: gbp, quote: usd, rate: exact("1.3"), fromCommandLine: true)
        let margins = try PackMargins(
            card: card, repository: repo, fx: repo.fx.overriding(with: [override]))
        #expect(margins.fxUsedByOrigin.file.map(\.description) == ["GBP/CNY 9.2"])
        #expect(margins.fxUsedByOrigin.commandLine.map(\.description) == ["GBP/USD 1.3"])
        #expect(margins.notes.contains("FX given on the command line: GBP/USD 1.3"))
        #expect(margins.notes.contains { $0.hasSuffix("placeholder): GBP/CNY 9.2") })
    }

    @Test func theBinaryNamesBothRates() throws {
        let folder = try WorstCaseCaseFixture.folder(WorstCaseCaseFixture.twoCurrencies)
        defer { folder.cleanup() }
        let table = try runMargin(["packs"], in: folder.path)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            table.stdout.contains(
                "FX dated 2026-01-01 (RateCards/fx.json, placeholder): GBP/CNY 9.2, GBP/USD 1.25"),
            "\(table.stdout)")
        let json = try runMargin(
            ["packs", "--format", "json", "--fx", "GBP/USD=1.3"], in: folder.path)
        let root = try JSONParser.parse(json.stdout)
        guard case .array(let cards) = root["cards"]?.value, let fx = cards.first?["fx"],
            case .array(let used) = fx["used"]?.value
        else {
            Issue.record("shape: \(json.stdout)")
            return
        }
        #expect(used.map { $0["from"]?.value } == [.string("file"), .string("command line")])
        #expect(used.map { $0["rate"]?.value } == [.string("9.2"), .string("1.3")])
        let report = try runMargin(
            ["report", "--cards", "RateCards", "--out", "Reports"], in: folder.path)
        #expect(report.status == 0, "\(report.stderr)")
        let md = try String(contentsOfFile: folder.path + "/Reports/mix-v1.md", encoding: .utf8)
        #expect(md.contains("The FX rates are placeholders") && md.contains("1 GBP = 1.25 USD"))
    }

    // MARK: 2. Periods never in force are not priced

    @Test func periodsThatCannotBeInForceAreNotPriced() throws {
        let repo = try repository(WorstCaseCaseFixture.schedules)
        let schedule = try #require(repo.providers["sched"]?.schedule)
        #expect(schedule.periodsInForce == ["day", "night"])
        #expect(schedule.worstPeriod.name == "day" && schedule.worstPeriod.multiplier == Exact(2))
        #expect(schedule.periodsNeverInForce.map(\.period) == ["base", "ghost", "unused"])
        let card = try #require(repo.cards.first)
        let w = try WorstCaseEngine(card: card, providers: repo.providers).worstCase(
            credits: 100, in: usd, fx: .empty)
        #expect(w.cost.amount == exact("0.2"))  // 100 s × USD 0.001 × 2, not × 9
        #expect(w.plan.first?.shape.period == "day")
        // Costing a request without a time uses the same worst period.
        let cost = try RequestCosting(providers: repo.providers).cost(
            of: card.features[0], quantities: ["second": Exact(10)], at: nil)
        #expect(cost.first?.amount == exact("0.02"))
    }

    @Test func checkWarnsAboutEachPeriodNeverInForce() throws {
        let folder = try WorstCaseCaseFixture.folder(WorstCaseCaseFixture.schedules)
        defer { folder.cleanup() }
        let r = try runMargin(
            ["check", "RateCards", "--now", "2025-01-01T00:00:00Z"], in: folder.path)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter {
            $0.hasSuffix("[period-never-in-force]")
        }
        #expect(lines.count == 3, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                #": warning: provider sched: schedule period "base" (multiplier 9) is never in force: it is the default, but the windows cover the whole week; the worst case does not price it [period-never-in-force]"#
            ), "\(r.stderr)")
        #expect(
            lines.allSatisfy { $0.hasPrefix("RateCards/sched.json:") && $0.contains(": warning: ") }
        )
        #expect(
            r.stderr.contains(
                #"schedule period "ghost" (multiplier 7) is never in force: its window has no days"#
            ))
        #expect(
            r.stderr.contains(
                #"schedule period "unused" (multiplier 8) is never in force: no window names it and it is not the default"#
            ))
        let packs = try runMargin(["packs", "--format", "csv"], in: folder.path)
        #expect(packs.stdout.contains("sched@1,pack,p100,100,USD,0.99,0.2,"), "\(packs.stdout)")
    }

    // MARK: 3. Nothing costs: every credit is unspent, the witness says so

    @Test func aCardWhereNothingCostsReportsItsCredits() throws {
        let repo = try repository(WorstCaseCaseFixture.nothingCosts)
        let card = try #require(repo.cards.first)
        let margins = try PackMargins(card: card, repository: repo)
        let w = try #require(margins.rows.first?.worst)
        #expect(w.cost.amount == .zero && w.plan.isEmpty && w.unspent == 500)
        #expect(
            w.witnessSummary == "no request costs the providers anything; 500 credits left unspent")
        let json = margins.json.rendered()
        #expect(json.contains("\"unspentCredits\": \"500\""))
        // The same as a costly card whose cheapest request does not fit the pack.
        let (crepo, ccard) = try engineFixture(
            dimensions: [("asr", 600, 1, "up", "audio")], meters: [("audio", "1", "1", nil, nil)])
        let costly = try WorstCaseEngine(card: ccard, providers: crepo.providers).worstCase(
            credits: 500, in: Currency(code: "CNY")!, fx: .empty)
        #expect(costly.plan.isEmpty && costly.unspent == 500)
        #expect(
            costly.witnessSummary == "no request with a running cost fits; 500 credits left unspent"
        )
    }

    @Test func theBinaryReportsUnspentCredits() throws {
        let folder = try WorstCaseCaseFixture.folder(WorstCaseCaseFixture.nothingCosts)
        defer { folder.cleanup() }
        let r = try runMargin(["packs", "--format", "json"], in: folder.path)
        #expect(r.status == 0)
        #expect(r.stdout.contains("\"unspentCredits\": \"500\""), "\(r.stdout)")
        let t = try runMargin(["packs"], in: folder.path)
        #expect(
            t.stdout.contains(
                "witness p500: no request costs the providers anything; 500 credits left unspent"))
    }

    // MARK: 4. Every free dimension

    @Test func everyFreeDimensionIsFound() throws {
        let repo = try repository(WorstCaseCaseFixture.twoFreeDimensions)
        let card = try #require(repo.cards.first)
        let engine = try WorstCaseEngine(card: card, providers: repo.providers)
        #expect(engine.freeUsage.map(\.dimension) == ["inputTokens", "outputTokens"])
        #expect(throws: WorstCaseError.unbounded(engine.freeUsage)) {
            try engine.worstCase(credits: 100, in: usd, fx: .empty)
        }
    }

    @Test func checkAndPacksReportEveryFreeDimension() throws {
        let folder = try WorstCaseCaseFixture.folder(WorstCaseCaseFixture.twoFreeDimensions)
        defer { folder.cleanup() }
        for args in [["check", "RateCards"], ["packs"]] {
            let r = try runMargin(args, in: folder.path)
            #expect(r.status == 1, "\(args): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n").filter { $0.hasSuffix("[free-usage]") }
            #expect(lines.count == 2, "\(args): \(r.stderr)")
            #expect(
                lines.contains {
                    $0.contains(
                        #"dimension "inputTokens": a request of 999 tokens is charged 0 credits"#)
                })
            #expect(
                lines.contains {
                    $0.contains(
                        #"dimension "outputTokens": a request of 399 tokens is charged 0 credits"#)
                })
        }
    }

    // MARK: 5. Exact JSON

    @Test(arguments: [
        ("0.0000000000004", "0.0000000000004"), ("11.25", "11.25"),
        ("-0.00000000000000000001", "-0.00000000000000000001"),
        ("12345678901234567890.123456789012345678", "12345678901234567890.123456789012345678"),
    ])
    func terminatingDecimalsAreWrittenExactly(text: String, expected: String) throws {
        #expect(exact(text).decimalText() == expected)
        #expect(JSONOutput.decimal(exact(text)).rendered() == "\"\(expected)\"\n")
    }

    @Test func longTerminatingAndNonTerminatingValues() throws {
        // 2^-100 has 100 places: written in full, not rounded and not as a fraction.
        var v = Exact.one
        for _ in 0..<100 { v = try v.divided(by: Exact(2)) }
        let text = v.decimalText()
        #expect(
            text.hasPrefix(
                "0.0000000000000000000000000000007888609052210118054117285652827862296732064351090230047702789306640625"
            ))
        #expect(try Exact(1, over: 3).decimalText() == "0.333333333333")
        #expect(try Exact(2, over: 3).decimalText() == "0.666666666667")
        #expect(try Exact(-2, over: 3).decimalText() == "-0.666666666667")
        #expect(try Exact(-1, over: 3_000_000_000_000).decimalText() == "0")
        #expect(try Exact(1, over: 7).decimalText(maxScale: 3) == "0.143")
        // Large non-terminating values (beyond 10^38 × 10^-12 scaling) still render.
        let big = try Exact(Int128.max, over: 3)
        #expect(big.decimalText() == "56713727820156410577229101238628035242.333333333333")
        #expect(Exact.nonTerminatingPlaces == 12)
    }

    @Test func theBinaryWritesATinyCostExactly() throws {
        let folder = try WorstCaseCaseFixture.folder(WorstCaseCaseFixture.tinyCost)
        defer { folder.cleanup() }
        let r = try runMargin(["packs", "--format", "json"], in: folder.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"cost\": \"0.0000000000004\""), "\(r.stdout)")
        let csv = try runMargin(["packs", "--format", "csv"], in: folder.path)
        #expect(csv.stdout.contains(",0.0000000000004,"), "\(csv.stdout)")
    }
}
