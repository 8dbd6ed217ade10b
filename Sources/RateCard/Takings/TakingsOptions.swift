/// How `TakingsRun` reads and summarises its inputs.
public struct TakingsOptions: Sendable {
    /// The span of time the table covers.
    public var window: TakingsWindow
    /// A series of periods, or nil for one table over the window.
    public var series: TakingsSeries?
    /// Balance-chain breaks become errors instead of warnings.
    public var strict: Bool
    /// Worker threads for parsing and merging (1 or more).
    public var threads: Int
    /// Bytes read per chunk; each thread parses one chunk at a time (at least 64: tests
    /// and fuzzers use small blocks so that block boundaries fall inside lines).
    public var chunkBytes: Int
    /// How many rejections are kept in full (all are counted).
    public var rejectionsShown: Int
    /// Counters the run advances as it reads, for a progress display (nil: none).
    public var progress: TakingsProgress?

    public init(window: TakingsWindow = .all, series: TakingsSeries? = nil, strict: Bool = false,
                threads: Int = 2, chunkBytes: Int = 16 << 20, rejectionsShown: Int = 20) {
        self.window = window
        self.series = series
        self.strict = strict
        self.threads = max(1, threads)
        self.chunkBytes = max(64, chunkBytes)
        self.rejectionsShown = max(0, rejectionsShown)
    }
}
