import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state of one run: global feature and device tables, the shards, the line counts.
final class TakingsEngine {
    let options: TakingsOptions
    let settings: MergeSettings
    let shards: [TakingsShard]
    var features: [String] = []
    /// Global feature index by the key's bytes: feature keys are compared as bytes, as
    /// ids are and as the SQL engines compare them, so `café` in NFC and in NFD are two
    /// keys (docs/takings.md), never merged by Swift's canonical equivalence.
    var featureIndex: [[UInt8]: Int] = [:]
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
    /// The two read buffers of JSON Lines and their capacity, and the parsed chunks whose
    /// storage the next parses take over, kept from one input to the next: memory new to
    /// the process costs a page fault and the kernel's zeroing per page, so an export in
    /// many files reuses what its first file touched.
    var readBuffers:
        (buffer: UnsafeMutablePointer<UInt8>, spare: UnsafeMutablePointer<UInt8>, capacity: Int)?
    let chunkSpares: ResultSlots<ParsedChunk>

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
        // One parser state per thread: each thread parses the pieces it takes in order.
        parserDevices = ResultSlots(count: options.threads, empty: DeviceInterner())
        parserDeviceMaps = Array(repeating: [], count: options.threads)
        chunkSpares = ResultSlots(
            count: options.threads * Self.piecesPerThread, empty: ParsedChunk())
    }

    deinit {
        if let kept = readBuffers {
            kept.buffer.deallocate()
            kept.spare.deallocate()
        }
    }

    /// Which charges' quantities the readers keep (those the pricing can cost).
    var keepQuantity: QuantityNeed { settings.quantities }

    // MARK: Reading

    func read(_ input: TakingsInput, index: Int) throws {
        let source = try ByteSource(input)
        let (peek, format) = try TakingsFormatDetector.peek(source, input)
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
                guard let p = buf.baseAddress else { return 0 }
                return try source.read(into: p, count: buf.count)
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
        var (buffer, spare, capacity) = takeReadBuffers(source, initial: initial)
        defer { readBuffers = (buffer, spare, capacity) }
        initial.withUnsafeBufferPointer {
            if let p = $0.baseAddress { buffer.update(from: p, count: $0.count) }
        }
        var filled = initial.count
        var eof = initial.isEmpty
        var readAhead = false
        var baseLine = 0
        var streamed = 0
        // The chunks of the block parsed last, merged during the next step.
        var pending: (chunks: [ParsedChunk], baseLine: Int)?
        // Chunks already merged, whose storage the next parses take over. A block is cut
        // into many more pieces than threads, which the threads take one by one, so that
        // they finish a step together (the step waits for its last piece).
        let parts = options.threads * Self.piecesPerThread
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
                    // No whole line in the block: twice the buffers, up to the longest line.
                    guard capacity < TakingsRun.maxLineBytes else {
                        throw TakingsInputError(
                            path: path,
                            message:
                                "line \(baseLine + 1) is longer than \(TakingsRun.maxLineBytes >> 20) MiB: is this JSON Lines?",
                            line: baseLine + 1)
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
            let (chunks, read) = step(
                StepBlock(
                    buffer: buffer, spare: spare, usable: usable, filled: filled,
                    capacity: capacity, final: final, parts: parts),
                source: source, merging: pending, input: input, path: path)
            pending = (chunks, baseLine)
            baseLine += chunks.reduce(0) { $0 + $1.lineCount }
            streamed += usable
            options.progress?.setBytes(bytesBefore + streamed)
            let n = try read.get()
            swap(&buffer, &spare)
            let carry = filled - usable
            filled = carry + n
            if !final, n < capacity - carry { eof = true }
            readAhead = true
            if eof && filled == 0 { break }
        }
        if let last = pending {
            pending = nil
            merge(last.chunks, input: input, path: path, baseLine: last.baseLine)
            for (p, merged) in last.chunks.enumerated() where p < parts { chunkSpares[p] = merged }
        }
    }

    /// The two read buffers for an input: those kept from the last input when they are
    /// large enough. Blocks of `chunkBytes` per thread, or smaller when the whole input is
    /// known to be smaller: one more byte than the input, so the first fill sees its end.
    private func takeReadBuffers(_ source: ByteSource, initial: [UInt8])
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int)
    {
        var capacity = max(initial.count, options.chunkBytes * options.threads)
        if let left = source.remaining {
            capacity = max(initial.count, min(capacity, initial.count + left + 1))
        }
        defer { readBuffers = nil }
        if let kept = readBuffers, kept.capacity >= capacity { return kept }
        if let kept = readBuffers {
            kept.buffer.deallocate()
            kept.spare.deallocate()
        }
        return (.allocate(capacity: capacity), .allocate(capacity: capacity), capacity)
    }

    /// One step's block: `usable` bytes of whole lines in `buffer` (of `filled`), the
    /// `spare` buffer that the tail and the next read go to.
    private struct StepBlock {
        let buffer: UnsafeMutablePointer<UInt8>
        let spare: UnsafeMutablePointer<UInt8>
        let usable: Int
        let filled: Int
        let capacity: Int
        let final: Bool
        let parts: Int
    }

    /// One step on every thread: thread 0 first carries the unparsed tail over to the
    /// spare buffer and reads the next block behind it; thread t < shards merges shard t
    /// of the previous block (`merging`). Then every thread parses the pieces it takes, in
    /// piece order, with its own parser state (its device table), so each state sees its
    /// pieces in order. Returns the block's chunks and what the read behind it gave.
    private func step(
        _ block: StepBlock, source: ByteSource,
        merging pending: (chunks: [ParsedChunk], baseLine: Int)?, input: Int, path: String
    ) -> ([ParsedChunk], Result<Int, TakingsInputError>) {
        let contexts =
            pending.map { prepare($0.chunks, input: input, path: path, baseLine: $0.baseLine) }
            ?? []
        let work = MergeWork(
            shards: shards, settings: settings, chunks: pending?.chunks ?? [],
            contexts: contexts, features: features, spill: spill)
        let merges = pending == nil ? 0 : shards.count
        let pieces = split(block.buffer, block.usable, parts: block.parts)
        let parsed = ResultSlots<ParsedChunk>(count: pieces.count, empty: ParsedChunk())
        let base = SendablePointer(pointer: UnsafePointer(block.buffer))
        let next = SendableMutablePointer(pointer: block.spare)
        let (keep, interners, spares) = (keepQuantity, parserDevices, chunkSpares)
        let (cursor, shardCount, parts, final) = (
            PieceCursor(), shards.count, block.parts, block.final
        )
        let reader = SendableSource(source: source)
        let read = ResultSlots<Result<Int, TakingsInputError>>(count: 1, empty: .success(0))
        let (carryFrom, carry) = (block.usable, block.filled - block.usable)
        let room = block.capacity - carry
        parallel(options.threads) { t in
            if t == 0 {
                if carry > 0 { next.pointer.update(from: base.pointer + carryFrom, count: carry) }
                read[0] =
                    final
                    ? .success(0)
                    : Result { () throws(TakingsInputError) in
                        try reader.source.fill(next.pointer + carry, count: room)
                    }
            }
            if t < merges { work.run(shard: t) }
            var devices = interners.take(t)
            while true {
                let p = cursor.take()
                guard p < pieces.count else { break }
                let (start, end) = pieces[p]
                parsed[p] = JSONLinesChunkParser.parse(
                    base.pointer + start, end - start, final: final && p == pieces.count - 1,
                    keepQuantity: keep, devices: &devices, worker: t, shards: shardCount,
                    reusing: p < parts ? spares.take(p) : ParsedChunk())
            }
            interners[t] = devices
        }
        for (p, merged) in (pending?.chunks ?? []).enumerated() where p < parts {
            spares[p] = merged
        }
        return (parsed.takeAll(), read[0])
    }

    /// Pieces of a block per thread: enough that the wait for a step's last piece is short.
    static let piecesPerThread = 16

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
        // Every chunk's new devices first, in input order, onto its parser's map: a map only
        // grows at its end, and a chunk's device indexes are below its length after that
        // chunk, so the map as it is after the last chunk serves every chunk of the call.
        // Appended while no context holds the map (the last call's are gone), it grows in
        // place; a copy per chunk with new devices, as each context once took its own map,
        // was 4% of the CPU time of the plain 200K export (perf).
        for chunk in chunks where chunk.worker >= 0 && !chunk.newDevices.isEmpty {
            for d in chunk.newDevices {
                parserDeviceMaps[chunk.worker].append(
                    Int(deviceNames.intern(d.h0, d.h1) { d.name }))
            }
        }
        var contexts: [ChunkContext] = []
        contexts.reserveCapacity(chunks.count)
        var base = baseLine
        for chunk in chunks {
            let featureMap = chunk.features.map { name -> Int in
                let bytes = Array(name.utf8)
                if let k = featureIndex[bytes] { return k }
                featureIndex[bytes] = features.count
                features.append(name)
                return features.count - 1
            }
            var deviceMap = chunk.worker >= 0 ? parserDeviceMaps[chunk.worker] : []
            if chunk.worker < 0, !chunk.newDevices.isEmpty {
                // A chunk of no persistent parser: its devices are its own.
                deviceMap.reserveCapacity(chunk.newDevices.count)
                for d in chunk.newDevices {
                    deviceMap.append(Int(deviceNames.intern(d.h0, d.h1) { d.name }))
                }
            }
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
}
