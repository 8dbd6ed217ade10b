import Foundation
import Testing

@testable import RateCard

@Suite("Takings input formats")
struct TakingsFormatTests {
    @Test("JSON Lines: one entry per line, blank lines counted, unknown fields ignored")
    func jsonLines() throws {
        let text = """
            \(Takings.line(id: "c1", amount: "-60000", extra: ",\"quantity\":{\"second\":76},\"device\":\"d1\",\"futureField\":[1,{\"a\":null}]"))

            \(Takings.line(id: "c2", amount: "\"-50000\"", feature: "debrief"))
            \(Takings.refund(id: "r1", of: "c1", amount: "60000"))
            {"id":"g1","at":"2026-11-01T00:00:00Z","kind":"grant","amount":5000000}
            {"id":"t1","at":"2026-11-02T00:00:00+08:00","kind":"topup","amount":"5000000","paymentRef":"p1","price":"GBP 5.00"}

            """
        let report = Takings.balanced(try Takings.run(text))
        #expect(report.input.lines == 6)
        #expect(report.input.blank == 1)
        #expect(report.input.entries == 5)
        let transcript = try #require(Takings.row(report, "transcript"))
        #expect(transcript.charges == 1)
        #expect(transcript.charged == 60000)
        #expect(transcript.declines == 1)
        #expect(transcript.givenBack == 60000)
        #expect(transcript.left == 0)
        #expect(Takings.row(report, "debrief")?.charged == 50000)
        #expect(report.belowTheLine.grants == 1 && report.belowTheLine.granted == 5_000_000)
        #expect(report.belowTheLine.topups == 1 && report.belowTheLine.toppedUp == 5_000_000)
        #expect(report.belowTheLine.topupMoney == [Money(Exact(5), Currency(code: "GBP")!)])
        #expect(report.belowTheLine.outstanding == 5_000_000 + 5_000_000 - 60000 - 50000 + 60000)
    }

    @Test("a device ledger document: entries array, the document's device given to its entries")
    func ledgerDocument() throws {
        let text = """
            {
              "device": "a1b2",
              "version": 1,
              "entries": [
                {"id": "g", "at": "2026-11-01T09:00:00+01:00", "kind": "grant", "amount": 5000000, "balanceAfter": 5000000},
                {"id": "c", "at": "2026-11-01T09:05:00+01:00", "kind": "charge", "amount": -60000,
                 "feature": "transcript", "quantity": {"second": 76}, "balanceAfter": 4940000},
                {"id": "x", "at": "2026-11-01T09:06:00+01:00", "kind": "charge", "amount": 5, "feature": "debrief"}
              ]
            }
            """
        let report = Takings.balanced(try Takings.run(text, name: "credit-ledger.json"))
        #expect(report.input.lines == 3)
        #expect(report.input.entries == 2)
        #expect(report.input.rejected == 1)
        let rejection = try #require(report.rejections.first)
        #expect(rejection.place.line == 8)
        #expect(rejection.diagnostic.rendered.hasPrefix("credit-ledger.json:8:"))
        #expect(Takings.row(report, "transcript")?.charged == 60000)
        #expect(report.warnings.isEmpty, "the chain g → c links up: \(report.warnings)")
    }

    @Test("a broken ledger document is one rejected line, not a crash")
    func brokenDocument() throws {
        let report = Takings.balanced(
            try Takings.run(
                "{\"entries\": [\n{\"id\": \"a\",\n", name: "l.json", format: .ledgerDocument))
        #expect(report.input.lines == 1 && report.input.rejected == 1)
        #expect(report.rejections.first?.reason == .truncated)
    }

    @Test("CSV: header row, quantity.<dimension> columns, quoted fields, blank rows")
    func csv() throws {
        let text = """
            id,at,kind,amount,feature,refundOf,quantity.second,quantity.file,note,extra\r
            c1,2026-11-20T10:00:00Z,charge,-60000,transcript,,76,,"a note, with a comma",x\r
            c2,2026-11-20T10:01:00Z,charge,-20000,saveToVault,,,2,"two\r
            lines",y\r
            \r
            r1,2026-11-20T11:00:00Z,refund,60000,transcript,c1,,,,\r
            bad,2026-11-20T11:00:00Z,charge,-1.5,transcript,,,,,\r

            """
        let report = Takings.balanced(try Takings.run(text, name: "takings.csv"))
        #expect(report.input.lines == 5)
        #expect(report.input.blank == 1)
        #expect(report.input.entries == 3)
        #expect(report.input.rejected == 1)
        #expect(report.rejections.first?.place.line == 7)
        #expect(report.rejections.first?.reason == .fractionalAmount)
        #expect(Takings.row(report, "transcript")?.declines == 1)
        #expect(Takings.row(report, "saveToVault")?.charged == 20000)
    }

