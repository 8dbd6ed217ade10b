import Foundation
import Testing

@testable import RateCard

/// Issue 10, items 18–20 and 22: the CI guard, through the library and through the binary.
@Suite struct GuardRegressionTests {
    /// `demo@2`: the fixture card one month later at `price`, keeping every feature.
    static func version2(price: String) -> String {
        CheckFixture.card
            .replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
            .replacingOccurrences(of: "2026-01-01T00:00:00Z", with: "2026-02-01T00:00:00Z")
            .replacingOccurrences(of: "\"0.99\"", with: "\"\(price)\"")
    }

    static let inJanuary = "2026-01-15T00:00:00Z"
    static let inJune = "2026-06-01T00:00:00Z"

    // MARK: 18. The lock

    @Test func aLockNamedOnTheCommandLineMustExist() throws {
        let folder = try CheckFixture.folder(["card.json": CheckFixture.card])
        defer { folder.cleanup() }
        let report = CardChecker.check(
            paths: [folder.path], options: .init(lockPath: folder.path + "/nope.lock"))
        #expect(report.exitCode == 2)
        #expect(
            report.diagnostics.contains {
                $0.path.hasSuffix("nope.lock") && $0.message.contains("does not exist")
            })
        let r = try runMargin(["check", ".", "--lock", "nope.lock"], in: folder.path)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "nope.lock:1:1: error: the lock file given with --lock does not exist"),
            "\(r.stderr)")
    }

    @Test func cardsInForceWithNoLockAtAllFail() throws {
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.card, "card-v2.json": Self.version2(price: "0.99"),
        ])
        defer { folder.cleanup() }
        // In January demo@1 is live and demo@2 a draft.
        let january = CardChecker.check(
            paths: [folder.path], options: .init(now: try Timestamp(rfc3339: Self.inJanuary)))
        #expect(january.exitCode == 1)
        #expect(
            january.diagnostics.filter { $0.rule?.id == "lock-missing" }.map(\.path) == [
                folder.path + "/card.json"
            ])
        #expect(
            january.diagnostics.filter { $0.rule?.id == "unpublished-card" }.map(\.path) == [
                folder.path + "/card-v2.json"
            ])
        let r = try runMargin(["check", ".", "--now", Self.inJanuary], in: folder.path)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                "card.json:4:14: error: card demo@1 is in force since 2026-01-01T00:00:00Z but there is no lock file published.lock: nothing stops an edit of a live card; run 'margin publish card.json' and commit the lock (or pass --lock PATH) [lock-missing]"
            ), "\(r.stderr)")
        // Before anything is in force, drafts are warnings only.
        let early = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective], in: folder.path)
        #expect(early.status == 0, "\(early.stderr)")
        // Publishing creates the lock; then the check passes.
        let publish = try runMargin(["publish", "card.json", "--cards", "."], in: folder.path)
        #expect(publish.status == 0, "\(publish.stderr)")
        let after = try runMargin(["check", ".", "--now", Self.inJanuary], in: folder.path)
        #expect(after.status == 0, "\(after.stderr)")
    }

    // MARK: 19. The floor applies to versions in force now and later

    @Test func aSupersededVersionBelowTheFloorNoLongerBlocks() throws {
        // Worst case USD 0.30. demo@1 at USD 0.99: USD 0.393 after 30%, 39.7%; demo@2 at
        // USD 1.99: USD 1.093, 54.9%. Floor 50%: only demo@1 is below it.
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.card, "card-v2.json": Self.version2(price: "1.99"),
        ])
        defer { folder.cleanup() }
        for file in ["card.json", "card-v2.json"] {
            let p = try runMargin(["publish", file, "--cards", "."], in: folder.path)
            #expect(p.status == 0, "\(p.stderr)")
        }
        var options = CardChecker.Options(
            minMargin: exact("0.5"), now: try Timestamp(rfc3339: Self.inJune))
        #expect(CardChecker.check(paths: [folder.path], options: options).exitCode == 0)
        options.allVersions = true
        let all = CardChecker.check(paths: [folder.path], options: options)
        #expect(
            all.diagnostics.filter { $0.rule?.id == "min-margin" }.map(\.path) == [
                folder.path + "/card.json"
            ])

        let june = try runMargin(
            ["check", ".", "--min-margin", "50", "--now", Self.inJune], in: folder.path)
        #expect(june.status == 0, "\(june.stderr)")
        let every = try runMargin(
            ["check", ".", "--min-margin", "50", "--now", Self.inJune, "--all-versions"],
            in: folder.path)
        #expect(every.status == 1)
        #expect(
            every.stderr.contains(
                "card.json:18:50: error: pack \"p1000\" at USD 0.99: the worst-case margin after 30% commission is USD 0.39 (39.7% of the price), below the 50.0% floor"
            ), "\(every.stderr)")
        // In January demo@1 is the version in force: the floor applies to it.
        let january = try runMargin(
            ["check", ".", "--min-margin", "50", "--now", Self.inJanuary], in: folder.path)
        #expect(january.status == 1)
        #expect(january.stderr.contains("[min-margin]"))
    }

    // MARK: 20. An uncomputable worst case is [worst-case]; --fx, --commission, --tax

    /// The fixture card priced in GBP with a USD provider and no FX file.
    static let gbpCard = CheckFixture.card.replacingOccurrences(
        of: "\"currency\": \"USD\", \"amount\": \"0.99\"",
        with: "\"currency\": \"GBP\", \"amount\": \"0.99\"")

    @Test func aWorstCaseThatCannotBeComputedIsAWorstCaseFinding() throws {
        let folder = try CheckFixture.folder(["card.json": Self.gbpCard])
        defer { folder.cleanup() }
        let report = CardChecker.check(
            paths: [folder.path],
            options: .init(now: try Timestamp(rfc3339: CheckFixture.beforeEffective)))
        let finding = try #require(report.diagnostics.first { $0.severity == .error })
        #expect(finding.rule?.id == "worst-case")
        #expect(
            finding.message.contains(
                "no FX rate from USD to GBP; add one to the FX file or pass --fx USD/GBP=RATE"))
        let r = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective], in: folder.path)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("[worst-case]") && !r.stderr.contains("[min-margin]"), "\(r.stderr)")
        // The advice can be followed.
        let fixed = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective, "--fx", "USD/GBP=0.8"],
            in: folder.path)
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }

    @Test func checkAndPublishTakeTheFiguresPacksTakes() throws {
        let folder = try CheckFixture.folder(["card.json": Self.gbpCard])
        defer { folder.cleanup() }
        // With --fx the floor is compared; at 99% it fails, naming the command line's rate.
        let floor = try runMargin(
            [
                "check", ".", "--now", CheckFixture.beforeEffective, "--fx", "USD/GBP=0.8",
                "--min-margin", "99",
            ], in: folder.path)
        #expect(floor.status == 1)
        #expect(
            floor.stderr.contains("; FX USD/GBP 0.8 (given on the command line) [min-margin]"),
            "\(floor.stderr)")
        // Commission and tax change the figures as they do for packs.
        let commission = try runMargin(
            [
                "check", ".", "--now", CheckFixture.beforeEffective, "--fx", "USD/GBP=0.8",
                "--commission", "0.5", "--tax", "GBP=0.2", "--min-margin", "30",
            ], in: folder.path)
        #expect(commission.status == 1)
        #expect(commission.stderr.contains("after 50% commission"), "\(commission.stderr)")
        #expect(try runMargin(["check", ".", "--commission", "lots"], in: folder.path).status == 2)
        // publish refuses without a rate and records with one.
        let refused = try runMargin(["publish", "card.json", "--cards", "."], in: folder.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("[worst-case]"))
        let published = try runMargin(
            ["publish", "card.json", "--cards", ".", "--fx", "USD/GBP=0.8"], in: folder.path)
        #expect(published.status == 0, "\(published.stderr)")
    }

    @Test func aCommandLineRateIsNeverCreditedToTheFile() throws {
        let fx = """
            {"kind": "fx", "date": "2026-01-01", "placeholder": true, "source": "placeholder", "rates": [{"base": "GBP", "quote": "USD", "rate": "1.25"}]}
            """
        let folder = try CheckFixture.folder(["card.json": Self.gbpCard, "fx.json": fx])
        defer { folder.cleanup() }
        let fromFile = try runMargin(
            ["check", ".", "--now", CheckFixture.beforeEffective, "--min-margin", "99"],
            in: folder.path)
        #expect(
            fromFile.stderr.contains("; FX GBP/USD 1.25 (./fx.json, placeholder) [min-margin]")
                || fromFile.stderr.contains("; FX GBP/USD 1.25 (fx.json, placeholder) [min-margin]"),
            "\(fromFile.stderr)")
        let overridden = try runMargin(
            [
                "check", ".", "--now", CheckFixture.beforeEffective, "--min-margin", "99", "--fx",
                "GBP/USD=1.3",
            ], in: folder.path)
        #expect(
            overridden.stderr.contains("; FX GBP/USD 1.3 (given on the command line) [min-margin]"),
            "\(overridden.stderr)")
        #expect(!overridden.stderr.contains("fx.json"))
    }

    // MARK: 22. Every rule id in output is documented

    /// The rule ids of the table in docs/check.md.
    static func documentedRules() throws -> Set<String> {
        let text = try String(
            contentsOf: packageRoot.appendingPathComponent("docs/check.md"), encoding: .utf8)
        var rules = Set<String>()
        // Every `id` of the first cell (a row may name several related rules).
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for (i, part) in cell.split(separator: "`", omittingEmptySubsequences: false)
                .enumerated() where i % 2 == 1
            {
                rules.insert(String(part))
            }
        }
        return rules
    }

    @Test func everyCheckRuleIsDocumentedAndEveryDocumentedRuleExists() throws {
        let documented = try Self.documentedRules()
        #expect(documented == Set(CheckRule.allCases.map(\.rawValue)))
    }

    /// Every rule id spelt as a string literal in the library is a `CheckRule` (the takings
    /// rules of `margin pnl`, in docs/takings.md, and `margin report --check`'s, in
    /// docs/reports.md, are not `check`'s).
    @Test func everyRuleLiteralIsACheckRule() throws {
        let root = packageRoot.appendingPathComponent("Sources/RateCard")
        let files = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        let known = Set(CheckRule.allCases.map(\.rawValue))
        var unknown: [String] = []
        for file in files
        where file.hasSuffix(".swift") && !file.hasPrefix("Takings/") && !file.hasPrefix("PnL/")
            && !file.hasPrefix("Report/")
        {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let range = line.range(of: "rule: \"") else { continue }
                let id = String(line[range.upperBound...].prefix { $0 != "\"" })
                if !known.contains(id) { unknown.append("\(file): \(id)") }
            }
        }
        #expect(unknown.isEmpty, "\(unknown)")
        #expect(!files.isEmpty)
    }

    @Test func everyRuleTheBinaryPrintsIsDocumented() throws {
        let documented = try Self.documentedRules()
        let folder = try CheckFixture.folder([
            "card.json": CheckFixture.card, "copy.json": CheckFixture.card,
            "card-v2.json": CheckFixture.cardV2,
            "products.storekit": CheckFixture.storeKit(price: "1.99"),
        ])
        defer { folder.cleanup() }
        var printed = Set<String>()
        for args in [
            ["check", ".", "--storekit", "products.storekit"], ["check", ".", "--format", "json"],
            ["publish", "card.json", "--cards", "."],
        ] {
            let r = try runMargin(args, in: folder.path)
            for line in (r.stderr + r.stdout).split(separator: "\n") {
                if line.hasSuffix("]"), let open = line.lastIndex(of: "[") {
                    printed.insert(
                        String(line[line.index(after: open)..<line.index(before: line.endIndex)]))
                }
                if let range = line.range(of: "\"rule\" : \"") ?? line.range(of: "\"rule\": \"") {
                    printed.insert(String(line[range.upperBound...].prefix { $0 != "\"" }))
                }
            }
        }
        #expect(
            printed.contains("version-order") && printed.contains("storekit-price"), "\(printed)")
        #expect(
            printed.subtracting(documented).isEmpty,
            "undocumented: \(printed.subtracting(documented))")
    }
}
