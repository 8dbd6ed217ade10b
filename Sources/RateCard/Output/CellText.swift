/// How text that came from an input file (a feature key from an export, a rejection
/// message quoting a line) is made safe for each output format.
///
/// Numbers are never passed through these: a negative amount stays a number.
enum CellText {
    /// The characters a spreadsheet reads as the start of a formula (OWASP, "CSV
    /// Injection"): `=`, `+`, `-`, `@`, tab and carriage return.
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// A CSV text cell that a spreadsheet will show as text: a cell starting with a formula
    /// character gets a single quote in front (`=HYPERLINK(…)` → `'=HYPERLINK(…)`), as
    /// OWASP recommends. Quoting for commas and quotes is `TextTable.csv`'s job.
    static func csvNeutralised(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, formulaStarts.contains(first) else { return s }
        return "'" + s
    }

    /// Inline Markdown characters escaped with a backslash (CommonMark allows a backslash
    /// before any ASCII punctuation), the `:` of a `scheme://` (so GitHub does not make it a
    /// link), and line breaks, which would end a table row, as spaces: the text renders
    /// literally, never as emphasis, a link, HTML or code.
    static func markdownEscaped(_ s: String) -> String {
        var out = ""
        let scalars = Array(s.unicodeScalars)
        for (i, u) in scalars.enumerated() {
            switch u {
            case ":" where scalars[(i + 1)...].starts(with: ["/", "/"]),
                "\\", "`", "*", "_", "[", "]", "<", ">", "|", "~", "&", "#", "!", "(", ")":
                out += "\\"
                out.unicodeScalars.append(u)
            case "\n", "\r":
                out += " "
            default:
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Control characters (which could move a terminal's cursor or change its colours)
    /// shown as U+FFFD.
    static func terminalSafe(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for u in s.unicodeScalars { out.unicodeScalars.append(isControl(u) ? "\u{FFFD}" : u) }
        return out
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value)
    }
}
