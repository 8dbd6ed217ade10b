/// An option value that parses itself from its text (in the spirit of argument-parser's
/// `ExpressibleByArgument`): money, byte sizes, FX rates, dates. A bad value is a
/// `UsageError` naming the option, the text and what was expected, worded in one place.
public protocol OptionValue: Sendable {
    /// What the value is, for the message: "a date (YYYY-MM-DD)", "a percentage".
    static var expected: String { get }
    /// The value `text` spells, or nil when it spells none (the caller words the error);
    /// throw a `UsageError` only for a reason more precise than "expected …".
    init?(optionText text: String) throws(UsageError)
}

extension ParsedArguments {
    /// The value of option `name` as a `T`; nil when it is not given.
    public func value<T: OptionValue>(_ name: String, as type: T.Type) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        return try T.parse(option: name, text)
    }

    /// Every value of the repeatable option `name`, each as a `T`.
    public func values<T: OptionValue>(_ name: String, as type: T.Type) throws(UsageError) -> [T] {
        var result: [T] = []
        for text in all(name) { result.append(try T.parse(option: name, text)) }
        return result
    }
}

extension OptionValue {
    static func parse(option: String, _ text: String) throws(UsageError) -> Self {
        guard let value = try Self(optionText: text) else {
            throw UsageError("option '--\(option)': '\(text)' is not \(Self.expected)")
        }
        return value
    }
}
