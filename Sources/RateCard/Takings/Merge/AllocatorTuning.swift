#if canImport(Glibc)
    import Glibc
#endif

/// How the C allocator keeps the memory the takings engine frees: set once per process,
/// by the first `TakingsRun.run`.
///
/// By default glibc gives back to the kernel the free memory at the top of a heap (above
/// 128 KiB of it, each worker thread's heap too) and serves a block above a threshold that
/// starts at 128 KiB with a mapping of its own, so the arrays the engine frees and
/// allocates again at every step (a chunk's pending devices, a shard's refunds, the
/// records of a small read) come back as fresh pages that the kernel faults in and zeroes
/// one by one; on this project's virtual machines a page fault costs several
/// microseconds. Kept in the process instead (a heap trimmed only above 256 MiB free,
/// mappings only from 32 MiB, glibc's largest), the benchmark's 1M exports took 12–17%
/// fewer page faults and 3–5% less CPU time (`GLIBC_TUNABLES` with the same values, six
/// alternating runs each), for 1–5% more peak memory (docs/takings.md, Benchmark).
///
/// `mallopt` is not in Swift's Glibc module, so it is looked up by name; elsewhere, or
/// when it is missing, nothing is changed.
enum AllocatorTuning {
    /// Whether the settings were applied (false off glibc).
    static let applied: Bool = {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            // M_TRIM_THRESHOLD and M_MMAP_THRESHOLD (malloc.h); each returns 1 when set.
            let trimmed = mallopt(-1, 256 << 20)
            let mapped = mallopt(-3, 32 << 20)
            return trimmed == 1 && mapped == 1
        #else
            return false
        #endif
    }()
}
