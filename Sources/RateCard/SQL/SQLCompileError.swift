/// Why `margin pnl --sql` cannot write a query.
enum SQLCompileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A rule of the card or an option that SQL cannot compute exactly, and why.
    case cannotExpress(what: String, why: String)
    /// The input cannot be read by the engine's JSON Lines reader.
    case input(path: String, why: String)
    /// A usage the SQL form does not have.
    case usage(String)

    var description: String {
        switch self {
        case .cannotExpress(let what, let why): "cannot express \(what) in SQL: \(why)"
        case .input(let path, let why): "\(path): \(why)"
        case .usage(let message): message
        }
    }
}
