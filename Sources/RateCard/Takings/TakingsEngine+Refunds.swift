extension TakingsEngine {
    /// Which refunds are used: a refund must name a charge read in any input, of the same
    /// feature, and give back no more than it charged; a charge is given back at most
    /// once. The others are rejected with their place, and nothing of theirs is counted
    /// (neither given back nor in the outstanding balance).
    ///
    /// Of several refunds of one charge the earliest (by time, then by id hash) is kept,
    /// whatever order the inputs were read in, so the table does not depend on it.
    /// `known` gives the charges' amounts when the caller has them (the partitioned run);
    /// otherwise they are found in the shards.
    func checkRefunds(
        _ refunds: [PendingRefund], _ charges: [DedupSlots.Slot?], amounts known: [Int64?]? = nil,
        log: inout RejectionLog
    ) -> [Bool] {
        var keep = [Bool](repeating: false, count: refunds.count)
        func place(_ meta: UInt64) -> TakingsPlace {
            let input = SlotMeta.input(meta)
            return TakingsPlace(
                input: input, path: input < settings.paths.count ? settings.paths[input] : "?",
                line: SlotMeta.line(meta))
        }
        for (j, r) in refunds.enumerated() {
            guard let charge = charges[j] else {
                log.add(
                    TakingsRejection(
                        place: place(r.meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: refund of an unknown charge \"\(r.refundOf)\" (no entry with that id in any input)"
                    ))
                continue
            }
            guard SlotMeta.kind(charge.meta) == .charge else {
                log.add(
                    TakingsRejection(
                        place: place(r.meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: \"\(r.refundOf)\" is a \(SlotMeta.kind(charge.meta).rawValue), not a charge"
                    ))
                continue
            }
            if let chargeFeature = SlotMeta.feature(charge.meta), r.feature >= 0,
                r.feature < 0xFFFF, chargeFeature != r.feature
            {
                log.add(
                    TakingsRejection(
                        place: place(r.meta), reason: .badValue,
                        message:
                            "feature: the refund is for \"\(features[r.feature])\" but charge \"\(r.refundOf)\" was for \"\(features[chargeFeature])\""
                    ))
                continue
            }
            keep[j] = true
        }
        let amounts = known ?? chargeAmounts(of: refunds, where: keep)
        for j in refunds.indices where keep[j] {
            let charged = -Int128(amounts[j] ?? 0)
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
        // One refund per charge: the earliest.
        struct Key: Hashable { let a: UInt64, b: UInt64 }
        var first: [Key: Int] = [:]
        for j in refunds.indices where keep[j] {
            let r = refunds[j]
            let key = Key(a: r.ref0, b: r.ref1)
            if let k = first[key] {
                let o = refunds[k]
                if (r.seconds, r.nanos, r.id0, r.id1) < (o.seconds, o.nanos, o.id0, o.id1) {
                    first[key] = j
                }
            } else {
                first[key] = j
            }
        }
        for j in refunds.indices where keep[j] {
            let r = refunds[j]
            guard let k = first[Key(a: r.ref0, b: r.ref1)], k != j else { continue }
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

    /// The amount of the charge each wanted refund names: the shards' lists of charges
    /// are scanned once, against a small table of the ids wanted.
    private func chargeAmounts(of refunds: [PendingRefund], where wanted: [Bool]) -> [Int64?] {
        var amounts = [Int64?](repeating: nil, count: refunds.count)
        let n = wanted.filter { $0 }.count
        guard n > 0 else { return amounts }
        var table = DedupSlots(capacity: n * 2 + 16)
        defer { table.free() }
        // Refunds of one charge share a slot; the others find their charge through it.
        var sameAs = [Int](repeating: -1, count: refunds.count)
        for j in refunds.indices where wanted[j] {
            if case .duplicate = table.insert(
                id0: refunds[j].ref0, id1: refunds[j].ref1, content: 0, meta: UInt64(j)),
                let s = table.lookup(id0: refunds[j].ref0, id1: refunds[j].ref1)
            {
                sameAs[j] = Int(s.meta)
            }
        }
        for shard in shards {
            for c in shard.state.chargeAmounts {
                if let s = table.lookup(id0: c.id0, id1: c.id1) { amounts[Int(s.meta)] = c.amount }
            }
        }
        for j in refunds.indices where sameAs[j] >= 0 { amounts[j] = amounts[sameAs[j]] }
        return amounts
    }
}
