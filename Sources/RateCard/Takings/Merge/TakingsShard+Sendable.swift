/// Unchecked Sendable: a shard's state (`state`, `table`) is mutated only by the one task
/// that merges it in a step (task `s` owns shard `s`, `MergeWork.run(shard:)`), and read on
/// the calling thread between steps, after the parallel step has joined.
extension TakingsShard: @unchecked Sendable {}
