import Foundation
import Testing

@testable import margin

/// The progress line of `margin pnl`: on a terminal only, never on a pipe, under
/// `NO_COLOR` or `--quiet`, never on standard output.
@Suite(.serialized) struct PnLProgressTests {
    @Test(
        arguments: [
            (true, [:], false, true),
            (true, ["NO_COLOR": ""], false, true),
            (true, ["NO_COLOR": "1"], false, false),
            (true, [:], true, false),
            (true, ["TERM": "dumb"], false, false),
            (false, [:], false, false),
            (false, ["NO_COLOR": ""], false, false),
        ] as [(Bool, [String: String], Bool, Bool)])
    func showsOnlyOnATerminal(_ tty: Bool, _ env: [String: String], _ quiet: Bool, _ shown: Bool) {
        #expect(
            ProgressDisplay.isWanted(stderrIsTerminal: tty, environment: env, quiet: quiet) == shown
        )
    }

    @Test func lineSaysBytesRateAndTimeLeft() {
        #expect(
            ProgressDisplay.line(
                bytes: 975_000_000, total: 1_950_000_000, entries: 5_000_000, elapsed: 2)
                == "margin pnl: 0.97 of 1.95 GB (50%), 5.00M entries, 2.50M/s, 0:02 left")
        #expect(
            ProgressDisplay.line(bytes: 12_345_678, total: nil, entries: 64_000, elapsed: 0.5)
                == "margin pnl: 12.34 MB read, 64k entries, 128k/s")
        #expect(ProgressDisplay.delay(["MARGIN_PROGRESS_AFTER": "0"]) == 0)
        #expect(ProgressDisplay.delay([:]) == 1)
    }

    static let export =
        (1...2000).map {
            #"{"id":"c\#($0)","at":"2026-11-20T10:00:00Z","kind":"charge","amount":-50000,"feature":"debrief"}"#
        }.joined(separator: "\n") + "\n"

    @Test func neverOnAPipe() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("e.jsonl", Self.export)
        let args = [
            "pnl", dir.path + "/e.jsonl", "--cards", repositoryCards, "--card", "voice-debrief",
            "--format", "csv",
        ]
        let quiet = try runMargin(args + ["--quiet"])
        // Even with the first line due at once and NO_COLOR empty, a pipe gets none.
        let piped = try runMargin(
            args, environment: ["MARGIN_PROGRESS_AFTER": "0", "NO_COLOR": ""])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("margin pnl:"))
        #expect(!piped.stderr.contains("\r"))
        #expect(piped.stdout == quiet.stdout)
        #expect(piped.stdout.contains("debrief,2000,100000000,"))
    }

    /// Runs margin under `script`, so that standard error is a terminal; standard output
    /// goes to a file. Returns what reached the terminal and the file.
    func onTerminal(_ extra: String, environment: [String: String]) throws -> (
        terminal: String, stdout: String
    ) {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        try dir.write("e.jsonl", Self.export)
        let command =
            "'\(marginBinary)' pnl '\(dir.path)/e.jsonl' --cards '\(repositoryCards)' --card voice-debrief --format csv \(extra) > '\(dir.path)/out.csv'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let stdout = try String(contentsOfFile: dir.path + "/out.csv", encoding: .utf8)
        return (String(decoding: data, as: UTF8.self), stdout)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func onATerminalUnlessNoColorOrQuiet() throws {
        let shown = try onTerminal("", environment: ["MARGIN_PROGRESS_AFTER": "0", "NO_COLOR": ""])
        #expect(shown.terminal.contains("margin pnl: "))
        #expect(shown.terminal.contains("entries"))
        // Cleared at the end: the last thing on the terminal is the erase.
        #expect(shown.terminal.hasSuffix("\r\u{1B}[K"))
        #expect(!shown.stdout.contains("margin pnl:"))
        #expect(shown.stdout.contains("debrief,2000,100000000,"))
        let noColor = try onTerminal(
            "", environment: ["MARGIN_PROGRESS_AFTER": "0", "NO_COLOR": "1"])
        #expect(!noColor.terminal.contains("margin pnl:"))
        let quiet = try onTerminal(
            "--quiet", environment: ["MARGIN_PROGRESS_AFTER": "0", "NO_COLOR": ""])
        #expect(!quiet.terminal.contains("margin pnl:"))
        #expect(quiet.stdout == shown.stdout)
    }
}
