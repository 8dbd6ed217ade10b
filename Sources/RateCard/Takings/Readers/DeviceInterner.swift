/// Device names keyed by a 128-bit hash of their bytes (two independent 64-bit lanes):
/// with that many bits two names never share a key in practice, so no bytes are compared
/// and a parser can look up thousands of devices per chunk cheaply.
struct DeviceInterner: Sendable {
    struct Slot {
        var h0: UInt64 = 0
        var h1: UInt64 = 0
        var value: UInt32 = .max
    }

    private var slots: [Slot]
    private(set) var names: [String] = []
    private var hashes: [(UInt64, UInt64)] = []
    /// How many names `taken()` has already handed out.
    private var handedOut = 0

    var count: Int { names.count }

    /// `capacity` is rounded up to a power of two.
    init(capacity: Int = 64) {
        var n = 1
        while n < capacity { n <<= 1 }
        slots = Array(repeating: Slot(), count: n)
    }

    /// Asks for the home slot of a hash so that a later `intern` finds it in cache.
    @inline(__always)
    func prefetch(_ h0: UInt64) {
        slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress {
                Prefetch.read(base + (Int(truncatingIfNeeded: h0) & (slots.count - 1)))
            }
        }
    }

    @inline(__always)
    mutating func intern(_ h0: UInt64, _ h1: UInt64, name: () -> String) -> UInt32 {
        let mask = slots.count - 1
        var k = Int(truncatingIfNeeded: h0) & mask
        while true {
            let s = slots[k]
            if s.value == .max { break }
            if s.h0 == h0, s.h1 == h1 { return s.value }
            k = (k + 1) & mask
        }
        let index = UInt32(names.count)
        names.append(name())
        hashes.append((h0, h1))
        slots[k] = Slot(h0: h0, h1: h1, value: index)
        if names.count * 2 > slots.count { grow() }
        return index
    }

    private mutating func grow() {
        slots = Array(repeating: Slot(), count: slots.count * 2)
        let mask = slots.count - 1
        for (index, (h0, h1)) in hashes.enumerated() {
            var k = Int(truncatingIfNeeded: h0) & mask
            while slots[k].value != .max { k = (k + 1) & mask }
            slots[k] = Slot(h0: h0, h1: h1, value: UInt32(index))
        }
    }

    /// The names added since the last call, in index order.
    mutating func taken() -> [(name: String, h0: UInt64, h1: UInt64)] {
        defer { handedOut = names.count }
        return (handedOut..<names.count).map { (names[$0], hashes[$0].0, hashes[$0].1) }
    }
}
