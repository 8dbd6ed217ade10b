import Foundation
import Testing

@testable import RateCard

/// The partitioned run (`--memory`, grace hash): on small inputs with a tiny cap, the
/// report is the one of the run in memory, to the last rejection, warning and place.
@Suite struct TakingsPartitionTests {
    static let pricing = FakePricing(
        known: Set(GeneratedExport.features), perUnit: ["second": Exact(1)])

    static func run(
        _ files: [(String, String)], memory: Int?, window: TakingsWindow = .all,
        series: TakingsSeries? = nil,
        strict: Bool = false, threads: Int = 2, chunkBytes: Int = 8 << 20
    ) throws -> TakingsReport {
        var options = TakingsOptions(
            window: window, series: series, strict: strict, threads: threads, chunkBytes: chunkBytes
        )
        options.memoryLimit = memory
        return try TakingsRun.run(
            inputs: files.map { TakingsInput(name: $0.0, text: $0.1) }, options: options,
            pricing: pricing)
    }

    /// A generated export spread over three files, lines moved about so that refunds come
    /// before their charges and repeats land in other files.
    static func files(entries: Int, seed: UInt64) -> [(String, String)] {
        var rng = SplitMix64(seed: seed)
        var parts: [[String]] = [[], [], []]
        for line in GeneratedExport(entries: entries, seed: seed).lines {
            parts[Int.random(in: 0..<3, using: &rng)].append(line)
        }
        return parts.enumerated().map {
            (
                "part\($0.offset).jsonl",
                $0.element.shuffled(using: &rng).joined(separator: "\n") + "\n"
            )
        }
    }

