import Testing

@testable import RateCard

@Suite("Takings merge rules")
struct TakingsMergeTests {
    @Test(
        "the same id with the same content is one entry, whatever the key order and number spelling"
    )
    func duplicate() throws {
        let a =
            #"{"id":"c1","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-60000,"feature":"transcript","quantity":{"second":76,"file":1}}"#
        let b =
            #"{"quantity":{"file":1.0,"second":"76.00"},"feature":"tr\u0061nscript","amount":"-60000","kind":"charge","at":"2026-11-20T18:00:00+08:00","id":"c\u0031"}"#
        let report = Takings.balanced(
            try Takings.run([("device-a.jsonl", a), ("device-b.jsonl", b + "\n" + a)]))
        #expect(report.input.entries == 1)
        #expect(report.input.duplicates == 2)
        #expect(report.input.rejected == 0)
        #expect(Takings.row(report, "transcript")?.charged == 60000)
    }

    @Test("the same entry in JSON Lines, CSV and a ledger document is one entry")
    func duplicateAcrossFormats() throws {
        let jsonl =
            #"{"id":"c1","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-60000,"feature":"transcript","quantity":{"second":76},"device":"d","balanceAfter":4940000}"#
        let csv =
            "id,kind,at,amount,feature,quantity.second,device,balanceAfter\nc1,charge,2026-11-20T10:00:00.000Z,-60000,transcript,76,d,4940000\n"
        let doc =
            #"{"device":"d","entries":[{"id":"c1","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-60000,"feature":"transcript","quantity":{"second":76.0},"balanceAfter":4940000}]}"#
        let report = Takings.balanced(
            try Takings.run([("a.jsonl", jsonl), ("b.csv", csv), ("c.json", doc)]))
        #expect(report.input.entries == 1)
        #expect(report.input.duplicates == 2)
    }

    @Test("the content hash of a scanned line equals that of the entry value")
    func hashAgreement() throws {
        let text =
            #"{"id":"t1","at":"2026-11-02T00:00:00.5+08:00","kind":"topup","amount":"5000000","paymentRef":"p1","price":"GBP 5.00","device":"d","note":"n\u00e9","card":"voice@3","balanceAfter":1}"#
        var scanner = EntryScanner()
        defer { scanner.release() }
        let bytes = Array(text.utf8)
        let fields = try bytes.withUnsafeBufferPointer { buf throws(LineProblem) in
            try scanner.scan(buf.baseAddress!, buf.count)
        }
        let entry = fields.entry(scanner)
        #expect(entry.note == "né")
        #expect(entry.price == Money(Exact(5), Currency(code: "GBP")!))
        #expect(fields.contentHash(scanner) == entry.contentHash)
    }

    @Test("the same id with different content is an error naming both places")
    func conflictingDuplicate() throws {
        let a = Takings.line(id: "c1", amount: "-60000")
        let b = Takings.line(id: "c1", amount: "-90000")
        let report = Takings.balanced(
            try Takings.run([("a.jsonl", "\n" + a), ("b.jsonl", "\n\n" + b)]))
        #expect(report.input.rejected == 1)
        let r = try #require(report.rejections.first)
        #expect(r.reason == .conflictingDuplicate)
        #expect(r.diagnostic.rendered.hasPrefix("b.jsonl:3:"))
        #expect(r.message.contains("a.jsonl:2"))
        #expect(report.hasFindings(strict: false))
    }

