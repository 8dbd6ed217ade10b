import Foundation
import Testing

@testable import RateCard

/// The folder of hand-made files in Apple's shapes.
let appleFixtures = packageRoot.appendingPathComponent("Tests/RateCardTests/Fixtures/Apple").path
let demoProducts: Set<String> = ["demo.credits.100", "demo.credits.500"]

func appleFixture(_ name: String) -> String { "\(appleFixtures)/\(name)" }

/// The rendered diagnostics of reading `body`, with the fixture folder cut from the paths.
func appleProblems(_ body: () throws(AppleRecordError) -> Void) -> [String] {
    do {
        try body()
        return []
    } catch {
        return error.diagnostics.map {
            $0.rendered.replacingOccurrences(of: appleFixtures + "/", with: "")
        }
    }
}

@Suite struct AppleTransactionReaderTests {
    @Test func decodedTransactionsOnePerLine() throws {
        let r = try AppleTransactionReader.read(paths: [appleFixture("transactions.jsonl")])
        #expect(
            r.transactions.map(\.transactionId) == [
                "2000000001", "2000000002", "2000000003", "2000000004", "2000000006", "2000000007",
            ])
        let t3 = try #require(r.transactions.first { $0.transactionId == "2000000003" })
        #expect(t3.quantity == 2)
        #expect(t3.priceMilliunits == 990)
        #expect(t3.price == Money(exact("0.99"), Currency(code: "GBP")!))
        #expect(t3.purchaseDate == (try Timestamp(rfc3339: "2026-11-07T10:00:00Z")))
        #expect(t3.place.line == 3)
        let t6 = try #require(r.transactions.first { $0.transactionId == "2000000006" })
        #expect(t6.revocationDate == (try Timestamp(rfc3339: "2026-11-12T10:00:00Z")))
        #expect(t6.revocationReason == 0)
        #expect(r.transactions.first { $0.transactionId == "2000000007" }?.environment == .sandbox)
    }

    @Test func historyPageOfSignedTransactions() throws {
        let r = try AppleTransactionReader.read(paths: [appleFixture("history-page.json")])
        #expect(r.historyPages == 1)
        #expect(r.transactions.map(\.transactionId) == ["2000000005", "2000000008", "2000000010"])
        // Each transaction is placed at its JWS string in the page.
        #expect(r.transactions.map(\.place.line) == [8, 9, 10])
        #expect(r.transactions[0].price == Money(exact("3.99"), Currency(code: "GBP")!))
    }

    @Test func notificationsDecodedAndAsApplePostsThem() throws {
        let r = try AppleTransactionReader.read(paths: [
            appleFixture("notifications.jsonl"), appleFixture("signed-notification.json"),
        ])
        #expect(
            r.notifications.map(\.notificationType) == [
                "REFUND", "REFUND", "REFUND_REVERSED", "CONSUMPTION_REQUEST", "REFUND",
            ])
        #expect(r.notifications[0].transaction?.transactionId == "2000000005")
        #expect(
            r.notifications[0].transaction?.revocationDate
                == (try Timestamp(rfc3339: "2026-11-15T10:00:00Z")))
        #expect(r.notifications[2].transaction?.revocationDate == nil)
        #expect(r.notifications[4].place.path.hasSuffix("signed-notification.json"))
    }

    @Test func signedTransactionsAloneOnALine() throws {
        let r = try AppleTransactionReader.read(paths: [appleFixture("signed-transactions.txt")])
        #expect(r.transactions.map(\.transactionId) == ["2000000001", "2000000008"])
        #expect(r.transactions.map(\.place.line) == [1, 2])
    }

    @Test(arguments: [
        (
            "bad/fractional-price.jsonl",
            "bad/fractional-price.jsonl:2:\(priceColumn): error: price: 990.5 is not a whole number of milliunits (4.99 is 4990)"
        ),
        (
            "bad/missing-product.jsonl",
            "bad/missing-product.jsonl:1:1: error: productId: missing required field"
        ),
        (
            "bad/bad-date.jsonl",
            "bad/bad-date.jsonl:1:\(dateColumn): error: purchaseDate: expected UNIX time in milliseconds, found a string"
        ),
        (
            "bad/bad-environment.jsonl",
            "bad/bad-environment.jsonl:1:\(environmentColumn): error: environment: \"Prod\" is not one of Production, Sandbox, Xcode, LocalTesting"
        ),
        (
            "bad/bad-jws.txt",
            "bad/bad-jws.txt:1:1: error: expected a JSON object or a signed JWS (header.payload.signature), found \"\(badJWS)\""
        ),
        (
            "bad/history-bad-price.json",
            "bad/history-bad-price.json:8:5: error: price: expected a whole number of milliunits (4.99 is 4990), found a string (in the decoded JWS payload)"
        ),
    ])
    func badTransactionsNameFileLineAndField(file: String, expected: String) {
        #expect(
            appleProblems { () throws(AppleRecordError) in
                _ = try AppleTransactionReader.read(paths: [appleFixture(file)])
            } == [expected])
    }
}

