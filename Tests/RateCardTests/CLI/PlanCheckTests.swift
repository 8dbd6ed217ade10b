import Foundation
import Testing

@testable import RateCard

/// `margin check` over plans (the margin floor per subscription year, quotas used for
/// free, publishing) and `--storekit` against subscription groups, through the library
/// and the built binary.
@Suite(.serialized) struct PlanCheckTests {
    static let storeKitFixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/storekit").path

    /// The example folder copied into a temporary one.
    func copyExample(_ tmp: TemporaryFolder) throws -> String {
        let dest = tmp.url.appendingPathComponent("plans").path
        try FileManager.default.copyItem(atPath: PlanFixtures.exampleFolder, toPath: dest)
        return dest
    }

    func findings(_ paths: [String], _ options: CardChecker.Options = .init()) -> [Diagnostic] {
        CardChecker.check(paths: paths, options: options).diagnostics.filter {
            $0.severity == .error
        }
    }

    @Test func theExamplePassesAtTheDefaultFloor() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        #expect(findings([try copyExample(tmp)]).isEmpty)
    }

    @Test func theFloorAppliesToYearOneAndAfter() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try copyExample(tmp)
        // Year one: plus 19.1%, pro 8.1%; after: plus 34.1%, pro 23.1%.
        let at20 = findings([dir], .init(minMargin: exact("0.2"))).filter {
            $0.rule?.id == "min-margin"
        }
        #expect(at20.count == 2)
        #expect(at20.allSatisfy { $0.message.contains("in year one (30% commission)") })
        #expect(
            at20.contains {
                $0.message.hasPrefix(
                    "subscription \"talk.pro.monthly\" at CNY 78.00 a month: the worst-case margin of a period in year one (30% commission) is CNY 6.30 (8.1% of the price)"
                )
            })
        let at30 = findings([dir], .init(minMargin: exact("0.3"))).filter {
            $0.rule?.id == "min-margin"
        }
        #expect(at30.count == 3)
        #expect(
            at30.contains {
                $0.message.contains("talk.pro.monthly")
                    && $0.message.contains(
                        "after one year of paid service (15% commission) is CNY 18.00 (23.1% of the price)"
                    )
            })
        let plusLine = try #require(at20.first { $0.message.contains("talk.plus.monthly") })
        #expect(plusLine.location.line == 39)  // the plan's CNY amount
    }

    @Test func aQuotaUsedForFreeIsAFinding() throws {
        let plans = """
            [{"productId": "p", "group": "g", "period": "P1M", "prices": [{"currency": "CNY", "amount": "10"}],
              "quotas": [{"feature": "asr", "amount": 300}]}]
            """
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        try tmp.write("t.json", PlanFixtures.card(rounding: "down", subscriptions: plans))
        try tmp.write("providers/asr.json", PlanFixtures.provider())
        let d = findings([tmp.path]).filter { $0.rule?.id == "quota-free-usage" }
        let hit = try #require(d.first)
        #expect(hit.message.hasPrefix("quota of p on asr.second: a request of 2 s uses none of it"))
        #expect(hit.location.line == 10)
    }

    @Test func anEditedPlanOfAPublishedCardFails() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try copyExample(tmp)
        let card = "\(dir)/talk-v1.json"
        _ = try CardPublisher.publish(
            cardPath: card, cardsDirectory: dir, lockPath: "\(dir)/published.lock")
        #expect(findings([dir]).isEmpty)
        let text = try String(contentsOfFile: card, encoding: .utf8).replacingOccurrences(
            of: "\"amount\": 20, \"unit\": \"minute\"", with: "\"amount\": 30, \"unit\": \"minute\""
        )
        try text.write(toFile: card, atomically: true, encoding: .utf8)
        #expect(findings([dir]).contains { $0.rule?.id == "published-card-edited" })
    }

    @Test func storeKitSubscriptionsMatch() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let d = findings(
            [try copyExample(tmp)],
            .init(storeKitPath: "\(Self.storeKitFixtures)/talk-chn.storekit"))
        #expect(d.isEmpty, "\(d.map(\.rendered))")
    }

    @Test func storeKitSubscriptionsMismatchBothWays() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try copyExample(tmp)
        // The mismatching file: an extra subscription, plus at CNY 30, pro yearly with two
        // offer periods; and the card has a plan the file lacks once pro is renamed.
        let path = "\(Self.storeKitFixtures)/talk-chn-mismatch.storekit"
        let d = findings([dir], .init(storeKitPath: path))
        let rendered = d.map(\.rendered)
        #expect(d.count == 4, "\(rendered)")
        #expect(
            rendered.contains {
                $0.hasSuffix(
                    "talk-chn-mismatch.storekit:42:25: error: subscription \"talk.max.monthly\" (group \"talk\") is not a subscription of the card \(dir)/talk-v1.json [storekit-subscription]"
                )
            })
        #expect(
            rendered.contains {
                $0.contains(
                    ":55:28: error: \"talk.plus.monthly\" has displayPrice CNY 30.00 (storefront CHN) but the card"
                ) && $0.hasSuffix("[storekit-price]")
            })
        #expect(
            rendered.contains {
                $0.contains(
                    ":107:43: error: \"talk.pro.monthly\" renews every P1Y here but every P1M")
            })
        #expect(
            rendered.contains {
                $0.contains("payAsYouGo introductoryOffer of 2 × P1M here but the card")
                    && $0.contains("gives payAsYouGo 3 × P1M")
            })

        // A plan the file does not list is reported at the plan in the card.
        let card = "\(dir)/talk-v1.json"
        let text = try String(contentsOfFile: card, encoding: .utf8).replacingOccurrences(
            of: "talk.pro.monthly", with: "talk.pro2.monthly")
        try text.write(toFile: card, atomically: true, encoding: .utf8)
        let d2 = findings([dir], .init(storeKitPath: "\(Self.storeKitFixtures)/talk-chn.storekit"))
            .map(\.rendered)
        #expect(
            d2.contains(
                "\(dir)/talk-v1.json:44:5: error: subscription \"talk.pro2.monthly\" has no product in the StoreKit configuration \(Self.storeKitFixtures)/talk-chn.storekit [storekit-subscription]"
            ), "\(d2)")
        #expect(
            d2.contains {
                $0.contains(
                    "subscription \"talk.pro.monthly\" (group \"talk\") is not a subscription of the card"
                )
            })
    }

    @Test func storeKitOfferAndGroupTerms() throws {
        let tmp = try TemporaryFolder()
        defer { tmp.cleanup() }
        let dir = try copyExample(tmp)
        let original = try String(
            contentsOfFile: "\(Self.storeKitFixtures)/talk-chn.storekit", encoding: .utf8)
        let edited =
            original
            .replacingOccurrences(of: "\"name\" : \"talk\"", with: "\"name\" : \"talk plans\"")
            .replacingOccurrences(of: "\"displayPrice\" : \"8\"", with: "\"displayPrice\" : \"6\"")
            .replacingOccurrences(
                of: "\"paymentMode\" : \"free\"", with: "\"paymentMode\" : \"payUpFront\"")
        try tmp.write(
            "edited.storekit",
            edited.replacingOccurrences(
                of: "\"displayPrice\" : \"78\"", with: "\"displayPrice\" : \"\""))
        let d = findings([dir], .init(storeKitPath: "\(tmp.path)/edited.storekit")).map(\.message)
        #expect(
            d.filter { $0.contains("is in subscription group \"talk plans\" here but in \"talk\"") }
                .count == 2)
        #expect(
            d.contains {
                $0.contains(
                    "\"talk.plus.monthly\" has a payUpFront introductoryOffer of 1 × P1W here but the card"
                )
            })
        #expect(
            d.contains {
                $0.hasPrefix(
                    "\"talk.pro.monthly\" has an introductory displayPrice CNY 6.00 but the card")
                    && $0.hasSuffix("prices the offer at CNY 8.00")
            })
        #expect(
            d.contains {
                $0.hasPrefix(
                    "\"talk.pro.monthly\" has no displayPrice in the StoreKit file (\"\"), but the card"
                ) && $0.hasSuffix("prices it at CNY 78.00 a period")
            })
    }

    // MARK: the built binary

    @Test func plansCommandInEveryFormat() throws {
        let dir = PlanFixtures.exampleFolder
        let table = try runMargin(["plans", "talk@1", "--cards", dir])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            table.stdout.contains(
                "talk@1  talk.pro.monthly   P1M     CNY       78.00       48.30  standard         30% → 15%       6.30         8.1%         18.00           23.1%     75.60      216.00"
            ))
        #expect(
            table.stdout.contains(
                "talk@1  talk.pro.monthly   payAsYouGo 3 × P1M  CNY       24.00      143.40  standard             −126.60               15"
            ))
        #expect(
            table.stdout.contains(
                "witness talk.pro.monthly (one month): quota 31 × (400 × 3 s of asr.second (billed 3 s))"
            ))

        let csv = try runMargin(["plans", "--cards", dir, "--format", "csv"])
        #expect(csv.status == 0)
        #expect(
            csv.stdout.contains(
                "talk@1,year-one,talk.plus.monthly,P1M,CNY,28,14.25,standard,0.3,19.6,5.35,0.191071428571,12,64.2,,"
            ))
        #expect(
            csv.stdout.contains(
                "talk@1,offer,talk.pro.monthly,P3M,CNY,24,143.4,standard,0.3,,-126.6,,3,,15,"))
        #expect(csv.stdout.contains("talk@1,free-tier,,P1M,CNY,,2.505,"))

        let json = try runMargin(["plans", "--cards", dir, "--format", "json"])
        #expect(json.status == 0)
        let root = try JSONParser.parse(json.stdout)
        guard case .array(let cards) = root["cards"]?.value,
            case .array(let plans) = cards.first?["subscriptions"]?.value
        else {
            Issue.record("shape")
            return
        }
        let pro = try #require(
            plans.first { $0["productId"]?.value == .string("talk.pro.monthly") })
        #expect(pro["worstCase"]?["cost"]?.value == .string("48.3"))
        #expect(cards.first?["freeTier"]?["perYear"]?["cost"]?.value == .string("29.61"))

        let md = try runMargin(["plans", "--cards", dir, "--format", "markdown"])
        #expect(md.stdout.hasPrefix("## talk@1: Example"))
        #expect(
            md.stdout.contains(
                "| talk@1 | talk.plus.monthly | P1M | CNY | 28.00 | 14.25 | standard | 30% → 15% | 5.35 | 19.1% | 9.55 | 34.1% | 64.20 | 114.60 |"
            ))

        // The repository's own cards sell no subscriptions: said, not an error.
        let none = try runMargin(["plans", "osg"])
        #expect(none.status == 0)
        #expect(none.stdout.contains("osg@10 sells no subscriptions and has no free tier."))
        #expect(try runMargin(["plans", "--help"]).stdout.contains("Usage: margin plans"))
        let unknown = try runMargin(["plans", "talk@9", "--cards", dir])
        #expect(unknown.status == 2 && unknown.stderr.contains("no card 'talk@9'"))
        let badFormat = try runMargin(["plans", "--cards", dir, "--format", "yaml"])
        #expect(badFormat.status == 2 && badFormat.stdout.isEmpty)
    }

    /// Apple's `proceeds` and `proceedsYear2` for a plan, from an App Store Connect file of
    /// `subscriptionPricePoints`: CHN 78 → 51.51 and 62.55; USA has no FX rate here.
    @Test func plansFromApplesProceeds() throws {
        let file = packageRoot.appendingPathComponent(
            "Tests/RateCardTests/Fixtures/storefronts/talk-pro-price-points.json"
        ).path
        let r = try runMargin([
            "plans", "talk@1", "--cards", PlanFixtures.exampleFolder, "--price-points",
            "talk.pro.monthly=\(file)", "--at", "2026-12-01", "--format", "csv",
        ])
        #expect(r.status == 0)
        // 51.51 − 48.30 = 3.21 (4.1% of 78); 62.55 − 48.30 = 14.25.
        #expect(
            r.stdout.contains(
                "talk@1,apple-year-one,talk.pro.monthly,P1M,CNY,78,48.3,apple,,51.51,3.21,0.041153846154,,,,CHN"
            ))
        #expect(
            r.stdout.contains(
                "talk@1,apple-later-year,talk.pro.monthly,P1M,CNY,78,48.3,apple,,62.55,14.25,0.182692307692,,,,CHN"
            ))
        #expect(
            r.stdout.contains(
                "talk@1,apple-year-one,talk.pro.monthly,P1M,USD,10.99,,apple,,7.69,,,,,,USA"))
        #expect(r.stderr.contains("warning: talk.pro.monthly in USA: no FX rate from CNY to USD"))
        let unknown = try runMargin([
            "plans", "talk@1", "--cards", PlanFixtures.exampleFolder, "--price-points",
            "talk.max.monthly=\(file)",
        ])
        #expect(
            unknown.status == 2
                && unknown.stderr.contains(
                    "no subscription of talk@1 has product id talk.max.monthly")
        )
        // One program when one is named.
        let small = try runMargin([
            "plans", "talk@1", "--cards", PlanFixtures.exampleFolder, "--program", "small-business",
            "--format", "csv",
        ])
        #expect(!small.stdout.contains(",standard,") && small.stdout.contains(",small-business,"))
    }

    /// `margin check --price-points` floors a plan in Apple's territories too: CHN's year-one
    /// margin from Apple's proceeds is 3.21 of 78 (4.1%), after it 14.25 (18.3%).
    @Test func checkFloorsApplesProceeds() throws {
        let file = packageRoot.appendingPathComponent(
            "Tests/RateCardTests/Fixtures/storefronts/talk-pro-price-points.json"
        ).path
        let r = try runMargin([
            "check", PlanFixtures.exampleFolder, "--price-points", "talk.pro.monthly=\(file)",
            "--at", "2026-12-01", "--min-margin", "5",
        ])
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                "talk-pro-price-points.json:3:5: error: subscription \"talk.pro.monthly\" in CHN at CNY 78.00: the worst-case margin of a period in year one, from Apple's proceeds CNY 51.51, is CNY 3.21 (4.1% of the price), below the 5.0% floor; worst-case cost CNY 48.30 [min-margin]"
            ), "\(r.stderr)")
        #expect(!r.stderr.contains("after one year of paid service, from Apple's"))
    }

    @Test func checkCommandWithStoreKitSubscriptions() throws {
        let ok = try runMargin([
            "check", PlanFixtures.exampleFolder, "--storekit",
            "\(Self.storeKitFixtures)/talk-chn.storekit",
        ])
        #expect(ok.status == 0, "\(ok.stderr)")
        let bad = try runMargin([
            "check", PlanFixtures.exampleFolder, "--storekit",
            "\(Self.storeKitFixtures)/talk-chn-mismatch.storekit", "--min-margin", "10",
        ])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("[storekit-subscription]"))
        #expect(
            bad.stderr.contains(
                "talk.pro.monthly\" at CNY 78.00 a month: the worst-case margin of a period in year one (30% commission) is CNY 6.30 (8.1% of the price), below the 10.0% floor"
            ))
        #expect(bad.stderr.contains("5 errors"))
    }
}

