/// A strict RFC 8259 JSON parser that records the line and column of every value and key.
///
/// It rejects what Foundation tolerates: duplicate keys in one object, invalid UTF-8,
/// unescaped control characters, trailing commas, `NaN`, leading zeros, and anything after
/// the top-level value. Nesting deeper than `maxDepth` is an error, not a stack overflow.
/// A UTF-8 byte-order mark at the very start is skipped, as RFC 8259 allows.
struct JSONParser {
    /// How deeply arrays and objects may nest.
    static let maxDepth = 256

    /// Parses one complete JSON document.
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONNode {
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let lines = LineTable(bytes, firstLineStart: bom)
        let result = bytes.withUnsafeBufferPointer {
            buffer -> Result<JSONNode, JSONParseError> in
            var scanner = JSONScanner(capacity: buffer.count)
            defer { scanner.release() }
            scanner.reset(buffer.baseAddress ?? JSONScanner.emptyBase, buffer.count)
            scanner.i = bom
            do throws(JSONScanError) {
                scanner.skipWhitespace()
                guard scanner.i < buffer.count else {
                    return .failure(
                        JSONParseError(
                            "the file is empty: expected a JSON value",
                            at: lines.location(scanner.i)))
                }
                var tree = TreeSink(lines: lines)
                try scanner.scanValue(into: &tree, depth: 1, maxDepth: maxDepth)
                scanner.skipWhitespace()
                guard scanner.i == buffer.count, let root = tree.root else {
                    let found = JSONScanError(
                        .expectedValue, offset: scanner.i, found: scanner.current)
                    return .failure(
                        JSONParseError(
                            "unexpected \(describe(found.found)) after the end of the JSON value",
                            at: lines.location(scanner.i)))
                }
                return .success(root)
            } catch {
                return .failure(
                    JSONParseError(
                        error.message(in: .file, scanner: scanner, locate: lines.location),
                        at: lines.location(error.reportedOffset(in: .file))))
            }
        }
        return try result.get()
    }

    static func parse(_ text: String) throws(JSONParseError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    private static func describe(_ b: UInt8?) -> String {
        guard let b else { return "end of file" }
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    /// Turns byte offsets into lines and columns (columns count bytes from 1; a leading
    /// byte-order mark is not counted).
    struct LineTable {
        /// The offset where each line starts.
        private var starts: [Int]

        init(_ bytes: [UInt8], firstLineStart: Int) {
            starts = [firstLineStart]
            for (k, b) in bytes.enumerated() where b == 0x0A { starts.append(k + 1) }
        }

        func location(_ offset: Int) -> SourceLocation {
            // The last line starting at or before `offset`.
            var lo = 0
            var hi = starts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
            }
            return SourceLocation(line: lo + 1, column: offset - starts[lo] + 1)
        }
    }

    /// Builds the tree of `JSONNode`s from the scanner's events.
    private struct TreeSink: JSONEventSink {
        enum Open {
            case object(SourceLocation, [JSONMember], key: (String, SourceLocation)?)
            case array(SourceLocation, [JSONNode])
        }

        let lines: LineTable
        var stack: [Open] = []
        var root: JSONNode?

        init(lines: LineTable) {
            self.lines = lines
        }

        var wantsDecodedStrings: Bool { true }

        mutating func add(_ node: JSONNode) {
            guard let top = stack.popLast() else {
                root = node
                return
            }
            switch top {
            case .object(let at, var members, let key):
                if let (k, keyAt) = key {
                    members.append(JSONMember(key: k, keyLocation: keyAt, value: node))
                }
                stack.append(.object(at, members, key: nil))
            case .array(let at, var items):
                items.append(node)
                stack.append(.array(at, items))
            }
        }

        mutating func beginObject(at offset: Int) {
            stack.append(.object(lines.location(offset), [], key: nil))
        }

        mutating func key(_ key: JSONScanner.Span, at offset: Int, in scanner: JSONScanner) {
            guard case .object(let at, let members, _) = stack.popLast() else { return }
            stack.append(
                .object(at, members, key: (scanner.string(key) ?? "", lines.location(offset))))
        }

        mutating func endObject() {
            guard case .object(let at, let members, _) = stack.popLast() else { return }
            add(JSONNode(.object(members), at: at))
        }

        mutating func beginArray(at offset: Int) {
            stack.append(.array(lines.location(offset), []))
        }

        mutating func endArray() {
            guard case .array(let at, let items) = stack.popLast() else { return }
            add(JSONNode(.array(items), at: at))
        }

        mutating func string(_ value: JSONScanner.Span, at offset: Int, in scanner: JSONScanner) {
            add(JSONNode(.string(scanner.string(value) ?? ""), at: lines.location(offset)))
        }

        mutating func number(_ bytes: Range<Int>, in scanner: JSONScanner) {
            let text = String(
                decoding: UnsafeBufferPointer(
                    start: scanner.base + bytes.lowerBound, count: bytes.count),
                as: UTF8.self)
            add(JSONNode(.number(text), at: lines.location(bytes.lowerBound)))
        }

        mutating func bool(_ value: Bool, at offset: Int) {
            add(JSONNode(.bool(value), at: lines.location(offset)))
        }

        mutating func null(at offset: Int) {
            add(JSONNode(.null, at: lines.location(offset)))
        }
    }
}

/// A JSON syntax error and where it is.
struct JSONParseError: Error, Sendable, Hashable {
    let message: String
    let location: SourceLocation

    init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }
}
