import Foundation
import Testing

@testable import RateCard

/// The repository's real card, the base every bad-input case is made from.
let osgCardPath = packageRoot.appendingPathComponent("RateCards/osg-v10.json").path
let osgCardText: String = try! String(contentsOfFile: osgCardPath, encoding: .utf8)

/// The diagnostics loading `bytes` as `osg-v10.json` produces (empty when it loads).
func osgDiagnostics(_ bytes: [UInt8]) -> [Diagnostic] {
    do {
        _ = try CardFileLoader.load(bytes: bytes, path: "osg-v10.json")
        return []
    } catch {
        return error.items
    }
}

/// A copy of `RateCards/` whose `osg-v10.json` holds `bytes`, for running the CLI on it.
func cardsFolder(withOSG bytes: [UInt8]) throws -> (folder: TemporaryFolder, cards: String) {
    let folder = try TemporaryFolder()
    let cards = try folder.copyRepositoryCards()
    try Data(bytes).write(to: URL(fileURLWithPath: cards + "/osg-v10.json"))
    return (folder, cards)
}

/// Every value in a JSON document with its field path in the loader's notation
/// (`packs[0].prices[1].amount`), outermost first; the root has the path "".
func fieldPaths(_ node: JSONNode, _ path: String = "") -> [(path: String, node: JSONNode)] {
    var out = [(path, node)]
    switch node.value {
    case .array(let items):
        for (i, item) in items.enumerated() { out += fieldPaths(item, "\(path)[\(i)]") }
    case .object(let members):
        for m in members { out += fieldPaths(m.value, path.isEmpty ? m.key : "\(path).\(m.key)") }
    default:
        break
    }
    return out
}

/// Writes a JSON document one member or item per line, putting `replacement` in place of
/// the value at `target` and remembering the line and column where it was written.
struct LocatedJSONWriter {
    let target: String
    let replacement: String
    private(set) var text: [UInt8] = []
    private(set) var location: (line: Int, column: Int)?
    private var line = 1
    private var lineStart = 0

    init(replacing target: String, with replacement: String) {
        self.target = target
        self.replacement = replacement
    }

    mutating func write(_ node: JSONNode, path: String = "", indent: Int = 0) {
        if path == target {
            location = (line, text.count - lineStart + 1)
            emit(replacement)
            return
        }
        let pad = String(repeating: "  ", count: indent + 1)
        switch node.value {
        case .array(let items):
            emit("[")
            for (i, item) in items.enumerated() {
                newline(pad)
                write(item, path: "\(path)[\(i)]", indent: indent + 1)
                if i < items.count - 1 { emit(",") }
            }
            newline(String(repeating: "  ", count: indent))
            emit("]")
        case .object(let members):
            emit("{")
            for (i, m) in members.enumerated() {
                newline(pad)
                emit(Self.quoted(m.key) + ": ")
                write(m.value, path: path.isEmpty ? m.key : "\(path).\(m.key)", indent: indent + 1)
                if i < members.count - 1 { emit(",") }
            }
            newline(String(repeating: "  ", count: indent))
            emit("}")
        case .null: emit("null")
        case .bool(let b): emit(b ? "true" : "false")
        case .number(let n): emit(n)
        case .string(let s): emit(Self.quoted(s))
        }
    }

    private mutating func emit(_ s: String) { text += Array(s.utf8) }

    private mutating func newline(_ pad: String) {
        text.append(0x0A)
        line += 1
        lineStart = text.count
        emit(pad)
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// `text` with the first occurrence of `old` replaced by `new`; the test fails when
/// `old` is not there, so a changed fixture cannot make a case silently test nothing.
func replacingOnce(
    _ text: String, _ old: String, _ new: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> String {
    guard let range = text.range(of: old) else {
        Issue.record("'\(old)' is not in the card", sourceLocation: sourceLocation)
        return text
    }
    return text.replacingCharacters(in: range, with: new)
}
