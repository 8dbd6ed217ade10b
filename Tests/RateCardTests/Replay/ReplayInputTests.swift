import Foundation
import Testing

@testable import RateCard

/// The worked example's ledger as a ledger document and as CSV gives the same figures and
/// names the same entry by its own line; `--costs-at`, `--against`, a rejected line and
/// bad usage behave as documented.
@Suite("Replay inputs and options")
struct ReplayInputTests {
    static let fixtures = ReplayWorkedExampleTests.fixtures
    static let ledger = ReplayWorkedExampleTests.ledger
    static let candidate = ReplayWorkedExampleTests.candidate
    static let cny = Currency(code: "CNY")!

    static func run(
        _ path: String, against: String? = nil, costsAt: String? = nil
    ) throws -> ReplayReport {
        try ReplayRun.run(
            ReplayRequest(
                inputs: [TakingsInput(path: path)], cards: [repositoryCards], new: candidate,
                against: against, creditValue: Money(exact("0.01"), cny),
                costsAt: try costsAt.map { try Timestamp(rfc3339: $0) }))
    }

    /// The JSON Lines entries, without the repeated last line.
    static func entries() throws -> [[String: Any]] {
        let text = try String(contentsOfFile: ledger, encoding: .utf8)
        return text.split(separator: "\n").dropLast().map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    @Test("a ledger document: same figures, the entry named at the line it starts on")
    func ledgerDocument() throws {
        let lines = try String(contentsOfFile: Self.ledger, encoding: .utf8).split(separator: "\n")
            .dropLast()
        let doc = "{\"entries\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.json", doc)
        let r = try Self.run(dir.path + "/ledger.json")
        #expect(r.total.creditsBefore == 1034)
        #expect(r.total.creditsAfter == 993)
        #expect(r.total.costAfter == exact("3.7984"))
        #expect(r.balances.counts.declinedAfter == 1)
        let named = r.named.filter { $0.rule == .replay(.notRepriced) }
        #expect(named.map(\.location.line) == [7])
        #expect(r.input.entries == 12)
    }

    @Test("CSV with quantity columns: same figures, the row's line named")
    func csv() throws {
        let header = [
            "id", "at", "kind", "amount", "feature", "refundOf", "device", "balanceAfter",
            "price", "quantity.second", "quantity.inputTokens", "quantity.outputTokens",
        ]
        var text = header.joined(separator: ",") + "\n"
        for e in try Self.entries() {
            let q = e["quantity"] as? [String: Any] ?? [:]
            let cells = header.map { h -> String in
                if h.hasPrefix("quantity.") {
                    return q[String(h.dropFirst(9))].map { "\($0)" } ?? ""
                }
                return e[h].map { "\($0)" } ?? ""
            }
            text += cells.joined(separator: ",") + "\n"
        }
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("ledger.csv", text)
        let r = try Self.run(dir.path + "/ledger.csv")
        #expect(r.total.creditsBefore == 1034)
        #expect(r.total.creditsAfter == 993)
        #expect(r.total.costBefore == exact("3.7984"))
        #expect(r.packs.first?.buyers == 2)
        #expect(r.named.filter { $0.rule == .replay(.notRepriced) }.map(\.location.line) == [7])
    }

    @Test("--costs-at a peak hour costs every candidate request at peak")
    func costsAt() throws {
        // A Monday 10:00 at +08:00: c3's off-peak 0.0066 becomes 0.0132 on NEW's side only.
        let r = try Self.run(Self.ledger, costsAt: "2026-11-02T10:00:00+08:00")
        let llm = try #require(r.features.first { $0.feature == "llm" })
        #expect(llm.costBefore == exact("1.8159"))
        #expect(llm.costAfter == exact("1.8225"))
    }

    @Test("--against osg@10 re-prices the before side by the card's rule")
    func against() throws {
        let r = try Self.run(Self.ledger, against: "osg@10")
        #expect(r.before == "osg@10")
        // The ledger charged every request as osg@10 does: the same credits.
        #expect(r.total.creditsBefore == 1034)
        #expect(r.total.creditsAfter == 993)
        #expect(r.total.notRepriced == 1)
    }

    @Test("a malformed line is rejected as pnl rejects it, and counted")
    func rejected() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let text = try String(contentsOfFile: Self.ledger, encoding: .utf8)
        try dir.write("ledger.jsonl", text + "{\"id\":\"x\",\"kind\":\"charge\"\n")
        let r = try Self.run(dir.path + "/ledger.jsonl")
        #expect(r.input.rejected == 1)
        #expect(r.input.lines == 14)
        let rejection = try #require(r.named.first { $0.location.line == 14 })
        #expect(rejection.path == dir.path + "/ledger.jsonl")
        #expect(r.hasFindings)
    }

    @Test("bad usage through the binary: exit 2 and the usage line")
    func usage() throws {
        try expectMargin(
            ["replay", Self.ledger], exits: 2,
            stderr: .contains("give the candidate card with --card NEW", "Usage: margin replay"))
        try expectMargin(
            ["replay", "--card", Self.candidate], exits: 2,
            stderr: .contains("give at least one export file"))
        try expectMargin(
            ["replay", Self.ledger, "--card", "osg@99"], exits: 2,
            stderr: .contains("no card 'osg@99'"))
        try expectMargin(
            ["replay", Self.ledger, "--card", Self.candidate, "--format", "xml"], exits: 2,
            stderr: .contains("unknown format 'xml'"))
    }
}

