/// An option value that is one of a fixed set of words, such as `--format json` (the
/// enumerations argument-parser reads with `ExpressibleByArgument`). Every command reads
/// one through `ParsedArguments.choice`, so an unknown word gets the same answer everywhere.
protocol OptionChoice: RawRepresentable<String>, CaseIterable, Sendable {
    /// What the word names, as in "unknown format 'xml'".
    static var noun: String { get }
}

extension OptionChoice {
    /// The case spelled `text`; anything else is bad usage naming the words allowed.
    init(choosing text: String) throws(UsageError) {
        guard let value = Self(rawValue: text) else {
            let words = Self.allCases.map(\.rawValue)
            let hint = FieldReader.closest(text, in: words).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError(
                "unknown \(Self.noun) '\(text)'\(hint) (one of: \(words.joined(separator: ", ")))")
        }
        self = value
    }
}
