import Foundation
import Testing

@testable import RateCard

/// `margin reconcile` through the built binary: stdout, stderr and the exit code.
@Suite struct ReconcileCommandTests {
    static let a = "Tests/RateCardTests/Fixtures/Apple"
    static let example = [
        "reconcile", "\(a)/ledger.jsonl", "--cards", "\(a)/cards",
        "--transactions", "\(a)/transactions.jsonl", "--transactions", "\(a)/history-page.json",
        "--transactions", "\(a)/notifications.jsonl",
    ]

    @Test func findingsAsCSVExitOne() throws {
        let f = "\(Self.a)/ledger.jsonl"
        let t = "\(Self.a)/transactions.jsonl"
        let n = "\(Self.a)/notifications.jsonl"
        let h = "\(Self.a)/history-page.json"
        _ = try expectMargin(
            Self.example + ["--format", "csv"], exits: 1,
            stdout: .equals(
                """
                finding,ledgerFile,ledgerLine,entry,appleFile,appleLine,transaction,product,credits,spentSince,spentCost,spentCostCurrency,amount,currency,detail
                never-credited,,,,\(t),4,2000000004,demo.credits.500,500,,,,3.99,GBP,1 × 500 credits of demo.credits.500
                credits-differ,\(f),4,d1-02,\(t),3,2000000003,demo.credits.100,100,,,,0.99,GBP,"granted 100, expected 2 × 100 = 200"
                no-apple-transaction,\(f),17,d7-01,,,9999999999,,100,,,,0.99,GBP,paymentRef 9999999999 is no transaction of Apple's
                refund-not-taken-back,\(f),7,d3-03,\(n),1,2000000005,demo.credits.500,500,300,0,GBP,3.99,GBP,"revoked 2026-11-15T10:00:00Z (reason 0); granted 500, taken back 0"
                revoked-without-refund,\(f),15,d6-02,\(n),3,2000000010,demo.credits.100,100,,,,0.99,GBP,Apple has not refunded this purchase (or reversed the refund)
                duplicate-credit,\(f),3,d2-02,\(t),2,2000000002,demo.credits.500,500,,,,4.99,USD,a second top-up for the transaction credited at \(f):2
                sandbox-in-production,\(f),13,d5-01,\(t),6,2000000007,demo.credits.100,100,,,,,,Sandbox transaction: Apple charged nothing
                price-differs,\(f),16,d1-03,\(h),9,2000000008,demo.credits.100,100,,,,-0.5,GBP,"Apple GBP 0.99 per unit, card demo@2 GBP 1.49"

                """), stderr: .empty)
    }

