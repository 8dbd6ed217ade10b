import Testing

@testable import margin

/// Bad usage answers alike in every command (one mapping, `MessageInfo`): nothing on
/// stdout; `margin: error: message` and the command's usage line on stderr; exit 2.
@Suite struct UsageErrorTests {
    /// Each command's usage line, as its `--help` prints it.
    static let usage: [String: String] = Dictionary(
        uniqueKeysWithValues: MarginCLI.commands.map { ($0.name, $0.usage) })

    static let formatWords = "(one of: table, json, csv, markdown)"

    @Test(arguments: [
        (["packs", "--format", "xml"], "unknown format 'xml' \(formatWords)"),
        (["plans", "--format", "xml"], "unknown format 'xml' \(formatWords)"),
        (["storefronts", "--format", "xml"], "unknown format 'xml' \(formatWords)"),
        (["diff", "osg@10", "osg@11", "--format", "xml"], "unknown format 'xml' \(formatWords)"),
        (["pnl", "e.jsonl", "--format", "xml"], "unknown format 'xml' \(formatWords)"),
        (["check", "--format", "xml"], "unknown format 'xml' (one of: text, github, json)"),
        (["packs", "--format=jsn"], "unknown format 'jsn'; did you mean 'json'? \(formatWords)"),
        (
            ["check", "--format", "githb"],
            "unknown format 'githb'; did you mean 'github'? (one of: text, github, json)"
        ),
        (["report", "--format", "xml"], "unknown option '--format'"),
        (["publish", "card.json", "--format", "xml"], "unknown option '--format'"),
    ])
    func anUnknownFormatIsBadUsage(arguments: [String], message: String) throws {
        try expectBadUsage(arguments, message)
    }

    @Test(arguments: [
        (["packs", "--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
        (["plans", "--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
        (["storefronts", "--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
        (
            ["diff", "osg@10", "osg@11", "--formt", "json"],
            "unknown option '--formt'; did you mean '--format'?"
        ),
        (
            ["pnl", "e.jsonl", "--formt", "json"],
            "unknown option '--formt'; did you mean '--format'?"
        ),
        (["check", "--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
        (["report", "--chek"], "unknown option '--chek'; did you mean '--check'?"),
        (
            ["publish", "card.json", "--lok", "x"],
            "unknown option '--lok'; did you mean '--lock'?"
        ),
    ])
    func anUnknownOptionIsBadUsage(arguments: [String], message: String) throws {
        try expectBadUsage(arguments, message)
    }

    @Test(arguments: [
        (["packs", "--cards"], "option '--cards' needs a value (DIR)"),
        (["plans", "--format"], "option '--format' needs a value (FORMAT)"),
        (["storefronts", "--at"], "option '--at' needs a value (DATE)"),
        (
            ["diff", "osg@10", "osg@11", "--commission"],
            "option '--commission' needs a value (RATES)"
        ),
        (["pnl", "e.jsonl", "--window"], "option '--window' needs a value (WINDOW)"),
        (["check", "--lock"], "option '--lock' needs a value (FILE)"),
        (["report", "--out"], "option '--out' needs a value (DIR)"),
        (["publish", "card.json", "--lock"], "option '--lock' needs a value (FILE)"),
    ])
    func aMissingValueIsBadUsage(arguments: [String], message: String) throws {
        try expectBadUsage(arguments, message)
    }

    /// Usage errors a command finds after parsing (not the parser) take the same path.
    @Test(arguments: [
        (
            ["diff", "osg@10"],
            "expected two cards, OLD and NEW (card files or id@version), found 1"
        ),
        (["publish"], "give the card file to publish"),
        (["report", "extra"], "'margin report' takes no arguments (got 'extra'); use --cards DIR"),
        (
            ["packs", "--commission", "1.5"],
            "--commission 1.5: '1.5' must be from 0 to below 1 (0.15 or 15%)"
        ),
        (["pnl"], "give at least one export file (or - for standard input)"),
        // `--memory` caps a replay's entries: without the replay it is not ignored.
        (["check", "--memory", "1G"], "--memory needs --replay"),
        (["diff", "osg@10", "osg@11", "--memory", "1G"], "--memory needs --usage"),
    ])
    func aCommandsOwnUsageErrorIsBadUsage(arguments: [String], message: String) throws {
        try expectBadUsage(arguments, message)
    }

    /// `--help` wins over a bad option beside it.
    @Test func helpBesideABadOptionIsHelp() throws {
        let help = try #require(MarginCLI.commands.first { $0.name == "packs" }).help
        try expectMargin(
            ["packs", "--formt", "json", "--help"], exits: 0, stdout: .equals(help),
            stderr: .empty)
    }

    func expectBadUsage(
        _ arguments: [String], _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let usage = try #require(Self.usage[arguments[0]], sourceLocation: sourceLocation)
        try expectMargin(
            arguments, exits: 2, stdout: .empty,
            stderr: .equals("margin: error: \(message)\nUsage: \(usage)\n"),
            sourceLocation: sourceLocation)
    }
}
