import Foundation
import Testing

/// A plan priced 0 has a margin but no margin share: `margin plans` shows "—" for the
/// share (null in JSON, empty in CSV), never 0.0%, which would claim a computed figure.
@Suite("margin plans: a plan priced 0 has no margin share")
struct PlansZeroPriceTests {
    /// The example folder of docs/plans.md with talk.plus.monthly priced CNY 0.
    static func folder(_ dir: TemporaryFolder) throws -> String {
        try plansExample(
            in: dir, replacing: #""prices": [ { "currency": "CNY", "amount": "28" } ]"#,
            with: #""prices": [ { "currency": "CNY", "amount": "0" } ]"#)
    }

    /// The table's rows that start with `prefix`, each with its cells (split at blanks).
    static func rows(_ table: String, startingWith prefix: String) -> [(
        row: Substring, cells: [Substring]
    )] {
        table.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map {
            ($0, $0.split(separator: " ", omittingEmptySubsequences: true))
        }
    }

    /// The example folder of docs/plans.md copied into `dir` (and `extra` files of the
    /// repository's RateCards/ beside it), with one price text of talk-v1.json, which must
    /// be there once, replaced.
    static func plansExample(
        in dir: TemporaryFolder, replacing priced: String, with replacement: String,
        extra: [String] = []
    ) throws -> String {
        let dest = dir.path + "/plans"
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("docs/examples/plans").path, toPath: dest)
        for name in extra {
            try FileManager.default.copyItem(
                atPath: repositoryCards + "/" + name, toPath: dest + "/" + name)
        }
        let card = dest + "/talk-v1.json"
        let text = try String(contentsOfFile: card, encoding: .utf8)
        #expect(text.components(separatedBy: priced).count == 2)
        try Data(text.replacingOccurrences(of: priced, with: replacement).utf8).write(
            to: URL(fileURLWithPath: card))
        return dest
    }

    @Test("the table shows — for the share of a price of 0; JSON null; CSV empty")
    func zeroPrice() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let cards = try Self.folder(dir)
        let table = try expectMargin(["plans", "--cards", cards], exits: 0)
        let rows = Self.rows(table.stdout, startingWith: "talk@1  talk.plus.monthly  P1M")
        #expect(rows.count == 2)
        for (row, cells) in rows {
            // price, worst cost, program, "30% → 15%" (three cells), margin y1, margin y1 %,
            // margin after, margin after %
            #expect(cells[4] == "0.00")
            #expect(cells[10] == "−14.25" && cells[11] == "—")
            #expect(cells[12] == "−14.25" && cells[13] == "—")
            #expect(!row.contains("0.0%"))
        }
        // The priced plan keeps its share.
        #expect(table.stdout.contains("talk.pro.monthly   P1M     CNY       78.00"))
        let csv = try expectMargin(["plans", "--cards", cards, "--format", "csv"], exits: 0)
        let zero = csv.stdout.split(separator: "\n").filter {
            $0.hasPrefix("talk@1,year-one,talk.plus.monthly,P1M,CNY,0,")
        }
        #expect(zero.count == 2)
        for line in zero {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(cells[10] == "-14.25" && cells[11] == "")
        }
        let json = try expectMargin(["plans", "--cards", cards, "--format", "json"], exits: 0)
        #expect(json.stdout.contains(#""marginShare": null"#))
    }

    /// A plan priced below 0 (an error for `check`, `free-price`) has no share either: its
    /// loss over a negative price would read as a share above 100% (−102.90 ÷ −78 = 131.9%).
    @Test("a negative plan price has no margin share, not a share above 100%")
    func negativePrice() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let dest = try Self.plansExample(
            in: dir, replacing: #""prices": [ { "currency": "CNY", "amount": "78" } ]"#,
            with: #""prices": [ { "currency": "CNY", "amount": "-78" } ]"#)
        let table = try expectMargin(["plans", "--cards", dest], exits: 0)
        let rows = Self.rows(table.stdout, startingWith: "talk@1  talk.pro.monthly   P1M")
        #expect(rows.count == 2)
        for (row, cells) in rows {
            // −78 × (1 − 30%) − 48.30 in year one (15% for small business), −78 × 85% − 48.30
            // after it.
            #expect(cells[4] == "−78.00")
            #expect(["−102.90", "−114.60"].contains(cells[10]) && cells[11] == "—", "\(row)")
            #expect(cells[12] == "−114.60" && cells[13] == "—", "\(row)")
        }
    }
}
