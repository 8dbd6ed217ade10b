// The handoff wrappers of `WorkerHandoff.swift` are Sendable by these rules, which the
// compiler cannot check: each names who may write through what it carries, and when.

/// A block of the double buffer: written only by the one worker that reads the input into
/// it in a step, and read by the parsers only in the next step, after that one has joined.
extension SendableMutablePointer: @unchecked Sendable {}

/// The input: read only by the one worker that reads ahead in a step; the calling thread
/// touches it only between steps.
extension SendableSource: @unchecked Sendable {}

/// A block every worker of a step only reads; nothing writes it until the step has joined.
extension SendablePointer: @unchecked Sendable {}

/// Per-refund result slots: slot `j` is written only by the worker that owns the shard of
/// refund `j`'s charge id, and read by the caller after the step.
extension SendableSlots: @unchecked Sendable {}

/// The pending refunds: only read by the workers; the array outlives the step.
extension SendableRefunds: @unchecked Sendable {}
