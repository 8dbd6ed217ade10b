import Foundation
import Testing

@testable import RateCard

/// Every record of Apple's files is accounted for (QA, issue 27): a repeated transaction
/// id is said at both places and counted, an empty `--transactions` file is a warning and
/// a count of 0, and a number too large to hold is an overflow, not "not a whole number".
/// Through the built binary: stdout, stderr and the exit code.
@Suite struct AppleInputAccountingTests {
    static let a = "Tests/RateCardTests/Fixtures/Apple"
    static var cards: String { packageRoot.path + "/\(a)/cards" }

    /// The first decoded transaction of the example (2000000001, GBP 0.99, production).
    static func firstTransaction() throws -> String {
        String(
            try String(
                contentsOfFile: packageRoot.path + "/\(a)/transactions.jsonl", encoding: .utf8
            ).split(separator: "\n")[0])
    }

    static let topup =
        #"{"id":"a","at":"2026-11-05T10:05:00Z","kind":"topup","amount":100,"paymentRef":"2000000001"}"#
        + "\n"

    @Test func aRepeatedTransactionIsAWarningNamingBothLines() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write("l.jsonl", Self.topup)
        let t1 = try Self.firstTransaction()
        try folder.write("t.jsonl", t1 + "\n" + t1 + "\n")
        let t = folder.path + "/t.jsonl"
        let run = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards", Self.cards, "--transactions", t,
            ], exits: 0,
            stdout: .contains(
                "Apple transactions: 1 (1 production",
                "Apple records: 2 transaction records read, 1 repeating an id read before (\(t) 2 transactions, 0 notifications)",
                "findings: 0"),
            stderr: .equals(
                "\(t):2:1: warning: transaction 2000000001 repeats \(t):1 (the same record): one purchase\n"
            ))
        #expect(!run.stdout.contains("warning"))
        let json = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards", Self.cards, "--transactions", t,
                "--format", "json",
            ], exits: 0, stderr: .contains("repeats"))
        let summary = try #require(try JSONParser.parse(json.stdout)["summary"])
        #expect(summary["transactionRecords"]?.value == .number("2"))
        #expect(summary["repeatedTransactions"]?.value == .number("1"))
        #expect(summary["appleTransactions"]?.value == .number("1"))
    }

    /// The same id as a decoded transaction and in a signed JWS (a history page) is two
    /// records of one purchase: said, with both places.
    @Test func aRepeatAcrossADecodedAndASignedRecordIsSaid() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write("l.jsonl", Self.topup)
        let t1 = try Self.firstTransaction()
        try folder.write("t.jsonl", t1 + "\n")
        let jws = "eyJhbGciOiJFUzI1NiJ9." + Self.base64URL(t1) + ".c2ln"
        try folder.write("signed.txt", jws + "\n" + jws + "\n")
        let (t, s) = (folder.path + "/t.jsonl", folder.path + "/signed.txt")
        _ = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards", Self.cards, "--transactions", t,
                "--transactions", s,
            ], exits: 0,
            stdout: .contains(
                "Apple transactions: 1 (", "3 transaction records read, 2 repeating an id"),
            stderr: .equals(
                """
                \(s):1:1: warning: transaction 2000000001 repeats \(t):1 (the same record): one purchase
                \(s):2:1: warning: transaction 2000000001 repeats \(t):1 (the same record): one purchase

                """))
    }

    @Test(arguments: ["", "\n  \n", "[]\n", #"{"signedTransactions":[],"hasMore":false}"# + "\n"])
    func anEmptyTransactionsFileIsAWarning(content: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write("l.jsonl", Self.topup)
        try folder.write("t.jsonl", try Self.firstTransaction() + "\n")
        try folder.write("empty.jsonl", content)
        let (t, e) = (folder.path + "/t.jsonl", folder.path + "/empty.jsonl")
        _ = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards", Self.cards, "--transactions", t,
                "--transactions", e,
            ], exits: 0,
            stdout: .contains(
                "(\(t) 1 transactions, 0 notifications; \(e) 0 transactions, 0 notifications)"),
            stderr: .equals("\(e): warning: no transactions\n"))
    }

    @Test func aPriceTooLargeIsAnOverflowAtItsLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        try folder.write("l.jsonl", Self.topup)
        let t1 = try Self.firstTransaction()
        let big = t1.replacingOccurrences(
            of: #""price":990"#, with: #""price":99999999999999999999999"#)
        try folder.write("t.jsonl", t1 + "\n" + big + "\n")
        let t = folder.path + "/t.jsonl"
        let column = try #require(big.range(of: "99999")).lowerBound.utf16Offset(in: big) + 1
        _ = try expectMargin(
            [
                "reconcile", folder.path + "/l.jsonl", "--cards", Self.cards, "--transactions", t,
            ], exits: 2, stdout: .empty,
            stderr: .equals(
                """
                \(t):2:\(column): error: price: 99999999999999999999999 is too large (overflow: the largest is 9223372036854775807)
                margin: error: 1 problem in Apple's records

                """))
    }

    /// The example's Summary Sales Report with the third line's Units and Developer
    /// Proceeds replaced, written into `folder`: its path, that line's cells, and the column
    /// the Units cell starts at.
    static func sales(in folder: TemporaryFolder, units: String, proceeds: String) throws -> (
        String, [String], Int
    ) {
        let sales = try String(
            contentsOfFile: packageRoot.path + "/\(Self.a)/sales-2026-11.txt", encoding: .utf8)
        var lines = sales.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cells = lines[2].split(separator: "\t", omittingEmptySubsequences: false).map(
            String.init)
        cells[7] = units
        cells[8] = proceeds
        lines[2] = cells.joined(separator: "\t")
        try folder.write("sales.txt", lines.joined(separator: "\n"))
        return (folder.path + "/sales.txt", cells, cells[0..<7].reduce(0) { $0 + $1.count + 1 } + 1)
    }

    /// The proceeds reader (`pnl --proceeds`) and `reconcile --sales` say the same of units
    /// too large to hold and of an amount of more digits than exact arithmetic holds.
    @Test func reportNumbersTooLargeAreOverflows() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let (s, cells, unitsColumn) = try Self.sales(
            in: folder, units: "99999999999999999999999",
            proceeds: String(repeating: "9", count: 40))
        let proceedsColumn = unitsColumn + cells[7].count + 1
        let expected = """
            \(s):3:\(unitsColumn): error: Units: "99999999999999999999999" is too large for a number of units (overflow: the largest is 9223372036854775807)
            \(s):3:\(proceedsColumn): error: Developer Proceeds: "\(cells[8])" is too large (overflow: more than 38 digits: beyond the range of exact arithmetic)
            margin: error: 2 problems in Apple's records

            """
        _ = try expectMargin(
            [
                "reconcile", packageRoot.path + "/\(Self.a)/ledger.jsonl", "--cards", Self.cards,
                "--transactions", packageRoot.path + "/\(Self.a)/transactions.jsonl", "--sales", s,
            ], exits: 2, stdout: .empty, stderr: .equals(expected))
        let p = packageRoot.path + "/Tests/RateCardTests/Fixtures/Proceeds"
        _ = try expectMargin(
            [
                "pnl", p + "/ledger.jsonl", "--cards", p + "/cards", "--currency", "GBP",
                "--credit-value", "GBP 0.005", "--now", "2026-12-07T00:00:00Z", "--proceeds", s,
            ], exits: 2, stdout: .empty, stderr: .equals(expected))
    }

    /// Units and proceeds that each fit but whose product does not are an error at the row,
    /// never a row of proceeds 0.
    @Test func unitsTimesProceedsTooLargeIsAnError() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let (s, cells, unitsColumn) = try Self.sales(
            in: folder, units: "9223372036854775807", proceeds: String(repeating: "9", count: 30))
        let expected = """
            \(s):3:\(unitsColumn): error: Units: 9223372036854775807 × Developer Proceeds \(cells[8]) is too large (overflow of exact arithmetic)
            margin: error: 1 problem in Apple's records

            """
        _ = try expectMargin(
            [
                "reconcile", packageRoot.path + "/\(Self.a)/ledger.jsonl", "--cards", Self.cards,
                "--transactions", packageRoot.path + "/\(Self.a)/transactions.jsonl", "--sales", s,
            ], exits: 2, stdout: .empty, stderr: .equals(expected))
    }

    /// `pnl --proceeds --transactions` says the same of a repeated id and an empty file.
    @Test func theProceedsPassSaysItToo() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let t1 = try Self.firstTransaction()
        try folder.write("t.jsonl", t1 + "\n" + t1 + "\n")
        try folder.write("empty.jsonl", "")
        let (t, e) = (folder.path + "/t.jsonl", folder.path + "/empty.jsonl")
        let p = packageRoot.path + "/Tests/RateCardTests/Fixtures/Proceeds"
        _ = try expectMargin(
            [
                "pnl", p + "/ledger.jsonl", "--cards", p + "/cards", "--currency", "GBP",
                "--credit-value", "GBP 0.005", "--now", "2026-12-07T00:00:00Z", "--proceeds",
                packageRoot.path + "/\(Self.a)/financial-2026-11.txt", "--transactions", t,
                "--transactions", e,
            ], exits: 0, stdout: .contains("Credits at Apple's proceeds"),
            stderr: .equals(
                """
                \(e): warning: no transactions
                \(t):2:1: warning: transaction 2000000001 repeats \(t):1 (the same record): one purchase

                """))
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
