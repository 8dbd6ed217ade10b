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
        // China's commission change: CNY 28 pays 19.45 the day before and 20.84 from the day.
        let chn = try #require(
            r.stdout.split(separator: "\n").first {
                $0.contains("2026-03-15  CHN") && $0.contains("3000tks")
            })
        #expect(chn.contains("19.45") && chn.contains("20.84"))
        #expect(chn.contains("29.3%") && chn.contains("34.2%"))
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
