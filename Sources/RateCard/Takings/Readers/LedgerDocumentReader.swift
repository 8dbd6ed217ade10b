/// Reads a device ledger document: one JSON object whose `entries` array holds entries
/// (seed 000's `credit-ledger.json`).
///
/// The document is one device's log, small enough to parse whole with the strict
/// `JSONParser`. Each element is then checked by the same `EntryScanner` as JSON Lines,
/// so the rules and the content hash are identical. A top-level `"device"` string is
/// given to entries that carry no `device` of their own. Each element counts as one
/// line, numbered by the line where it starts.
enum LedgerDocumentReader {
    static func read(_ bytes: [UInt8], keepQuantity: QuantityNeed) -> ParsedChunk {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return whole(
                LineProblem(
                    error.message.contains("truncated") ? .truncated : .malformedJSON,
                    "the ledger document is not valid JSON: \(error.message)",
                    column: error.location.column),
                line: error.location.line)
        }
        guard let members = root.members else {
            return whole(
                LineProblem(
                    .wrongType,
                    "a ledger document is an object with an \"entries\" array, found \(root.value.kindName)"
                ), line: root.location.line)
        }
        guard let entriesNode = members.first(where: { $0.key == "entries" })?.value else {
            return whole(
                LineProblem(.missingField, "entries: missing required field of a ledger document"),
                line: root.location.line)
        }
        guard case .array(let elements) = entriesNode.value else {
            return whole(
                LineProblem(
                    .wrongType, "entries: expected an array, found \(entriesNode.value.kindName)"),
                line: entriesNode.location.line)
        }
        var device: JSONNode?
        if let d = members.first(where: { $0.key == "device" })?.value, case .string = d.value {
            device = d
        }

        var builder = ChunkBuilder(keepQuantity: keepQuantity)
        var scanner = EntryScanner()
        defer { scanner.release() }
        var lineNumbers: [Int] = []
        var text: [UInt8] = []
        for (k, element) in elements.enumerated() {
            lineNumbers.append(element.location.line)
            text.removeAll(keepingCapacity: true)
            var node = element
            if let device, case .object(var m) = element.value,
                !m.contains(where: { $0.key == "device" })
            {
                m.append(JSONMember(key: "device", keyLocation: element.location, value: device))
                node = JSONNode(.object(m), at: element.location)
            }
            TakingsJSONWriter.write(node, into: &text)
            do {
                let f = try text.withUnsafeBufferPointer { buf throws(LineProblem) in
                    try scanner.scan(buf.baseAddress ?? JSONScanner.emptyBase, buf.count)
                }
                builder.add(f, scanner, line: UInt32(k))
            } catch {
                builder.reject(
                    line: UInt32(k),
                    LineProblem(error.reason, error.message, column: element.location.column))
            }
        }
        var chunk = builder.finish()
        chunk.lineCount = elements.count
        chunk.lineNumbers = lineNumbers
        return chunk
    }

    /// A document that cannot be split into entries counts as one rejected line.
    private static func whole(_ problem: LineProblem, line: Int) -> ParsedChunk {
        var chunk = ParsedChunk()
        chunk.lineCount = 1
        chunk.problems = [(0, problem)]
        chunk.lineNumbers = [line]
        return chunk
    }
}

/// Writes a parsed JSON value back as compact JSON text (numbers exactly as written).
enum TakingsJSONWriter {
    static func write(_ node: JSONNode, into out: inout [UInt8]) {
        switch node.value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let s): out.append(contentsOf: s.utf8)
        case .string(let s): string(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (k, m) in members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                string(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) { JSONString.append(s, to: &out) }

    static func string(_ s: String) -> String { JSONString.quoted(s) }
}
