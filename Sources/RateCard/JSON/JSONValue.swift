/// A place in a text file: 1-based line and 1-based column (in bytes of UTF-8).
struct SourceLocation: Sendable, Hashable, Comparable {
    let line: Int
    let column: Int

    static let start = SourceLocation(line: 1, column: 1)
    /// About a file as a whole (`path: warning: …`, no line or column).
    static let wholeFile = SourceLocation(line: 0, column: 0)

    static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// A parsed JSON value that remembers where it was written.
///
/// Numbers keep their source text so that they can be read exactly (never through a
/// binary floating point). Object members keep their order and the place of each key.
struct JSONNode: Sendable, Hashable {
    let value: JSONValue
    let location: SourceLocation

    init(_ value: JSONValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

/// The kinds of JSON value.
indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text exactly as written, e.g. "28", "-0.5", "1e3".
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([JSONMember])

    /// A word for the kind of value, used in "expected a string, found a number".
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One `"key": value` pair of an object.
struct JSONMember: Sendable, Hashable {
    let key: String
    let keyLocation: SourceLocation
    let value: JSONNode
}

extension JSONNode {
    /// The member named `key` when this is an object.
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The object's members, or nil when this is not an object.
    var members: [JSONMember]? {
        if case .object(let m) = value { return m }
        return nil
    }
}
