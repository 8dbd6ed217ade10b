/// An option value that parses itself from its text (in the spirit of argument-parser's
/// `ExpressibleByArgument`): money, byte sizes, FX rates, tax and commission rates, times.
/// A bad value is one `UsageError`, worded in one place for every kind and every command:
/// `--name TEXT: reason`, the reason being the value's own or "expected …".
protocol OptionValue: Sendable {
    /// What a value looks like, for the message: "a size such as 256M or 2G".
    static var expected: String { get }
    /// The value `text` spells; an `OptionValueProblem` when it spells none.
    init(optionText text: String) throws(OptionValueProblem)
}

/// Why an option's text is not a value: a reason more precise than "expected …", or none.
struct OptionValueProblem: Error, Sendable, Hashable {
    let reason: String?

    init(_ reason: String? = nil) {
        self.reason = reason
    }

    /// The text is not of the expected shape at all.
    static let unexpected = OptionValueProblem()
}

extension ParsedArguments {
    /// The value of option `name` as a `T`; nil when it is not given.
    func value<T: OptionValue>(_ name: String, as type: T.Type) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        return try T.parse(option: name, text)
    }

    /// Every value of the repeatable option `name`, each as a `T`.
    func values<T: OptionValue>(_ name: String, as type: T.Type) throws(UsageError) -> [T] {
        var result: [T] = []
        for text in all(name) { result.append(try T.parse(option: name, text)) }
        return result
    }
}

extension OptionValue {
    /// `text`, given to `--option`, as a value; otherwise the one message.
    static func parse(option: String, _ text: String) throws(UsageError) -> Self {
        do {
            return try Self(optionText: text)
        } catch {
            throw UsageError("--\(option) \(text): \(error.reason ?? "expected \(expected)")")
        }
    }
}
