/// The one JSON grammar of the library (RFC 8259, strict), at the byte level: whitespace,
/// strings with escapes and UTF-8 validation, numbers, literals, and whole values with a
/// depth limit and no duplicate keys. `JSONParser` (card files, documents) and the takings
/// `EntryScanner` (the hot path of `margin pnl`) both read through it.
///
/// It follows the shape of swift-foundation's JSON scanner: the scanner walks the bytes and
/// reports what it finds to a sink (`JSONEventSink`), which builds a tree (`JSONParser`) or
/// nothing at all (`skipValue`). A string is a `Span`: where its bytes lie in the input, or,
/// when it had escapes, where its decoded bytes lie in the scanner's scratch buffer, which
/// holds every decoded string of one scan (never longer than the input).
///
/// Errors are `JSONScanError`: what was wrong and at which byte offset; each reader turns
/// the offset into its own place (a column of a line, a line and column of a file).
struct JSONScanner {
    /// Where a string's bytes lie: in the input, or in `scratch` after unescaping.
    struct Span: Sendable {
        var start: Int32 = 0
        var count: Int32 = -1
        var inScratch = false

        var isPresent: Bool { count >= 0 }
        static let absent = Span()
    }

    private(set) var base: UnsafePointer<UInt8>
    private(set) var end: Int
    /// The offset of the next byte to read.
    var i = 0
    private(set) var scratch: UnsafeMutablePointer<UInt8>
    private(set) var scratchCapacity: Int
    private var scratchCount = 0
    /// Whether a newline ends the input where whitespace may appear, instead of being
    /// whitespace: set while a line is scanned without first finding its end, so the scan
    /// never runs on into the next line.
    var newlineEnds = false

    init(capacity: Int = 4096) {
        scratchCapacity = max(16, capacity)
        scratch = .allocate(capacity: scratchCapacity)
        base = JSONScanner.emptyBase
        end = 0
    }

    /// Frees the scratch buffer; the scanner must not be used afterwards.
    func release() {
        scratch.deallocate()
    }

    /// A readable address for empty input (one zero byte, never freed).
    nonisolated(unsafe) private static let emptyStorage: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()
    static var emptyBase: UnsafePointer<UInt8> { UnsafePointer(emptyStorage) }

    /// Starts scanning `count` bytes at `base`, forgetting earlier decoded strings.
    mutating func reset(_ base: UnsafePointer<UInt8>, _ count: Int) {
        self.base = base
        end = count
        i = 0
        scratchCount = 0
        if scratchCapacity < count {
            scratch.deallocate()
            scratchCapacity = max(count, scratchCapacity * 2)
            scratch = .allocate(capacity: scratchCapacity)
        }
    }

    @inline(__always)
    func pointer(_ s: Span) -> UnsafePointer<UInt8> {
        s.inScratch ? UnsafePointer(scratch + Int(s.start)) : base + Int(s.start)
    }

