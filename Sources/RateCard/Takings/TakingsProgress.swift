import Synchronization

/// How far a run has got, for a progress display: the engine adds to it after each
/// block, another thread reads it whenever it likes. Two relaxed atomic counters; the
/// engine never waits for the reader.
public final class TakingsProgress: Sendable {
    private let bytes = Atomic<Int>(0)
    private let entries = Atomic<Int>(0)
    private let total = Atomic<Int>(-1)

    public init() {}

    /// Bytes of the inputs read so far.
    public var bytesRead: Int { bytes.load(ordering: .relaxed) }
    /// Non-blank lines (entries, rejected or not) read so far.
    public var entriesRead: Int { entries.load(ordering: .relaxed) }
    /// The size of all inputs, when every one is a regular file; nil otherwise.
    public var totalBytes: Int? {
        let t = total.load(ordering: .relaxed)
        return t < 0 ? nil : t
    }

    func setTotal(_ n: Int?) {
        total.store(n ?? -1, ordering: .relaxed)
    }

    func setBytes(_ n: Int) {
        bytes.store(n, ordering: .relaxed)
    }

    func addEntries(_ n: Int) {
        entries.add(n, ordering: .relaxed)
    }
}
