/// Machine output: a JSON value written with sorted keys, two-space indentation and a
/// final newline, byte-identical for the same value.
indirect enum JSONOutput: Sendable, Hashable {
    case null
    case bool(Bool)
    /// Written as a JSON string: exact decimal text of money and credits.
    case string(String)
    /// Written bare: only for counts and other plain integers.
    case integer(Int128)
    case array([JSONOutput])
    case object([String: JSONOutput])

    /// An exact decimal as a string ("11.25", "0.0000000000004"), by the one rule of
    /// `Exact.decimalText(maxScale:)`: exact whenever the expansion terminates, otherwise
    /// rounded half-even to `Exact.nonTerminatingPlaces` (12) places. Every command's JSON
    /// writes decimals through this (or `money(_:)`).
    static func decimal(_ v: Exact) -> JSONOutput { .string(v.decimalText()) }

    /// Money as `{"amount": "11.25", "currency": "CNY"}`.
    static func money(_ m: Money) -> JSONOutput {
        .object(["amount": .string(m.amount.decimalText()), "currency": .string(m.currency.code)])
    }

    func rendered() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out + "\n"
    }

    private func write(into out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let close = String(repeating: "  ", count: indent)
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .string(let s): out += JSONOutput.quote(s)
        case .array(let a):
            if a.isEmpty {
                out += "[]"
                return
            }
            out += "[\n"
            for (i, v) in a.enumerated() {
                out += pad
                v.write(into: &out, indent: indent + 1)
                out += i == a.count - 1 ? "\n" : ",\n"
            }
            out += close + "]"
        case .object(let o):
            if o.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            let sorted = o.sorted {
                Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8))
            }
            for (i, member) in sorted.enumerated() {
                out += pad + JSONOutput.quote(member.key) + ": "
                member.value.write(into: &out, indent: indent + 1)
                out += i == sorted.count - 1 ? "\n" : ",\n"
            }
            out += close + "}"
        }
    }

    /// A JSON string literal, escaped as every JSON the tool writes (`JSONString`).
    static func quote(_ s: String) -> String { JSONString.quoted(s) }
}
