import Foundation

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
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("margin").path,
        packageRoot.appendingPathComponent(".build/debug/margin").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}()

/// Runs `margin` with `arguments` in `directory`, reading both pipes before waiting.
func runMargin(_ arguments: [String], in directory: String = packageRoot.path, environment: [String: String] = [:], stdin: String? = nil) throws -> CLIResult {
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
    return CLIResult(stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self), status: process.terminationStatus)
}
