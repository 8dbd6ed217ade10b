/// Unchecked Sendable: one `RefundVerdict` is handed to every worker of one parallel step
/// (`refundVerdicts`). The buffers it points into outlive the step (they are borrowed by
/// `withUnsafe…BufferPointer` around it); `refunds` and `charges` are only read; worker `s`
/// writes `verdicts[j]` and `keptBy[j]` only for the refunds whose charge id falls in shard
/// `s`, so no two workers write one element, and the caller reads them after the step.
extension RefundVerdict: @unchecked Sendable {}
