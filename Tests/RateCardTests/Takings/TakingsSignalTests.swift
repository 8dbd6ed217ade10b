import Foundation
import Testing

@testable import RateCard

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 24 case 18: a partitioned `margin pnl --memory` run leaves no temporary file
/// behind, whichever of SIGHUP, SIGINT, SIGTERM or SIGQUIT ends it and whenever it
/// arrives: while the partitions are being created and written, or while they are merged.
/// Through the built binary, by sending the signals. (No timing is asserted: each delay
/// only moves where the signal lands; the directory must be empty in every case.)
@Suite("Takings: signals never leave temporary files", .serialized)
struct TakingsSignalTests {
    @Test(
        "the temporary directory is empty after the run ends by a signal at any moment",
        arguments: [SIGHUP, SIGINT, SIGTERM, SIGQUIT])
    func signalsCleanUp(signal sig: Int32) throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        var text = ""
        text.reserveCapacity(12 << 20)
        for i in 0..<100_000 {
            text += Takings.line(id: "c\(i)", extra: ",\"device\":\"d\(i % 50)\"") + "\n"
        }
        try dir.write("big.jsonl", text)
        try dir.write("tmp/.keep", "")
        var signalled = 0
        for delay in [0, 20_000, 60_000, 150_000, 300_000, 600_000] as [UInt32] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: marginBinary)
            process.arguments = [
                "pnl", dir.path + "/big.jsonl", "--memory", "1M", "--cards", repositoryCards,
                "--card", "voice-debrief", "--format", "csv", "--quiet",
            ]
            var env = ProcessInfo.processInfo.environment
            env["TMPDIR"] = dir.path + "/tmp"
            process.environment = env
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, sig)
            // A signal that lands before the handler is installed may be ignored (a parent
            // that ignores SIGHUP or SIGINT passes that on): the run then ends by itself, which
            // on a loaded machine takes a while. Either way nothing may be left.
            for _ in 0..<3600 where process.isRunning { usleep(50_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("margin did not stop on signal \(sig)")
            }
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { signalled += 1 }
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/tmp")
                .filter { $0 != ".keep" }
            #expect(left.isEmpty, "signal \(sig) after \(delay) µs left \(left)")
        }
        #expect(signalled > 0, "no run was ended by signal \(sig)")
    }

}
