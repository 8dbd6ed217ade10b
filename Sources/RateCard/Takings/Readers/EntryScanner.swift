/// A strict byte-level reader of one ledger entry written as a JSON object.
///
/// This is the hot path of `margin pnl`: it reads the object straight from the bytes into
/// typed fields, with no intermediate tree and no `String` for the common case. It is as
/// strict as `JSONParser` (RFC 8259 grammar, valid UTF-8, no control characters in
/// strings, no leading zeros, no trailing commas, no duplicate keys, nesting limited) and
/// then applies the ledger rules: required fields, types, whole amounts within range,
/// RFC 3339 timestamps with an offset, known kinds, the sign of each kind.
///
/// Unknown fields are checked for JSON validity and otherwise ignored.
struct EntryScanner {
    /// Where a string value lies (see `JSONScanner.Span`).
    typealias Span = JSONScanner.Span

    struct Dimension {
        var key: Span
        var keyHash: UInt64
        var significand: Int128
        var scale: Int
    }

    /// The fields of one scanned entry; spans point into the scanned bytes or `scratch`.
    struct Fields {
        var id = Span.absent
        var seconds: Int64 = 0
        var nanoseconds: UInt32 = 0
        var offsetMinutes: Int = 0
        var kind: LedgerEntry.Kind = .grant
        var amount: Int64 = 0
        var feature = Span.absent
        var refundOf = Span.absent
        var reason = Span.absent
        var device = Span.absent
        var note = Span.absent
        var card = Span.absent
        var paymentRef = Span.absent
        var price = Span.absent
        var balanceAfter: Int64?
        var hasAt = false
        var hasKind = false
        var hasAmount = false
    }

    static let maxDepth = 64

    /// The JSON grammar: whitespace, strings, numbers, literals, skipped values.
    private(set) var json = JSONScanner()
    private(set) var dimensions: [Dimension] = []
    /// The unknown keys of the line so far (known ones are bits of `seen`).
    private var unknownKeys = JSONScanner.KeySet()
    /// Per prediction state (a key's bit index in the states of the entry's kind;
    /// `startState` at the object's start): the bit index of the known key that last came
    /// after it, `nothingPredicted` when none did; at `states + state`, the one before.
    /// Exports write every line's keys in the same order, so the next key is usually one
    /// predicted, and it is matched with two loads instead of being read as a string and
    /// looked up.
    private var predicted: UnsafeMutablePointer<UInt8>
    /// `Key.allCases` where the hot path reads it: a load, where `init(rawValue:)` is a
    /// call.
    private var keys: UnsafeMutablePointer<Key>
    /// The day number of the date read last (`at` values in time order share dates).
    private var days = RFC3339.DayCache()
    /// Per key bit index: `"name":` as the first and last 8 (or 4) bytes, and its length.
    private var patterns: UnsafeMutablePointer<UInt64>
    private var patternLengths: UnsafeMutablePointer<Int>
    static let startState = 14
    /// States per kind of entry: what follows a key depends on the kind (after `amount`,
    /// a grant's `note`, a charge's `feature`), so once `kind` is read each kind learns
    /// its own order (`state(after:_:)`); before, the states of no kind are used.
    static let statesPerKind = 16
    static let states = statesPerKind * 6
    /// A `predicted` entry before any key was learned there.
    static let nothingPredicted: UInt8 = 0xFF
    /// After an unknown key: nothing is predicted and nothing learned.
    static let noState = 15

    // The bytes being scanned, and the offset of the next byte: the JSON scanner's.
    var base: UnsafePointer<UInt8> { json.base }
    private var end: Int { json.end }
    private var i: Int {
        get { json.i }
        set { json.i = newValue }
    }

    init() {
        predicted = .allocate(capacity: 2 * Self.states)
        predicted.initialize(repeating: Self.nothingPredicted, count: 2 * Self.states)
        keys = .allocate(capacity: Key.allCases.count)
        keys.initialize(from: Key.allCases, count: Key.allCases.count)
        let names = Key.names
        patterns = .allocate(capacity: names.count * 2)
        patternLengths = .allocate(capacity: names.count)
        for (k, name) in names.enumerated() {
            let bytes = Array("\"\(name)\":".utf8)
            let n = bytes.count
            func load(_ at: Int, _ width: Int) -> UInt64 {
                var v: UInt64 = 0
                for b in 0..<width { v |= UInt64(bytes[at + b]) << (8 * UInt64(b)) }
                return v
            }
            let width = n >= 8 ? 8 : 4
            patterns[2 * k] = load(0, width)
            patterns[2 * k + 1] = load(n - width, width)
            patternLengths[k] = n
        }
    }