/// `margin diff` over plans: terms and margins before and after.
@Suite struct PlanDiffTests {
    /// The example with pro at CNY 88 and 30 minutes a day, as version 2.
    static func versions() throws -> (CardRepository, RateCard, RateCard) {
        let v1 = try String(
            contentsOfFile: "\(PlanFixtures.exampleFolder)/talk-v1.json", encoding: .utf8)
        let v2 = v1.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
            .replacingOccurrences(
                of: "2026-12-01T00:00:00+08:00", with: "2027-01-01T00:00:00+08:00"
            )
            .replacingOccurrences(of: "\"amount\": \"78\"", with: "\"amount\": \"88\"")
            .replacingOccurrences(
                of: "\"amount\": 20, \"unit\": \"minute\"",
                with: "\"amount\": 30, \"unit\": \"minute\"")
        let sheets = ["deepseek-v4-flash", "doubao-seedasr-2-streaming"]
        var files = ["v1.json": v1, "v2.json": v2]
        for s in sheets {
            files["providers/\(s).json"] = try String(
                contentsOfFile: "\(PlanFixtures.exampleFolder)/providers/\(s).json", encoding: .utf8
            )
        }
        let repo = try repository(files)
        return (
            repo, try #require(repo.card(reference: "talk@1")),
            try #require(repo.card(reference: "talk@2"))
        )
    }

