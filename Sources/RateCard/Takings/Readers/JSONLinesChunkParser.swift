#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses a buffer of whole JSON Lines into a `ParsedChunk`.
enum JSONLinesChunkParser {
    /// `final` says this is the end of the input, so a last line without a newline may be
    /// a truncated one. `shards` is how many shards will merge the chunk (its records are
    /// grouped for them). `reusing` is a merged chunk whose storage the new one takes over.
    static func parse(
        _ base: UnsafePointer<UInt8>, _ count: Int, final: Bool, keepQuantity: QuantityNeed,
        devices: inout DeviceInterner, worker: Int, shards: Int = 1,
        reusing: ParsedChunk = ParsedChunk()
    ) -> ParsedChunk {
        var builder = ChunkBuilder(
            keepQuantity: keepQuantity, devices: devices, deferDevices: true, shards: shards,
            reusing: reusing)
        devices = DeviceInterner(capacity: 1)  // the builder now holds the only reference
        defer { devices = builder.devices }
        builder.reserve(count / 128 + 16)
        var scanner = EntryScanner()
        defer { scanner.release() }
        var start = 0
        var line: UInt32 = 0
        var blank = 0
        var fields = EntryScanner.Fields()
        while start < count {
            // Most lines are entries read in one pass, their end found on the way.
            if base[start] == UInt8(ascii: "{"),
                let n = scanner.scanLine(base + start, count - start, into: &fields)
            {
                builder.add(fields, scanner, line: line)
                line += 1
                start += n + 1
                continue
            }
            let rest = count - start
            let nl = memchrIndex(base + start, rest)
            let lineEnd = nl.map { start + $0 } ?? count
            let noNewline = nl == nil
            var k = start
            while k < lineEnd, base[k] == 0x20 || base[k] == 0x09 || base[k] == 0x0D { k += 1 }
            if k == lineEnd {
                blank += 1
            } else {
                do {
                    try scanner.scan(
                        base + start, lineEnd - start, truncatedAtEnd: final && noNewline,
                        into: &fields)
                    builder.add(fields, scanner, line: line)
                } catch {
                    builder.reject(line: line, error)
                }
            }
            line += 1
            start = lineEnd + 1
        }
        var chunk = builder.finish()
        chunk.worker = worker
        chunk.lineCount = Int(line)
        chunk.blankCount = blank
        return chunk
    }

    @inline(__always)
    static func memchrIndex(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard let hit = memchr(p, 0x0A, n) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(p)
    }
}