    /// Frees the buffers; the scanner must not be used afterwards.
    func release() {
        json.release()
        predicted.deallocate()
        keys.deallocate()
        patterns.deallocate()
        patternLengths.deallocate()
    }

    @inline(__always)
    func pointer(_ s: Span) -> UnsafePointer<UInt8> {
        json.pointer(s)
    }

    func string(_ s: Span) -> String? {
        guard s.isPresent else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: pointer(s), count: Int(s.count)), as: UTF8.self)
    }

    // MARK: Scanning

    /// Scans one entry object that fills `count` bytes at `base` (surrounding blanks
    /// allowed). `truncatedAtEnd` says the bytes end without a newline, so running out of
    /// input is reported as a truncated line.
    mutating func scan(_ base: UnsafePointer<UInt8>, _ count: Int, truncatedAtEnd: Bool = false)
        throws(LineProblem) -> Fields
    {
        var f = Fields()
        try scan(base, count, truncatedAtEnd: truncatedAtEnd, into: &f)
        return f
    }

    /// The same, filling `f` in place (the hot path: no copies of the fields).
    mutating func scan(
        _ base: UnsafePointer<UInt8>, _ count: Int, truncatedAtEnd: Bool = false,
        into f: inout Fields
    ) throws(LineProblem) {
        json.reset(base, count)
        clearDimensions()
        unknownKeys.removeAll()
        do {
            f = Fields()
            try scanObject(&f)
        } catch {
            if error.reason == .malformedJSON, i >= end {
                throw LineProblem(
                    .truncated,
                    truncatedAtEnd
                        ? "truncated last line: the input ends inside a JSON value (\(error.message))"
                        : "the line ends inside a JSON value (\(error.message))",
                    column: error.column)
            }
            throw error
        }
    }

    /// The entry that starts at `base` and runs to the first newline within `count` bytes,
    /// scanned without first looking for that newline: the line's length (the newline's
    /// offset, or `count` when the bytes end first), or nil when this fast path cannot
    /// take the line. Then the caller finds the line's end and calls `scan(_:_:into:)`,
    /// which names the problem: a line that is not a valid entry, or one longer than the
    /// scanner's buffer. A newline counts as the end wherever whitespace may appear, and
    /// strings cannot hold one, so a line read here is read exactly as `scan` reads it.
    mutating func scanLine(_ base: UnsafePointer<UInt8>, _ count: Int, into f: inout Fields)
        -> Int?
    {
        let limit = min(count, json.scratchCapacity)
        json.reset(base, limit)
        json.newlineEnds = true
        defer { json.newlineEnds = false }
        clearDimensions()
        unknownKeys.removeAll()
        f = Fields()
        do { try scanObject(&f) } catch { return nil }
        if i < limit { return i }  // at the newline (`scanObject` checked)
        return limit == count ? count : nil
    }

    /// Empties `dimensions`, keeping its storage: a line has one or two, and taking them
    /// off one by one is a few instructions where `removeAll(keepingCapacity:)` took 60.
    @inline(__always)
    private mutating func clearDimensions() {
        while !dimensions.isEmpty { dimensions.removeLast() }
    }

    /// An entry-level syntax error at the current byte (the JSON grammar's own are
    /// `syntax(_: JSONScanError.Problem)`).
    private func entrySyntax(_ message: String) -> LineProblem {
        LineProblem(.malformedJSON, message, column: i + 1)
    }

    private func describeCurrent() -> String {
        guard i < end else { return "end of line" }
        let b = base[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    @inline(__always)
    private mutating func skipWhitespace() { json.skipWhitespace() }

    /// A JSON syntax error of the line, in the scanner's words.
    private func problem(_ e: JSONScanError) -> LineProblem {
        LineProblem(
            .malformedJSON, e.message(in: .line, scanner: json),
            column: e.reportedOffset(in: .line) + 1)
    }

    /// A JSON syntax error at the current byte.
    private func syntax(_ p: JSONScanError.Problem) -> LineProblem {
        problem(JSONScanError(p, offset: i, found: i < end ? base[i] : nil))
    }

    @inline(__always)
    private mutating func parseString(decode: Bool = true) throws(LineProblem) -> Span {
        do { return try json.scanString(decode: decode) } catch { throw problem(error) }
    }

    private mutating func expectWord(_ word: StaticString) throws(LineProblem) {
        do { try json.expectWord(word) } catch { throw problem(error) }
    }

    private mutating func scanNumber() throws(LineProblem) {
        do { try json.scanNumber() } catch { throw problem(error) }
    }

    /// After a member of an object: true after a comma, false after the closing brace.
    @inline(__always)
    private mutating func commaOrClose() throws(LineProblem) -> Bool {
        do { return try json.commaOrClose(UInt8(ascii: "}"), atEnd: .endInsideObject) } catch {
            throw problem(error)
        }
    }

    /// Any JSON value, checked and skipped (unknown fields are validated, then ignored).
    private mutating func skipValue(depth: Int) throws(LineProblem) {
        do { try json.skipValue(depth: depth, maxDepth: Self.maxDepth) } catch {
            throw problem(error)
        }
    }

    private mutating func scanObject(_ f: inout Fields) throws(LineProblem) {
        skipWhitespace()
        guard i < end else { throw entrySyntax("expected a JSON object, found end of line") }
        guard base[i] == UInt8(ascii: "{") else {
            if base[i] == UInt8(ascii: "[") {
                throw entrySyntax("expected a JSON object for the entry, found an array")
            }
            throw entrySyntax("unexpected \(describeCurrent()): expected '{' to start an entry")
        }
        i += 1
        var seen: UInt32 = 0
        var state = Self.startState
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                // Whitespace is already skipped: after the opening brace and after each comma.
                guard i < end else { throw syntax(.endInsideObject) }
                guard base[i] == UInt8(ascii: "\"") else { throw syntax(.expectedKey) }
                let keyColumn = i + 1
                if let k = matchPredicted(state) {
                    // `"name":` matched whole; `i` is past the colon.
                    skipWhitespace()
                    try knownField(k, keyColumn: keyColumn, into: &f, seen: &seen)
                    state = Self.state(after: k.rawValue, f)
                } else {
                    let key = try parseString()
                    skipWhitespace()
                    guard i < end, base[i] == UInt8(ascii: ":") else {
                        throw syntax(.expectedColon)
                    }
                    i += 1
                    skipWhitespace()
                    state = Self.state(
                        after: try field(
                            key, keyColumn: keyColumn, into: &f, seen: &seen, state: state), f)
                }
                guard try commaOrClose() else { break }
            }
        }
        skipWhitespace()
        guard i == end || (json.newlineEnds && base[i] == 0x0A) else {
            throw LineProblem(
                .malformedJSON,
                "unexpected \(describeCurrent()) after the entry's closing '}' (one entry per line)",
                column: i + 1)
        }
        try checkRules(f)
    }

    // MARK: Known fields

    /// The known fields, by bit index: a key's bit in a line's `seen` mask is
    /// `1 << rawValue`, and its index is also its prediction state (`LedgerField`, the one
    /// list of an entry's fields).
    private typealias Key = LedgerField

    /// The prediction state after the key of bit index `key` (or `noState`), in the
    /// states of the entry's kind once it is known.
    @inline(__always)
    private static func state(after key: Int, _ f: Fields) -> Int {
        (f.hasKind ? Int(f.kind.code) + 1 : 0) * statesPerKind + key
    }

    /// The key predicted after `state`, when the bytes at `i` are exactly `"name":` for
    /// it; `i` then moves past the colon. Loads never reach past the pattern's own
    /// length, so they stay inside the line.
    ///
    /// Two keys are kept per state, the one seen last first: where an optional field may
    /// or may not follow (a charge's `quantity` or `note` after `feature`), the other
    /// choice is the second, and a line that takes it swaps them.
    @inline(__always)
    private mutating func matchPredicted(_ state: Int) -> Key? {
        let first = Int(predicted[state])
        guard first != Int(Self.nothingPredicted) else { return nil }
        if let key = matchKey(first) { return key }
        let second = Int(predicted[Self.states + state])
        guard second != Int(Self.nothingPredicted), let key = matchKey(second) else {
            return nil
        }
        predicted[Self.states + state] = UInt8(first)
        predicted[state] = UInt8(second)
        return key
    }

    /// The known key of bit index `k`, when the bytes at `i` are exactly its `"name":`;
    /// `i` then moves past the colon.
    @inline(__always)
    private mutating func matchKey(_ k: Int) -> Key? {
        let key = keys[k]
        let n = patternLengths[k]
        guard i + n <= end else { return nil }
        let raw = UnsafeRawPointer(base + i)
        let matches: Bool
        if n >= 8 {
            matches =
                raw.loadUnaligned(as: UInt64.self) == UInt64(littleEndian: patterns[2 * k])
                && raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                    == UInt64(littleEndian: patterns[2 * k + 1])
        } else {
            matches =
                UInt64(raw.loadUnaligned(as: UInt32.self)) == UInt64(littleEndian: patterns[2 * k])
                && UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
                    == UInt64(littleEndian: patterns[2 * k + 1])
        }
        guard matches else { return nil }
        i += n
        return key
    }

    @inline(__always)
    private func keyIs(_ key: Span, _ word: StaticString) -> Bool {
        Self.equals(pointer(key), Int(key.count), word)
    }

    @inline(__always)
    private static func equals(_ p: UnsafePointer<UInt8>, _ count: Int, _ word: StaticString)
        -> Bool
    {
        let n = word.utf8CodeUnitCount
        guard count == n else { return false }
        let w = word.utf8Start
        for k in 0..<n where p[k] != w[k] { return false }
        return true
    }

    /// A known field name; static so that the scanner's state is not copied per key.
    private static func knownKey(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Key, String)? {
        @inline(__always) func keyIs(_ word: StaticString) -> Bool { equals(p, n, word) }
        switch n {
        case 2:
            if keyIs("id") { return (.id, "id") }
            if keyIs("at") { return (.at, "at") }
        case 4:
            if keyIs("kind") { return (.kind, "kind") }
            if keyIs("card") { return (.card, "card") }
            if keyIs("note") { return (.note, "note") }
        case 5: if keyIs("price") { return (.price, "price") }
        case 6:
            if keyIs("amount") { return (.amount, "amount") }
            if keyIs("reason") { return (.reason, "reason") }
            if keyIs("device") { return (.device, "device") }
        case 7: if keyIs("feature") { return (.feature, "feature") }
        case 8:
            if keyIs("refundOf") { return (.refundOf, "refundOf") }
            if keyIs("quantity") { return (.quantity, "quantity") }
        case 10: if keyIs("paymentRef") { return (.paymentRef, "paymentRef") }
        case 12: if keyIs("balanceAfter") { return (.balanceAfter, "balanceAfter") }
        default: break
        }
        return nil
    }

    /// A key read the slow way and its value; returns the prediction state after it.
    private mutating func field(
        _ key: Span, keyColumn: Int, into f: inout Fields, seen: inout UInt32, state: Int
    ) throws(LineProblem) -> Int {
        guard let (k, _) = Self.knownKey(pointer(key), Int(key.count)) else {
            do { try unknownKeys.insert(key, at: keyColumn - 1, in: json) } catch {
                throw problem(error)
            }
            try skipValue(depth: 1)
            return Self.noState
        }
        if state & (Self.statesPerKind - 1) != Self.noState {
            predicted[Self.states + state] = predicted[state]
            predicted[state] = UInt8(k.rawValue)
        }
        try knownField(k, keyColumn: keyColumn, into: &f, seen: &seen)
        return k.rawValue
    }

    /// The value of known field `k`, at `i`.
    @inline(__always)
    private mutating func knownField(
        _ k: Key, keyColumn: Int, into f: inout Fields, seen: inout UInt32
    ) throws(LineProblem) {
        guard seen & k.bit == 0 else {
            throw LineProblem(.malformedJSON, "duplicate key \"\(k.name)\"", column: keyColumn)
        }
        seen |= k.bit
        let column = i + 1
        // A required field that is `null` is missing, as a `null` optional field is absent
        // (and as the SQL engines' readers, which give NULL for both, see it).
        if k.isRequired, i < end, base[i] == UInt8(ascii: "n") {
            try expectWord("null")
            return
        }
        switch k {
        case .id:
            f.id = try requiredString(k)
            if f.id.count == 0 {
                throw LineProblem(.badValue, "id: must not be empty", column: column)
            }
        case .at:
            let s = try requiredString(k)
            try parseTimestamp(s, into: &f, column: column)
            f.hasAt = true
        case .kind:
            let s = try requiredString(k)
            if keyIs(s, "charge") {
                f.kind = .charge
            } else if keyIs(s, "refund") {
                f.kind = .refund
            } else if keyIs(s, "grant") {
                f.kind = .grant
            } else if keyIs(s, "topup") {
                f.kind = .topup
            } else if keyIs(s, "revoke") {
                f.kind = .revoke
            } else {
                throw LineProblem(
                    .unknownKind,
                    "kind: unknown kind \"\(FieldReader.excerpt(string(s) ?? ""))\" (expected grant, charge, refund, topup or revoke)",
                    column: column)
            }
            f.hasKind = true
        case .amount:
            // Not nullable: a value or an error, never nil.
            f.amount = try integerValue(k, column: column, nullable: false) ?? 0
            f.hasAmount = true
        case .balanceAfter:
            f.balanceAfter = try integerValue(k, column: column, nullable: true)
        case .feature: f.feature = try optionalString(k)
        case .refundOf: f.refundOf = try optionalString(k)
        case .reason: f.reason = try optionalString(k)
        case .device: f.device = try optionalString(k)
        case .note: f.note = try optionalString(k)
        case .card: f.card = try optionalString(k)
        case .paymentRef: f.paymentRef = try optionalString(k)
        case .price: f.price = try optionalString(k)
        case .quantity: try parseQuantity()
        }
    }

    private func typeName() -> String {
        guard i < end else { return "end of line" }
        switch base[i] {
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default: return describeCurrent()
        }
    }

    @inline(__always)
    private mutating func requiredString(_ key: Key) throws(LineProblem) -> Span {
        guard i < end, base[i] == UInt8(ascii: "\"") else {
            let column = i + 1
            let found = typeName()
            try skipValue(depth: 1)
            throw LineProblem(
                .wrongType, "\(key.name): expected a string, found \(found)", column: column)
        }
        return try parseString()
    }

    @inline(__always)
    private mutating func optionalString(_ key: Key) throws(LineProblem) -> Span {
        if i < end, base[i] == UInt8(ascii: "n") {
            try expectWord("null")
            return .absent
        }
        return try requiredString(key)
    }

    /// A whole number written as a JSON integer or a string of one, within ±`maxAmount`.
    @inline(__always)
    private mutating func integerValue(_ key: Key, column: Int, nullable: Bool) throws(LineProblem)
        -> Int64?
    {
        guard i < end else { throw syntax(.expectedValue) }
        let b = base[i]
        if nullable, b == UInt8(ascii: "n") {
            try expectWord("null")
            return nil
        }
        if b == UInt8(ascii: "\"") {
            let s = try parseString()
            return try wholeNumber(pointer(s), Int(s.count), key: key, column: column, quoted: true)
        }
        guard b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) else {
            let found = typeName()
            try skipValue(depth: 1)
            throw LineProblem(
                .wrongType, "\(key.name): expected a whole number, found \(found)", column: column)
        }
        // Fast path: an optional '-' and 1 to 18 digits without a leading zero that end
        // the number (18 digits are always within ±maxAmount). Anything else, the slow
        // path checks and explains.
        var k = i
        let negative = b == UInt8(ascii: "-")
        if negative { k += 1 }
        if k + 8 <= end, base[k] >= 0x31, base[k] <= 0x39,
            let (value, digits) = LedgerNumber.digitsInWord(base + k)
        {
            // 1 to 7 digits, read as one word.
            let next = base[k + digits]
            if next != UInt8(ascii: ".") && next != UInt8(ascii: "e") && next != UInt8(ascii: "E") {
                i = k + digits
                return negative ? -value : value
            }
        }
        if k < end, base[k] >= 0x31, base[k] <= 0x39 {
            let digitsStart = k
            var value: Int64 = 0
            while k < end, k - digitsStart < 18, base[k] >= 0x30, base[k] <= 0x39 {
                value = value &* 10 &+ Int64(base[k] &- 0x30)
                k += 1
            }
            let next = k < end ? base[k] : 0x20
            if !(next >= 0x30 && next <= 0x39) && next != UInt8(ascii: ".")
                && next != UInt8(ascii: "e") && next != UInt8(ascii: "E")
            {
                i = k
                return negative ? -value : value
            }
        }
        let start = i
        try scanNumber()
        return try wholeNumber(base + start, i - start, key: key, column: column, quoted: false)
    }

    /// A whole number's text by the one ledger number reader, named by this key.
    @inline(__always)
    private func wholeNumber(
        _ p: UnsafePointer<UInt8>, _ n: Int, key: Key, column: Int, quoted: Bool
    ) throws(LineProblem) -> Int64 {
        try LedgerNumber.whole(p, n, name: key.name, column: column, quoted: quoted)
    }

    /// A member name of `quantity` and its colon: a dimension not named before, not empty.
    @inline(__always)
    private mutating func parseQuantityKey() throws(LineProblem) -> (Span, UInt64) {
        guard i < end else { throw syntax(.endInsideObject) }
        guard base[i] == UInt8(ascii: "\"") else {
            throw syntax(.expectedKey)
        }
        let keyColumn = i + 1
        let key = try parseString()
        let keyHash = ContentHasher.dimensionKeyHash(pointer(key), Int(key.count))
        if dimensions.contains(where: { $0.keyHash == keyHash }) {
            throw LineProblem(
                .malformedJSON, "duplicate key \"\(string(key) ?? "")\" in quantity",
                column: keyColumn)
        }
        if key.count == 0 {
            throw LineProblem(
                .badValue, "quantity: a dimension name must not be empty", column: keyColumn)
        }
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: ":") else {
            throw syntax(.expectedColon)
        }
        i += 1
        return (key, keyHash)
    }

    private mutating func parseQuantity() throws(LineProblem) {
        let column = i + 1
        guard i < end else { throw syntax(.expectedValue) }
        if base[i] == UInt8(ascii: "n") {
            try expectWord("null")
            return
        }
        guard base[i] == UInt8(ascii: "{") else {
            let found = typeName()
            try skipValue(depth: 1)
            throw LineProblem(
                .wrongType, "quantity: expected an object of dimension → number, found \(found)",
                column: column)
        }
        i += 1
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "}") {
            i += 1
            return
        }
        while true {
            skipWhitespace()
            let (key, keyHash) = try parseQuantityKey()
            skipWhitespace()
            let valueColumn = i + 1
            guard i < end else { throw syntax(.expectedValue) }
            let p: UnsafePointer<UInt8>
            let n: Int
            var number = false
            if base[i] == UInt8(ascii: "\"") {
                let s = try parseString()
                p = pointer(s)
                n = Int(s.count)
            } else if base[i] == UInt8(ascii: "-") || (base[i] >= 0x30 && base[i] <= 0x39) {
                let start = i
                try scanNumber()
                p = base + start
                n = i - start
                number = true
            } else if base[i] == UInt8(ascii: "n") {
                // A member `null` is an absent member, as a `null` field is an absent field.
                try expectWord("null")
                guard try commaOrClose() else { return }
                continue
            } else {
                let found = typeName()
                try skipValue(depth: 2)
                throw LineProblem(
                    .wrongType, "quantity.\(string(key) ?? ""): expected a number, found \(found)",
                    column: valueColumn)
            }
            // The field's name is only built for a message (not once per line).
            let significand: Int128
            let scale: Int
            if let v = try? LedgerNumber.decimal(
                p, n, name: "", column: valueColumn, number: number)
            {
                (significand, scale) = v
            } else {
                (significand, scale) = try LedgerNumber.decimal(
                    p, n, name: "quantity.\(string(key) ?? "")", column: valueColumn,
                    number: number)
            }
            dimensions.append(
                Dimension(key: key, keyHash: keyHash, significand: significand, scale: scale))
            guard try commaOrClose() else { return }
        }
    }

    // MARK: Timestamps

    /// RFC 3339 by the one reader `Timestamp(rfc3339:)` uses, without allocating.
    @inline(__always)
    private mutating func parseTimestamp(_ s: Span, into f: inout Fields, column: Int)
        throws(LineProblem)
    {
        let p = pointer(s)
        let n = Int(s.count)
        switch RFC3339.parse(p, n, cache: &days) {
        case .success(let t):
            f.seconds = t.seconds
            f.nanoseconds = UInt32(t.nanoseconds)
            f.offsetMinutes = t.offsetMinutes
        case .failure(let why):
            let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
            throw LineProblem(
                .badTimestamp, "at: \"\(FieldReader.excerpt(text))\": \(why)", column: column)
        }
    }

    // MARK: Rules

    /// Inlined: called out of line, `scanObject` copied the fields for every line.
    @inline(__always)
    private func checkRules(_ f: borrowing Fields) throws(LineProblem) {
        if !f.id.isPresent { throw LineProblem(.missingField, "id: missing required field") }
        if !f.hasAt { throw LineProblem(.missingField, "at: missing required field") }
        if !f.hasKind { throw LineProblem(.missingField, "kind: missing required field") }
        if !f.hasAmount { throw LineProblem(.missingField, "amount: missing required field") }
        switch f.kind {
        case .charge:
            if !f.feature.isPresent {
                throw LineProblem(.missingField, "feature: missing required field for a charge")
            }
            if f.amount >= 0 {
                throw LineProblem(.wrongSign, "amount: a charge is negative, found \(f.amount)")
            }
        case .refund:
            if !f.feature.isPresent {
                throw LineProblem(.missingField, "feature: missing required field for a refund")
            }
            if !f.refundOf.isPresent {
                throw LineProblem(.missingField, "refundOf: missing required field for a refund")
            }
            if f.amount <= 0 {
                throw LineProblem(.wrongSign, "amount: a refund is positive, found \(f.amount)")
            }
        case .revoke:
            // An empty paymentRef names no purchase: missing, as the SQL form has it.
            if !f.paymentRef.isPresent {
                throw LineProblem(
                    .missingField, "paymentRef: missing required field for a revoke")
            }
            if f.paymentRef.count == 0 {
                throw LineProblem(
                    .missingField, "paymentRef: missing required field for a revoke")
            }
            if f.amount >= 0 {
                throw LineProblem(.wrongSign, "amount: a revoke is negative, found \(f.amount)")
            }
        case .grant, .topup:
            if f.amount <= 0 {
                throw LineProblem(
                    .wrongSign, "amount: a \(f.kind.rawValue) is positive, found \(f.amount)")
            }
        }
        if f.feature.isPresent, f.feature.count == 0 {
            throw LineProblem(.badValue, "feature: must not be empty")
        }
        if f.refundOf.isPresent, f.refundOf.count == 0 {
            throw LineProblem(.badValue, "refundOf: must not be empty")
        }
        // A bad `price` is not a reason to drop the entry (its credits would vanish from
        // the outstanding balance): the field is ignored with a warning (`priceProblem`).
    }

    /// Why an entry's `price` is not used, or nil when it is (or there is none): only a
    /// top-up records money, as `CUR amount` with at most the currency's minor units.
    func priceProblem(_ f: Fields) -> String? {
        guard f.price.isPresent else { return nil }
        let text = FieldReader.excerpt(string(f.price) ?? "")
        guard f.kind == .topup else {
            return "price: \"\(text)\" ignored: only a top-up records money"
        }
        guard parsePrice(f.price) == nil else { return nil }
        return
            "price: \"\(text)\" is not money (expected e.g. \"GBP 4.99\", at most the currency's minor units): ignored, the top-up is kept without it"
    }

    /// `"GBP 4.99"`: an ISO 4217 code, one space, a strict non-negative decimal.
    func parsePrice(_ s: Span) -> Money? {
        guard let text = string(s) else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, let currency = Currency(code: String(parts[0])),
            let amount = try? Exact(decimal: parts[1]), !amount.isNegative,
            let places = amount.terminatingScale, places <= currency.minorUnits
        else { return nil }
        return Money(amount, currency)
    }
}