    @Test func partitionCountFollowsTheCap() {
        #expect(TakingsRun.partitions(inputBytes: 1 << 30, memoryLimit: nil) == 1)
        #expect(TakingsRun.partitions(inputBytes: 1000, memoryLimit: 1 << 20) == 1)
        // 10 million planned entries × 40 bytes = 400 MB, in halves of 256 MiB: 3.
        #expect(TakingsRun.partitions(inputBytes: 1_000_000_000, memoryLimit: 256 << 20) == 3)
        #expect(
            TakingsRun.partitions(inputBytes: 1 << 40, memoryLimit: 1 << 20)
                == TakingsSpill.maxPartitions)
        #expect(
            TakingsRun.partitions(inputBytes: nil, memoryLimit: 1 << 30)
                == TakingsRun.unknownSizePartitions)
    }

    @Test(arguments: [(UInt64(1), 1024), (2, 4096), (3, 100_000), (4, 1)])
    func sameReportAsInMemory(seed: UInt64, memory: Int) throws {
        let files = Self.files(entries: 3000, seed: seed)
        let inMemory = try Self.run(files, memory: nil)
        let capped = Takings.balanced(try Self.run(files, memory: memory))
        #expect(capped == inMemory)
        #expect(capped.input.entries > 2500)
        #expect(capped.input.duplicates > 0)
        #expect(capped.rows.contains { $0.declines > 0 })
        #expect(
            TakingsRun.partitions(
                inputBytes: files.reduce(0) { $0 + $1.1.utf8.count }, memoryLimit: memory) > 1)
    }

    @Test func sameWindowSeriesAndStrictness() throws {
        let files = Self.files(entries: 2000, seed: 9)
        let window = TakingsWindow(
            since: Takings.ts("2026-10-15T00:00:00Z"),
            until: Takings.ts("2026-11-20T00:00:00+08:00"))
        let series = TakingsSeries(period: .week, offsetMinutes: 480)
        for threads in [1, 2, 3] {
            let inMemory = try Self.run(
                files, memory: nil, window: window, series: series, strict: true, threads: threads,
                chunkBytes: 4096)
            let capped = try Self.run(
                files, memory: 512, window: window, series: series, strict: true, threads: threads,
                chunkBytes: 4096)
            #expect(capped == inMemory, "threads \(threads)")
            #expect(!capped.periods.isEmpty)
        }
    }

    /// Conflicting copies of one id (a charge against a charge, a refund against a charge,
    /// a refund against a refund of another charge) in other files; refunds of charges in
    /// other files, of unknown charges, of a grant, of another feature, and twice (the
    /// second refund of a charge is rejected).
    static let tricky: [(String, String)] = [
        (
            "a.jsonl",
            [
                Takings.line(id: "c1"),
                Takings.line(id: "c2", amount: "-60000"),
                Takings.line(id: "g1", kind: "grant", amount: "5000000", feature: nil),
                Takings.refund(id: "r1", of: "c3"),
                Takings.refund(id: "x1", of: "c1"),
                Takings.line(id: "c4", feature: "debrief"),
            ].joined(separator: "\n") + "\n"
        ),
        (
            "b.jsonl",
            [
                Takings.line(id: "c1", amount: "-1"),
                Takings.line(id: "c3", at: "2026-11-21T10:00:00Z"),
                Takings.line(id: "x1"),
                Takings.refund(id: "r1", of: "c2"),
                Takings.refund(id: "r2", of: "c2"),
                Takings.refund(id: "r3", of: "c2", at: "2026-11-20T12:00:00Z"),
                Takings.refund(id: "r4", of: "nobody"),
                Takings.refund(id: "r5", of: "g1"),
                Takings.refund(id: "r6", of: "c4"),
                Takings.line(id: "c2", amount: "-60000"),
            ].joined(separator: "\n") + "\n"
        ),
        (
            "c.jsonl",
            Takings.line(id: "x1", kind: "refund", amount: "30000", extra: ",\"refundOf\":\"c3\"")
                + "\n"
        ),
    ]

    @Test(arguments: [1, 64, 1024])
    func conflictsAndRefundsAcrossPartitions(memory: Int) throws {
        let inMemory = try Self.run(Self.tricky, memory: nil)
        let capped = Takings.balanced(try Self.run(Self.tricky, memory: memory))
        #expect(capped == inMemory)
        #expect(capped.input.rejectedByClass[.conflictingDuplicate] == 4)
        #expect(capped.input.rejectedByClass[.refundOfUnknownCharge] == 2)
        #expect(capped.input.rejectedByClass[.badValue] == 1)
        #expect(capped.input.duplicates == 1)
        #expect(capped.input.rejectedByClass[.refundedTwice] == 1)
        let conflicts = capped.rejections.filter { $0.reason == .conflictingDuplicate }.map {
            "\($0.place.path):\($0.place.line)"
        }
        #expect(conflicts == ["b.jsonl:1", "b.jsonl:3", "b.jsonl:4", "c.jsonl:1"])
    }

    /// The ids of one partition and one shard spread over their table: the home slot does
    /// not depend on the bits that chose the partition and the shard (it once did, and a
    /// 30M-entry run under `--memory 256M` probed for minutes).
    @Test func idsOfOnePartitionSpreadOverTheTable() {
        let partitions = 64
        var ids: [(UInt64, UInt64)] = []
        var k = 0
        while ids.count < 4000 {
            let (id0, id1) = TakingsHash.id("device-\(k)")
            k += 1
            if TakingsSpill.partition(of: id0, count: partitions) == 5,
                SlotMeta.shard(of: id0, count: 2) == 1
            {
                ids.append((id0, id1))
            }
        }
        let capacity = ids.count * 5 / 4
        let homes = Set(
            ids.map { DedupSlots.home($0.0, UInt32(truncatingIfNeeded: $0.1), capacity: capacity) })
        // A home is the first slot of a pair of slots (one cache line).
        #expect(homes.allSatisfy { $0 % 2 == 0 && $0 + 1 < capacity })
        // Random homes for n ids in 0.625 n pairs fill about 80% of the pairs.
        #expect(homes.count > capacity / 2 * 7 / 10)
    }

    /// A charge's amount is kept in its table slot when it fits in 32 bits and beside the
    /// table when it does not: refunds are checked against both, in memory and across
    /// partitions, at the edges of 32 bits.
    @Test(arguments: [nil, 1, 1024] as [Int?])
    func refundsOfChargesBeyond32Bits(memory: Int?) throws {
        let amounts: [Int64] = [
            2_147_483_647, 2_147_483_648, 2_147_483_649, 5_000_000_000, 999_999_999_999_999_998,
        ]
        var lines: [String] = []
        for (k, a) in amounts.enumerated() {
            lines.append(Takings.line(id: "c\(k)", amount: "-\(a)"))
            // One refund of exactly the charge (kept), one more of the next charge's twin.
            lines.append(Takings.refund(id: "r\(k)", of: "c\(k)", amount: "\(a)"))
            lines.append(Takings.line(id: "d\(k)", amount: "-\(a)"))
            lines.append(Takings.refund(id: "s\(k)", of: "d\(k)", amount: "\(a + 1)"))
        }
        let files = [("big.jsonl", lines.joined(separator: "\n") + "\n")]
        let report = try Self.run(files, memory: memory)
        #expect(report.input.rejectedByClass[.refundExceedsCharge] == amounts.count)
        let row = try #require(report.rows.first { $0.feature == "transcript" })
        #expect(row.givenBack == amounts.reduce(Int128(0)) { $0 + Int128($1) })
        #expect(row.charged == 2 * amounts.reduce(Int128(0)) { $0 + Int128($1) })
        if memory != nil { #expect(Takings.balanced(report) == (try Self.run(files, memory: nil))) }
    }

    /// CSV and a device ledger document go through the same partitions as JSON Lines.
    @Test(arguments: [1, 256])
    func otherFormatsAcrossPartitions(memory: Int) throws {
        let files: [(String, String)] = [
            (
                "a.csv",
                """
                id,at,kind,amount,feature,refundOf,quantity.second,device,balanceAfter
                c1,2026-11-20T10:00:00Z,charge,-30000,transcript,,76,d1,-30000
                c2,2026-11-20T10:05:00Z,charge,-30000,transcript,,20,d1,-60000
                r9,2026-11-20T10:06:00Z,refund,30000,transcript,c7,,,
                c1,2026-11-20T10:00:00Z,charge,-1,transcript,,76,,

                """
            ),
            (
                "b.json",
                """
                {"device": "d2", "entries": [
                  {"id": "c7", "at": "2026-11-20T11:00:00+08:00", "kind": "charge", "amount": -30000, "feature": "transcript", "balanceAfter": -30000},
                  {"id": "r7", "at": "2026-11-20T11:30:00+08:00", "kind": "refund", "amount": 30000, "feature": "transcript", "refundOf": "c2", "balanceAfter": 0},
                  {"id": "c2", "at": "2026-11-20T10:05:00Z", "kind": "charge", "amount": "-30000", "feature": "transcript", "quantity": {"second": 20}, "device": "d1", "balanceAfter": -60000}
                ]}

                """
            ),
            (
                "c.jsonl",
                Takings.refund(id: "r7", of: "c1") + "\n"
                    + Takings.line(id: "g1", kind: "grant", amount: "100", feature: nil) + "\n"
            ),
        ]
        let inMemory = try Self.run(files, memory: nil)
        let capped = Takings.balanced(try Self.run(files, memory: memory))
        #expect(capped == inMemory)
        #expect(capped.input.duplicates == 1)
        #expect(capped.input.rejectedByClass[.conflictingDuplicate] == 2)
        #expect(capped.rows.first { $0.feature == "transcript" }?.declines == 2)
    }

    /// Runs `margin pnl` over `files` once per argument list, each in a private TMPDIR;
    /// returns each result and what was left in the TMPDIR after it.
    func runPartitioned(_ variants: [[String]], files: [(String, String)]) throws -> [(
        CLIResult, [String]
    )] {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("tmp/.keep", "")
        for (name, text) in files { try dir.write(name, text) }
        return try variants.map { extra in
            let r = try runMargin(
                ["pnl"] + files.map { dir.path + "/" + $0.0 } + extra + [
                    "--cards", repositoryCards, "--card", "voice-debrief", "--format", "json",
                ],
                environment: ["TMPDIR": dir.path + "/tmp"])
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/tmp").filter
            { $0 != ".keep" }
            return (r, left)
        }
    }

    @Test func temporaryFilesAreGoneAfterARunAndAfterAnError() throws {
        let files = Self.files(entries: 1500, seed: 5)
        let runs = try runPartitioned(
            [[], ["--memory", "1K"], ["--memory", "1K", "/nonexistent/takings.jsonl"]], files: files
        )
        let (plain, capped, failed) = (runs[0].0, runs[1].0, runs[2].0)
        #expect(capped.status == plain.status)
        #expect(capped.stdout == plain.stdout)
        #expect(capped.stderr == plain.stderr)
        #expect(runs[1].1.isEmpty, "\(runs[1].1)")
        // An input that cannot be read stops the run (exit 2) after partitions were made.
        #expect(failed.status == 2)
        #expect(failed.stderr.contains("cannot open"))
        #expect(runs[2].1.isEmpty, "\(runs[2].1)")
    }

    @Test func memoryOptionIsChecked() throws {
        let (r, _) = try runPartitioned(
            [["--memory", "lots"]], files: [("e.jsonl", Takings.line(id: "c1") + "\n")])[0]
        #expect(r.status == 2)
        #expect(r.stderr.contains("--memory lots: expected a size such as 256M or 2G"))
    }

    /// SIGINT while a partitioned run waits for more standard input: the handler deletes
    /// the temporary files, then the process ends by the signal.
    @Test func temporaryFilesAreGoneAfterSIGINT() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("tmp/.keep", "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: marginBinary)
        process.arguments = [
            "pnl", "-", "--memory", "1K", "--cards", repositoryCards, "--card", "voice-debrief",
        ]
        var env = ProcessInfo.processInfo.environment
        env["TMPDIR"] = dir.path + "/tmp"
        process.environment = env
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((Takings.line(id: "c1") + "\n").utf8))
        // The directory appears once the run has planned its partitions.
        var made: [String] = []
        for _ in 0..<600 where made.isEmpty {
            made = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/tmp").filter {
                $0.hasPrefix("margin-pnl-")
            }
            if made.isEmpty { usleep(50_000) }
        }
        #expect(made.count == 1)
        process.interrupt()
        for _ in 0..<600 where process.isRunning { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("margin did not stop on SIGINT")
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/tmp").filter {
            $0 != ".keep"
        }
        #expect(left.isEmpty, "\(left)")
    }
}
