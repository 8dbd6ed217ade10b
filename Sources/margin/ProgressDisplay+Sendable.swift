/// Unchecked Sendable: the timer's handler runs on the display's serial `queue`, and
/// `stop()` runs there too (`queue.sync`), so `drawn` and `stopped` are only touched on that
/// queue; `progress` is read through its atomics and the rest is set once in `init`.
extension ProgressDisplay: @unchecked Sendable {}
