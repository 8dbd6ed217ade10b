/// The fast, non-cryptographic hashes behind de-duplication.
///
/// An entry id is kept as a 128-bit hash (two independent 64-bit lanes), never as a
/// string: with ten million ids the chance that two different ids share a hash is about
/// 10^-25. An entry's content is kept as a 64-bit hash of its canonical fields, compared
/// only between entries that share an id. The functions are wyhash-style
/// multiply-and-fold mixes; they are stable across runs and platforms (no random seed),
/// so results are reproducible.
enum TakingsHash {
    static let p0: UInt64 = 0xa076_1d64_78bd_642f
    static let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    static let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3
    static let p3: UInt64 = 0x5899_65cc_7537_4cc3

    @inline(__always)
    static func mum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let r = a.multipliedFullWidth(by: b)
        return r.high ^ r.low
    }

    /// A well-mixed 64-bit hash of `count` bytes at `base`, under `seed`.
    @inline(__always)
    static func bytes(_ base: UnsafePointer<UInt8>, _ count: Int, seed: UInt64) -> UInt64 {
        var h = seed ^ p0 ^ UInt64(truncatingIfNeeded: count) &* p3
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = mum(h ^ UInt64(littleEndian: w), p1)
            i += 8
        }
        if i < count {
            h = mum(h ^ tail(base, from: i, count), p2)
        }
        return mum(h ^ p3, h ^ p0 ^ seed)
    }

    /// The bytes `i..<count` (fewer than eight) as one little-endian word: the last eight
    /// bytes shifted down when there are eight, else byte by byte.
    @inline(__always)
    static func tail(_ base: UnsafePointer<UInt8>, from i: Int, _ count: Int) -> UInt64 {
        if count >= 8 {
            let last = UInt64(
                littleEndian: UnsafeRawPointer(base).loadUnaligned(
                    fromByteOffset: count - 8, as: UInt64.self))
            return last >> UInt64(8 * (8 - (count - i)))
        }
        var w: UInt64 = 0
        var shift: UInt64 = 0
        for k in i..<count {
            w |= UInt64(base[k]) << shift
            shift += 8
        }
        return w
    }

    static func bytes(_ array: [UInt8], seed: UInt64) -> UInt64 {
        array.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else {
                return bytes(JSONScanner.emptyBase, 0, seed: seed)
            }
            return bytes(base, buf.count, seed: seed)
        }
    }

    static func string(_ s: String, seed: UInt64) -> UInt64 {
        var s = s
        return s.withUTF8 { buf in
            guard let base = buf.baseAddress else {
                return bytes(JSONScanner.emptyBase, 0, seed: seed)
            }
            return bytes(base, buf.count, seed: seed)
        }
    }

    /// A 64-bit mix of one integer under `seed`.
    @inline(__always)
    static func integer(_ v: UInt64, seed: UInt64) -> UInt64 {
        mum(mum(v ^ seed ^ p0, p1) ^ p2, seed ^ p3)
    }

    /// The id's 128-bit hash; never (0, 0), which marks an empty slot.
    @inline(__always)
    static func id(_ base: UnsafePointer<UInt8>, _ count: Int) -> (UInt64, UInt64) {
        // `bytes` under two seeds, in one pass over the id (the same values).
        let sa: UInt64 = 0x1d_0000_0001
        let sb: UInt64 = 0x1d_0000_0002 ^ 0x9e37_79b9_7f4a_7c15
        let c = UInt64(truncatingIfNeeded: count) &* p3
        var ha = sa ^ p0 ^ c
        var hb = sb ^ p0 ^ c
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            ha = mum(ha ^ w, p1)
            hb = mum(hb ^ w, p1)
            i += 8
        }
        if i < count {
            let w = tail(base, from: i, count)
            ha = mum(ha ^ w, p2)
            hb = mum(hb ^ w, p2)
        }
        let a = mum(ha ^ p3, ha ^ p0 ^ sa)
        var b = mum(hb ^ p3, hb ^ p0 ^ sb)
        if a == 0 && b == 0 { b = 1 }
        return (a, b)
    }

    static func id(_ s: String) -> (UInt64, UInt64) {
        var s = s
        return s.withUTF8 { buf in
            guard let base = buf.baseAddress else { return id(JSONScanner.emptyBase, 0) }
            return id(base, buf.count)
        }
    }
}

/// Builds an entry's content hash from its canonical fields in any order.
///
/// Fields are combined by wrapping addition of per-field hashes, so key order in the
/// source does not matter; each field's hash is tagged by the field, and a field that is
/// absent (or JSON `null`) contributes nothing.
struct ContentHasher {
    private(set) var value: UInt64 = 0

    @inline(__always)
    mutating func add(_ field: LedgerField, bytes base: UnsafePointer<UInt8>, count: Int) {
        value = value &+ TakingsHash.bytes(base, count, seed: field.seed)
    }

    @inline(__always)
    mutating func addHash(_ fieldHash: UInt64) {
        value = value &+ fieldHash
    }

    mutating func add(_ field: LedgerField, string: String) {
        value = value &+ TakingsHash.string(string, seed: field.seed)
    }

    /// A roll-up row's period, tagged apart from every entry field.
    mutating func add(rollupPeriod period: String) {
        value = value &+ TakingsHash.string(period, seed: LedgerField.rollupSeed)
    }

    @inline(__always)
    mutating func add(_ field: LedgerField, integer: Int64) {
        value = value &+ TakingsHash.integer(UInt64(bitPattern: integer), seed: field.seed)
    }

    @inline(__always)
    mutating func add(_ field: LedgerField, seconds: Int64, nanoseconds: UInt32) {
        let h = TakingsHash.integer(UInt64(bitPattern: seconds), seed: field.seed)
        value = value &+ TakingsHash.integer(h ^ UInt64(nanoseconds), seed: field.seed ^ 1)
    }

    /// One quantity member: the dimension's name and its value in lowest decimal form
    /// (`significand` × 10^-`scale`, no trailing zeros), so `76`, `76.0` and `"76"` agree.
    @inline(__always)
    mutating func addQuantity(keyHash: UInt64, significand: Int128, scale: Int) {
        let bits = UInt128(bitPattern: significand)
        let low = UInt64(truncatingIfNeeded: bits)
        let high = UInt64(truncatingIfNeeded: bits >> 64)
        var h = TakingsHash.integer(low ^ keyHash, seed: LedgerField.quantity.seed)
        h = TakingsHash.integer(h ^ high, seed: LedgerField.quantity.seed ^ UInt64(scale))
        value = value &+ h
    }

    static func dimensionKeyHash(_ base: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        TakingsHash.bytes(base, count, seed: 0x0d1e_2a3b_4c5d_6e7f)
    }

    static func dimensionKeyHash(_ s: String) -> UInt64 {
        TakingsHash.string(s, seed: 0x0d1e_2a3b_4c5d_6e7f)
    }
}
