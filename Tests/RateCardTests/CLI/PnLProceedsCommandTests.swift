import Foundation
import Testing

@testable import RateCard

/// `margin pnl --proceeds` through the built binary: the worked example of
/// docs/proceeds.md in every format, and each bad input a located error with exit 2.
@Suite struct PnLProceedsCommandTests {
    static let a = "Tests/RateCardTests/Fixtures/Apple"
    static let p = "Tests/RateCardTests/Fixtures/Proceeds"
    static let example = [
        "pnl", "\(p)/ledger.jsonl", "--cards", "\(p)/cards", "--currency", "GBP",
        "--credit-value", "GBP 0.005", "--now", "2026-12-07T00:00:00Z",
        "--proceeds", "\(a)/financial-2026-11.txt", "--proceeds", "\(a)/sales-2026-11.txt",
        "--transactions", "\(a)/transactions.jsonl", "--transactions", "\(a)/history-page.json",
        "--transactions", "\(a)/notifications.jsonl",
    ]

    @Test func csvByteForByte() throws {
        _ = try expectMargin(
            Self.example + ["--format", "csv"], exits: 0,
            stdout: .equals(
                """
                section,key,basis,credits,amount,currency
                feature,chat,modelled,390,1.95,GBP
                feature,chat,proceeds,390,1.36136,GBP
                feature,chat,transaction,220,,
                feature,chat,period,20,,
                feature,chat,free,50,,
                feature,chat,refunded,100,,
                rate,"demo.credits.100 GBP, financial 2026-11-01–2026-11-28",transaction,120,0.0058,GBP
                rate,"demo.credits.500 GBP, financial 2026-11-01–2026-11-28",transaction,0,0.00466,GBP
                rate,"demo.credits.500 USD, financial 2026-11-01–2026-11-28",transaction,100,0.005584,GBP
                rate,"every product, financial 2026-11-01–2026-11-28",period,20,0.005348,GBP
                rate,free,free,50,0,GBP
                rate,refunded,refunded,100,0,GBP
                liability,paid,proceeds,620,3.026,GBP
                liability,breakage recognised,,,0.116,GBP
                liability,deferred,,,2.91,GBP
                liability,free,free,10,0,GBP
                breakage,recognised,,,2.6976,GBP
                breakage,lapsed paid,,460,,
                breakage,lapsed free,free,0,,

                """), stderr: .empty)
    }

