import Testing

@testable import RateCard

/// The JSON Lines scanner predicts each key from the one before it (exports write every
/// line's keys in the same order) and matches the predicted `"name":` with two loads. These
/// tests pin that a prediction never changes what is read: any key order, spacing, escaped
/// key names, look-alike unknown keys and duplicates read exactly as without it.
@Suite("Takings: key order")
struct TakingsKeyOrderTests {
    /// Scans `line` with `scanner` (which keeps its predictions from the lines before).
    static func scan(_ scanner: inout EntryScanner, _ line: String) -> Result<
        LedgerEntry, LineProblem
    > {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress ?? JSONScanner.emptyBase
            do {
                let fields = try scanner.scan(base, buffer.count)
                return .success(fields.entry(scanner))
            } catch let problem as LineProblem {
                return .failure(problem)
            } catch {
                fatalError("the scanner throws only line problems")
            }
        }
    }

    /// A line's members as (key, JSON value) pairs, in the usual order.
    static func members(_ n: Int, rng: inout SplitMix64) -> [(String, String)] {
        var m: [(String, String)] = [
            ("id", "\"e-\(n)\""), ("at", "\"2026-11-\(10 + n % 18)T0\(n % 10):15:00.125+05:30\""),
        ]
        switch n % 4 {
        case 0:
            m += [
                ("kind", "\"charge\""), ("amount", "-\(1 + rng.next() % 90_000)"),
                ("feature", "\"asr\""),
                ("quantity", "{\"seconds\":\(rng.next() % 600),\"audio\":\"12.5\"}"),
            ]
        case 1:
            m += [
                ("kind", "\"refund\""), ("amount", "\(1 + rng.next() % 90_000)"),
                ("feature", "\"asr\""),
                ("refundOf", "\"e-\(n - 1)\""), ("reason", "\"notUsable\""),
            ]
        case 2:
            m += [
                ("kind", "\"topup\""), ("amount", "\"\(1 + rng.next() % 90_000)\""),
                ("price", "\"GBP 4.99\""),
                ("paymentRef", "\"p\(n)\""),
            ]
        default:
            m += [("kind", "\"grant\""), ("amount", "5000000"), ("note", "\"starting credit\"")]
        }
        m += [
            ("device", "\"d\(n % 3)\""), ("card", "\"voice@3\""),
            ("balanceAfter", "\(rng.next() % 1_000_000)"),
        ]
        return m
    }

    static func line(_ members: [(String, String)], spacing: String = "") -> String {
        "{" + members.map { "\"\($0.0)\"\(spacing):\(spacing)\($0.1)" }.joined(separator: ",") + "}"
    }

    @Test(
        "keys in the usual order, shuffled, alternating, spaced or among unknown keys read the same entries"
    )
    func anyOrderReadsTheSame() throws {
        var rng = SplitMix64(seed: 42)
        var usual = EntryScanner()
        var mixed = EntryScanner()
        defer {
            usual.release()
            mixed.release()
        }
        for n in 0..<2_000 {
            let members = Self.members(n, rng: &rng)
            let expected = try Self.scan(&usual, Self.line(members)).get()
            var other = members
            switch n % 5 {
            case 0: other.shuffle(using: &rng)
            case 1: other.reverse()
            case 2:
                other.insert(
                    ("idx", "[1,{\"at\":2}]"), at: Int(rng.next() % UInt64(other.count + 1)))
            case 3: other.insert(("a", "null"), at: 1)
            default: break
            }
            let text = Self.line(other, spacing: n % 7 == 0 ? " " : "")
            #expect(try Self.scan(&mixed, text).get() == expected, "line \(n): \(text)")
        }
    }

    @Test(
        "a key written with escapes is the same key; a longer or shorter look-alike is an unknown key"
    )
    func escapedAndLookAlikeKeys() throws {
        var scanner = EntryScanner()
        defer { scanner.release() }
        let plain = #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5}"#
        let reference = try Self.scan(&scanner, plain).get()
        // Learned: id → at → kind → amount. Each of these breaks the prediction.
        #expect(
            try Self.scan(
                &scanner, #"{"\u0069d":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5}"#
            ).get() == reference)
        #expect(
            try Self.scan(
                &scanner,
                #"{"id":"a","atx":1,"at":"2026-11-20T10:00:00Z","kind":"grant","amount":5}"#
            ).get() == reference)
        #expect(
            try Self.scan(
                &scanner,
                #"{"id":"a","at":"2026-11-20T10:00:00Z","kin":"x","kind":"grant","amount":5}"#
            ).get() == reference)
        #expect(try Self.scan(&scanner, plain).get() == reference)
    }

    @Test("a duplicate key is found whether or not it was the predicted one")
    func duplicatesWithAndWithoutPrediction() {
        var scanner = EntryScanner()
        defer { scanner.release() }
        let duplicate =
            #"{"id":"a","kind":"grant","id":"b","at":"2026-11-20T10:00:00Z","amount":5}"#
        // The first time `id` after `kind` is read the slow way (and learned), the second
        // time it is the predicted key: the same problem at the same column.
        for _ in 0..<2 {
            guard case .failure(let problem) = Self.scan(&scanner, duplicate) else {
                Issue.record("a duplicated id was accepted")
                return
            }
            #expect(problem.reason == .malformedJSON)
            #expect(problem.message == "duplicate key \"id\"")
            #expect(problem.column == 26)
        }
    }

    @Test(
        "a predicted key cut short by the end of the line is a truncated line, not a read past it")
    func predictedKeyAtTheEnd() throws {
        var scanner = EntryScanner()
        defer { scanner.release() }
        _ = try Self.scan(
            &scanner,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5,"balanceAfter":5}"#
        ).get()
        for cut in [
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5,"bal"#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5,"balanceAfter""#,
            #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":5,"balanceAfter":"#,
        ] {
            guard case .failure(let problem) = Self.scan(&scanner, cut) else {
                Issue.record("accepted: \(cut)")
                continue
            }
            #expect(problem.reason == .truncated, "\(cut): \(problem)")
        }
    }

    @Test(
        "plain integers: 18 digits are read, 19 are out of range, fractions and exponents are not whole"
    )
    func plainIntegers() {
        var scanner = EntryScanner()
        defer { scanner.release() }
        func amount(_ text: String) -> Result<LedgerEntry, LineProblem> {
            Self.scan(
                &scanner,
                #"{"id":"a","at":"2026-11-20T10:00:00Z","kind":"grant","amount":"# + text + "}")
        }
        #expect((try? amount("999999999999999999").get())?.amount == 999_999_999_999_999_999)
        #expect((try? amount("1").get())?.amount == 1)
        for (text, reason) in [
            ("1000000000000000000", RejectionClass.amountOutOfRange), ("5.0", .fractionalAmount),
            ("5e3", .fractionalAmount), ("05", .malformedJSON), ("-", .malformedJSON),
            ("0", .wrongSign),
        ] {
            guard case .failure(let problem) = amount(text) else {
                Issue.record("accepted amount \(text)")
                continue
            }
            #expect(problem.reason == reason, "amount \(text): \(problem)")
        }
    }
}
