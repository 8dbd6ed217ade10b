extension TakingsEngine {
    /// Which refunds are used: a refund must name a charge read in any input, of the same
    /// feature, and give back no more than it charged; a charge is given back at most
    /// once. The others are rejected with their place, and nothing of theirs is counted
    /// (neither given back nor in the outstanding balance).
    ///
    /// Of several refunds of one charge the earliest (by time, then by id hash) is kept,
    /// whatever order the inputs were read in, so the table does not depend on it. A
    /// charge's amount comes with its table entry (`charges[j]` for `refunds[j]`).
    func checkRefunds(
        _ refunds: [PendingRefund], _ charges: [StoredEntry?], log: inout RejectionLog
    ) -> [Bool] {
        var keep = [Bool](repeating: false, count: refunds.count)
        func place(_ meta: UInt64) -> TakingsPlace {
            let input = SlotMeta.input(meta)
            return TakingsPlace(
                input: input, path: input < settings.paths.count ? settings.paths[input] : "?",
                line: SlotMeta.line(meta))
        }
        for j in refunds.indices {
            let (meta, feature) = (refunds[j].meta, refunds[j].feature)
            guard let charge = charges[j] else {
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: refund of an unknown charge \"\(refunds[j].refundOf)\" (no entry with that id in any input)"
                    ))
                continue
            }
            guard SlotMeta.kind(charge.meta) == .charge else {
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: \"\(refunds[j].refundOf)\" is a \(SlotMeta.kind(charge.meta).rawValue), not a charge"
                    ))
                continue
            }
            if let chargeFeature = SlotMeta.feature(charge.meta), feature >= 0,
                feature < 0xFFFF, chargeFeature != feature
            {
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .badValue,
                        message:
                            "feature: the refund is for \"\(features[feature])\" but charge \"\(refunds[j].refundOf)\" was for \"\(features[chargeFeature])\""
                    ))
                continue
            }
            keep[j] = true
        }
        for j in refunds.indices where keep[j] {
            let charged = -Int128(charges[j]?.amount ?? 0)
            if Int128(refunds[j].amount) > charged {
                keep[j] = false
                let c = place(charges[j]?.meta ?? 0)
                log.add(
                    TakingsRejection(
                        place: place(refunds[j].meta), reason: .refundExceedsCharge,
                        message:
                            "amount: the refund gives back \(refunds[j].amount) credits, but charge \"\(refunds[j].refundOf)\" (\(c.path):\(c.line)) charged \(charged)"
                    ))
            }
        }
        // One refund per charge: the earliest. Each charge id's slot holds the index of
        // its earliest refund so far.
        // Sized for the kept refunds at most 80% full: a fresh table is zeroed by the
        // kernel page by page, so a larger one costs more than its longer probes save.
        var first = DedupSlots(capacity: refunds.count * 5 / 4 + 16)
        defer { first.free() }
        // Fields are read in place: a whole refund copied out retains its `refundOf`.
        @inline(__always) func order(_ j: Int) -> (Int64, UInt32, UInt64, UInt64) {
            (refunds[j].seconds, refunds[j].nanos, refunds[j].id0, refunds[j].id1)
        }
        for j in refunds.indices where keep[j] {
            let (slot, inserted) = first.findOrInsert(
                id0: refunds[j].ref0, id1: refunds[j].ref1, meta: UInt64(j))
            guard !inserted else { continue }
            if order(j) < order(Int(slot.pointee.meta)) { slot.pointee.meta = UInt64(j) }
        }
        for j in refunds.indices where keep[j] {
            guard
                let k = first.lookup(id0: refunds[j].ref0, id1: refunds[j].ref1).map({
                    Int($0.meta)
                }), k != j
            else { continue }
            let r = refunds[j]
            keep[j] = false
            let kept = place(refunds[k].meta)
            log.add(
                TakingsRejection(
                    place: place(r.meta), reason: .refundedTwice,
                    message:
                        "refundOf: charge \"\(r.refundOf)\" is already given back by \(kept.path):\(kept.line); a charge is given back once"
                ))
        }
        return keep
    }
}
