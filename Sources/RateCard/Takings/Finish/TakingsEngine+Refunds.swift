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
        _ refunds: [PendingRefund], _ charges: [StoredEntry?], names: RefundNames,
        log: inout RejectionLog
    ) -> [Bool] {
        let (verdicts, keptBy) = refundVerdicts(refunds, charges)
        func place(_ meta: UInt64) -> TakingsPlace {
            let input = SlotMeta.input(meta)
            return TakingsPlace(
                input: input, path: input < settings.paths.count ? settings.paths[input] : "?",
                line: SlotMeta.line(meta))
        }
        // The messages, in the order the checks come: the charge itself, then its amount,
        // then one refund per charge.
        for j in refunds.indices {
            let meta = refunds[j].meta
            switch verdicts[j] {
            case .unknownCharge:
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: refund of an unknown charge \"\(names.text(refunds[j]))\" (no entry with that id in any input)"
                    ))
            case .notACharge:
                let kind = SlotMeta.kind(charges[j]?.meta ?? 0)
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .refundOfUnknownCharge,
                        message:
                            "refundOf: \"\(names.text(refunds[j]))\" is a \(kind.rawValue), not a charge"
                    ))
            case .otherFeature:
                let feature = refunds[j].feature
                let chargeFeature = SlotMeta.feature(charges[j]?.meta ?? 0) ?? 0
                log.add(
                    TakingsRejection(
                        place: place(meta), reason: .badValue,
                        message:
                            "feature: the refund is for \"\(features[feature])\" but charge \"\(names.text(refunds[j]))\" was for \"\(features[chargeFeature])\""
                    ))
            case .kept, .exceedsCharge, .givenBackBefore: break
            }
        }
        for j in refunds.indices where verdicts[j] == .exceedsCharge {
            let charged = -Int128(charges[j]?.amount ?? 0)
            let c = place(charges[j]?.meta ?? 0)
            log.add(
                TakingsRejection(
                    place: place(refunds[j].meta), reason: .refundExceedsCharge,
                    message:
                        "amount: the refund gives back \(refunds[j].amount) credits, but charge \"\(names.text(refunds[j]))\" (\(c.path):\(c.line)) charged \(charged)"
                ))
        }
        for j in refunds.indices where verdicts[j] == .givenBackBefore {
            let kept = place(refunds[keptBy[j]].meta)
            log.add(
                TakingsRejection(
                    place: place(refunds[j].meta), reason: .refundedTwice,
                    message:
                        "refundOf: charge \"\(names.text(refunds[j]))\" is already given back by \(kept.path):\(kept.line); a charge is given back once"
                ))
        }
        return verdicts.map { $0 == .kept }
    }

    /// What `checkRefunds` decides for each refund (a `RefundVerdict`), and for one
    /// rejected as a second refund of its charge the index of the one kept. Worked out
    /// shard by shard on the worker threads: all refunds of one charge name the same id,
    /// so they fall in one shard, whose table of earliest refunds is its own.
    func refundVerdicts(_ refunds: [PendingRefund], _ charges: [StoredEntry?]) -> (
        verdicts: [RefundVerdict.Code], keptBy: [Int]
    ) {
        var verdicts = [RefundVerdict.Code](repeating: .kept, count: refunds.count)
        var keptBy = [Int](repeating: -1, count: refunds.count)
        let count = shards.count
        verdicts.withUnsafeMutableBufferPointer { v in
            keptBy.withUnsafeMutableBufferPointer { k in
                refunds.withUnsafeBufferPointer { rs in
                    charges.withUnsafeBufferPointer { cs in
                        let work = RefundVerdict(
                            verdicts: v.baseAddress, keptBy: k.baseAddress, refunds: rs.baseAddress,
                            charges: cs.baseAddress, count: rs.count)
                        parallel(count) { s in work.decide(shard: s, of: count) }
                    }
                }
            }
        }
        return (verdicts, keptBy)
    }
}

/// The checks of the refunds whose charge id falls in one shard, on one worker thread.
/// Each writes only its own refunds' verdicts.
struct RefundVerdict {
    /// What is decided for one refund: kept, or why not (one byte, as the codes were).
    enum Code: UInt8 {
        case kept
        /// No entry has the id the refund names.
        case unknownCharge
        /// The entry it names is a grant, a top-up or a refund.
        case notACharge
        /// The charge is for another feature.
        case otherFeature
        /// It gives back more than the charge charged.
        case exceedsCharge
        /// An earlier refund (by time, then id hash) of the same charge is kept.
        case givenBackBefore
    }

    let verdicts: UnsafeMutablePointer<Code>?
    let keptBy: UnsafeMutablePointer<Int>?
    let refunds: UnsafePointer<PendingRefund>?
    let charges: UnsafePointer<StoredEntry?>?
    let count: Int

    func decide(shard s: Int, of shards: Int) {
        guard let verdicts, let keptBy, let refunds, let charges else { return }
        var candidates = 0
        for j in 0..<count where SlotMeta.shard(of: refunds[j].ref0, count: shards) == s {
            guard let charge = charges[j] else {
                verdicts[j] = .unknownCharge
                continue
            }
            guard SlotMeta.kind(charge.meta) == .charge else {
                verdicts[j] = .notACharge
                continue
            }
            let feature = refunds[j].feature
            if let chargeFeature = SlotMeta.feature(charge.meta), feature >= 0,
                feature < 0xFFFF, chargeFeature != feature
            {
                verdicts[j] = .otherFeature
                continue
            }
            if Int128(refunds[j].amount) > -Int128(charge.amount) {
                verdicts[j] = .exceedsCharge
                continue
            }
            candidates += 1
        }
        // One refund per charge: the earliest. Each charge id's slot holds the index of
        // its earliest refund so far. Sized for the candidates at most 80% full: a fresh
        // table is zeroed by the kernel page by page, so a larger one costs more than its
        // longer probes save.
        var first = DedupSlots(capacity: candidates * 5 / 4 + 16)
        defer { first.free() }
        @inline(__always) func order(_ j: Int) -> (Int64, UInt32, UInt64, UInt64) {
            (refunds[j].seconds, refunds[j].nanos, refunds[j].id0, refunds[j].id1)
        }
        @inline(__always) func isCandidate(_ j: Int) -> Bool {
            verdicts[j] == .kept && SlotMeta.shard(of: refunds[j].ref0, count: shards) == s
        }
        for j in 0..<count where isCandidate(j) {
            let (slot, inserted) = first.findOrInsert(
                id0: refunds[j].ref0, id1: refunds[j].ref1, meta: UInt64(j))
            guard !inserted else { continue }
            if order(j) < order(Int(slot.pointee.meta)) { slot.pointee.meta = UInt64(j) }
        }
        for j in 0..<count where isCandidate(j) {
            guard
                let k = first.lookup(id0: refunds[j].ref0, id1: refunds[j].ref1).map({
                    Int($0.meta)
                }),
                k != j
            else { continue }
            verdicts[j] = .givenBackBefore
            keptBy[j] = k
        }
    }
}