    /// Apple's reports gzip'd, as App Store Connect delivers them (the sales report from the
    /// fixtures, the financial one compressed here by the system `gzip`), value the same.
    @Test func gzipReportsValueTheSame() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let financial = dir.url.appendingPathComponent("financial.txt.gz").path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-c", "-9", "\(Self.a)/financial-2026-11.txt"]
        let out = Pipe()
        gzip.standardOutput = out
        try gzip.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        try #require(gzip.terminationStatus == 0)
        try bytes.write(to: URL(fileURLWithPath: financial))
        let plain = try runMargin(Self.example + ["--format", "csv"])
        #expect(plain.status == 0)
        let gz = try runMargin(
            Self.example.map {
                $0.hasSuffix("sales-2026-11.txt")
                    ? $0 + ".gz" : $0.hasSuffix("financial-2026-11.txt") ? financial : $0
            } + ["--format", "csv"])
        #expect(gz.status == 0)
        #expect(gz.stderr == "")
        #expect(gz.stdout == plain.stdout)
    }

    @Test func tableMarkdownAndJSONCarryTheSameFigures() throws {
        _ = try expectMargin(
            Self.example, exits: 0,
            stdout: .contains(
                "Credits at Apple's proceeds (first in, first out per account):",
                "chat         390  GBP 1.95  GBP 1.36136  GBP −0.58864",
                "contract liability (deferred revenue): GBP 2.91",
                "credits granted for free not yet spent: 10 (no money)",
                "recognised in the window: GBP 2.6976"), stderr: .empty)
        _ = try expectMargin(
            Self.example + ["--format", "markdown"], exits: 0,
            stdout: .contains(
                "# Takings by feature", "## Credits at Apple's proceeds", "### Liability",
                "- contract liability (deferred revenue): GBP 2.91", "### Method"),
            stderr: .empty)
        let r = try expectMargin(Self.example + ["--format", "json"], exits: 0, stderr: .empty)
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let proceeds = try #require(root["proceeds"] as? [String: Any])
        let liability = try #require(proceeds["liability"] as? [String: Any])
        #expect((liability["deferred"] as? [String: Any])?["amount"] as? String == "2.91")
        #expect(liability["paidCredits"] as? String == "620")
        #expect(liability["freeCredits"] as? String == "10")
        let total = try #require(proceeds["total"] as? [String: Any])
        #expect((total["proceeds"] as? [String: Any])?["amount"] as? String == "1.36136")
    }

    @Test(arguments: [
        (
            "\(a)/bad/sales-bad-amount.txt",
            "sales-bad-amount.txt:3:55: error: Developer Proceeds: \"0,58\" is not a decimal amount"
        ),
        (
            "\(a)/bad/financial-extended.txt",
            "financial-extended.txt:2:65: error: Extended Partner Share: 3.5 is not Quantity × Partner Share"
        ),
        (
            "\(a)/bad/sales-unknown-product.txt",
            "sales-unknown-product.txt:2:10: error: SKU: unknown product \"demo.credits.9000\""
        ),
        (
            "\(a)/bad/sales-wrong-columns.txt",
            "sales-wrong-columns.txt:1:1: error: wrong column set for a Summary Sales Report"
        ),
        (
            "\(a)/bad/sales-fractional-units.txt",
            "sales-fractional-units.txt:2:53: error: Units: \"1.5\" is not a whole number of units"
        ),
        (
            "\(a)/bad/sales-corrupt.txt.gz",
            "sales-corrupt.txt.gz:1:1: error: cannot decompress the gzip file: the CRC-32 of the data does not match"
        ),
        (
            "\(p)/bad/sales-overlap.txt",
            "sales-overlap.txt:3:1: error: the period 2026-11-05–2026-11-05 of demo.credits.100 (GBP) overlaps 2026-11-01–2026-11-30"
        ),
    ])
    func aBadReportIsALocatedError(file: String, message: String) throws {
        _ = try expectMargin(
            [
                "pnl", "\(Self.p)/ledger.jsonl", "--cards", "\(Self.p)/cards", "--currency", "GBP",
                "--proceeds", "\(Self.a)/sales-2026-11.txt", "--proceeds", file,
            ], exits: 2, stderr: .contains(message, "problem"))
    }

    @Test func badTransactionsRollUpsAndUsage() throws {
        _ = try expectMargin(
            [
                "pnl", "\(Self.p)/ledger.jsonl", "--cards", "\(Self.p)/cards", "--currency", "GBP",
                "--proceeds", "\(Self.a)/sales-2026-11.txt", "--transactions",
                "\(Self.a)/bad/fractional-price.jsonl",
            ], exits: 2,
            stderr: .contains(
                "fractional-price.jsonl:2:406: error: price: 990.5 is not a whole number of milliunits"
            ))
        _ = try expectMargin(
            [
                "pnl", "\(Self.p)/bad/rollup.jsonl", "--cards", "\(Self.p)/cards", "--currency",
                "GBP", "--proceeds", "\(Self.a)/sales-2026-11.txt",
            ], exits: 2,
            stderr: .contains(
                "rollup.jsonl:1:1: error: a roll-up sums takings by feature and period, without the accounts"
            ))
        _ = try expectMargin(
            ["pnl", "\(Self.p)/ledger.jsonl", "--cards", "\(Self.p)/cards", "--transactions", "x"],
            exits: 2, stderr: .contains("--transactions only applies with --proceeds"))
        _ = try expectMargin(
            [
                "pnl", "\(Self.p)/ledger.jsonl", "--cards", "\(Self.p)/cards", "--sql", "duckdb",
                "--proceeds", "\(Self.a)/sales-2026-11.txt",
            ], exits: 2, stderr: .contains("the SQL form (--sql) does not take it"))
    }
}
