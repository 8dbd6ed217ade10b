/// The report as people, GitHub Actions and tools read it.
extension CheckReport {
    /// What `margin check` prints in `format`: text, the findings and the summary on
    /// stderr; github, workflow commands on stdout and the summary on stderr; json, stdout.
    func output(_ format: CheckFormat) -> CommandOutput {
        let parts: [CommandOutput.Part] =
            switch format {
            case .github: [.data(githubAnnotations()), .message(summary + "\n")]
            case .json: [.data(json())]
            case .text: [.diagnostics(diagnostics), .message(summary + "\n")]
            }
        return CommandOutput(parts, exitCode: exitCode)
    }

    /// "2 errors, 1 warning in 6 files"
    var summary: String {
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        return
            "\(count(errorCount, "error")), \(count(warningCount, "warning")) in \(count(files.count, "file"))"
    }

    /// One GitHub Actions workflow command per finding, each ending with a newline:
    /// `::error file=PATH,line=L,col=C,title=RULE::MESSAGE` (`::warning`, `::notice`).
    /// A load problem, which has no rule, is titled "margin".
    func githubAnnotations() -> String {
        var out = ""
        for d in diagnostics {
            let command =
                switch d.severity {
                case .error: "error"
                case .warning: "warning"
                case .note: "notice"
                }
            let properties = [
                "file=" + Self.githubProperty(d.path),
                "line=\(d.location.line)",
                "col=\(d.location.column)",
                "title=" + Self.githubProperty(d.rule?.id ?? "margin"),
            ]
            out +=
                "::\(command) \(properties.joined(separator:","))::\(Self.githubData(d.message))\n"
        }
        return out
    }

    /// A workflow command's message: `%`, CR and LF percent-encoded, so that a message can
    /// neither end the command early nor be read as a second one.
    static func githubData(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A workflow command's property value: as `githubData`, and `:` and `,`, which end a
    /// property.
    static func githubProperty(_ s: String) -> String {
        var out = ""
        for c in githubData(s).unicodeScalars {
            switch c {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `{"findings": [...], "summary": {...}}`, keys sorted, for tools.
    func json() -> String {
        let findings = diagnostics.map { d -> JSONOutput in
            .object([
                "path": .string(d.path),
                "line": .integer(Int128(d.location.line)),
                "column": .integer(Int128(d.location.column)),
                "severity": .string(d.severity.rawValue),
                "rule": d.rule.map { .string($0.id) } ?? .null,
                "message": .string(d.message),
            ])
        }
        let summary: JSONOutput = .object([
            "errors": .integer(Int128(errorCount)),
            "warnings": .integer(Int128(warningCount)),
            "files": .array(files.map(JSONOutput.string)),
            "unreadable": .bool(unreadable),
            "exitCode": .integer(Int128(exitCode)),
        ])
        return JSONOutput.object(["findings": .array(findings), "summary": summary]).rendered()
    }
}
