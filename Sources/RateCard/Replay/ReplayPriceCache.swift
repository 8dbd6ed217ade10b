/// The prices a replay has worked out, each distinct request priced once.
///
/// What both sides make of a charge depends only on: its feature, its quantities (each
/// dimension's name and value as scanned), the version its `card` field names and the
/// version in force at its time (the ledger's side), and, for every provider schedule of
/// the cards, the window in force at its time (the cost's period). The key holds exactly
/// these, so a hit gives the same outcome the two `ReplaySide.price` calls would: the
/// cache changes no figure. The ledger's side keeps no credits here: they are each
/// charge's own recorded credits.
///
/// An export repeats a few thousand requests (a transcript of 76 seconds at peak) over
/// millions of charges; a ledger of free-form token counts repeats few, so past `limit`
/// distinct requests the rest are priced afresh and not kept (`ReplayLedger.price`).
struct ReplayPriceCache {
    /// The most distinct requests kept (about 200 bytes each).
    static let limit = 1 << 18
    /// The most quantity members a key holds; a charge with more is priced afresh.
    static let maxDimensions = 4

    struct Key: Hashable {
        var feature: UInt32
        /// The version the `card` field names (its number after the last `@`), or -1.
        var named: Int32
        /// The index of the family version in force (ledger side), else 0.
        var inForce: Int32
        /// Per provider schedule, 8 bits: the window in force at the charge's time
        /// (`windows.count` for the default period).
        var windows: UInt64
        var dimensions: UInt8
        var d0 = Member()
        var d1 = Member()
        var d2 = Member()
        var d3 = Member()

        struct Member: Hashable {
            /// `ReplayPriceCache.names` index of the dimension's name.
            var name: UInt32 = .max
            var significand: Int128 = 0
            var scale: Int = 0
        }

        /// One 64-bit mix of the fields for the dictionary (equality still compares
        /// every field): hashing fifteen fields one by one cost more than the lookup.
        func hash(into h: inout Hasher) {
            var x = UInt64(feature) &* 0x9E37_79B9_7F4A_7C15
            func mix(_ v: UInt64) { x = (x ^ v) &* 0xBF58_476D_1CE4_E5B9 ^ (x >> 29) }
            mix(UInt64(UInt32(bitPattern: named)) | UInt64(UInt32(bitPattern: inForce)) << 32)
            mix(windows)
            mix(UInt64(dimensions))
            func member(_ m: Member) {
                mix(UInt64(m.name) | UInt64(UInt32(truncatingIfNeeded: m.scale)) << 32)
                mix(UInt64(truncatingIfNeeded: m.significand))
                mix(UInt64(truncatingIfNeeded: m.significand >> 64))
            }
            if dimensions > 0 { member(d0) }
            if dimensions > 1 { member(d1) }
            if dimensions > 2 { member(d2) }
            if dimensions > 3 { member(d3) }
            h.combine(x)
        }
    }

    /// One distinct request, priced by both sides.
    struct Entry {
        let feature: UInt32
        /// The before side's outcome; its credits are meaningless on the ledger's side.
        let before: ReplaySide.Outcome
        let after: ReplaySide.Outcome
    }

    var index: [Key: UInt32] = [:]
    var entries: [Entry] = []
    /// Dimension names, as the scanner read them.
    var names = ByteInterner()
    /// The provider schedules the window signature is taken over (nil: too many to pack,
    /// and nothing is cached).
    let schedules: [PriceSchedule]?

    init(providers: [String: ProviderSheet]) {
        let all = providers.keys.sorted().compactMap { providers[$0]?.schedule }
        var unique: [PriceSchedule] = []
        for s in all where !unique.contains(s) { unique.append(s) }
        schedules = unique.count <= 8 && unique.allSatisfy { $0.windows.count < 255 } ? unique : nil
    }

    /// The window signature of an instant: per schedule, the first window that holds it
    /// in the schedule's own offset, else `windows.count`.
    func windows(at seconds: Int64) -> UInt64 {
        guard let schedules else { return 0 }
        var out: UInt64 = 0
        for (k, s) in schedules.enumerated() {
            let local = seconds + Int64(s.offsetMinutes * 60)
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let second = Int(local - days * 86_400)
            let weekday = Int((days % 7 + 7 + 3) % 7) + 1
            var w = s.windows.count
            for (j, window) in s.windows.enumerated()
            where window.weekdays.contains(weekday) && second >= window.from
                && second < window.until
            {
                w = j
                break
            }
            out |= UInt64(w) << (8 * k)
        }
        return out
    }
}
