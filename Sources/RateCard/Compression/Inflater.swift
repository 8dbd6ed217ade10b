/// A DEFLATE decoder (RFC 1951): stored, fixed-Huffman and dynamic-Huffman blocks, written
/// out so that `margin` needs no zlib (Foundation on Linux has no gzip reader).
///
/// It decodes one DEFLATE stream of `input` from a byte offset and appends what it decodes
/// to an output array; a back-reference may reach only what this stream decoded (a gzip
/// member's window is its own). Every malformed or cut-short input is an `Inflater.Failure`
/// at the byte offset where it was found, never a trap; the output is bounded by a limit.
struct Inflater {
    struct Failure: Error, Sendable, Hashable {
        /// The offset in the input of the byte being read when the problem was found.
        let offset: Int
        let message: String
    }

    private let input: [UInt8]
    /// The next input byte not yet taken into `bits`.
    private(set) var position: Int
    /// Bits taken from the input and not yet used, the next one lowest; above `count`
    /// they are zero.
    private var bits: UInt64 = 0
    private var count = 0

    init(_ input: [UInt8], at start: Int) {
        self.input = input
        self.position = start
    }

    /// The offset of the byte that holds the next unused bit.
    var offset: Int { position - (count + 7) / 8 }

    /// Decodes one DEFLATE stream, appending to `out`, which must not grow past `limit`
    /// bytes. Afterwards `position` is the first byte after the stream.
    mutating func inflate(into out: inout [UInt8], limit: Int) throws(Failure) {
        let windowStart = out.count
        var last = false
        while !last {
            last = try take(1) == 1
            switch try take(2) {
            case 0: try stored(into: &out, limit: limit)
            case 1:
                try codes(
                    into: &out, windowStart: windowStart, limit: limit,
                    Inflater.fixedLiterals, Inflater.fixedDistances)
            case 2:
                let (literals, distances) = try dynamicTables()
                try codes(
                    into: &out, windowStart: windowStart, limit: limit, literals, distances)
            default: throw fail("a block of the reserved type 3")
            }
        }
        // The stream ends within a byte; what follows it starts at the next whole byte.
        giveBackWholeBytes()
    }

    // MARK: - Bits

    private func fail(_ message: String) -> Failure { Failure(offset: offset, message: message) }

    private var truncated: Failure {
        Failure(offset: input.count, message: "the compressed data is cut short")
    }

    private mutating func refill() {
        while count <= 56, position < input.count {
            bits |= UInt64(input[position]) << UInt64(count)
            position += 1
            count += 8
        }
    }

    /// The next `n` bits (n ≤ 32), the first one lowest.
    private mutating func take(_ n: Int) throws(Failure) -> Int {
        if count < n { refill() }
        guard count >= n else { throw truncated }
        let v = Int(bits & ((1 << UInt64(n)) - 1))
        bits >>= UInt64(n)
        count -= n
        return v
    }

    /// Drops the bits left in the current byte, then hands the whole bytes still held back
    /// to the input, so that `position` is the next byte of the stream.
    private mutating func giveBackWholeBytes() {
        let partial = count % 8
        bits >>= UInt64(partial)
        count -= partial
        position -= count / 8
        bits = 0
        count = 0
    }

    // MARK: - Blocks