    @Test("the table does not depend on the order of files or lines", arguments: [1, 2, 3])
    func orderIndependence(threads: Int) throws {
        var rng = SplitMix64(seed: 7)
        let export = GeneratedExport(entries: 3000, seed: 11)
        let reference = try Takings.run(
            [("all.jsonl", export.lines.joined(separator: "\n"))], threads: 1)
        for round in 0..<4 {
            var lines = export.lines
            lines.shuffle(using: &rng)
            let cut1 = Int.random(in: 0...lines.count, using: &rng)
            let cut2 = Int.random(in: cut1...lines.count, using: &rng)
            var files = [
                ("f0.jsonl", lines[..<cut1].joined(separator: "\n")),
                ("f1.jsonl", lines[cut1..<cut2].joined(separator: "\n")),
                ("f2.jsonl", lines[cut2...].joined(separator: "\n")),
            ]
            files.shuffle(using: &rng)
            let shuffled = Takings.balanced(
                try Takings.run(files, threads: threads, chunkBytes: 4096 * (round + 1)))
            #expect(shuffled.rows == reference.rows)
            #expect(shuffled.totals == reference.totals)
            #expect(shuffled.belowTheLine == reference.belowTheLine)
            #expect(shuffled.input.entries == reference.input.entries)
            #expect(shuffled.input.duplicates == reference.input.duplicates)
            #expect(shuffled.warnings.isEmpty)
        }
    }

    /// Small blocks cut the export into many chunks per step, and with 400 devices most of
    /// them bring devices their parser has not seen: every chunk's devices must map to the
    /// same global devices (`TakingsEngine.prepare` extends each parser's map once per step
    /// and shares it), or a balance chain would break or take another device's entries.
    @Test(
        "many new devices in many chunks of one step keep every balance chain", arguments: [2, 3])
    func newDevicesAcrossChunks(threads: Int) throws {
        let export = GeneratedExport(entries: 4000, seed: 29, devices: 400)
        let text = export.lines.joined(separator: "\n")
        let reference = try Takings.run([("all.jsonl", text)], threads: 1)
        #expect(reference.warnings.isEmpty)
        for chunkBytes in [512, 4096] {
            let report = Takings.balanced(
                try Takings.run([("all.jsonl", text)], threads: threads, chunkBytes: chunkBytes))
            #expect(report.warnings.isEmpty)
            #expect(report.rows == reference.rows)
            #expect(report.belowTheLine == reference.belowTheLine)
            #expect(report.input.entries == reference.input.entries)
        }
    }

    @Test(
        "a refund of a charge in another file, read earlier or later, is resolved after all input")
    func refundAcrossFiles() throws {
        let charge = Takings.line(id: "c1")
        let refund = Takings.refund(id: "r1", of: "c1")
        for files in [[("a", charge), ("b", refund)], [("b", refund), ("a", charge)]] {
            let report = Takings.balanced(try Takings.run(files.map { ($0.0 + ".jsonl", $0.1) }))
            #expect(Takings.row(report, "transcript")?.declines == 1)
            #expect(report.input.rejected == 0)
        }
    }

    @Test(
        "a charge given back twice: the earliest refund counts, the other is rejected, in any order"
    )
    func refundedTwice() throws {
        let lines = [
            Takings.line(id: "c1"), Takings.refund(id: "r1", of: "c1", at: "2026-11-20T11:00:00Z"),
            Takings.refund(id: "r2", of: "c1", at: "2026-11-20T10:30:00Z"),
        ]
        for order in [lines, lines.reversed()] {
            let report = Takings.balanced(try Takings.run(order.joined(separator: "\n")))
            #expect(report.input.rejectedByClass == [.refundedTwice: 1])
            let row = try #require(Takings.row(report, "transcript"))
            #expect(row.declines == 1 && row.givenBack == 30000)
            #expect(report.rejections.first?.message.contains("already given back") == true)
            // r1 (11:00) is on line 2 either way; the earlier r2 (10:30) is kept.
            #expect(report.rejections.first?.place.line == 2)
        }
    }

    @Test("a refund larger than its charge is rejected and gives nothing back")
    func refundExceedsCharge() throws {
        let text = [
            Takings.line(id: "c1", amount: "-60000"),
            Takings.refund(id: "r1", of: "c1", amount: "60001"),
        ].joined(separator: "\n")
        let report = Takings.balanced(try Takings.run(text))
        #expect(report.input.rejectedByClass == [.refundExceedsCharge: 1])
        #expect(report.rejections.first?.place.line == 2)
        #expect(report.rejections.first?.message.contains("charged 60000") == true)
        #expect(Takings.row(report, "transcript")?.givenBack == 0)
        #expect(report.belowTheLine.outstanding == -60000)
    }