// Columns of the bad fields in the fixtures (1-based offsets in their lines).
private let priceColumn = column(of: "\"price\":990.5", in: "bad/fractional-price.jsonl", line: 2)
private let dateColumn = column(of: "\"purchaseDate\":", in: "bad/bad-date.jsonl", line: 1)
private let environmentColumn = column(
    of: "\"environment\":", in: "bad/bad-environment.jsonl", line: 1)
private let badJWS: String = {
    let text = (try? String(contentsOfFile: appleFixture("bad/bad-jws.txt"), encoding: .utf8)) ?? ""
    return FieldReader.excerpt(text.trimmingCharacters(in: .whitespacesAndNewlines))
}()

/// Where the value of the key `key` starts in `line` of the fixture `file`.
private func column(of key: String, in file: String, line: Int) -> Int {
    let text = (try? String(contentsOfFile: appleFixture(file), encoding: .utf8)) ?? ""
    let l = text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
    guard let r = l.range(of: key) else { return -1 }
    let keyEnd = key.firstIndex(of: ":").map { key.distance(from: key.startIndex, to: $0) + 1 } ?? 0
    return l.utf8.distance(from: l.startIndex, to: r.lowerBound) + keyEnd + 1
}

@Suite struct AppleReportReaderTests {
    @Test func summarySalesReport() throws {
        let r = try SummarySalesReport.read(
            path: appleFixture("sales-2026-11.txt"), products: demoProducts)
        #expect(r.otherRows == 1)
        #expect(r.rows.count == 5)
        #expect(r.rows.map(\.units) == [6, -1, 2, -1, 1])
        #expect(r.rows[0].developerProceeds == Money(exact("0.58"), Currency(code: "GBP")!))
        #expect(r.rows[1].proceeds == Money(exact("-0.58"), Currency(code: "GBP")!))
        #expect(r.rows[1].customerPrice == Money(exact("-0.99"), Currency(code: "GBP")!))
        #expect(r.rows[4].proceeds == Money(exact("3.49"), Currency(code: "USD")!))
        #expect(r.rows[0].begin == CalendarDate(year: 2026, month: 11, day: 1))
        #expect(r.rows[0].end == CalendarDate(year: 2026, month: 11, day: 30))
        #expect(r.rows.map(\.place.line) == [3, 4, 5, 6, 7])
    }

    /// App Store Connect delivers the reports gzip'd: the file is told by its magic bytes
    /// and read as the text it holds.
    @Test func gzipSalesReportReadsAsItsText() throws {
        let plain = try SummarySalesReport.read(
            path: appleFixture("sales-2026-11.txt"), products: demoProducts)
        let gz = try SummarySalesReport.read(
            path: appleFixture("sales-2026-11.txt.gz"), products: demoProducts)
        #expect(gz.rows.count == 5)
        #expect(gz.otherRows == plain.otherRows)
        #expect(gz.rows.map(\.units) == plain.rows.map(\.units))
        #expect(gz.rows.map(\.proceeds) == plain.rows.map(\.proceeds))
        #expect(gz.rows.map(\.place.line) == plain.rows.map(\.place.line))
    }

    @Test func financialReportStopsAtApplesTotals() throws {
        let r = try FinancialReport.read(
            path: appleFixture("financial-2026-11.txt"), products: demoProducts)
        #expect(r.rows.count == 5)
        #expect(r.rows.map(\.quantity) == [6, -1, 2, -1, 1])
        #expect(r.rows[1].extendedPartnerShare == Money(exact("-0.58"), Currency(code: "GBP")!))
        #expect(r.rows[1].saleOrReturn == "R")
        #expect(r.rows[0].end == CalendarDate(year: 2026, month: 11, day: 28))
    }

