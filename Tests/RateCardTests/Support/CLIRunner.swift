import Foundation
import Testing

/// The result of running the built `margin` binary.
struct CLIResult {
    let stdout: String
    let stderr: String
    let status: Int32
}

/// The `margin` executable SwiftPM built next to the test bundle.
let marginBinary: String = {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("margin").path,
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("margin").path,
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("margin").path,
        packageRoot.appendingPathComponent(".build/debug/margin").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}()

/// Runs `margin` with `arguments` in `directory`, reading both pipes before waiting.
func runMargin(
    _ arguments: [String], in directory: String = packageRoot.path,
    environment: [String: String] = [:], stdin: String? = nil
) throws -> CLIResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: marginBinary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read stderr on another thread so that neither pipe can fill up and block the child.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CLIResult(
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), status: process.terminationStatus)
}

/// What one output stream of a `margin` run must hold, and how to say it in a failure.
struct OutputExpectation: Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    let description: String
    let holds: @Sendable (String) -> Bool

    init(_ description: String, _ holds: @escaping @Sendable (String) -> Bool) {
        self.description = description
        self.holds = holds
    }

    /// A string literal is the whole expected text.
    init(stringLiteral text: String) {
        self = .equals(text)
    }

    static func equals(_ text: String) -> Self {
        Self("be exactly \(excerpt(text))") { $0 == text }
    }

    static let empty = Self("be empty") { $0.isEmpty }

    /// Every fragment somewhere in the text.
    static func contains(_ fragments: String...) -> Self {
        Self("contain \(fragments.map { excerpt($0) }.joined(separator: " and "))") { text in
            fragments.allSatisfy { text.contains($0) }
        }
    }

    /// No fragment anywhere in the text.
    static func lacks(_ fragments: String...) -> Self {
        Self("not contain \(fragments.map { excerpt($0) }.joined(separator: " or "))") { text in
            !fragments.contains { text.contains($0) }
        }
    }

    static func hasPrefix(_ prefix: String) -> Self {
        Self("start with \(excerpt(prefix))") { $0.hasPrefix(prefix) }
    }

    /// Every expectation at once.
    static func all(_ expectations: OutputExpectation...) -> Self {
        Self(expectations.map(\.description).joined(separator: ", and ")) { text in
            expectations.allSatisfy { $0.holds(text) }
        }
    }

    /// A quoted excerpt short enough for a test log.
    static func excerpt(_ text: String, limit: Int = 500) -> String {
        text.count <= limit
            ? "\"\(text)\"" : "\"\(text.prefix(limit))…\" (\(text.count) characters)"
    }
}

/// Runs `margin` like `runMargin` and checks its exit status and, where given, its stdout
/// and stderr. A failure is reported at the caller's line (`sourceLocation`), naming the
/// command and what it printed, so a table of runs points at the failing row.
@discardableResult
func expectMargin(
    _ arguments: [String], in directory: String = packageRoot.path,
    environment: [String: String] = [:], stdin: String? = nil,
    exits status: Int32, stdout: OutputExpectation? = nil, stderr: OutputExpectation? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> CLIResult {
    let r = try runMargin(arguments, in: directory, environment: environment, stdin: stdin)
    let command = (["margin"] + arguments).joined(separator: " ")
    #expect(
        r.status == status,
        "\(command): exit status; stderr \(OutputExpectation.excerpt(r.stderr))",
        sourceLocation: sourceLocation)
    if let stdout {
        #expect(
            stdout.holds(r.stdout),
            "\(command): stdout should \(stdout), but is \(OutputExpectation.excerpt(r.stdout))",
            sourceLocation: sourceLocation)
    }
    if let stderr {
        #expect(
            stderr.holds(r.stderr),
            "\(command): stderr should \(stderr), but is \(OutputExpectation.excerpt(r.stderr))",
            sourceLocation: sourceLocation)
    }
    return r
}

/// A table's lines with each run of spaces made one, so that a row is matched by its cells
/// whatever the column widths.
func tableRows(_ text: String) -> [String] {
    text.split(separator: "\n").map {
        $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
