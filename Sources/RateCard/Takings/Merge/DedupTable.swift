#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The memory of which entry ids were seen: an open-addressing hash table of 32-byte
/// slots (96 bits of the id hash, the amount when it fits in 32 bits, a 64-bit content
/// hash and a 64-bit packed place), so that a refund's charge is checked from its slot.
///
/// 96 bits of id hash: for a billion distinct ids the chance that any two share them is
/// below 10^-11. A slot is half a cache line, so a probe touches one line. Amounts
/// beyond 32 bits (rare: a charge of over two billion credits) are kept beside the
/// table, by id.
///
/// This is all that grows with the number of entries. The table is sized from the
/// inputs (any number of slots, indexed by multiply-shift, not only powers of two) and
/// grows by half when it is 80% full: ten million distinct ids take about 13 million
/// slots, some 400 MiB across the shards.
struct DedupSlots {
    struct Slot {
        var id0: UInt64
        /// The low 32 bits of the id hash's second word.
        var id1: UInt32
        /// The entry's amount in credits (a charge's is negative), or `largeAmount` when
        /// it does not fit: then it is in `largeAmounts`.
        var amount: Int32
        var content: UInt64
        var meta: UInt64

        static let largeAmount = Int32.min
        static let empty = Slot(id0: 0, id1: 0, amount: 0, content: 0, meta: 0)
        var isEmpty: Bool { id0 == 0 && id1 == 0 }
    }

    struct IdKey: Hashable {
        let id0: UInt64
        let id1: UInt32
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
    /// The amounts that do not fit in a slot.
    private(set) var largeAmounts: [IdKey: Int64] = [:]

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        (slots, mapped) = DedupSlots.allocate(self.capacity)
    }

    func free() {
        DedupSlots.free(slots, capacity, mapped: mapped)
    }

    var bytes: Int { capacity * MemoryLayout<Slot>.stride }

    /// The home slot, from the slot's own bits (so that growing can rehash from the slots
    /// alone) and led by `id1`: the high word of `id0` picks the shard and the high bits of
    /// its low word the partition, so within one table those bits are nearly constant and
    /// must not decide the home.
    @inline(__always)
    private func home(_ id0: UInt64, _ id1: UInt32) -> Int {
        DedupSlots.home(id0, id1, capacity: capacity)
    }

    /// A home is always the first slot of a pair, and the slots are 64-byte aligned, so
    /// that the two slots a probe reads first share one cache line, and the two lines
    /// `prefetch` asks for hold the first four.
    @inline(__always)
    static func home(_ id0: UInt64, _ id1: UInt32, capacity: Int) -> Int {
        let h = (UInt64(id1) << 32) | (id0 & 0xFFFF_FFFF)
        let pairs = UInt64(capacity >> 1)
        return Int(truncatingIfNeeded: h.multipliedFullWidth(by: pairs).high) << 1
    }

    /// Asks for the cache line of an id's home pair and the line after it, so that a
    /// later insert finds them in cache: a probe past the pair, common once the table
    /// fills, usually ends in the next pair. (With the home pair's line alone, the probes
    /// past it waited on memory for a quarter of the merge's time.)
    @inline(__always)
    func prefetch(id0: UInt64, id1: UInt64) {
        let k = home(id0, UInt32(truncatingIfNeeded: id1))
        Prefetch.read(slots + k)
        Prefetch.read(slots + (k + 2 < capacity ? k + 2 : k))
    }