/// `--memory`: a run partitioned by device gives the report of the run in memory, for
/// each input format, through the binary.
@Suite("Replay with bounded memory")
struct ReplayMemoryTests {
    @Test("--memory 1K: the same output and exit as in memory, for JSON Lines, a document and CSV")
    func formats() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        let text = try String(contentsOfFile: ReplayInputTests.ledger, encoding: .utf8)
        let lines = text.split(separator: "\n")
        // A conflicting copy of an id (same device) and a rejected line, so that every
        // kind of finding is named.
        try dir.write(
            "ledger.jsonl",
            text
                + lines[1].replacingOccurrences(
                    of: "\"amount\":", with: "\"note\":\"x\",\"amount\":")
                + "\n{\"id\":\"x\",\"kind\":\"charge\"\n")
        try dir.write(
            "ledger.json",
            "{\"entries\": [\n" + lines.dropLast().joined(separator: ",\n") + "\n]}\n")
        let tmp = dir.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        for file in ["ledger.jsonl", "ledger.json"] {
            for format in ["table", "json", "csv"] {
                let args = [
                    "replay", dir.path + "/" + file, "--card", ReplayInputTests.candidate,
                    "--credit-value", "CNY 0.01", "--format", format,
                ]
                let inMemory = try runMargin(args)
                let partitioned = try runMargin(
                    args + ["--memory", "1K"], environment: ["TMPDIR": tmp])
                #expect(!inMemory.stdout.isEmpty)
                #expect(partitioned.stdout == inMemory.stdout, "\(file) \(format)")
                #expect(partitioned.stderr == inMemory.stderr, "\(file) \(format)")
                #expect(partitioned.status == inMemory.status, "\(file) \(format)")
            }
        }
        let jsonl = try runMargin([
            "replay", dir.path + "/ledger.jsonl", "--card", ReplayInputTests.candidate,
            "--memory", "1K",
        ])
        #expect(jsonl.stderr.contains("[replay-conflicting-duplicate]"))
        #expect(jsonl.stderr.contains("ledger.jsonl:14:"))
        // (The 1K cap partitions these files: see `plan`.) No partition is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    @Test("the plan: in memory under the cap, partitioned past it, at most 200 partitions")
    func plan() {
        #expect(ReplaySpill.partitions(inputBytes: 1 << 20, memoryLimit: nil) == 1)
        #expect(ReplaySpill.partitions(inputBytes: 1 << 20, memoryLimit: 1 << 30) == 1)
        #expect(ReplaySpill.partitions(inputBytes: 100_000_000, memoryLimit: 64 << 20) == 11)
        #expect(ReplaySpill.partitions(inputBytes: 1 << 40, memoryLimit: 1 << 20) == 200)
        #expect(ReplaySpill.partitions(inputBytes: nil, memoryLimit: 1 << 20) == 64)
        #expect(ReplaySpill.partitions(inputBytes: nil, memoryLimit: nil) == 1)
    }

    @Test("a partition file holds entries as their bytes: plain values only")
    func plainValues() {
        // `ReplaySpill` writes and reads `ReplayEntry` as raw bytes; a reference or a
        // string in it would be written as a pointer.
        #expect(_isPOD(ReplayEntry.self))
        #expect(_isPOD(ReplayRecord.self))
    }

    @Test("--memory takes a size; a bad one is a usage error")
    func badSize() throws {
        let r = try runMargin([
            "replay", ReplayInputTests.ledger, "--card", ReplayInputTests.candidate, "--memory",
            "lots",
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--memory"))
    }
}

/// A `card` field naming a version of another card id is read as before (its number) and
/// warned about, once per field text at its first line.
@Suite("Replay: card fields of another id")
struct ReplayForeignCardTests {
    @Test("card voice@10 in an osg ledger: one warning at its first line, the same figures")
    func warned() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        var lines = try String(contentsOfFile: ReplayInputTests.ledger, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for k in [2, 3] {  // c2 and c4, lines 3 and 4
            lines[k] = lines[k].replacingOccurrences(of: "\"osg@10\"", with: "\"voice@10\"")
        }
        try dir.write("ledger.jsonl", lines.joined(separator: "\n"))
        let path = dir.path + "/ledger.jsonl"
        let r = try ReplayInputTests.run(path)
        #expect(r.total.creditsBefore == 1034)
        #expect(r.total.costBefore == exact("3.7984"))
        let warned = r.named.filter { $0.rule == .replay(.cardOfAnotherID) }
        #expect(
            warned.map(\.description) == [
                "\(path):3:1: warning: card \"voice@10\" names card voice, not osg, the card replayed: its number (10) is read as a version of osg (2 charge lines with this card field, this the first) [replay-card-of-another-id]"
            ])
        // The unchanged ledger names its own card: no warning.
        let plain = try ReplayInputTests.run(ReplayInputTests.ledger)
        #expect(!plain.named.contains { $0.rule == .replay(.cardOfAnotherID) })
        // Through the binary, on standard error, exit 0 (a warning, not a finding).
        let cli = try runMargin([
            "replay", path, "--card", ReplayInputTests.candidate, "--credit-value", "CNY 0.01",
        ])
        #expect(cli.status == 0)
        #expect(cli.stderr.contains("\(path):3:1: warning: card \"voice@10\" names card voice"))
    }
}
