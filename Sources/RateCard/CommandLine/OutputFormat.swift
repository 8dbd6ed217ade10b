/// The formats every data command can write (`--format`; table when not given).
public enum OutputFormat: String, Sendable, CaseIterable, OptionChoice {
    case table, json, csv, markdown

    public static let noun = "format"
}