    func string(_ s: Span) -> String? {
        guard s.isPresent else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: pointer(s), count: Int(s.count)), as: UTF8.self)
    }

    /// The byte at `i`, or nil at the end.
    @inline(__always)
    var current: UInt8? { i < end ? base[i] : nil }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            let b = base[i]
            // Most calls find no blank at all (exports are written without), so the
            // common byte is settled by one comparison.
            if b > 0x20 { return }
            if b == 0x20 || b == 0x09 || b == 0x0D || (b == 0x0A && !newlineEnds) {
                i += 1
            } else {
                return
            }
        }
    }

    @inline(__always)
    private func fail(_ problem: JSONScanError.Problem, at offset: Int? = nil) -> JSONScanError {
        JSONScanError(problem, offset: offset ?? i, found: offset == nil ? current : nil)
    }

    // MARK: Literals and numbers

    mutating func expectWord(_ word: StaticString) throws(JSONScanError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        guard i + n <= end else {
            let at = i
            i = end
            throw JSONScanError(.invalidLiteral(word), offset: at)
        }
        for k in 0..<n where base[i + k] != w[k] {
            throw JSONScanError(.invalidLiteral(word), offset: i)
        }
        i += n
    }

    /// A number at `i` (which is '-' or a digit), checked against the grammar and skipped;
    /// its bytes are `start..<i` afterwards.
    mutating func scanNumber() throws(JSONScanError) {
        @inline(__always) func isDigit(_ k: Int) -> Bool {
            k < end && base[k] >= 0x30 && base[k] <= 0x39
        }
        let start = i
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { throw JSONScanError(.numberDigit, offset: i) }
        if base[i] == 0x30 {
            i += 1
            if isDigit(i) { throw JSONScanError(.leadingZero, offset: start) }
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < end, base[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { throw JSONScanError(.fractionDigit, offset: i) }
            while isDigit(i) { i += 1 }
        }
        if i < end, base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw JSONScanError(.exponentDigit, offset: i) }
            while isDigit(i) { i += 1 }
        }
    }

    // MARK: Strings

    /// A string starting at the opening quote at `i`. Without escapes the span points into
    /// the input; with escapes the decoded bytes go to `scratch` (with `decode` false they
    /// are only checked, and the span covers the raw bytes).
    ///
    /// The common string (printable ASCII, no escape) is read inline, eight bytes at a
    /// time; anything else goes on in `scanStringRest`, which is not inlined.
    @inline(__always)
    mutating func scanString(decode: Bool = true) throws(JSONScanError) -> Span {
        let open = i
        let start = i + 1
        // Fast path: printable ASCII without escapes, eight bytes at a time. The lowest
        // flagged byte of the mask is always a true special byte (borrows only flag
        // bytes above one), so its position says where the string ends or the slow
        // path starts.
        let raw = UnsafeRawPointer(base)
        var j = start
        while j + 8 <= end {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = w ^ (ones &* 0x22)
            let slash = w ^ (ones &* 0x5C)
            let special =
                (((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | (w &- ones &* 0x20) | w)
                & highs
            if special != 0 {
                j += special.trailingZeroBitCount >> 3
                if base[j] == UInt8(ascii: "\"") {
                    i = j + 1
                    return Span(
                        start: Int32(truncatingIfNeeded: start),
                        count: Int32(truncatingIfNeeded: j - start), inScratch: false)
                }
                break
            }
            j += 8
        }
        i = j
        return try scanStringRest(open: open, start: start, decode: decode)
    }

    /// The rest of a string from `i` on, past the bytes the fast path took.
    @inline(never)
    private mutating func scanStringRest(open: Int, start: Int, decode: Bool)
        throws(JSONScanError) -> Span
    {
        while i < end {
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                let span = Span(
                    start: Int32(truncatingIfNeeded: start),
                    count: Int32(truncatingIfNeeded: i - start), inScratch: false)
                i += 1
                return span
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        guard i < end else { throw JSONScanError(.unterminatedString, offset: open) }
        // Slow path: copy what was scanned so far, then decode.
        let scratchStart = scratchCount
        if decode {
            for k in start..<i { appendScratch(base[k]) }
        }
        while true {
            guard i < end else { throw JSONScanError(.unterminatedString, offset: open) }
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                if decode {
                    return Span(
                        start: Int32(truncatingIfNeeded: scratchStart),
                        count: Int32(truncatingIfNeeded: scratchCount - scratchStart),
                        inScratch: true)
                }
                return Span(
                    start: Int32(truncatingIfNeeded: start),
                    count: Int32(truncatingIfNeeded: i - 1 - start), inScratch: false)
            }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard i < end else { throw JSONScanError(.unterminatedString, offset: open) }
                let e = base[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): appendScratch(0x22, decode)
                case UInt8(ascii: "\\"): appendScratch(0x5C, decode)
                case UInt8(ascii: "/"): appendScratch(0x2F, decode)
                case UInt8(ascii: "b"): appendScratch(0x08, decode)
                case UInt8(ascii: "f"): appendScratch(0x0C, decode)
                case UInt8(ascii: "n"): appendScratch(0x0A, decode)
                case UInt8(ascii: "r"): appendScratch(0x0D, decode)
                case UInt8(ascii: "t"): appendScratch(0x09, decode)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 1 < end, base[i] == UInt8(ascii: "\\"),
                            base[i + 1] == UInt8(ascii: "u")
                        else {
                            throw JSONScanError(.unpairedSurrogate, offset: i)
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw JSONScanError(.unpairedSurrogate, offset: i)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw JSONScanError(.unpairedSurrogate, offset: i)
                    }
                    if decode { appendUTF8(scalar) }
                default:
                    throw JSONScanError(.invalidEscape(e), offset: i - 2)
                }
                continue
            }
            if b < 0x20 {
                if b == 0x0A { throw JSONScanError(.lineBreakInString, offset: open) }
                throw JSONScanError(.controlCharacter(b), offset: i)
            }
            if b < 0x80 {
                appendScratch(b, decode)
                i += 1
                continue
            }
            let n = try utf8SequenceLength(stringAt: open)
            if decode { for k in i..<i + n { appendScratch(base[k]) } }
            i += n
        }
    }

    /// Validates the UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates).
    private func utf8SequenceLength(stringAt open: Int) throws(JSONScanError) -> Int {
        let b0 = base[i]
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            k < end && base[k] >= lo && base[k] <= hi
        }
        switch b0 {
        case 0xC2...0xDF where cont(i + 1): return 2
        case 0xE0 where cont(i + 1, 0xA0) && cont(i + 2): return 3
        case 0xE1...0xEC where cont(i + 1) && cont(i + 2): return 3
        case 0xED where cont(i + 1, 0x80, 0x9F) && cont(i + 2): return 3
        case 0xEE...0xEF where cont(i + 1) && cont(i + 2): return 3
        case 0xF0 where cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3): return 4
        case 0xF1...0xF3 where cont(i + 1) && cont(i + 2) && cont(i + 3): return 4
        case 0xF4 where cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3): return 4
        default: throw JSONScanError(.invalidUTF8(b0, stringAt: open), offset: i)
        }
    }

    private mutating func hex4() throws(JSONScanError) -> UInt32 {
        guard i + 4 <= end else {
            let at = i
            i = end
            throw JSONScanError(.incompleteEscape, offset: at)
        }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = base[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - 0x41 + 10)
            default: throw JSONScanError(.badHexDigit, offset: i)
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    @inline(__always)
    private mutating func appendScratch(_ b: UInt8, _ decode: Bool = true) {
        guard decode else { return }
        // The decoded text is never longer than the input, and scratch holds at least that.
        scratch[scratchCount] = b
        scratchCount += 1
    }

    private mutating func appendUTF8(_ v: UInt32) {
        if v < 0x80 {
            appendScratch(UInt8(v))
        } else if v < 0x800 {
            appendScratch(UInt8(0xC0 | (v >> 6)))
            appendScratch(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            appendScratch(UInt8(0xE0 | (v >> 12)))
            appendScratch(UInt8(0x80 | ((v >> 6) & 0x3F)))
            appendScratch(UInt8(0x80 | (v & 0x3F)))
        } else {
            appendScratch(UInt8(0xF0 | (v >> 18)))
            appendScratch(UInt8(0x80 | ((v >> 12) & 0x3F)))
            appendScratch(UInt8(0x80 | ((v >> 6) & 0x3F)))
            appendScratch(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: Values

    /// One JSON value at `i` (whitespace before it already skipped), reported to `sink`
    /// event by event. Objects and arrays nest at most `maxDepth` deep (`depth` is the
    /// nesting of this value, 1 for a top-level one); a key repeated in one object is an
    /// error naming both places.
    mutating func scanValue<Sink: JSONEventSink>(
        into sink: inout Sink, depth: Int, maxDepth: Int
    ) throws(JSONScanError) {
        guard i < end else { throw JSONScanError(.expectedValue, offset: i) }
        let at = i
        switch base[i] {
        case UInt8(ascii: "\""):
            let s = try scanString(decode: sink.wantsDecodedStrings)
            sink.string(s, at: at, in: self)
        case UInt8(ascii: "t"):
            try expectWord("true")
            sink.bool(true, at: at)
        case UInt8(ascii: "f"):
            try expectWord("false")
            sink.bool(false, at: at)
        case UInt8(ascii: "n"):
            try expectWord("null")
            sink.null(at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            sink.number(at..<i, in: self)
        case UInt8(ascii: "["):
            guard depth <= maxDepth else { throw JSONScanError(.tooDeep(maxDepth), offset: i) }
            i += 1
            sink.beginArray(at: at)
            skipWhitespace()
            if i < end, base[i] == UInt8(ascii: "]") {
                i += 1
                sink.endArray()
                return
            }
            while true {
                skipWhitespace()
                try scanValue(into: &sink, depth: depth + 1, maxDepth: maxDepth)
                guard try commaOrClose(UInt8(ascii: "]"), atEnd: .endInsideArray) else {
                    sink.endArray()
                    return
                }
            }
        case UInt8(ascii: "{"):
            guard depth <= maxDepth else { throw JSONScanError(.tooDeep(maxDepth), offset: i) }
            i += 1
            sink.beginObject(at: at)
            skipWhitespace()
            if i < end, base[i] == UInt8(ascii: "}") {
                i += 1
                sink.endObject()
                return
            }
            var keys = KeySet()
            while true {
                skipWhitespace()
                guard i < end else { throw JSONScanError(.endInsideObject, offset: i) }
                guard base[i] == UInt8(ascii: "\"") else { throw fail(.expectedKey) }
                let keyAt = i
                let key = try scanString()
                try keys.insert(key, at: keyAt, in: self)
                sink.key(key, at: keyAt, in: self)
                skipWhitespace()
                guard i < end, base[i] == UInt8(ascii: ":") else { throw fail(.expectedColon) }
                i += 1
                skipWhitespace()
                try scanValue(into: &sink, depth: depth + 1, maxDepth: maxDepth)
                guard try commaOrClose(UInt8(ascii: "}"), atEnd: .endInsideObject) else {
                    sink.endObject()
                    return
                }
            }
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw JSONScanError(.notANumber, offset: i)
        default:
            throw fail(.expectedValue)
        }
    }

    /// What follows a member or an element: a comma (true; whitespace after it skipped,
    /// and `close` may not follow it) or `close` (false, past it); `atEnd` when the input
    /// ends first.
    @inline(__always)
    mutating func commaOrClose(_ close: UInt8, atEnd: JSONScanError.Problem)
        throws(JSONScanError) -> Bool
    {
        skipWhitespace()
        guard i < end else { throw JSONScanError(atEnd, offset: i) }
        if base[i] == UInt8(ascii: ",") {
            i += 1
            skipWhitespace()
            if i < end, base[i] == close { throw JSONScanError(.trailingComma(close), offset: i) }
            return true
        }
        if base[i] == close {
            i += 1
            return false
        }
        throw fail(.expectedCommaOr(close))
    }

    /// A value checked and skipped (`depth` as in `scanValue`).
    mutating func skipValue(depth: Int, maxDepth: Int) throws(JSONScanError) {
        var sink = JSONSkipSink()
        try scanValue(into: &sink, depth: depth, maxDepth: maxDepth)
    }

    /// The keys of one object so far: a repeated key is an error naming the first.
    struct KeySet {
        private var seen: [(hash: Int, span: Span, at: Int)] = []

        mutating func removeAll() {
            if !seen.isEmpty { seen.removeAll(keepingCapacity: true) }
        }

        mutating func insert(_ key: Span, at: Int, in scanner: JSONScanner)
            throws(JSONScanError)
        {
            let bytes = UnsafeBufferPointer(start: scanner.pointer(key), count: Int(key.count))
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            let h = hasher.finalize()
            for s in seen where s.hash == h && s.span.count == key.count {
                let other = UnsafeBufferPointer(
                    start: scanner.pointer(s.span), count: Int(s.span.count))
                if other.elementsEqual(bytes) {
                    throw JSONScanError(.duplicateKey(key, firstAt: s.at), offset: at)
                }
            }
            seen.append((h, key, at))
        }
    }
}

/// What a `JSONScanner` reports while it walks a value. Strings and numbers come as
/// places in the scanner's bytes, so a sink that does not keep them costs nothing.
protocol JSONEventSink {
    /// Whether strings are decoded into the scratch buffer (a sink that only checks them
    /// does not need their text).
    var wantsDecodedStrings: Bool { get }
    mutating func beginObject(at offset: Int)
    mutating func key(_ key: JSONScanner.Span, at offset: Int, in scanner: JSONScanner)
    mutating func endObject()
    mutating func beginArray(at offset: Int)
    mutating func endArray()
    mutating func string(_ value: JSONScanner.Span, at offset: Int, in scanner: JSONScanner)
    mutating func number(_ bytes: Range<Int>, in scanner: JSONScanner)
    mutating func bool(_ value: Bool, at offset: Int)
    mutating func null(at offset: Int)
}

/// A sink that keeps nothing: the value is only checked.
struct JSONSkipSink: JSONEventSink {
    var wantsDecodedStrings: Bool { false }
    func beginObject(at offset: Int) {}
    func key(_ key: JSONScanner.Span, at offset: Int, in scanner: JSONScanner) {}
    func endObject() {}
    func beginArray(at offset: Int) {}
    func endArray() {}
    func string(_ value: JSONScanner.Span, at offset: Int, in scanner: JSONScanner) {}
    func number(_ bytes: Range<Int>, in scanner: JSONScanner) {}
    func bool(_ value: Bool, at offset: Int) {}
    func null(at offset: Int) {}
}