    private mutating func stored(into out: inout [UInt8], limit: Int) throws(Failure) {
        giveBackWholeBytes()
        guard position + 4 <= input.count else { throw truncated }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xFFFF else {
            throw fail("a stored block's length \(length) does not match its complement")
        }
        position += 4
        guard position + length <= input.count else { throw truncated }
        try room(length, in: out, limit: limit)
        out.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    private static let lengthBase: [Int] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
        131, 163, 195, 227, 258,
    ]
    private static let lengthExtra: [Int] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    private static let distanceBase: [Int] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
        1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra: [Int] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
        13, 13,
    ]

    private func room(_ n: Int, in out: [UInt8], limit: Int) throws(Failure) {
        guard out.count <= limit - n else {
            throw fail("the data decompresses to more than \(limit) bytes")
        }
    }

    /// The literals, lengths and distances of a Huffman block, up to its end-of-block code.
    private mutating func codes(
        into out: inout [UInt8], windowStart: Int, limit: Int, _ literals: HuffmanTable,
        _ distances: HuffmanTable
    ) throws(Failure) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try room(1, in: out, limit: limit)
                out.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let l = symbol - 257
            guard l < 29 else { throw fail("the length code \(symbol) is not defined") }
            let length = Inflater.lengthBase[l] + (try take(Inflater.lengthExtra[l]))
            let d = try decode(distances)
            guard d < 30 else { throw fail("the distance code \(d) is not defined") }
            let distance = Inflater.distanceBase[d] + (try take(Inflater.distanceExtra[d]))
            guard distance <= out.count - windowStart else {
                throw fail(
                    "a distance of \(distance) reaches before the start of the data (\(out.count - windowStart) bytes decoded)"
                )
            }
            try room(length, in: out, limit: limit)
            var from = out.count - distance
            for _ in 0..<length {
                out.append(out[from])
                from += 1
            }
        }
    }

    /// The order in which a dynamic block gives the lengths of the code-length code.
    private static let codeLengthOrder = [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ]

    private mutating func dynamicTables() throws(Failure) -> (HuffmanTable, HuffmanTable) {
        let literalCount = try take(5) + 257
        let distanceCount = try take(5) + 1
        let codeLengthCount = try take(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw fail(
                "a dynamic block declares \(literalCount) literal/length and \(distanceCount) distance codes (at most 286 and 30)"
            )
        }
        var codeLengths = [UInt8](repeating: 0, count: 19)
        for k in 0..<codeLengthCount {
            codeLengths[Inflater.codeLengthOrder[k]] = UInt8(try take(3))
        }
        let codeLengthTable = try table(codeLengths[...], "code-length", incompleteAllowed: false)
        var lengths: [UInt8] = []
        let total = literalCount + distanceCount
        lengths.reserveCapacity(total)
        while lengths.count < total {
            let symbol = try decode(codeLengthTable)
            var value: UInt8 = 0
            var repeats = 1
            switch symbol {
            case 0..<16: value = UInt8(symbol)
            case 16:
                guard let previous = lengths.last else {
                    throw fail("a code length repeats before any was given")
                }
                value = previous
                repeats = 3 + (try take(2))
            case 17: repeats = 3 + (try take(3))
            default: repeats = 11 + (try take(7))
            }
            guard lengths.count + repeats <= total else {
                throw fail("the code lengths run past the \(total) codes declared")
            }
            lengths.append(contentsOf: repeatElement(value, count: repeats))
        }
        guard lengths[256] != 0 else { throw fail("the block has no end-of-block code") }
        return (
            try table(lengths[0..<literalCount], "literal/length", incompleteAllowed: true),
            try table(lengths[literalCount...], "distance", incompleteAllowed: true)
        )
    }

    private func table(_ lengths: ArraySlice<UInt8>, _ what: String, incompleteAllowed: Bool)
        throws(Failure) -> HuffmanTable
    {
        do { return try HuffmanTable(lengths: lengths, incompleteAllowed: incompleteAllowed) } catch
        {
            throw fail("the \(what) code \(error.reason)")
        }
    }

    private mutating func decode(_ table: HuffmanTable) throws(Failure) -> Int {
        if count < table.maxLength { refill() }
        // Past the end of the input the bits read as zeros; a code longer than the bits
        // really there is a cut-short stream.
        let entry = table.entries[Int(bits & UInt64(table.entries.count - 1))]
        guard entry != 0 else {
            throw count < table.maxLength
                ? truncated : fail("a bit pattern that is no code of the block")
        }
        let length = Int(entry & 0xF)
        guard length <= count else { throw truncated }
        bits >>= UInt64(length)
        count -= length
        return Int(entry >> 4)
    }

    private static let fixedLiterals: HuffmanTable = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for k in 144..<256 { lengths[k] = 9 }
        for k in 256..<280 { lengths[k] = 7 }
        // The fixed code is complete by construction (RFC 1951, 3.2.6).
        return (try? HuffmanTable(lengths: lengths[...], incompleteAllowed: false))
            ?? HuffmanTable.empty
    }()

    private static let fixedDistances: HuffmanTable =
        (try? HuffmanTable(
            lengths: [UInt8](repeating: 5, count: 32)[...], incompleteAllowed: false))
        ?? HuffmanTable.empty
}

/// A canonical Huffman code (RFC 1951, 3.2.2) as a lookup table indexed by the next
/// `maxLength` input bits, the first one lowest: each entry is `symbol << 4 | length`, or 0
/// for a pattern that starts no code.
struct HuffmanTable: Sendable {
    struct Invalid: Error { let reason: String }

    let entries: [UInt32]
    let maxLength: Int

    static let empty = HuffmanTable(entries: [0], maxLength: 0)

    private init(entries: [UInt32], maxLength: Int) {
        self.entries = entries
        self.maxLength = maxLength
    }

    /// The code of the symbols `lengths.startIndex…` (a length 0 is no code). An
    /// over-subscribed code is invalid; an incomplete one only where `incompleteAllowed`
    /// and it is a single code of one bit (as zlib allows for a block of one distance), or
    /// has no code at all (a block of literals only).
    init(lengths: ArraySlice<UInt8>, incompleteAllowed: Bool) throws(Invalid) {
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths { counts[Int(l)] += 1 }
        counts[0] = 0
        let maxLength = counts.lastIndex { $0 > 0 } ?? 0
        var left = 1
        for l in 1..<16 {
            left = left * 2 - counts[l]
            guard left >= 0 else { throw Invalid(reason: "has more codes than its lengths allow") }
        }
        if left > 0, maxLength > 0, !(incompleteAllowed && maxLength == 1) {
            throw Invalid(reason: "is incomplete")
        }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for l in 1..<16 {
            code = (code + counts[l - 1]) << 1
            next[l] = code
        }
        var entries = [UInt32](repeating: 0, count: 1 << maxLength)
        for (k, l) in zip(0..., lengths) where l > 0 {
            let length = Int(l)
            let c = next[length]
            next[length] += 1
            var reversed = 0
            for b in 0..<length where c & (1 << b) != 0 { reversed |= 1 << (length - 1 - b) }
            let entry = UInt32(k) << 4 | UInt32(length)
            var slot = reversed
            while slot < entries.count {
                entries[slot] = entry
                slot += 1 << length
            }
        }
        self.init(entries: entries, maxLength: maxLength)
    }
}
