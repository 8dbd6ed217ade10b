/// CRC-32 as gzip checks it (ISO 3309 / ITU-T V.42, the reflected polynomial 0xEDB88320,
/// initial value and final XOR all ones; RFC 1952, section 8), written out so that
/// `margin` needs no zlib.
struct CRC32: Sendable, Hashable {
    /// The running register, not yet XORed with all ones.
    private var register: UInt32 = 0xFFFF_FFFF

    /// The checksum of everything added so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }

    mutating func add(_ bytes: ArraySlice<UInt8>) {
        var r = register
        let table = CRC32.table
        table.withUnsafeBufferPointer { t in
            for b in bytes { r = t[Int((r ^ UInt32(b)) & 0xFF)] ^ (r >> 8) }
        }
        register = r
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c = CRC32()
        c.add(bytes)
        return c.value
    }

    /// The remainder of each byte value, one bit at a time.
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
