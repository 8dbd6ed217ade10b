import Foundation
import RateCard

/// The progress line of a long `margin pnl` on a terminal: bytes read of the total,
/// entries per second and the time left, redrawn four times a second on standard error
/// and cleared at the end. Only on a terminal (never on a pipe or in a file), never under
/// `NO_COLOR` or `--quiet`, never on standard output.
final class ProgressDisplay {
    /// Whether a run shows progress: standard error is a terminal (not `TERM=dumb`),
    /// `NO_COLOR` is unset or empty, and `--quiet` was not given.
    static func isWanted(stderrIsTerminal: Bool, environment: [String: String], quiet: Bool) -> Bool
    {
        guard !quiet, stderrIsTerminal, environment["TERM"] != "dumb" else { return false }
        return environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Seconds before the first line, so that a short run shows nothing:
    /// `MARGIN_PROGRESS_AFTER` (for tests and demonstrations), else 1.
    static func delay(_ environment: [String: String]) -> Double {
        environment["MARGIN_PROGRESS_AFTER"].flatMap(Double.init).map { max(0, $0) } ?? 1
    }

    /// `margin pnl: 1.23 of 1.95 GB (63%), 6.12M entries, 2.01M entries/s, 0:02 left`
    static func line(bytes: Int, total: Int?, entries: Int, elapsed: Double) -> String {
        var s = "margin pnl: "
        if let total, total > 0 {
            let unit = byteUnit(total)
            s +=
                "\(scaled(bytes, unit)) of \(scaled(total, unit)) \(unit.name) (\(min(100, bytes * 100 / total))%)"
        } else {
            let unit = byteUnit(bytes)
            s += "\(scaled(bytes, unit)) \(unit.name) read"
        }
        s += ", \(count(entries)) entries"
        guard elapsed > 0 else { return s }
        s += ", \(count(Int(Double(entries) / elapsed)))/s"
        if let total, bytes > 0, bytes < total {
            let left = Double(total - bytes) / (Double(bytes) / elapsed)
            if left.isFinite, left < 360_000 {
                let seconds = Int(left.rounded(.up))
                s += ", \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60) left"
            }
        }
        return s
    }

    private static func byteUnit(_ n: Int) -> (name: String, divisor: Int) {
        n >= 1_000_000_000
            ? ("GB", 1_000_000_000) : n >= 1_000_000 ? ("MB", 1_000_000) : ("kB", 1000)
    }

    /// Two decimals of a unit, computed in integers.
    private static func scaled(_ n: Int, _ unit: (name: String, divisor: Int)) -> String {
        let hundredths = n / (unit.divisor / 100)
        return "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
    }

    private static func count(_ n: Int) -> String {
        if n >= 1_000_000 {
            return "\(n / 1_000_000).\(n / 10_000 % 100 < 10 ? "0" : "")\(n / 10_000 % 100)M"
        }
        if n >= 10_000 { return "\(n / 1000)k" }
        return "\(n)"
    }

    private let progress: TakingsProgress
    private let queue = DispatchQueue(label: "margin.progress")
    private let timer: DispatchSourceTimer
    private let started = DispatchTime.now()
    private var drawn = false
    private var stopped = false

    /// Starts drawing after `delay` seconds, every `interval` seconds.
    init(_ progress: TakingsProgress, delay: Double, interval: Double = 0.25) {
        self.progress = progress
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + delay, repeating: interval)
        timer.setEventHandler { [unowned self] in draw() }
        if delay == 0 { queue.sync { draw() } }
        timer.resume()
    }

    /// Stops the timer and clears the line, if one was drawn; no line is drawn after.
    func stop() {
        queue.sync {
            guard !stopped else { return }
            stopped = true
            timer.cancel()
            if drawn { ProgressDisplay.write("\r\u{1B}[K") }
        }
    }

    private func draw() {
        guard !stopped else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let text = ProgressDisplay.line(
            bytes: progress.bytesRead, total: progress.totalBytes, entries: progress.entriesRead,
            elapsed: elapsed)
        ProgressDisplay.write("\r\u{1B}[K" + text)
        drawn = true
    }

    private static func write(_ s: String) {
        let bytes = Array(s.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { b in
                b.baseAddress.map { Glibc.write(2, $0 + done, b.count - done) } ?? -1
            }
            if n <= 0 { return }
            done += n
        }
    }
}