extension EntryScanner.Fields {
    /// The content hash (see `LedgerEntry.contentHash`; both must agree).
    func contentHash(_ scanner: EntryScanner) -> UInt64 {
        var f: UInt64 = 0
        var d: UInt64 = 0
        return contentHash(scanner, featureHash: &f, deviceHash: &d)
    }

    /// The content hash, also handing back the field hashes of `feature` and `device`
    /// so that interning them costs no second pass over their bytes.
    @inline(__always)
    func contentHash(
        _ scanner: EntryScanner, featureHash: inout UInt64, deviceHash: inout UInt64,
        priceHash: UInt64? = nil
    ) -> UInt64 {
        var h = ContentHasher()
        h.add(.at, seconds: seconds, nanoseconds: nanoseconds)
        h.add(.kind, integer: Int64(kind.code))
        h.add(.amount, integer: amount)
        @inline(__always) func add(_ field: LedgerField, _ s: EntryScanner.Span) {
            if s.isPresent { h.add(field, bytes: scanner.pointer(s), count: Int(s.count)) }
        }
        if feature.isPresent {
            featureHash = TakingsHash.bytes(
                scanner.pointer(feature), Int(feature.count), seed: LedgerField.feature.seed)
            h.addHash(featureHash)
        }
        add(.refundOf, refundOf)
        add(.reason, reason)
        for d in scanner.dimensions {
            h.addQuantity(keyHash: d.keyHash, significand: d.significand, scale: d.scale)
        }
        if device.isPresent {
            deviceHash = TakingsHash.bytes(
                scanner.pointer(device), Int(device.count), seed: LedgerField.device.seed)
            h.addHash(deviceHash)
        }
        add(.note, note)
        add(.card, card)
        if let balanceAfter { h.add(.balanceAfter, integer: balanceAfter) }
        add(.paymentRef, paymentRef)
        if price.isPresent { h.addHash(priceHash ?? priceFieldHash(scanner)) }
        return h.value
    }