    @Test func termsAndMarginsBeforeAndAfter() throws {
        let (repo, v1, v2) = try Self.versions()
        let d = try CardDiff(old: v1, new: v2, repository: repo)
        #expect(!d.isEmpty)
        #expect(d.plans.changes.map(\.field) == ["prices", "quotas"])
        #expect(d.plans.changes[0].old == "CNY 78.00" && d.plans.changes[0].new == "CNY 88.00")
        let pro = try #require(
            d.plans.margins.first { $0.productId == "talk.pro.monthly" && $0.program == "standard" }
        )
        // 30 minutes a day: 31 × CNY 2.25 + 1.80 = 71.55; 88 × 0.7 − 71.55 = −9.95.
        #expect(pro.old?.worstCost == cnyMoney("48.3") && pro.new?.worstCost == cnyMoney("71.55"))
        #expect(
            pro.old?.yearOne.margin == cnyMoney("6.3")
                && pro.new?.yearOne.margin == cnyMoney("-9.95"))
        #expect(pro.new?.afterYearOne.margin == cnyMoney("3.25"))
        let plus = try #require(
            d.plans.margins.first {
                $0.productId == "talk.plus.monthly" && $0.program == "standard"
            })
        #expect(plus.old == plus.new)
        let text = d.plain()
        #expect(
            text.contains(
                "Worst-case margin per subscription period, year one and after, before and after"))
        #expect(!text.contains("Worst-case margin per pack"))
        #expect(
            d.csv().contains(
                "plan-margin,talk.pro.monthly,CNY standard,0.3,margin_year_one,6.3,-9.95,-16.25,,"))
        #expect(try CardDiff(old: v1, new: v1, repository: repo).isEmpty)
    }
}

/// Reports include plans; the packs table points to them.
@Suite struct PlanReportTests {
    @Test func theReportHasASubscriptionSection() throws {
        let (repo, card) = try PlanFixtures.example()
        let report = try CardReport(
            card: card, repository: repo,
            paths: ReportPaths(cardsDirectory: PlanFixtures.exampleFolder))
        let md = report.markdown()
        #expect(md.contains("## Subscriptions and the free tier"))
        #expect(
            md.contains(
                "| talk@1 | talk.pro.monthly | payAsYouGo 3 × P1M | CNY | 24.00 | 143.40 | standard | −126.60 | 15 |"
            ))
        let packs = try PackMargins(card: card, repository: repo)
        #expect(
            packs.notes.contains(
                "talk@1 also sells 2 subscriptions and has a free tier: see `margin plans talk@1`"))
    }

    @Test func creditPackReportsHaveNone() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        let card = try #require(repo.card(reference: "osg@10"))
        let md = try CardReport(
            card: card, repository: repo, paths: ReportPaths(cardsDirectory: repositoryCards)
        ).markdown()
        #expect(!md.contains("## Subscriptions"))
    }
}
