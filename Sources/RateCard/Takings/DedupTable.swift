#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory of which entry ids were seen: an open-addressing hash table of 32-byte
/// slots (128-bit id hash, 64-bit content hash, 64-bit packed place).
///
/// This is all that grows with the number of entries. Ten million distinct ids take
/// 2^24 slots (512 MiB) across the shards at a load of at most 0.7.
final class DedupTable {
    struct Slot {
        var id0: UInt64
        var id1: UInt64
        var content: UInt64
        var meta: UInt64
    }

    enum Outcome {
        case inserted
        case duplicate
        case conflict(existing: UInt64)
    }

    private var slots: UnsafeMutablePointer<Slot>
    private var mapped = true
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 14) {
        self.capacity = DedupTable.powerOfTwo(atLeast: capacity)
        (slots, mapped) = DedupTable.allocate(self.capacity)
    }

    deinit {
        DedupTable.free(slots, capacity, mapped: mapped)
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var c = 1 << 10
        while c < n, c < 1 << 40 { c <<= 1 }
        return c
    }

    /// Zeroed slots from the kernel: pages are filled only when first touched, and large
    /// tables ask for transparent huge pages, since every probe lands on a random page.
    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<Slot>, Bool) {
        let bytes = capacity * MemoryLayout<Slot>.stride
        guard let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED else {
            let p = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
            p.initialize(repeating: Slot(id0: 0, id1: 0, content: 0, meta: 0), count: capacity)
            return (p, false)
        }
        if bytes >= 4 << 20 { _ = madvise(raw, bytes, MADV_HUGEPAGE) }
        return (raw.bindMemory(to: Slot.self, capacity: capacity), true)
    }

    private static func free(_ p: UnsafeMutablePointer<Slot>, _ capacity: Int, mapped: Bool) {
        if mapped {
            munmap(UnsafeMutableRawPointer(p), capacity * MemoryLayout<Slot>.stride)
        } else {
            p.deallocate()
        }
    }

    var bytes: Int { capacity * MemoryLayout<Slot>.stride }

    @inline(__always)
    func insert(id0: UInt64, id1: UInt64, content: UInt64, meta: UInt64) -> Outcome {
        if (count + 1) * 10 > capacity * 7 { grow() }
        let mask = capacity - 1
        var k = Int(truncatingIfNeeded: id1 ^ (id0 >> 17)) & mask
        while true {
            let s = slots[k]
            if s.id0 == 0 && s.id1 == 0 {
                slots[k] = Slot(id0: id0, id1: id1, content: content, meta: meta)
                count += 1
                return .inserted
            }
            if s.id0 == id0 && s.id1 == id1 {
                return s.content == content ? .duplicate : .conflict(existing: s.meta)
            }
            k = (k + 1) & mask
        }
    }

    /// Loads the home slot of an id so that a later insert finds it in cache.
    @inline(__always)
    func touch(id0: UInt64, id1: UInt64) -> UInt64 {
        slots[Int(truncatingIfNeeded: id1 ^ (id0 >> 17)) & (capacity - 1)].id0
    }

    /// Written so that `touch` loads are not optimised away.
    var sink: UInt64 = 0

    func lookup(id0: UInt64, id1: UInt64) -> Slot? {
        let mask = capacity - 1
        var k = Int(truncatingIfNeeded: id1 ^ (id0 >> 17)) & mask
        while true {
            let s = slots[k]
            if s.id0 == 0 && s.id1 == 0 { return nil }
            if s.id0 == id0 && s.id1 == id1 { return s }
            k = (k + 1) & mask
        }
    }

    private func grow() {
        let old = slots
        let oldCapacity = capacity
        capacity *= 2
        let wasMapped = mapped
        (slots, mapped) = DedupTable.allocate(capacity)
        let mask = capacity - 1
        for j in 0..<oldCapacity {
            let s = old[j]
            if s.id0 == 0 && s.id1 == 0 { continue }
            var k = Int(truncatingIfNeeded: s.id1 ^ (s.id0 >> 17)) & mask
            while !(slots[k].id0 == 0 && slots[k].id1 == 0) { k = (k + 1) & mask }
            slots[k] = s
        }
        DedupTable.free(old, oldCapacity, mapped: wasMapped)
    }
}

/// The place, kind and feature of a stored entry packed into 64 bits:
/// line (36 bits) | input (10 bits) | kind (2 bits) | feature (16 bits).
enum SlotMeta {
    static let noFeature: UInt64 = 0xFFFF

    @inline(__always)
    static func pack(line: Int, input: Int, kind: LedgerEntry.Kind, feature: UInt32) -> UInt64 {
        let f = feature >= 0xFFFF ? noFeature : UInt64(feature)
        return UInt64(truncatingIfNeeded: line) & 0xF_FFFF_FFFF
            | (UInt64(truncatingIfNeeded: input) & 0x3FF) << 36
            | UInt64(kind.code) << 46
            | f << 48
    }

    /// Which shard owns an id: by the high bits of its hash, without a division.
    @inline(__always)
    static func shard(of id0: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: ((id0 >> 32) &* UInt64(count)) >> 32)
    }

    static func line(_ m: UInt64) -> Int { Int(m & 0xF_FFFF_FFFF) }
    static func input(_ m: UInt64) -> Int { Int((m >> 36) & 0x3FF) }
    static func kind(_ m: UInt64) -> LedgerEntry.Kind { LedgerEntry.Kind(code: UInt8((m >> 46) & 3)) }
    /// The global feature index, or nil when there is none or it did not fit.
    static func feature(_ m: UInt64) -> Int? {
        let f = m >> 48
        return f == noFeature ? nil : Int(f)
    }
}
