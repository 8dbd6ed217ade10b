import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The library entry point of `margin pnl`: reads every input, merges, windows and sums.
public enum TakingsRun {
    /// The most inputs one run takes (their index is packed in 10 bits).
    static let maxInputs = 1024
    /// The longest line accepted, so a file without newlines cannot take all memory.
    static let maxLineBytes = 64 << 20
    /// The most charges, declines, grants and top-ups that the roll-ups of one run may
    /// count in all, so that every count (and every sum of counts) fits in 64 bits.
    static let maxRollupCounts: Int128 = 1_000_000_000_000_000_000

    /// Reads `inputs` in order and returns the table.
    ///
    /// Throws `TakingsInputError` when an input cannot be read at all (exit 2) and
    /// `TakingsOptionError` for bad options; every problem inside an input is a rejection,
    /// a warning or an error in the report instead.
    static func run(
        inputs: [TakingsInput], options: TakingsOptions, pricing: (any TakingsPricing)?
    ) throws -> TakingsReport {
        guard inputs.count <= maxInputs else {
            throw TakingsOptionError.tooManyInputs(inputs.count)
        }
        if let s = options.window.since, let u = options.window.until, !(s < u) {
            throw TakingsOptionError.emptyWindow(since: s, until: u)
        }
        // Freed memory kept for the next step instead of faulted in afresh.
        _ = AllocatorTuning.applied
        // Size the de-duplication tables from the inputs' sizes (about 190 bytes a line),
        // so that a large export is not rehashed on the way; a wrong guess only costs a
        // regrowth.
        var bytes = 0
        var known = true
        for input in inputs {
            switch input.source {
            case .file(let path):
                var st = stat()
                if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                    bytes += Int(st.st_size)
                } else {
                    known = false
                }
            case .bytes(let b): bytes += b.count
            case .standardInput: known = false
            }
        }
        options.progress?.setTotal(known ? bytes : nil)
        let parts = partitions(inputBytes: known ? bytes : nil, memoryLimit: options.memoryLimit)
        guard parts > 1, let limit = options.memoryLimit else {
            let expected = min(bytes / 170, 1 << 31) / options.threads
            let engine = TakingsEngine(
                options: options, pricing: pricing, paths: inputs.map(\.path),
                expectedEntriesPerShard: expected)
            for (index, input) in inputs.enumerated() {
                try engine.read(input, index: index)
            }
            return engine.finish()
        }
        let spill = try TakingsSpill(
            partitions: parts, bufferBytes: min(1 << 20, max(16 << 10, limit / (16 * parts))))
        defer { spill.remove() }
        let engine = TakingsEngine(options: options, pricing: pricing, paths: inputs.map(\.path))
        engine.spill = spill
        for (index, input) in inputs.enumerated() {
            try engine.read(input, index: index)
        }
        return try engine.finishPartitioned(spill, memoryLimit: limit)
    }

    /// Bytes of de-duplication state planned per entry: a 32-byte slot at a load of 0.8.
    static let stateBytesPerEntry = 40
    /// Input bytes planned per entry: fewer than any export line but the barest.
    static let inputBytesPerEntry = 100
    /// Partitions of unknown size (standard input) under a cap.
    static let unknownSizePartitions = 64

    /// How many partitions a run uses: 1 (in memory) when the planned state fits in the
    /// cap; else enough that each partition's state takes at most half of it.
    static func partitions(inputBytes: Int?, memoryLimit: Int?) -> Int {
        guard let limit = memoryLimit else { return 1 }
        guard let inputBytes else { return unknownSizePartitions }
        let state = (inputBytes / inputBytesPerEntry + 1) * stateBytesPerEntry
        guard state > limit else { return 1 }
        let half = max(1, limit / 2)
        return min(TakingsSpill.maxPartitions, max(2, (state + half - 1) / half))
    }

    /// Deletes the temporary files of a partitioned run in progress, if any, with only
    /// async-signal-safe calls: for a SIGINT or SIGTERM handler.
    public static func removeTemporaryFiles() {
        TakingsSpill.removeForSignal()
    }
}
