/// Unchecked Sendable: each partition's files and buffers are written by the one task
/// that owns the partition at a time (the tasks of one step own disjoint partitions), and
/// what tasks share, the first failure and the removal, is behind the `shared` mutex. The
/// rest (`directory`, `partitions`, `bufferBytes`) is set once in `init`.
extension TakingsSpill: @unchecked Sendable {}