    @Test(arguments: [
        (
            "bad/sales-wrong-columns.txt",
            "bad/sales-wrong-columns.txt:1:1: error: wrong column set for a Summary Sales Report: missing \"Provider\", \"SKU\", \"Product Type Identifier\", \"Units\", \"Developer Proceeds\", \"Begin Date\", \"End Date\", \"Customer Currency\", \"Country Code\", \"Currency of Proceeds\", \"Customer Price\" (the header has no tabs: Apple's reports are tab-separated)"
        ),
        (
            "bad/sales-missing-column.txt",
            "bad/sales-missing-column.txt:1:1: error: wrong column set for a Summary Sales Report: missing \"Developer Proceeds\""
        ),
        (
            "bad/sales-bad-amount.txt",
            "bad/sales-bad-amount.txt:3:\(salesColumn("Developer Proceeds")): error: Developer Proceeds: \"0,58\" is not a decimal amount (unexpected character ',' in a decimal)"
        ),
        (
            "bad/sales-unknown-product.txt",
            "bad/sales-unknown-product.txt:2:\(salesColumn("SKU")): error: SKU: unknown product \"demo.credits.9000\": not a pack or plan of the card (give the report of this app only)"
        ),
        (
            "bad/sales-fractional-units.txt",
            "bad/sales-fractional-units.txt:2:\(salesColumn("Units")): error: Units: \"1.5\" is not a whole number of units"
        ),
        (
            "bad/sales-bad-date.txt",
            "bad/sales-bad-date.txt:2:\(salesColumn("End Date")): error: End Date: \"2026-11-30\" is not a date MM/DD/YYYY"
        ),
        (
            "bad/sales-truncated.txt.gz",
            "bad/sales-truncated.txt.gz:1:1: error: cannot decompress the gzip file: the compressed data is cut short (at byte offset 200)"
        ),
        (
            "bad/sales-corrupt.txt.gz",
            "bad/sales-corrupt.txt.gz:1:1: error: cannot decompress the gzip file: the CRC-32 of the data does not match the trailer's (56F5C969, not F572BFBB): the data is corrupt (at byte offset 395)"
        ),
    ])
    func badSalesReports(file: String, expected: String) {
        #expect(
            appleProblems { () throws(AppleRecordError) in
                _ = try SummarySalesReport.read(path: appleFixture(file), products: demoProducts)
            } == [expected.replacingOccurrences(of: appleFixtures + "/", with: "")])
    }

    @Test(arguments: [
        (
            "bad/financial-extended.txt",
            "bad/financial-extended.txt:2:\(financialColumn("Extended Partner Share")): error: Extended Partner Share: 3.5 is not Quantity × Partner Share (6 × 0.58)"
        ),
        (
            "bad/financial-sale-or-return.txt",
            "bad/financial-sale-or-return.txt:2:\(financialColumn("Sale or Return")): error: Sale or Return: \"X\" is not S or R"
        ),
    ])
    func badFinancialReports(file: String, expected: String) {
        #expect(
            appleProblems { () throws(AppleRecordError) in
                _ = try FinancialReport.read(path: appleFixture(file), products: demoProducts)
            } == [expected])
    }
}

/// The column where `name`'s cell starts in the second row of the sales fixture.
private func salesColumn(_ name: String) -> Int { tabColumn(name, "sales-2026-11.txt", row: 2) }
private func financialColumn(_ name: String) -> Int {
    tabColumn(name, "financial-2026-11.txt", row: 1)
}

private func tabColumn(_ name: String, _ file: String, row: Int) -> Int {
    let text = (try? String(contentsOfFile: appleFixture(file), encoding: .utf8)) ?? ""
    let lines = text.split(separator: "\n")
    let header = lines[0].split(separator: "\t", omittingEmptySubsequences: false)
    guard let k = header.firstIndex(where: { $0 == name }) else { return -1 }
    let cells = lines[row].split(separator: "\t", omittingEmptySubsequences: false)
    return cells[..<k].reduce(1) { $0 + $1.utf8.count + 1 }
}
