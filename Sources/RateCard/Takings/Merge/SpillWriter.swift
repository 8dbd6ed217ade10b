/// Little-endian bytes of a spilled record: integers, optional integers and strings
/// (length-prefixed; `UInt32.max` for nil), exact numbers as two `Int128`s.
struct SpillWriter {
    var bytes: [UInt8] = []

    mutating func int<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func int128(_ v: Int128) {
        int(UInt64(truncatingIfNeeded: v))
        int(UInt64(truncatingIfNeeded: v >> 64))
    }

    mutating func flag(_ b: Bool) { int(UInt8(b ? 1 : 0)) }

    mutating func string(_ s: String?) { data(s.map { Array($0.utf8) }) }

    /// Length-prefixed bytes; `UInt32.max` for nil.
    mutating func data(_ b: [UInt8]?) {
        guard let b else {
            int(UInt32.max)
            return
        }
        int(UInt32(b.count))
        bytes.append(contentsOf: b)
    }

    mutating func optional<T: FixedWidthInteger>(_ v: T?) {
        flag(v != nil)
        if let v { int(v) }
    }

    mutating func exact(_ e: Exact?) {
        flag(e != nil)
        if let e {
            int128(e.numerator)
            int128(e.denominator)
        }
    }

    mutating func timestamp(_ t: Timestamp?) {
        flag(t != nil)
        if let t {
            int(t.seconds)
            int(t.nanoseconds)
            int(Int32(t.offsetMinutes))
        }
    }
}

/// Reads what `SpillWriter` wrote; `ok` turns false (and stays) at bytes that end early.
struct SpillReader {
    let bytes: [UInt8]
    var at = 0
    private(set) var ok = true

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at >= bytes.count }

    mutating func int<T: FixedWidthInteger>(_: T.Type) -> T {
        let n = MemoryLayout<T>.size
        guard ok, at + n <= bytes.count else {
            ok = false
            return 0
        }
        var v: T = 0
        for k in 0..<n { v |= T(truncatingIfNeeded: bytes[at + k]) << (8 * k) }
        at += n
        return v
    }

    mutating func int128() -> Int128 {
        let low = int(UInt64.self)
        let high = int(UInt64.self)
        return Int128(truncatingIfNeeded: high) << 64 | Int128(low)
    }

    mutating func flag() -> Bool { int(UInt8.self) == 1 }

    mutating func string() -> String? {
        data().map { String(decoding: $0, as: UTF8.self) }
    }

    /// What `SpillWriter.data(_:)` wrote: nil for nil, or at bytes that end early.
    mutating func data() -> [UInt8]? {
        let n = int(UInt32.self)
        guard ok, n != .max else { return nil }
        guard at + Int(n) <= bytes.count else {
            ok = false
            return nil
        }
        defer { at += Int(n) }
        return Array(bytes[at..<(at + Int(n))])
    }

    mutating func optional<T: FixedWidthInteger>(_ t: T.Type) -> T? {
        flag() ? int(t) : nil
    }

    mutating func exact() -> Exact? {
        guard flag() else { return nil }
        let n = int128()
        let d = int128()
        guard ok, d > 0 else {
            ok = false
            return nil
        }
        return try? Exact(n, over: d)
    }

    mutating func timestamp() -> Timestamp? {
        guard flag() else { return nil }
        let s = int(Int64.self)
        let ns = int(Int32.self)
        let offset = int(Int32.self)
        return Timestamp(seconds: s, nanoseconds: ns, offsetMinutes: Int(offset))
    }
}
