/// The formats of `margin check --format`: text (findings and a summary on stderr, the
/// default), github (workflow commands on stdout) or json.
enum CheckFormat: String, Sendable, CaseIterable, OptionChoice {
    case text, github, json

    static let noun = "format"
}