    @Test("a refund whose feature is not its charge's is rejected")
    func refundFeatureMismatch() throws {
        let text = [Takings.line(id: "c1"), Takings.refund(id: "r1", of: "c1", feature: "debrief")]
            .joined(separator: "\n")
        let report = Takings.balanced(try Takings.run(text))
        #expect(report.input.rejected == 1)
        #expect(report.rejections.first?.place.line == 2)
    }

    @Test("balance chains: unbroken in any order; a break is a warning, an error under strict")
    func balanceChain() throws {
        let good = [
            #"{"id":"g","at":"2026-11-01T00:00:00Z","kind":"grant","amount":5000000,"device":"d","balanceAfter":5000000}"#,
            #"{"id":"c","at":"2026-11-01T01:00:00Z","kind":"charge","amount":-60000,"feature":"transcript","device":"d","balanceAfter":4940000}"#,
            #"{"id":"r","at":"2026-11-01T02:00:00Z","kind":"refund","amount":60000,"feature":"transcript","refundOf":"c","device":"d","balanceAfter":5000000}"#,
            #"{"id":"t","at":"2026-11-01T11:00:00+08:00","kind":"topup","amount":5000000,"device":"d","balanceAfter":10000000}"#,
        ]
        for order in [good, good.reversed(), [good[2], good[0], good[3], good[1]]] {
            let report = Takings.balanced(try Takings.run(order.joined(separator: "\n")))
            #expect(report.warnings.isEmpty, "\(report.warnings)")
        }
        var broken = good
        broken[3] =
            #"{"id":"t","at":"2026-11-01T11:00:00+08:00","kind":"topup","amount":5000000,"device":"d","balanceAfter":10000001}"#
        let warned = try Takings.run(broken.joined(separator: "\n"))
        #expect(warned.warnings.map(\.rule?.id) == ["balance-chain"])
        #expect(warned.warnings.first?.rendered.hasPrefix("t.jsonl:4:") == true)
        let strict = try Takings.run([("t.jsonl", broken.joined(separator: "\n"))], strict: true)
        #expect(strict.errors.map(\.rule?.id) == ["balance-chain"])
        // A missing middle entry breaks the chain even though the final balance is right.
        let missing = try Takings.run([good[0], good[2], good[3]].joined(separator: "\n"))
        #expect(missing.warnings.contains { $0.rule?.id == "balance-chain" })
    }

    @Test("the shards' refunds in input order: merged as a sort would order them, sorted or not")
    func refundsInInputOrder() {
        var g = SplitMix64(seed: 5)
        for round in 0..<200 {
            let lists = (0..<Int.random(in: 0..<5, using: &g)).map { k in
                var places = (0..<Int.random(in: 0..<40, using: &g)).map { _ in
                    (Int.random(in: 0..<3, using: &g), Int.random(in: 1..<60, using: &g))
                }
                if round % 3 != 0 { places.sort { $0 < $1 } }  // shards' lists are in order
                return places.map { input, line in
                    PendingRefund(
                        id0: UInt64(k), id1: 0, ref0: 0, ref1: 0,
                        meta: SlotMeta.pack(line: line, input: input, kind: .refund, feature: 0),
                        feature: 0, amount: 1, seconds: 0, nanos: 0, nameAt: 0, nameCount: 0,
                        nameList: 0)
                }
            }
            let merged = TakingsEngine.inInputOrder(lists).map { ($0.meta, $0.id0) }
            let sorted = lists.flatMap { $0 }.sorted { SlotMeta.precedes($0.meta, $1.meta) }
                .map { ($0.meta, $0.id0) }
            #expect(merged.map(\.0) == sorted.map(\.0))
            #expect(merged.count == lists.reduce(0) { $0 + $1.count })
        }
    }
}
