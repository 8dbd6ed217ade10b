/// The formats every data command can write (`--format`; table when not given).
enum OutputFormat: String, Sendable, CaseIterable, OptionChoice {
    case table, json, csv, markdown

    static let noun = "format"
}
