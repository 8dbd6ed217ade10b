#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Interns byte strings (feature keys, device names) into small indexes for one chunk.
///
/// Keyed by a 64-bit hash the caller already has, in a small open-addressing table, and
/// confirmed by comparing the bytes, so a hash collision can never merge two names.
struct ByteInterner {
    private var keys: [UInt64] = Array(repeating: 0, count: 64)
    private var values: [UInt32] = Array(repeating: .max, count: 64)
    private var lastHash: UInt64 = 0
    private var lastIndex: UInt32 = .max
    private(set) var bytes: [[UInt8]] = []
    private(set) var hashes: [UInt64] = []

    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64) -> UInt32 {
        if h == lastHash, lastIndex != .max, equal(Int(lastIndex), p, n) { return lastIndex }
        let mask = keys.count - 1
        var k = Int(truncatingIfNeeded: h) & mask
        while values[k] != .max {
            if keys[k] == h, equal(Int(values[k]), p, n) {
                lastHash = h
                lastIndex = values[k]
                return values[k]
            }
            k = (k + 1) & mask
        }
        let index = UInt32(bytes.count)
        bytes.append(Array(UnsafeBufferPointer(start: p, count: n)))
        hashes.append(h)
        keys[k] = h
        values[k] = index
        lastHash = h
        lastIndex = index
        if bytes.count * 2 > keys.count { grow() }
        return index
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: .max, count: oldKeys.count * 2)
        let mask = keys.count - 1
        for j in oldKeys.indices where oldValues[j] != .max {
            var k = Int(truncatingIfNeeded: oldKeys[j]) & mask
            while values[k] != .max { k = (k + 1) & mask }
            keys[k] = oldKeys[j]
            values[k] = oldValues[j]
        }
    }

    @inline(__always)
    private func equal(_ k: Int, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        bytes[k].withUnsafeBufferPointer { buf in
            buf.count == n && (n == 0 || memcmp(buf.baseAddress!, p, n) == 0)
        }
    }

    var strings: [String] { bytes.map { String(decoding: $0, as: UTF8.self) } }
}