    /// The price's share of the content hash: of the money in canonical form when it is
    /// money (so `"GBP 4.9"` and `"GBP 4.90"` agree), else of the text as written.
    func priceFieldHash(_ scanner: EntryScanner) -> UInt64 {
        if let money = scanner.parsePrice(price) {
            return TakingsHash.string(
                "\(money.currency.code) \(money.amount.decimalText(maxScale: 38))",
                seed: LedgerField.price.seed)
        }
        return TakingsHash.bytes(
            scanner.pointer(price), Int(price.count), seed: LedgerField.price.seed)
    }

    /// The entry as a value, with strings and exact quantities (the slow path, for tests
    /// and pricing).
    func entry(_ scanner: EntryScanner) -> LedgerEntry {
        var quantity: [String: Exact] = [:]
        for d in scanner.dimensions {
            let value = (try? Exact(d.significand, over: Exact.powerOfTen(d.scale))) ?? .zero
            quantity[scanner.string(d.key) ?? ""] = value
        }
        return LedgerEntry(
            id: scanner.string(id) ?? "",
            at: Timestamp(
                seconds: seconds, nanoseconds: Int32(nanoseconds), offsetMinutes: offsetMinutes),
            kind: kind, amount: amount, feature: scanner.string(feature),
            refundOf: scanner.string(refundOf),
            reason: scanner.string(reason), quantity: quantity, device: scanner.string(device),
            note: scanner.string(note),
            card: scanner.string(card), balanceAfter: balanceAfter,
            paymentRef: scanner.string(paymentRef),
            price: price.isPresent ? scanner.parsePrice(price) : nil)
    }

    func quantity(_ scanner: EntryScanner) -> [String: Exact] {
        var quantity: [String: Exact] = [:]
        for d in scanner.dimensions {
            quantity[scanner.string(d.key) ?? ""] =
                (try? Exact(d.significand, over: Exact.powerOfTen(d.scale))) ?? .zero
        }
        return quantity
    }
}