    @inline(__always)
    mutating func insert(
        id0: UInt64, id1 wide: UInt64, content: UInt64, meta: UInt64, amount: Int64 = 0
    ) -> Outcome {
        if (count + 1) * 5 > capacity * 4 { grow() }
        let id1 = UInt32(truncatingIfNeeded: wide)
        var k = home(id0, id1)
        while true {
            let s = slots[k]
            if s.isEmpty {
                var small = Int32(truncatingIfNeeded: amount)
                if Int64(small) != amount || small == Slot.largeAmount {
                    small = Slot.largeAmount
                    largeAmounts[IdKey(id0: id0, id1: id1)] = amount
                }
                slots[k] = Slot(id0: id0, id1: id1, amount: small, content: content, meta: meta)
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

    /// The slot of an id, inserted with `meta` when it is new; the pointer is valid until
    /// the next insert.
    mutating func findOrInsert(id0: UInt64, id1 wide: UInt64, meta: UInt64)
        -> (slot: UnsafeMutablePointer<Slot>, inserted: Bool)
    {
        if (count + 1) * 5 > capacity * 4 { grow() }
        let id1 = UInt32(truncatingIfNeeded: wide)
        var k = home(id0, id1)
        while true {
            let s = slots[k]
            if s.isEmpty {
                slots[k] = Slot(id0: id0, id1: id1, amount: 0, content: 0, meta: meta)
                count += 1
                return (slots + k, true)
            }
            if s.id0 == id0 && s.id1 == id1 { return (slots + k, false) }
            k += 1
            if k == capacity { k = 0 }
        }
    }

    func lookup(id0: UInt64, id1 wide: UInt64) -> Slot? {
        let id1 = UInt32(truncatingIfNeeded: wide)
        var k = home(id0, id1)
        while true {
            let s = slots[k]
            if s.isEmpty { return nil }
            if s.id0 == id0 && s.id1 == id1 { return s }
            k += 1
            if k == capacity { k = 0 }
        }
    }

    /// The place and amount of the entry with this id, if any.
    func entry(id0: UInt64, id1: UInt64) -> StoredEntry? {
        lookup(id0: id0, id1: id1).map { s in
            StoredEntry(
                meta: s.meta,
                amount: s.amount == Slot.largeAmount
                    ? largeAmounts[IdKey(id0: s.id0, id1: s.id1)] ?? 0 : Int64(s.amount))
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
            if s.isEmpty { continue }
            var k = home(s.id0, s.id1)
            while !slots[k].isEmpty {
                k += 1
                if k == capacity { k = 0 }
            }
            slots[k] = s
        }
        DedupSlots.free(old, oldCapacity, mapped: oldMapped)
    }

    /// Zeroed slots from the kernel: pages are filled only when first touched, and large
    /// tables ask for transparent huge pages, since every probe lands on a random page.
    /// A small table (a small input's) comes from the heap, without a system call, aligned
    /// like a page's start to a cache line.
    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<Slot>, Bool) {
        let bytes = capacity * MemoryLayout<Slot>.stride
        guard bytes >= 64 << 10,
            let raw = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else {
            let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                .bindMemory(to: Slot.self, capacity: capacity)
            p.initialize(repeating: .empty, count: capacity)
            return (p, false)
        }
        if bytes >= 4 << 20 { _ = madvise(raw, bytes, MADV_HUGEPAGE) }
        return (raw.bindMemory(to: Slot.self, capacity: capacity), true)
    }

    private static func free(_ p: UnsafeMutablePointer<Slot>, _ capacity: Int, mapped: Bool) {
        if mapped {
            munmap(UnsafeMutableRawPointer(p), capacity * MemoryLayout<Slot>.stride)
        } else {
            UnsafeMutableRawPointer(p).deallocate()
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

    func entry(id0: UInt64, id1: UInt64) -> StoredEntry? {
        storage.entry(id0: id0, id1: id1)
    }

    func insert(id0: UInt64, id1: UInt64, content: UInt64, meta: UInt64, amount: Int64 = 0)
        -> DedupSlots.Outcome
    {
        storage.insert(id0: id0, id1: id1, content: content, meta: meta, amount: amount)
    }
}

/// What a refund check needs of the entry a refund names: its place, kind and feature
/// (`SlotMeta`) and its amount.
struct StoredEntry {
    var meta: UInt64
    var amount: Int64
}

/// The place, kind and feature of a stored entry packed into 64 bits:
/// line (35 bits) | input (10 bits) | kind (3 bits) | feature (16 bits).
enum SlotMeta {
    static let noFeature: UInt64 = 0xFFFF

    @inline(__always)
    static func pack(line: Int, input: Int, kind: LedgerEntry.Kind, feature: UInt32) -> UInt64 {
        let f = feature >= 0xFFFF ? noFeature : UInt64(feature)
        return UInt64(truncatingIfNeeded: line) & 0x7_FFFF_FFFF
            | (UInt64(truncatingIfNeeded: input) & 0x3FF) << 35
            | UInt64(kind.code) << 45
            | f << 48
    }

    /// Which shard owns an id: by the high bits of its hash, without a division.
    @inline(__always)
    static func shard(of id0: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: ((id0 >> 32) &* UInt64(count)) >> 32)
    }

    static func line(_ m: UInt64) -> Int { Int(m & 0x7_FFFF_FFFF) }
    /// Whether place `a` comes before place `b` in input order.
    static func precedes(_ a: UInt64, _ b: UInt64) -> Bool {
        (input(a), line(a)) < (input(b), line(b))
    }
    static func input(_ m: UInt64) -> Int { Int((m >> 35) & 0x3FF) }
    static func kind(_ m: UInt64) -> LedgerEntry.Kind {
        LedgerEntry.Kind(code: UInt8((m >> 45) & 7))
    }
    /// The global feature index, or nil when there is none or it did not fit.
    static func feature(_ m: UInt64) -> Int? {
        let f = m >> 48
        return f == noFeature ? nil : Int(f)
    }
}
