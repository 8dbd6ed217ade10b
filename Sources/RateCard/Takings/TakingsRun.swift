import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The library entry point of `margin pnl`: reads every input, merges, windows and sums.
public enum TakingsRun {
    /// The most inputs one run takes (their index is packed in 10 bits).
    public static let maxInputs = 1024
    /// The longest line accepted, so a file without newlines cannot take all memory.
    static let maxLineBytes = 64 << 20
    /// The most charges, declines, grants and top-ups that the roll-ups of one run may
    /// count in all, so that every count (and every sum of counts) fits in 64 bits.
    public static let maxRollupCounts: Int128 = 1_000_000_000_000_000_000

    /// Reads `inputs` in order and returns the table.
    ///
    /// Throws `TakingsInputError` when an input cannot be read at all (exit 2) and
    /// `TakingsOptionError` for bad options; every problem inside an input is a rejection,
    /// a warning or an error in the report instead.
    public static func run(
        inputs: [TakingsInput], options: TakingsOptions, pricing: (any TakingsPricing)?
    ) throws -> TakingsReport {
        guard inputs.count <= maxInputs else {
            throw TakingsOptionError.tooManyInputs(inputs.count)
        }
        if let s = options.window.since, let u = options.window.until, !(s < u) {
            throw TakingsOptionError.emptyWindow(since: s, until: u)
        }
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

/// The state of one run: global feature and device tables, the shards, the line counts.
final class TakingsEngine {
    let options: TakingsOptions
    let settings: MergeSettings
    let shards: [TakingsShard]
    var features: [String] = []
    var featureIndex: [String: Int] = [:]
    /// Every device, by global index.
    var deviceNames = DeviceInterner()
    var devices: [String] { deviceNames.names }
    /// Per JSON Lines parser: its device table, kept across chunks, and the global index
    /// of each of its devices.
    let parserDevices: ResultSlots<DeviceInterner>
    var parserDeviceMaps: [[Int]]
    var lines = 0
    var blank = 0
    /// Bytes of the inputs read before the current one (for the progress counters).
    var bytesBefore = 0
    /// Where records go instead of the shards in a partitioned run.
    var spill: TakingsSpill?
    /// Charges, declines, grants and top-ups counted by roll-ups so far.
    var rollupCounts: Int128 = 0
    var warnings: [Diagnostic] = []
    var errors: [Diagnostic] = []
    /// Rejections found outside the shards (whole-document problems, roll-ups).
    var rejections: RejectionLog

    init(
        options: TakingsOptions, pricing: (any TakingsPricing)?, paths: [String],
        expectedEntriesPerShard: Int = 0
    ) {
        self.options = options
        settings = MergeSettings(
            window: options.window, series: options.series, pricing: pricing,
            shards: options.threads, rejectionsShown: options.rejectionsShown, paths: paths)
        shards = (0..<options.threads).map {
            TakingsShard(
                index: $0, rejectionsShown: options.rejectionsShown,
                expectedEntries: expectedEntriesPerShard)
        }
        rejections = RejectionLog(limit: options.rejectionsShown)
        // Two pieces per thread and block, so the threads can balance their work.
        parserDevices = ResultSlots(count: options.threads * 2, empty: DeviceInterner())
        parserDeviceMaps = Array(repeating: [], count: options.threads * 2)
    }

    /// Which charges' quantities the readers keep (those the pricing can cost).
    var keepQuantity: QuantityNeed { settings.quantities }

    // MARK: Reading

    func read(_ input: TakingsInput, index: Int) throws {
        let source = try ByteSource(input)
        // The format is told from the first 64 KiB (fewer when the input is smaller).
        let peekSize = min(64 << 10, source.remaining ?? (64 << 10))
        var peek = [UInt8](repeating: 0, count: peekSize)
        let n = try peek.withUnsafeMutableBufferPointer { buf throws(TakingsInputError) in
            try source.fill(buf.baseAddress!, count: peekSize)
        }
        peek.removeSubrange(n...)
        let format =
            try input.format
            ?? TakingsFormatDetector.detect(
                peek, path: input.path, complete: n < peekSize || source.atKnownEnd)
        switch format {
        case .jsonLines:
            // A UTF-8 byte-order mark is skipped, as in every other format.
            let bom = peek.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            try streamJSONLines(
                source, initial: Array(peek.dropFirst(bom)), input: index, path: input.path)
        case .ledgerDocument:
            let all = try readAll(source, initial: peek, path: input.path)
            merge(
                [LedgerDocumentReader.read(all, keepQuantity: keepQuantity)], input: index,
                path: input.path, baseLine: 0)
        case .csv:
            var reader = CSVLedgerReader(
                BufferedBytes(source, initial: peek), keepQuantity: keepQuantity)
            while let chunk = reader.next(records: 65_536) {
                merge([chunk], input: index, path: input.path, baseLine: 0)
            }
            if let failure = reader.failure { throw failure }
        case .rollupJSONLines, .rollupCSV:
            var bytes = BufferedBytes(source, initial: peek)
            let rows =
                format == .rollupCSV ? RollupReader.csv(&bytes) : RollupReader.jsonLines(&bytes)
            if let failure = bytes.failure { throw failure }
            addRollups(rows, input: index, path: input.path)
        }
        bytesBefore += max(source.consumed, source.regularFileSize ?? 0)
        options.progress?.setBytes(bytesBefore)
    }

    private func readAll(_ source: ByteSource, initial: [UInt8], path: String)
        throws(TakingsInputError) -> [UInt8]
    {
        var all = initial
        if source.atKnownEnd { return all }
        if let left = source.remaining { all.reserveCapacity(initial.count + left) }
        var block = [UInt8](repeating: 0, count: source.blockSize(limit: 1 << 20))
        while true {
            let n = try block.withUnsafeMutableBufferPointer { buf throws(TakingsInputError) in
                try source.read(into: buf.baseAddress!, count: buf.count)
            }
            if n == 0 { break }
            all.append(contentsOf: block[0..<n])
            if all.count > 1 << 30 {
                throw TakingsInputError(
                    path: path,
                    message:
                        "larger than 1 GiB: export large takings as JSON Lines, which are streamed")
            }
        }
        return all
    }

    /// JSON Lines, the hot path: blocks of whole lines are read into one of two buffers
    /// and parsed in pieces on the worker threads while, in the same step, the shards
    /// merge the previous block's records and the next block is read into the other
    /// buffer. Memory holds two blocks, never the input; a regular file is read with
    /// `read(2)` like a pipe (mapping it costs more in page faults than the copy).
    private func streamJSONLines(_ source: ByteSource, initial: [UInt8], input: Int, path: String)
        throws
    {
        let threads = options.threads
        // Blocks of `chunkBytes` per thread, or smaller when the whole input is known to
        // be smaller: one more byte than the input, so the first fill sees its end.
        var capacity = max(initial.count, options.chunkBytes * threads)
        if let left = source.remaining {
            capacity = max(initial.count, min(capacity, initial.count + left + 1))
        }
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        var spare = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer {
            buffer.deallocate()
            spare.deallocate()
        }
        initial.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        var filled = initial.count
        var eof = initial.isEmpty
        var readAhead = false
        var baseLine = 0
        var streamed = 0
        let reader = SendableSource(source: source)
        // The chunks of the block parsed last, merged during the next step.
        var pending: (chunks: [ParsedChunk], baseLine: Int)?
        while true {
            if !eof, filled < capacity, !readAhead {
                let n = try source.fill(buffer + filled, count: capacity - filled)
                if n < capacity - filled { eof = true }
                filled += n
            }
            readAhead = false
            if filled == 0 { break }
            var usable = filled
            if !eof {
                guard let last = lastNewline(buffer, filled) else {
                    guard capacity < TakingsRun.maxLineBytes else {
                        throw TakingsInputError(
                            path: path,
                            message:
                                "line \(baseLine + 1) is longer than \(TakingsRun.maxLineBytes >> 20) MiB: is this JSON Lines?"
                        )
                    }
                    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                    bigger.update(from: buffer, count: filled)
                    buffer.deallocate()
                    spare.deallocate()
                    buffer = bigger
                    capacity *= 2
                    spare = .allocate(capacity: capacity)
                    continue
                }
                usable = last + 1
            }
            let final = eof
            let contexts =
                pending.map { prepare($0.chunks, input: input, path: path, baseLine: $0.baseLine) }
                ?? []
            let work = MergeWork(
                shards: shards, settings: settings, chunks: pending?.chunks ?? [],
                contexts: contexts, features: features, spill: spill)
            let merges = pending == nil ? 0 : shards.count
            let pieces = split(buffer, usable, parts: threads)
            let parsed = ResultSlots<ParsedChunk>(count: pieces.count, empty: ParsedChunk())
            let base = SendablePointer(pointer: UnsafePointer(buffer))
            let next = SendableMutablePointer(pointer: spare)
            let keep = keepQuantity
            let interners = parserDevices
            // Task 0 carries the unparsed tail over to the spare buffer and reads the next
            // block behind it; tasks 1...merges merge the previous block; the rest parse.
            let read = ResultSlots<Result<Int, TakingsInputError>>(count: 1, empty: .success(0))
            let (carryFrom, carry, room) = (usable, filled - usable, capacity - (filled - usable))
            parallel(1 + merges + pieces.count) { k in
                if k == 0 {
                    if carry > 0 {
                        next.pointer.update(from: base.pointer + carryFrom, count: carry)
                    }
                    read[0] =
                        final
                        ? .success(0)
                        : Result { () throws(TakingsInputError) in
                            try reader.source.fill(next.pointer + carry, count: room)
                        }
                    return
                }
                guard k > merges else {
                    work.run(shard: k - 1)
                    return
                }
                // Piece p of every block has parser state p (its device table).
                let p = k - 1 - merges
                let (start, end) = pieces[p]
                var devices = interners.take(p)
                parsed[p] = JSONLinesChunkParser.parse(
                    base.pointer + start, end - start, final: final && p == pieces.count - 1,
                    keepQuantity: keep, devices: &devices, worker: p)
                interners[p] = devices
            }
            let chunks = parsed.values
            pending = (chunks, baseLine)
            baseLine += chunks.reduce(0) { $0 + $1.lineCount }
            streamed += usable
            options.progress?.setBytes(bytesBefore + streamed)
            let n = try read[0].get()
            swap(&buffer, &spare)
            filled = carry + n
            if !final, n < room { eof = true }
            readAhead = true
            if eof && filled == 0 { break }
        }
        if let pending {
            merge(pending.chunks, input: input, path: path, baseLine: pending.baseLine)
        }
    }

    private func lastNewline(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int? {
        var k = n - 1
        while k >= 0 {
            if p[k] == 0x0A { return k }
            k -= 1
        }
        return nil
    }

    /// Splits `[0, n)` into up to `parts` ranges that end just after a newline (or at n).
    private func split(_ p: UnsafeMutablePointer<UInt8>, _ n: Int, parts: Int) -> [(Int, Int)] {
        var ranges: [(Int, Int)] = []
        var start = 0
        for k in 1..<max(parts, 1) {
            let target = n * k / parts
            guard target > start, target < n, let hit = memchr(p + target, 0x0A, n - target) else {
                continue
            }
            let end = (UnsafeRawPointer(hit) - UnsafeRawPointer(p)) + 1
            if end > start, end < n {
                ranges.append((start, end))
                start = end
            }
        }
        ranges.append((start, n))
        return ranges
    }

    // MARK: Merging

    /// Runs `count` tasks on the worker threads, or one after another with one thread.
    func parallel(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if options.threads == 1 {
            for k in 0..<count { body(k) }
        } else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
        }
    }

    /// Maps chunks' local features and devices to global indexes, counts their lines and
    /// rejections, then merges their records shard by shard in parallel.
    func merge(_ chunks: [ParsedChunk], input: Int, path: String, baseLine: Int) {
        let contexts = prepare(chunks, input: input, path: path, baseLine: baseLine)
        let names = features
        let work = MergeWork(
            shards: shards, settings: settings, chunks: chunks, contexts: contexts, features: names,
            spill: spill)
        parallel(shards.count) { s in work.run(shard: s) }
    }

    /// Maps chunks' local features and devices to global indexes and counts their lines
    /// and rejections, in input order, on the calling thread.
    func prepare(_ chunks: [ParsedChunk], input: Int, path: String, baseLine: Int) -> [ChunkContext]
    {
        var contexts: [ChunkContext] = []
        var base = baseLine
        for chunk in chunks {
            let featureMap = chunk.features.map { name -> Int in
                if let k = featureIndex[name] { return k }
                featureIndex[name] = features.count
                features.append(name)
                return features.count - 1
            }
            var deviceMap = chunk.worker >= 0 ? parserDeviceMaps[chunk.worker] : []
            for d in chunk.newDevices {
                deviceMap.append(Int(deviceNames.intern(d.h0, d.h1) { d.name }))
            }
            if chunk.worker >= 0 { parserDeviceMaps[chunk.worker] = deviceMap }
            contexts.append(
                ChunkContext(
                    input: input, path: path, baseLine: base, featureMap: featureMap,
                    deviceMap: deviceMap))
            lines += chunk.lineCount
            blank += chunk.blankCount
            options.progress?.addEntries(chunk.lineCount - chunk.blankCount)
            for (line, problem) in chunk.problems {
                rejections.add(
                    TakingsRejection(
                        place: TakingsPlace(
                            input: input, path: path, line: chunk.lineNumber(line, base: base),
                            column: problem.column),
                        reason: problem.reason, message: problem.message))
            }
            base += chunk.lineCount
        }
        return contexts
    }

    // MARK: Roll-ups

    func addRollups(_ rows: [RollupReader.Row], input: Int, path: String) {
        let shard = shards[0]
        for row in rows {
            lines += 1
            let place = TakingsPlace(input: input, path: path, line: row.line)
            let r: RollupReader.Rollup
            switch row.result {
            case nil:
                blank += 1
                continue
            case .failure(let problem):
                rejections.add(
                    TakingsRejection(
                        place: TakingsPlace(
                            input: input, path: path, line: row.line, column: problem.column),
                        reason: problem.reason, message: problem.message))
                continue
            case .success(let value):
                r = value
            }
            let counts = r.charges + r.declines + r.grants + r.topups
            guard rollupCounts + counts <= TakingsRun.maxRollupCounts else {
                rejections.add(
                    TakingsRejection(
                        place: place, reason: .amountOutOfRange,
                        message:
                            "the roll-ups count more than 10^18 charges, declines, grants and top-ups in all: the counts of this row (\(counts)) are beyond what one run can add exactly"
                    ))
                continue
            }
            if let id = r.id {
                let (id0, id1) = TakingsHash.id("rollup:" + id)
                let target = shards[SlotMeta.shard(of: id0, count: shards.count)]
                switch target.table.insert(
                    id0: id0, id1: id1, content: r.contentHash,
                    meta: SlotMeta.pack(
                        line: row.line, input: input, kind: .grant, feature: UInt32.max))
                {
                case .duplicate:
                    target.state.duplicates += 1
                    continue
                case .conflict(let existing):
                    let first = target.place(existing, settings)
                    rejections.add(
                        TakingsRejection(
                            place: place, reason: .conflictingDuplicate,
                            message:
                                "conflicting duplicate: the same roll-up id as \(first.path):\(first.line) with different content"
                        ))
                    continue
                case .inserted:
                    break
                }
            }
            rollupCounts += counts
            shard.state.entries += 1
            let window = options.window
            let cut =
                (window.since.map { r.since < $0 && $0 < r.until } ?? false)
                || (window.until.map { r.since < $0 && $0 < r.until } ?? false)
            let counted = window.contains(
                seconds: r.since.seconds, nanoseconds: UInt32(r.since.nanoseconds))
            if cut {
                warnings.append(
                    Diagnostic(
                        path: path, location: SourceLocation(line: row.line, column: 1),
                        severity: .warning,
                        message:
                            "the window (\(window.name)) cuts roll-up period \(r.period): a roll-up can only be windowed by its period; \(counted ? "counted in full, as it starts inside the window" : "not counted, as it starts before the window")",
                        rule: "rollup-cut"))
            }
            if window.until.map({ r.since < $0 }) ?? true {
                shard.state.outstanding += r.granted + r.toppedUp + r.givenBack - r.charged
            }
            guard counted else { continue }
            shard.state.inWindow += 1
            shard.state.grants += Int64(r.grants)
            shard.state.granted += r.granted
            shard.state.topups += Int64(r.topups)
            shard.state.toppedUp += r.toppedUp
            guard let name = r.feature else { continue }
            var bucket: Int64 = 0
            if let series = options.series {
                bucket = series.bucket(seconds: r.since.seconds)
                if bucket == TakingsSeries.outside {
                    shard.state.noteOutsideSeries(
                        SlotMeta.pack(
                            line: row.line, input: input, kind: .charge, feature: UInt32.max))
                } else if series.calendarPeriod(bucket).endSeconds < r.until.seconds {
                    warnings.append(
                        Diagnostic(
                            path: path, location: SourceLocation(line: row.line, column: 1),
                            severity: .warning,
                            message:
                                "roll-up period \(r.period) is longer than a \(series.period.rawValue) of the series: counted in the \(series.period.rawValue) it starts in",
                            rule: "rollup-cut"))
                }
            }
            let feature: Int
            if let k = featureIndex[name] {
                feature = k
            } else {
                feature = features.count
                featureIndex[name] = feature
                features.append(name)
            }
            var list = shard.state.sums[bucket] ?? []
            if list.count <= feature {
                list.append(
                    contentsOf: repeatElement(FeatureSums(), count: feature + 1 - list.count))
            }
            list[feature].charges += Int64(r.charges)
            list[feature].charged += r.charged
            list[feature].declines += Int64(r.declines)
            list[feature].givenBack += r.givenBack
            shard.state.sums[bucket] = list
            if shard.state.firstSeen.count <= feature {
                shard.state.firstSeen.append(
                    contentsOf: repeatElement(
                        UInt64.max, count: feature + 1 - shard.state.firstSeen.count))
            }
            let meta = SlotMeta.pack(
                line: row.line, input: input, kind: .charge, feature: UInt32(min(feature, 0xFFFE)))
            let seen = shard.state.firstSeen[feature]
            if seen == .max || (input, row.line) < (SlotMeta.input(seen), SlotMeta.line(seen)) {
                shard.state.firstSeen[feature] = meta
            }
        }
    }
}

/// One batch of shard merges, handed to the worker threads: each runs one shard over
/// every chunk in order.
struct MergeWork: @unchecked Sendable {
    let shards: [TakingsShard]
    let settings: MergeSettings
    let chunks: [ParsedChunk]
    let contexts: [ChunkContext]
    let features: [String]
    /// In a partitioned run: task `s` writes its partitions' records instead.
    var spill: TakingsSpill?

    func run(shard s: Int) {
        if let spill {
            spill.write(chunks, contexts, task: s, of: shards.count)
            return
        }
        for (chunk, ctx) in zip(chunks, contexts) {
            shards[s].merge(chunk, ctx, settings, features: features)
        }
    }
}

/// A block handed to the one worker that fills it.
struct SendableMutablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
}

/// The input, handed to the one worker that reads ahead.
struct SendableSource: @unchecked Sendable {
    let source: ByteSource
}

/// A pointer handed to worker threads that only read through it.
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafePointer<UInt8>
}

/// Slots that concurrent workers fill, one index each. Every slot starts as `empty`, so
/// reading a slot a worker has not filled gives that value, never a trap.
final class ResultSlots<T>: @unchecked Sendable {
    private var storage: [T]
    private let empty: T
    private let lock = NSLockLite()

    init(count: Int, empty: T) {
        self.empty = empty
        storage = Array(repeating: empty, count: count)
    }

    subscript(k: Int) -> T {
        get { lock.locked { storage[k] } }
        set {
            lock.locked { storage[k] = newValue }
        }
    }

    /// Moves the value out (leaving `empty`), so that the caller holds the only reference
    /// and mutates it in place.
    func take(_ k: Int) -> T {
        lock.locked {
            let v = storage[k]
            storage[k] = empty
            return v
        }
    }

    var values: [T] { lock.locked { storage } }
}

/// A minimal mutex over `pthread_mutex_t`, so the library needs no Foundation lock.
final class NSLockLite: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
