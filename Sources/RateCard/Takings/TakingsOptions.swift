#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `TakingsRun` reads and summarises its inputs.
struct TakingsOptions: Sendable {
    /// The span of time the table covers.
    var window: TakingsWindow
    /// A series of periods, or nil for one table over the window.
    var series: TakingsSeries?
    /// Balance-chain breaks become errors instead of warnings.
    var strict: Bool
    /// Worker threads for parsing and merging (1 or more).
    var threads: Int
    /// Bytes read per chunk; each thread parses one chunk at a time (at least 64: tests
    /// and fuzzers use small blocks so that block boundaries fall inside lines). 2 MiB by
    /// default: the two read buffers and the records of two blocks are memory the kernel
    /// must fault in and zero, and 8 MiB blocks cost about 40% more page faults on a 1M
    /// export (docs/takings.md, the benchmark) for no gain in parsing.
    var chunkBytes: Int
    /// How many rejections are kept in full (all are counted).
    var rejectionsShown: Int
    /// Counters the run advances as it reads, for a progress display (nil: none).
    var progress: TakingsProgress?
    /// The most bytes the de-duplication state may take (nil: no cap). When the inputs'
    /// sizes say it would take more, the run is partitioned by id hash into temporary
    /// files and each partition merged on its own; the report is the same.
    var memoryLimit: Int?

    /// The default cap: half of the machine's memory (or of the control group's limit,
    /// when that is smaller).
    static var defaultMemoryLimit: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let size = sysconf(Int32(_SC_PAGESIZE))
        var total = pages > 0 && size > 0 ? pages * size : 8 << 30
        let fd = open("/sys/fs/cgroup/memory.max", O_RDONLY)
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { b in
                b.baseAddress.map { read(fd, $0, b.count) } ?? 0
            }
            close(fd)
            // "max" when there is no limit.
            if n > 0,
                let limit = Int(String(decoding: buffer[0..<n], as: UTF8.self).filter(\.isNumber)),
                limit > 0
            {
                total = min(total, limit)
            }
        }
        return total / 2
    }

    init(
        window: TakingsWindow = .all, series: TakingsSeries? = nil, strict: Bool = false,
        threads: Int = 2, chunkBytes: Int = 2 << 20, rejectionsShown: Int = 20
    ) {
        self.window = window
        self.series = series
        self.strict = strict
        self.threads = max(1, threads)
        self.chunkBytes = max(64, chunkBytes)
        self.rejectionsShown = max(0, rejectionsShown)
    }
}