    @Test func everyFormatCarriesTheSameFigures() throws {
        let args =
            Self.example + [
                "--sales", "\(Self.a)/sales-2026-11.txt", "--financial",
                "\(Self.a)/financial-2026-11.txt",
            ]
        _ = try expectMargin(
            args, exits: 1,
            stdout: .contains(
                "findings: 8", "refund-not-taken-back", "GBP 3.99", "GBP −0.50", "GBP 2.90",
                "Apple's financial reports (final; Apple's fiscal months)"), stderr: .empty)
        _ = try expectMargin(
            args + ["--format", "markdown"], exits: 1,
            stdout: .contains(
                "# Reconciliation", "## Findings", "## Summary Sales Reports", "| price-differs |"),
            stderr: .empty)
        let json = try expectMargin(args + ["--format", "json"], exits: 1, stderr: .empty)
        let root = try JSONParser.parse(json.stdout)
        guard case .array(let findings) = root["findings"]?.value else {
            Issue.record("no findings array")
            return
        }
        #expect(findings.count == 8)
        #expect(root["findings"].map { _ in true } == true)
        #expect(
            findings[3]["money"]?["amount"]?.value == .string("3.99")
                && findings[3]["spentSince"]?.value == .string("300"))
        guard case .array(let sales) = root["sales"]?.value else {
            Issue.record("no sales array")
            return
        }
        #expect(sales[0]["proceeds"]?["amount"]?.value == .string("2.9"))
    }

    @Test func badAppleFilesAreExitTwoWithEveryPlace() throws {
        let a = Self.a
        _ = try expectMargin(
            [
                "reconcile", "\(a)/ledger.jsonl", "--cards", "\(a)/cards", "--transactions",
                "\(a)/bad/fractional-price.jsonl", "--sales", "\(a)/bad/sales-bad-amount.txt",
                "--financial", "\(a)/bad/financial-extended.txt",
            ], exits: 2, stdout: .empty,
            stderr: .equals(
                """
                \(a)/bad/financial-extended.txt:2:65: error: Extended Partner Share: 3.5 is not Quantity × Partner Share (6 × 0.58)
                \(a)/bad/fractional-price.jsonl:2:406: error: price: 990.5 is not a whole number of milliunits (4.99 is 4990)
                \(a)/bad/sales-bad-amount.txt:3:55: error: Developer Proceeds: "0,58" is not a decimal amount (unexpected character ',' in a decimal)
                margin: error: 3 problems in Apple's records

                """))
    }

    /// A gzip'd report (as App Store Connect delivers it) gives the same output as its text;
    /// it is told by its magic bytes, so a `.txt` name changes nothing; a cut-short one is an
    /// error naming the file and the byte offset.
    @Test func gzipReportsAreRead() throws {
        let run = Self.example + ["--format", "csv", "--sales"]
        let plain = try runMargin(run + ["\(Self.a)/sales-2026-11.txt"])
        #expect(plain.status == 1)
        #expect(plain.stdout.contains("never-credited"))
        let gz = try runMargin(run + ["\(Self.a)/sales-2026-11.txt.gz"])
        #expect(gz.status == 1)
        #expect(gz.stdout == plain.stdout)
        #expect(gz.stderr == plain.stderr)
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let named = dir.url.appendingPathComponent("sales.txt").path
        try FileManager.default.copyItem(atPath: "\(Self.a)/sales-2026-11.txt.gz", toPath: named)
        let renamed = try runMargin(run + [named])
        #expect(renamed.stdout == plain.stdout)
        _ = try expectMargin(
            Self.example + ["--sales", "\(Self.a)/bad/sales-truncated.txt.gz"], exits: 2,
            stdout: .empty,
            stderr: .contains(
                "sales-truncated.txt.gz:1:1: error: cannot decompress the gzip file: the compressed data is cut short (at byte offset 200)"
            ))
    }

    @Test func usage() throws {
        _ = try expectMargin(
            ["reconcile", "\(Self.a)/ledger.jsonl", "--cards", "\(Self.a)/cards"], exits: 2,
            stdout: .empty,
            stderr: .hasPrefix("margin: error: give Apple's transactions with --transactions FILE"))
        _ = try expectMargin(
            ["reconcile", "--cards", "\(Self.a)/cards", "--transactions", "x"], exits: 2,
            stdout: .empty, stderr: .hasPrefix("margin: error: give at least one ledger export"))
        _ = try expectMargin(
            Self.example + ["--format", "xml"], exits: 2, stdout: .empty,
            stderr: .hasPrefix("margin: error: unknown format 'xml'"))
        _ = try expectMargin(
            ["reconcile", "--help"], exits: 0,
            stdout: .contains("Usage: margin reconcile LEDGER… --transactions FILE…"),
            stderr: .empty)
    }

    @Test func aRejectedLedgerLineIsAWarningOnStderr() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write(
            "l.jsonl",
            #"{"id":"a","at":"2026-11-05T10:05:00Z","kind":"topup","amount":100,"paymentRef":"2000000001"}"#
                + "\n"
                + #"{"id":"b","at":"2026-11-05T10:05:00Z","kind":"revoke","amount":100,"paymentRef":"2000000001"}"#
                + "\n")
        let onlyT1 = try String(
            contentsOfFile: packageRoot.path + "/\(Self.a)/transactions.jsonl", encoding: .utf8
        ).split(separator: "\n")[0]
        try folder.write("t.jsonl", String(onlyT1) + "\n")
        _ = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards",
                packageRoot.path + "/\(Self.a)/cards", "--transactions", folder.path + "/t.jsonl",
            ], exits: 0, stdout: .contains("findings: 0", "1 lines not read"),
            stderr: .equals(
                "\(folder.path)/l.jsonl:2:1: warning: ledger line not read: amount: a revoke is negative, found 100 [wrong-sign]\n"
            ))
    }
}
