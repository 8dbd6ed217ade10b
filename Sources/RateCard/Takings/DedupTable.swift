#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The memory of which entry ids were seen: an open-addressing hash table of 32-byte
/// slots (128-bit id hash, 64-bit content hash, 64-bit packed place).
///
/// This is all that grows with the number of entries. The table is sized from the
/// inputs (any number of slots, indexed by multiply-shift, not only powers of two) and
/// grows by half when it is 80% full: ten million distinct ids take about 13 million
/// slots, some 400 MiB across the shards.
struct DedupSlots {
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

    private(set) var slots: UnsafeMutablePointer<Slot>
    private(set) var capacity: Int
    private(set) var count = 0
    private(set) var mapped: Bool
    /// Written so that `touch` loads are not optimised away.
    var sink: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        (slots, mapped) = DedupSlots.allocate(self.capacity)
    }

    func free() {
        DedupSlots.free(slots, capacity, mapped: mapped)
    }

    var bytes: Int { capacity * MemoryLayout<Slot>.stride }

    @inline(__always)
    private func home(_ id0: UInt64, _ id1: UInt64) -> Int {
        Int(truncatingIfNeeded: (id1 ^ (id0 >> 17)).multipliedFullWidth(by: UInt64(capacity)).high)
    }

    /// Loads the home slot of an id so that a later insert finds it in cache.
    @inline(__always)
    func touch(id0: UInt64, id1: UInt64) -> UInt64 {
        slots[home(id0, id1)].id0
    }

    @inline(__always)
    mutating func insert(id0: UInt64, id1: UInt64, content: UInt64, meta: UInt64) -> Outcome {
        if (count + 1) * 5 > capacity * 4 { grow() }
        var k = home(id0, id1)
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
            k += 1
            if k == capacity { k = 0 }
        }
    }

    func lookup(id0: UInt64, id1: UInt64) -> Slot? {
        var k = home(id0, id1)
        while true {
            let s = slots[k]
            if s.id0 == 0 && s.id1 == 0 { return nil }
            if s.id0 == id0 && s.id1 == id1 { return s }
            k += 1
            if k == capacity { k = 0 }
        }
    }

    private mutating func grow() {
        let old = slots
        let oldCapacity = capacity
        let oldMapped = mapped
        capacity += capacity / 2
        (slots, mapped) = DedupSlots.allocate(capacity)
        for j in 0..<oldCapacity {
            let s = old[j]
            if s.id0 == 0 && s.id1 == 0 { continue }
            var k = home(s.id0, s.id1)
            while !(slots[k].id0 == 0 && slots[k].id1 == 0) {
                k += 1
                if k == capacity { k = 0 }
            }
            slots[k] = s
        }
        DedupSlots.free(old, oldCapacity, mapped: oldMapped)
    }

    /// Zeroed slots from the kernel: pages are filled only when first touched, and large
    /// tables ask for transparent huge pages, since every probe lands on a random page.
    /// A small table (a small input's) comes from the heap, without a system call.
    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<Slot>, Bool) {
        let bytes = capacity * MemoryLayout<Slot>.stride
        guard bytes >= 64 << 10,
            let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else {
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
}

/// Owns a shard's `DedupSlots` and frees them. The merge moves the slots into a local
/// value while it works (so the hot loop has no run-time exclusivity checks) and puts
/// them back.
final class DedupTable {
    var storage: DedupSlots

    init(capacity: Int) {
        storage = DedupSlots(capacity: capacity)
    }

    deinit {
        storage.free()
    }

    var count: Int { storage.count }

    func lookup(id0: UInt64, id1: UInt64) -> DedupSlots.Slot? {
        storage.lookup(id0: id0, id1: id1)
    }

    func insert(id0: UInt64, id1: UInt64, content: UInt64, meta: UInt64) -> DedupSlots.Outcome {
        storage.insert(id0: id0, id1: id1, content: content, meta: meta)
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
    /// Whether place `a` comes before place `b` in input order.
    static func precedes(_ a: UInt64, _ b: UInt64) -> Bool {
        (input(a), line(a)) < (input(b), line(b))
    }
    static func input(_ m: UInt64) -> Int { Int((m >> 36) & 0x3FF) }
    static func kind(_ m: UInt64) -> LedgerEntry.Kind {
        LedgerEntry.Kind(code: UInt8((m >> 46) & 3))
    }
    /// The global feature index, or nil when there is none or it did not fit.
    static func feature(_ m: UInt64) -> Int? {
        let f = m >> 48
        return f == noFeature ? nil : Int(f)
    }
}
