import Testing

@testable import RateCard

/// The hot path's shortcuts against the plain answers they replace: integers read a word
/// at a time, and dates whose day number a reader keeps from the line before.
@Suite struct ScannerFastPathTests {
    /// What follows a number in a line, and bytes that are no digit of any kind.
    static let followers = Array("},]\" .eE-+:/x\u{7F}".utf8) + [0x00, 0x80, 0xFF, 0x2F, 0x3A]

    @Test("digitsInWord: the value and length of 1–7 leading digits, nil for none or eight")
    func digitsInWord() {
        var g = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            let digits = Int.random(in: 0..<10, using: &g)
            for _ in 0..<digits { bytes.append(UInt8(0x30 + Int.random(in: 0..<10, using: &g))) }
            while bytes.count < 8 {
                bytes.append(
                    Int.random(in: 0..<3, using: &g) == 0
                        ? UInt8(0x30 + Int.random(in: 0..<10, using: &g))
                        : Self.followers[Int.random(in: 0..<Self.followers.count, using: &g)])
            }
            let word = Array(bytes.prefix(8))
            let leading = word.prefix { $0 >= 0x30 && $0 <= 0x39 }
            let got = word.withUnsafeBufferPointer { LedgerNumber.digitsInWord($0.baseAddress!) }
            if leading.isEmpty || leading.count == 8 {
                #expect(got == nil, "\(word)")
            } else {
                let value = Int64(String(decoding: leading, as: UTF8.self))
                #expect(got?.value == value && got?.digits == leading.count, "\(word)")
            }
        }
    }

    /// A quantity's decimal read from its text by the rules alone (digits, one point with
    /// digits on both sides, no sign, no leading zero, at most 30 significant digits and
    /// 30 decimals), or nil where `decimal` must throw.
    static func referenceDecimal(_ text: String) -> (Int128, Int)? {
        // A negative zero is zero (issue 24); any other negative is not a quantity.
        if text.hasPrefix("-") {
            guard let v = referenceDecimal(String(text.dropFirst())), v.0 == 0 else { return nil }
            return v
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts.count == 1 || !parts[1].isEmpty,
            whole.count == 1 || whole.first != "0"
        else { return nil }
        var digits = Array(whole + (parts.count == 2 ? parts[1] : ""))
        var scale = parts.count == 2 ? parts[1].count : 0
        let significant = digits.drop { $0 == "0" }.count
        guard significant <= 30, scale <= 30 else { return nil }
        while scale > 0, digits.last == "0" {
            digits.removeLast()
            scale -= 1
        }
        let value = digits.reduce(Int128(0)) { $0 * 10 + Int128($1.wholeNumberValue!) }
        return (value, value == 0 ? 0 : scale)
    }

    @Test(
        "decimal: whole numbers of up to 18 digits (read as one word) and every other form agree with a reading by the rules"
    )
    func quantityDecimals() {
        var g = SplitMix64(seed: 11)
        var texts = ["0", "7", "784", "7840", "00", "07", "0.5", "10.50", "1.", ".5", "-1", "1e3"]
        texts += ["999999999999999999", "1000000000000000000", "9999999999999999999"]
        texts += [String(repeating: "9", count: 30), String(repeating: "9", count: 31)]
        let alphabet = Array("0123456789012345678901234567890.-e")
        for _ in 0..<20_000 {
            let n = Int.random(in: 1...24, using: &g)
            texts.append(String((0..<n).map { _ in alphabet.randomElement(using: &g)! }))
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let got = bytes.withUnsafeBufferPointer { b in
                try? LedgerNumber.decimal(b.baseAddress!, b.count, name: "q", column: 1)
            }
            let want = Self.referenceDecimal(text)
            #expect(got?.0 == want?.0 && got?.1 == want?.1, "\(text)")
        }
    }

    @Test("amounts of every length through the scanner: the word path and the loop agree")
    func amountsOfEveryLength() throws {
        var lines: [String] = []
        var sum: Int128 = 0
        for length in 1...18 {
            for (k, tail) in ["}", ",\"note\":\"x\"}", "   }"].enumerated() {
                let digits = String(repeating: "9", count: length - 1) + "7"
                lines.append(
                    #"{"id":"g\#(length)-\#(k)","at":"2026-11-02T00:00:00Z","kind":"grant","amount":\#(digits)\#(tail)"#
                )
                sum += try #require(Int128(digits))
            }
        }
        for bad in ["1.5", "12e3", "123456.0", "07", "1234567E1"] {
            lines.append(
                #"{"id":"b\#(bad)","at":"2026-11-02T00:00:00Z","kind":"grant","amount":\#(bad)}"#)
        }
        let report = try Takings.run(lines.joined(separator: "\n"))
        #expect(report.belowTheLine.granted == sum)
        #expect(report.input.entries == 54 && report.input.rejected == 5)
    }

    @Test(
        "RFC 3339 with a kept day: the same result as a fresh read, for every date, valid or not, in any order"
    )
    func keptDays() {
        var g = SplitMix64(seed: 11)
        var cache = RFC3339.DayCache()
        let dates = [
            "2026-11-30", "2026-02-28", "2026-02-29", "2024-02-29", "0001-01-01", "9999-12-31",
            "2026-13-01", "2026-00-10", "2026-04-31", "0000-01-01", "2026-1a-01", "2026/11/30",
        ]
        var times = [
            "T00:00:00Z", "T23:59:59.999999999+14:00", "T12:00:00-12:00", "t07:30:00.5z",
            " 10:00:60Z", "T24:00:00Z", "T10:61:00Z", "T10:00:00", "T10:00:00.Z", "T10:00:00+5:00",
            "T10:00:00Zx", "T00:00:00+00:01", "T23:59:59-00:01",
            // The word-at-a-time path's edges: each byte of `HH:MM:SS` wrong, fractions of
            // 1 to 12 digits, offsets at and past their bounds, a lower-case `z`, a space.
            "T1a:00:00Z", "T10;00:00Z", "T10:0/:00Z", "T10:00:0:Z", "T9:00:00Z", "T10:00:00z",
            "T10:60:00Z", "T10:00:60+01:00", "T23:59:59.9Z", "T10:00:00.12a+01:00",
            "T10:00:00+01:60", "T10:00:00+24:00", "T10:00:00-23:59", "T10:00:00+05:45",
            "T10:00:00+01:0", "T10:00:00 +01:00", "T10:00:00.", "T10:00:00.+01:00",
            "T10:00:00-00:00", "T00:00:00.000Z", "T10:00:00\u{7F}Z", "T10:00:00.5\u{80}",
        ]
        for digits in 1...12 {
            times.append("T17:30:00." + String(repeating: "7", count: digits) + "+05:30")
            times.append("T06:00:01." + String(repeating: "0", count: digits - 1) + "1Z")
        }
        var date = dates[0]
        for _ in 0..<40_000 {
            // Half the time the date of the line before, as in an export in time order.
            if Int.random(in: 0..<2, using: &g) == 0 {
                date = dates[Int.random(in: 0..<dates.count, using: &g)]
            }
            let text = date + times[Int.random(in: 0..<times.count, using: &g)]
            let bytes = Array(text.utf8)
            let (fresh, kept) = bytes.withUnsafeBufferPointer { b in
                (
                    RFC3339.parse(b.baseAddress!, b.count),
                    RFC3339.parse(b.baseAddress!, b.count, cache: &cache)
                )
            }
            switch (fresh, kept) {
            case (.success(let a), .success(let b)):
                #expect(
                    a.seconds == b.seconds && a.nanoseconds == b.nanoseconds
                        && a.offsetMinutes == b.offsetMinutes, "\(text)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(text)")
            default:
                Issue.record("\(text): \(fresh) against \(kept)")
            }
        }
    }

    /// Lines whose end the fast path must find or leave to the line-by-line read: entries,
    /// a newline where whitespace may go, text after the entry, blanks, `\r\n`, lines
    /// longer than the scanner's buffer, and a last line with no newline.
    static func awkwardLines(_ g: inout SplitMix64) -> [String] {
        let entry = #"{"id":"e%d","at":"2026-11-02T10:00:00Z","kind":"grant","amount":%d%@}"#
        var lines: [String] = []
        for n in 0..<400 {
            let tail: String
            switch Int.random(in: 0..<12, using: &g) {
            case 0: tail = ",\n\"note\":\"split\""  // a newline where whitespace may go
            case 1:
                tail =
                    #","note":"\#(String(repeating: "w", count: Int.random(in: 4_000..<4_200, using: &g)))""#
            case 2: tail = "} {"  // text after the entry
            case 3: tail = "}   \r"
            case 4: tail = #","note":"a\nb""#  // an escaped newline is text
            case 5: tail = ",\"note\":\"x"  // truncated inside a string
            case 6: tail = "   "
            default: tail = ""
            }
            let line = String(format: entry, n, Int.random(in: 1..<9_999, using: &g), tail)
            switch Int.random(in: 0..<16, using: &g) {
            case 0: lines.append("")
            case 1: lines.append("  \t")
            case 2: lines.append(" " + line)
            default: lines.append(line)
            }
        }
        return lines
    }

    @Test(
        "lines read without first finding their end: the same records and problems as line by line",
        arguments: [false, true])
    func linesReadInOnePass(endsWithNewline: Bool) throws {
        var g = SplitMix64(seed: endsWithNewline ? 11 : 12)
        for round in 0..<20 {
            var text = Self.awkwardLines(&g).joined(separator: "\n")
            if round % 2 == 0 {
                // The last line cut short, to be reported as truncated.
                text += #"\n{"id":"last","at":"2026-11-02T10:00:00Z","kind":"gr"#
            }
            if endsWithNewline { text += "\n" }
            let bytes = Array(text.utf8)
            let (fast, slow) = bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                var devices = DeviceInterner()
                let fast = JSONLinesChunkParser.parse(
                    base, buffer.count, final: true, keepQuantity: .none, devices: &devices,
                    worker: 0)
                return (fast, Self.lineByLine(base, buffer.count))
            }
            #expect(fast.lineCount == slow.lineCount && fast.blankCount == slow.blankCount)
            #expect(fast.records.map { "\($0)" } == slow.records.map { "\($0)" })
            #expect(fast.problems.map { "\($0)" } == slow.problems.map { "\($0)" })
            #expect(fast.records.count > 100 && fast.problems.count > 10)
        }
    }

    /// Lines whose keys come in a few orders at random, optional fields present or not,
    /// look-alike unknown keys (`notes`, `devices`) and repeated keys among them, so that
    /// both predicted keys of a state are taken, swapped and missed.
    static func shiftingKeyOrders(_ g: inout SplitMix64) -> [String] {
        var lines: [String] = []
        for n in 0..<600 {
            var fields = [
                #""id":"c\#(n)""#, #""at":"2026-11-02T10:00:0\#(n % 10)Z""#, #""kind":"charge""#,
                #""amount":-\#(n + 1)"#, #""feature":"f\#(n % 3)""#,
            ]
            if Bool.random(using: &g) { fields.append(#""quantity":{"seconds":\#(n % 7)}"#) }
            switch Int.random(in: 0..<4, using: &g) {
            case 0: fields.append(#""note":"n""#)
            case 1: fields.append(#""notes":"look-alike""#)
            default: break
            }
            if Bool.random(using: &g) { fields.append(#""device":"d\#(n % 5)""#) }
            if Int.random(in: 0..<3, using: &g) == 0 { fields.append(#""devices":[1,2]"#) }
            fields.append(#""balanceAfter":\#(1_000 - n)"#)
            if Int.random(in: 0..<25, using: &g) == 0 {
                fields.append(fields[Int.random(in: 0..<fields.count, using: &g)])
            }
            if Int.random(in: 0..<4, using: &g) == 0 { fields.shuffle(using: &g) }
            lines.append("{" + fields.joined(separator: ",") + "}")
        }
        return lines
    }

    @Test(
        "predicted keys change nothing: one scanner for all lines reads what a fresh one per line reads"
    )
    func predictedKeysChangeNothing() throws {
        var g = SplitMix64(seed: 31)
        for _ in 0..<10 {
            let lines = Self.shiftingKeyOrders(&g)
            let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
            let shared = bytes.withUnsafeBufferPointer { buffer in
                var devices = DeviceInterner()
                return JSONLinesChunkParser.parse(
                    buffer.baseAddress!, buffer.count, final: true, keepQuantity: .none,
                    devices: &devices, worker: 0)
            }
            var builder = ChunkBuilder(keepQuantity: .none)
            for (k, line) in lines.enumerated() {
                var fresh = EntryScanner()
                defer { fresh.release() }
                let utf8 = Array(line.utf8)
                utf8.withUnsafeBufferPointer { buffer in
                    do throws(LineProblem) {
                        let f = try fresh.scan(buffer.baseAddress!, buffer.count)
                        builder.add(f, fresh, line: UInt32(k))
                    } catch {
                        builder.reject(line: UInt32(k), error)
                    }
                }
            }
            let alone = builder.finish()
            #expect(shared.records.map { "\($0)" } == alone.records.map { "\($0)" })
            #expect(shared.problems.map { "\($0)" } == alone.problems.map { "\($0)" })
            #expect(shared.records.count > 400 && shared.problems.count > 5)
        }
    }

    @Test(
        "a record carries what the merge reads: quantities only of charges in the window, a flag for an ignored price"
    )
    func recordsCarryWhatTheMergeReads() throws {
        let window = TakingsWindow(
            since: try Timestamp(rfc3339: "2026-11-01T00:00:00Z"),
            until: try Timestamp(rfc3339: "2026-12-01T00:00:00Z"))
        let lines = [
            #"{"id":"a","at":"2026-10-31T23:59:59.999Z","kind":"charge","amount":-5,"feature":"asr","quantity":{"seconds":3}}"#,
            #"{"id":"b","at":"2026-11-01T00:00:00Z","kind":"charge","amount":-5,"feature":"asr","quantity":{"seconds":3}}"#,
            #"{"id":"c","at":"2026-12-01T00:00:00Z","kind":"charge","amount":-5,"feature":"asr","quantity":{"seconds":3}}"#,
            #"{"id":"d","at":"2026-11-02T00:00:00Z","kind":"topup","amount":500,"price":"USD 4.99"}"#,
            #"{"id":"e","at":"2026-11-02T00:00:00Z","kind":"grant","amount":500,"price":"USD 4.99"}"#,
        ]
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let chunk = bytes.withUnsafeBufferPointer { buffer in
            var devices = DeviceInterner()
            return JSONLinesChunkParser.parse(
                buffer.baseAddress!, buffer.count, final: true,
                keepQuantity: QuantityNeed(all: true, keys: [], window: window),
                devices: &devices, worker: 0)
        }
        try #require(chunk.records.count == 5 && chunk.problems.isEmpty)
        let quantities = chunk.records.map { r in
            r.extra < 0 ? [:] : chunk.extras[Int(r.extra)].quantity
        }
        // The window is half-open: its first instant is in, its end is out.
        #expect(quantities.map(\.isEmpty) == [true, false, true, true, true])
        #expect(chunk.records.map(\.priceProblem) == [false, false, false, false, true])
        #expect(
            chunk.records[4].extra >= 0
                && chunk.extras[Int(chunk.records[4].extra)].priceProblem != nil)
    }

    /// The reference: find each line's end first, then scan the line alone.
    static func lineByLine(_ base: UnsafePointer<UInt8>, _ count: Int) -> ParsedChunk {
        var builder = ChunkBuilder(keepQuantity: .none)
        var scanner = EntryScanner()
        defer { scanner.release() }
        var start = 0
        var line: UInt32 = 0
        var blank = 0
        while start < count {
            var end = start
            while end < count, base[end] != 0x0A { end += 1 }
            let bytes = UnsafeBufferPointer(start: base + start, count: end - start)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                blank += 1
            } else {
                do {
                    let f = try scanner.scan(
                        base + start, end - start, truncatedAtEnd: end == count)
                    builder.add(f, scanner, line: line)
                } catch {
                    builder.reject(line: line, error)
                }
            }
            line += 1
            start = end + 1
        }
        var chunk = builder.finish()
        chunk.lineCount = Int(line)
        chunk.blankCount = blank
        return chunk
    }
}
