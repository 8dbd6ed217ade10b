import Foundation
import Testing

@testable import RateCard

/// The "Limits" table of docs/formats.md, checked against what the loader and engine do.
@Suite struct ArithmeticLimitTests {
    /// The sample card and sheet with one edit each.
    func margins(card: (String, String)? = nil, sheet: (String, String)? = nil) throws -> Result<
        PackMargins, WorstCaseError
    > {
        var c = sampleCard
        var s = sampleSheet
        if let card { c = replacingOnce(c, card.0, card.1) }
        if let sheet { s = replacingOnce(s, sheet.0, sheet.1) }
        let repo = try repository(["card.json": c, "sheet.json": s])
        return Result { () throws(WorstCaseError) in
            try PackMargins(card: repo.cards[0], repository: repo)
        }
    }

    @Test(arguments: [
        ("\"credits\": 3000", "\"credits\": 1000000000000000000000000000000", "packs[0].credits"),
        (
            "\"credits\": 1000}", "\"credits\": 1000000000000000000000000000000}",
            "grants[0].credits"
        ),
        (
            "\"credits\": 1, ", "\"credits\": 1000000000000000000000000000000, ",
            "features[0].dimensions[0].credits"
        ),
        ("\"credits\": 3000", "\"credits\": 1000000000000001", "packs[0].credits"),
    ])
    func creditsBeyondTheLoaderCeilingAreALoadError(_ old: String, _ new: String, _ path: String) {
        let diagnostics = loadDiagnostics(replacingOnce(sampleCard, old, new))
        #expect(
            diagnostics.contains {
                $0.message.hasPrefix("\(path): ") && $0.message.contains("is out of range")
            }, "\(diagnostics.map(\.rendered))")
    }

    /// `CardFileLoader.maxCredits` is 10^15.
    @Test func theLargestPackLoadsAndPrices() throws {
        #expect(CardFileLoader.maxCredits == 1_000_000_000_000_000)
        let result = try margins(card: ("\"credits\": 3000", "\"credits\": 1000000000000000"))
        let row = try #require(try result.get().rows.first)
        #expect(row.worst.credits == 1_000_000_000_000_000)
        // 10^15 credits × 3 s per credit at 4.5 CNY per hour.
        #expect(row.worst.cost.amount == exact("3750000000000"))
    }

    /// 39 decimal places are beyond exact text; 30 and 20 load.
    @Test(arguments: [
        (39, false), (30, true), (20, true),
    ])
    func tinyPricesAtTheDecimalLimit(_ places: Int, _ loads: Bool) throws {
        let tiny = "0." + String(repeating: "0", count: places - 1) + "1"
        let sheet = replacingOnce(sampleSheet, "\"price\": \"4.5\"", "\"price\": \"\(tiny)\"")
        let diagnostics = loadDiagnostics(sheet, path: "sheet.json")
        #expect(diagnostics.isEmpty == loads, "\(diagnostics.map(\.rendered))")
        if !loads {
            #expect(
                diagnostics.contains {
                    $0.message.hasPrefix("meters[0].price:")
                        && $0.message.contains("more than 38 digits")
                })
        }
    }

    /// A provider price of 10^-20 or 10^-30 CNY: the worst case is computed exactly, or
    /// fails with an error naming the computation; never a trap.
    @Test(arguments: [20, 30])
    func tinyProviderPricesComputeOrFailCleanly(_ places: Int) throws {
        let tiny = "0." + String(repeating: "0", count: places - 1) + "1"
        switch try margins(sheet: ("\"price\": \"4.5\"", "\"price\": \"\(tiny)\"")) {
        case .success(let m):
            let row = try #require(m.rows.first)
            // 3000 credits buy 9000 s: 2.5 hours at 10^-places per hour.
            #expect(
                row.worst.cost.amount
                    == (try Exact(5, over: 2).multiplied(
                        by: Exact(1, over: Exact.powerOfTen(places)))))
        case .failure(let error):
            #expect(String(describing: error).contains("too large"))
        }
    }

    /// A pack price of 10^-20 or 10^-30 CNY: margins are exact or a clean error.
    @Test(arguments: [20, 30])
    func tinyPackPricesComputeOrFailCleanly(_ places: Int) throws {
        let tiny = "0." + String(repeating: "0", count: places - 1) + "1"
        switch try margins(card: ("\"amount\": \"28\"", "\"amount\": \"\(tiny)\"")) {
        case .success(let m):
            let row = try #require(m.rows.first)
            #expect(row.lines.allSatisfy { $0.margin?.amount.isNegative == true })
        case .failure(let error):
            #expect(String(describing: error).contains("too large"))
        }
    }

    /// A provider price near 10^38 for every unit and a pack of 10^15 credits overflow 128
    /// bits: a `WorstCaseError`, and `margin packs` exits 2 naming the card.
    @Test func engineOverflowIsAnError() throws {
        let card = ("\"credits\": 3000", "\"credits\": 1000000000000000")
        let sheet = (
            "\"per\": \"3600\", \"price\": \"4.5\"",
            "\"per\": \"1\", \"price\": \"99999999999999999999999999999999999999\""
        )
        let result = try margins(card: card, sheet: sheet)
        #expect(throws: WorstCaseError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(String(describing: error).contains("too large to compute exactly"), "\(error)")
        }

        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write("cards/card.json", replacingOnce(sampleCard, card.0, card.1))
        try folder.write("cards/sheet.json", replacingOnce(sampleSheet, sheet.0, sheet.1))
        let r = try runMargin(["packs", "--cards", folder.path + "/cards"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("card.json:1:1: error: demo@3: "), "\(r.stderr)")
        #expect(r.stderr.contains("too large"), "\(r.stderr)")
    }
}
