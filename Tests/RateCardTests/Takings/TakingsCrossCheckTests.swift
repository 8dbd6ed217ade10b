import Testing

@testable import RateCard

@Suite("Takings cross-check and accounting")
struct TakingsCrossCheckTests {
    static let export = GeneratedExport(entries: 6000, seed: 2026)

    @Test(
        "the table equals a straightforward independent computation",
        arguments: [
            (nil, nil),
            ("2026-10-01T00:00:00+08:00", "2026-10-15T00:00:00-05:00"),
            ("2026-09-10T12:34:56.789Z", nil),
        ] as [(String?, String?)])
    func crossCheck(since: String?, until: String?) throws {
        let lines = Self.export.lines
        let window = TakingsWindow(since: since.map(Takings.ts), until: until.map(Takings.ts))
        let report = Takings.balanced(
            try Takings.run(
                [("export.jsonl", lines.joined(separator: "\n"))], window: window, chunkBytes: 8192)
        )
        let expected = IndependentTable(lines: lines, since: window.since, until: window.until)
        #expect(IndependentTable.rows(report.rows) == expected.rows)
        #expect(report.belowTheLine.outstanding == expected.outstanding)
        #expect(report.belowTheLine.grants == expected.grants)
        #expect(report.input.rejected == 0)
        #expect(
            report.warnings.isEmpty,
            "generated balance chains are unbroken: \(report.warnings.prefix(3))")
        let totals = report.rows.reduce(Int128(0)) { $0 + $1.charged }
        #expect(report.totals.charged == totals)
    }

    @Test("a daily series at +08:00 equals the independent computation, period by period")
    func series() throws {
        let lines = Self.export.lines
        let report = try Takings.run(
            [("export.jsonl", lines.joined(separator: "\n"))],
            series: TakingsSeries(period: .day, offsetMinutes: 480))
        let expected = IndependentTable(lines: lines, since: nil, until: nil, byDayAtOffset: 480)
        var got: [String: [String: IndependentTable.Row]] = [:]
        for p in report.periods { got[p.label] = IndependentTable.rows(p.rows) }
        #expect(got == expected.byPeriod.filter { !$0.value.isEmpty })
        // The periods add up to the whole.
        #expect(
            report.periods.reduce(Int128(0)) { $0 + $1.totals.charged } == report.totals.charged)
    }

    @Test(
        "every line is accounted for, with planted defects, at any chunk size and thread count",
        arguments: [
            (1, 4096), (2, 4096), (2, 65536), (3, 10000),
        ])
    func accounting(threads: Int, chunkBytes: Int) throws {
        var lines = GeneratedExport(entries: 2000, seed: 99).lines
        var rng = SplitMix64(seed: UInt64(threads * 1000 + chunkBytes))
        let planted: [(String, RejectionClass?)] = [
            ("", nil),
            ("   \t", nil),
            ("{\"id\":", .truncated),
            (
                "{\"id\":\"x1\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"charge\",\"amount\":-5,}",
                .malformedJSON
            ),
            (
                "{\"id\":\"x2\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"charge\",\"amount\":-5.5,\"feature\":\"f\"}",
                .fractionalAmount
            ),
            (
                "{\"id\":\"x3\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"spend\",\"amount\":-5,\"feature\":\"f\"}",
                .unknownKind
            ),
            (
                "{\"id\":\"x4\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"refund\",\"amount\":5,\"feature\":\"f\",\"refundOf\":\"nope\"}",
                .refundOfUnknownCharge
            ),
            (
                "{\"id\":\"dev0-1\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"grant\",\"amount\":7}",
                .conflictingDuplicate
            ),
            (
                "{\"id\":\"x5\",\"at\":\"2026-11-01\",\"kind\":\"grant\",\"amount\":7}",
                .badTimestamp
            ),
            ("[1,2,3]", .malformedJSON),
        ]
        for (text, _) in planted {
            lines.insert(text, at: Int.random(in: 0...lines.count, using: &rng))
        }
        let report = Takings.balanced(
            try Takings.run(
                [("planted.jsonl", lines.joined(separator: "\n") + "\n")], threads: threads,
                chunkBytes: chunkBytes))
        #expect(report.input.lines == lines.count)
        #expect(report.input.blank == 2)
        #expect(report.input.rejected == planted.filter { $0.1 != nil }.count)
        for (_, cls) in planted {
            if let cls { #expect(report.input.rejectedByClass[cls, default: 0] >= 1, "\(cls)") }
        }
        // Rejections are listed in input order, the first ones in full.
        #expect(report.rejections == report.rejections.sorted())
    }

    @Test(
        "planted defects across 1–3 files in any order: every line accounted for, the same table",
        arguments: [1, 2, 3, 4, 5, 6])
    func plantedDefectsInAnyOrder(seed: UInt64) throws {
        var rng = SplitMix64(seed: 1000 + seed)
        let good = GeneratedExport(entries: Int.random(in: 50...600, using: &rng), seed: seed).lines
        // A random mix: good lines, respelled duplicates, conflicting duplicates (another
        // note: content, but not in the table), malformed lines and blank lines.
        var lines = good
        var conflicts = 0
        var malformed = 0
        var blank = 0
        let broken = [
            "{\"id\":",
            "{\"id\":\"m\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"grant\",\"amount\":1,}",
            "[1]", "null",
            "{\"id\":\"m\",\"at\":\"2026-02-30T00:00:00Z\",\"kind\":\"grant\",\"amount\":1}",
            "{\"id\":\"m\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"grant\",\"amount\":-1}",
            "{\"id\":\"m\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"charge\",\"amount\":-1.5,\"feature\":\"f\"}",
            "{\"id\":\"m\",\"at\":\"2026-11-01T00:00:00Z\",\"kind\":\"refund\",\"amount\":1,\"feature\":\"f\",\"refundOf\":\"none\"}",
        ]
        let ids = good.map { "\(try! JSONParser.parse($0)["id"]!.value)" }
        let copies = Dictionary(ids.map { ($0, 1) }, uniquingKeysWith: +)
        var conflicted: Set<Int> = []
        var duplicated: Set<Int> = []
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            let k = Int.random(in: 0..<good.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                guard !conflicted.contains(k) else { continue }
                duplicated.insert(k)
                lines.append(GeneratedExport.respell(good[k]))
            case 1:
                // One conflicting copy of an entry that has no other copy, so that which
                // copy is rejected may depend on order but the counts do not.
                guard copies[ids[k]] == 1, !duplicated.contains(k), !good[k].contains("\"note\""),
                    conflicted.insert(k).inserted
                else { continue }
                lines.append(String(good[k].dropLast()) + ",\"note\":\"conflicting copy\"}")
                conflicts += 1
            case 2:
                lines.append(broken[Int.random(in: 0..<broken.count, using: &rng)])
                malformed += 1
            default:
                lines.append(["", "  ", "\t", "\r"][Int.random(in: 0..<4, using: &rng)])
                blank += 1
            }
        }
        let files = Int.random(in: 1...3, using: &rng)
        func run(_ lines: [String], threads: Int, chunkBytes: Int) throws -> TakingsReport {
            var parts = Array(repeating: [String](), count: files)
            for line in lines { parts[Int.random(in: 0..<files, using: &rng)].append(line) }
            var inputs = parts.enumerated().map {
                ("f\($0.offset).jsonl", $0.element.joined(separator: "\n") + "\n")
            }
            inputs.shuffle(using: &rng)
            return Takings.balanced(
                try Takings.run(inputs, threads: threads, chunkBytes: chunkBytes))
        }
        let reference = try run(lines, threads: 1, chunkBytes: 1 << 20)
        #expect(reference.input.lines == lines.count)
        #expect(reference.input.blank == blank)
        #expect(reference.input.rejectedByClass[.conflictingDuplicate, default: 0] == conflicts)
        #expect(reference.input.rejected == conflicts + malformed)
        // Every distinct id once, whatever the spelling.
        #expect(reference.input.entries == copies.count)
        for round in 0..<4 {
            lines.shuffle(using: &rng)
            let shuffled = try run(lines, threads: 1 + round % 3, chunkBytes: 4096 << round)
            #expect(shuffled.rows == reference.rows)
            #expect(shuffled.totals == reference.totals)
            #expect(shuffled.belowTheLine == reference.belowTheLine)
            #expect(shuffled.input == reference.input)
            #expect(
                shuffled.warnings == reference.warnings
                    || shuffled.warnings.count == reference.warnings.count)
        }
    }

    @Test("random damage never crashes and never breaks the accounting")
    func fuzz() throws {
        var rng = SplitMix64(seed: 5)
        let lines = GeneratedExport(entries: 200, seed: 3).lines
        for _ in 0..<40 {
            var bytes = Array(lines.joined(separator: "\n").utf8)
            for _ in 0..<30 {
                let k = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[k] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: k)
                default:
                    bytes.insert(
                        [0x22, 0x5C, 0x7B, 0x7D, 0x0A, 0x2C, 0xC3][
                            Int.random(in: 0..<7, using: &rng)], at: k)
                }
            }
            bytes.removeLast(Int.random(in: 0..<50, using: &rng))
            let options = TakingsOptions(threads: 2, chunkBytes: 4096)
            let report = try TakingsRun.run(
                inputs: [TakingsInput(name: "fuzz.jsonl", bytes: bytes)], options: options,
                pricing: nil)
            Takings.balanced(report)
        }
    }
}
