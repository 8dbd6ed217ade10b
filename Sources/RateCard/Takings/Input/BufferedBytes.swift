/// Byte-at-a-time reading over a `ByteSource` through a buffer of up to 1 MiB (no larger
/// than the rest of the input, when its size is known), for the formats that are not the
/// hot path (CSV, roll-ups). Nothing is held beyond the current record.
struct BufferedBytes {
    static let blockLimit = 1 << 20
    private let source: ByteSource
    /// Starts as the bytes already read (the format detector's peek), then is refilled
    /// from the source.
    private var buffer: [UInt8]
    private var position = 0
    private var count: Int
    private(set) var failure: TakingsInputError?

    init(_ source: ByteSource, initial: [UInt8]) {
        self.source = source
        buffer = initial
        count = initial.count
    }

    mutating func next() -> UInt8? {
        if position < count {
            defer { position += 1 }
            return buffer[position]
        }
        guard failure == nil else { return nil }
        if source.atKnownEnd { return nil }
        do {
            let size = source.blockSize(limit: BufferedBytes.blockLimit)
            if buffer.count < size {
                buffer = [UInt8](repeating: 0, count: size)
            }
            let n = try buffer.withUnsafeMutableBufferPointer { buf throws(TakingsInputError) in
                try source.read(into: buf.baseAddress!, count: buf.count)
            }
            guard n > 0 else { return nil }
            count = n
            position = 0
            return next()
        } catch {
            failure = error
            return nil
        }
    }

    mutating func peek() -> UInt8? {
        guard let b = next() else { return nil }
        position -= 1
        return b
    }

    /// The next line without its newline (a trailing `\r` kept), or nil at the end.
    mutating func nextLine() -> (bytes: [UInt8], endsWithNewline: Bool)? {
        var line: [UInt8] = []
        var any = false
        while let b = next() {
            any = true
            if b == 0x0A { return (line, true) }
            line.append(b)
            if line.count > TakingsRun.maxLineBytes { return (line, false) }
        }
        return any ? (line, false) : nil
    }
}

/// RFC 4180 records: fields separated by commas, optionally double-quoted with `""` for
/// a quote; a quoted field may hold commas and newlines. CRLF or LF line ends.
struct CSVRecordReader {
    var bytes: BufferedBytes
    /// The 1-based line the next record starts on.
    private(set) var line = 1

    init(_ bytes: BufferedBytes) {
        self.bytes = bytes
        if bytes.failure == nil {
            // A UTF-8 byte-order mark (as spreadsheets write) is skipped.
            var probe = self.bytes
            if probe.next() == 0xEF, probe.next() == 0xBB, probe.next() == 0xBF {
                self.bytes = probe
            }
        }
    }

    /// The next record and the line it starts on; a problem (unterminated quote, stray
    /// quote) still consumes the record.
    mutating func next() -> (line: Int, fields: [[UInt8]], problem: LineProblem?)? {
        guard bytes.peek() != nil else { return nil }
        let start = line
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var problem: LineProblem?
        var column = 1
        var fieldColumn = 1
        while true {
            guard let b = bytes.next() else {
                fields.append(field)
                return (start, fields, problem)
            }
            column += 1
            if b == UInt8(ascii: "\"") && field.isEmpty {
                // Quoted field.
                var closed = false
                while let q = bytes.next() {
                    if q == UInt8(ascii: "\"") {
                        if bytes.peek() == UInt8(ascii: "\"") {
                            _ = bytes.next()
                            field.append(q)
                            continue
                        }
                        closed = true
                        break
                    }
                    if q == 0x0A { line += 1 }
                    field.append(q)
                }
                if !closed {
                    fields.append(field)
                    return (
                        start, fields,
                        LineProblem(
                            .truncated, "unterminated quoted field: the input ends inside quotes",
                            column: fieldColumn)
                    )
                }
                let after = bytes.peek()
                if after != nil, after != UInt8(ascii: ","), after != 0x0A, after != 0x0D,
                    problem == nil
                {
                    problem = LineProblem(
                        .malformedJSON, "text after a closing quote in a CSV field",
                        column: fieldColumn)
                }
                continue
            }
            switch b {
            case UInt8(ascii: ","):
                fields.append(field)
                field = []
                fieldColumn = column
            case 0x0A:
                line += 1
                if field.last == 0x0D { field.removeLast() }
                fields.append(field)
                return (start, fields, problem)
            case UInt8(ascii: "\""):
                if problem == nil {
                    problem = LineProblem(
                        .malformedJSON, "a quote inside an unquoted CSV field", column: column - 1)
                }
                field.append(b)
            default:
                field.append(b)
            }
        }
    }
}