    @Test("roll-up JSON Lines add up; an id de-duplicates a resent row")
    func rollupJSONLines() throws {
        let text = """
            {"rollup": {"period": "2026-11", "feature": "transcript", "charges": 10, "charged": "600000", "declines": 1, "givenBack": "60000", "id": "devA/2026-11"}}
            {"rollup": {"period": "2026-11", "feature": "transcript", "charges": 5, "charged": "300000", "id": "devB/2026-11"}}
            {"rollup": {"period": "2026-11", "feature": "transcript", "charges": 5, "charged": "300000", "id": "devB/2026-11"}}
            {"rollup": {"period": "2026-W47", "grants": 2, "granted": "10000000"}}
            {"rollup": {"period": "2026-13", "feature": "debrief", "charges": 1, "charged": "50000"}}
            """
        let report = Takings.balanced(try Takings.run(text, name: "rollup.jsonl"))
        #expect(report.input.lines == 5)
        #expect(report.input.entries == 3)
        #expect(report.input.duplicates == 1)
        #expect(report.input.rejected == 1)
        #expect(report.rejections.first?.reason == .badTimestamp)
        let row = try #require(Takings.row(report, "transcript"))
        #expect(
            row.charges == 15 && row.charged == 900_000 && row.declines == 1
                && row.givenBack == 60000)
        #expect(report.belowTheLine.granted == 10_000_000)
    }

    @Test("roll-up CSV; a window that cuts a period says so")
    func rollupCSV() throws {
        let text = """
            period,feature,charges,charged,declines,givenBack
            2026-11-27,transcript,4,240000,0,0
            2026-11,debrief,2,100000,1,50000
            2026-10,debrief,3,150000,0,0

            """
        let window = TakingsWindow(
            since: Takings.ts("2026-11-15T00:00:00Z"), until: Takings.ts("2026-12-01T00:00:00Z"))
        let report = Takings.balanced(try Takings.run([("rollup.csv", text)], window: window))
        #expect(report.input.entries == 3)
        #expect(Takings.row(report, "transcript")?.charged == 240000)
        // 2026-11 starts before the window: cut, reported, not counted; 2026-10 is outside.
        #expect(Takings.row(report, "debrief") == nil)
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.rendered.contains("rollup.csv:3:") == true)
        #expect(report.warnings.first?.rule?.id == "rollup-cut")
    }

    @Test(
        "roll-up periods: day, ISO week and month bounds",
        arguments: [
            ("2026-11-29", "2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"),
            ("2026-W48", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z"),
            ("2026-W01", "2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z"),
            ("2026-12", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        ])
    func rollupPeriods(period: String, since: String, until: String) throws {
        let bounds = try #require(CalendarPeriod(label: period, offsetMinutes: 0))
        #expect(bounds.since == Takings.ts(since))
        #expect(bounds.until == Takings.ts(until))
    }

    @Test(
        "format detection by content",
        arguments: [
            ("{\"id\":\"a\"}\n", TakingsFormat.jsonLines),
            ("{\"entries\": []}", .ledgerDocument),
            ("{\n  \"device\": \"x\",\n  \"entries\": [\n", .ledgerDocument),
            ("{\"rollup\": {\"period\": \"2026-11\"}}\n", .rollupJSONLines),
            ("id,at,kind,amount\n", .csv),
            ("\u{FEFF}id,at,kind,amount\n", .csv),
            ("period,feature,charges,charged,declines,givenBack\n", .rollupCSV),
            ("", .jsonLines),
            ("\n\n  \n", .jsonLines),
        ])
    func detection(text: String, expected: TakingsFormat) throws {
        #expect(try TakingsFormatDetector.detect(Array(text.utf8), path: "x") == expected)
    }

    @Test("input that is no takings format at all is unreadable (exit 2), not a crash")
    func undetectable() {
        #expect(throws: TakingsInputError.self) {
            try TakingsFormatDetector.detect(Array("hello world\n".utf8), path: "x")
        }
        #expect(throws: TakingsInputError.self) {
            try TakingsFormatDetector.detect(Array("[1, 2]".utf8), path: "x")
        }
        #expect(throws: TakingsInputError.self) {
            try TakingsRun.run(
                inputs: [TakingsInput(path: "/nonexistent/takings.jsonl")],
                options: TakingsOptions(), pricing: nil)
        }
    }

    @Test("--input-format overrides detection")
    func override() throws {
        let report = try Takings.run("id,at,kind,amount\n", name: "x.csv", format: .jsonLines)
        #expect(report.input.rejected == 1)
        #expect(report.rejections.first?.reason == .malformedJSON)
    }

    @Test(
        "a line longer than the read block is read whole, at any thread count", arguments: [1, 2])
    func longLine(threads: Int) throws {
        let note = String(repeating: "é", count: 20_000)
        let lines = (0..<50).map {
            Takings.line(id: "c\($0)", extra: $0 == 25 ? ",\"note\":\"\(note)\"" : "")
        }
        let report = Takings.balanced(
            try Takings.run(
                [("long.jsonl", lines.joined(separator: "\n"))], threads: threads, chunkBytes: 4096)
        )
        #expect(report.input.entries == 50)
        #expect(Takings.row(report, "transcript")?.charges == 50)
    }

    @Test(
        "a file on disk is read block by block from the page cache, with the same result as bytes",
        arguments: [1, 2])
    func fileOnDisk(threads: Int) throws {
        let export = GeneratedExport(entries: 1500, seed: 42)
        let text = export.lines.joined(separator: "\n") + "\n{\"id\":\"cut\",\"at\""
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "takings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("export.jsonl")
        try Data(text.utf8).write(to: file)
        let options = TakingsOptions(threads: threads, chunkBytes: 4096)
        let fromFile = Takings.balanced(
            try TakingsRun.run(
                inputs: [TakingsInput(path: file.path)], options: options, pricing: nil))
        let fromBytes = try TakingsRun.run(
            inputs: [TakingsInput(name: file.path, text: text)], options: options, pricing: nil)
        #expect(fromFile.rows == fromBytes.rows)
        #expect(fromFile.input == fromBytes.input)
        #expect(fromFile.rejections == fromBytes.rejections)
        #expect(fromFile.rejections.first?.message.contains("truncated last line") == true)
        #expect(fromFile.rejections.first?.place.line == export.lines.count + 1)
    }

    @Test("`-` means standard input")
    func standardInput() {
        if case .standardInput = TakingsInput(path: "-").source {
        } else {
            Issue.record("- is not standard input")
        }
    }
}
