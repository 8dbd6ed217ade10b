/// A refund waiting for all input to be read, when its charge can be looked up. Plain
/// numbers only: the id it names (`refundOf`, for messages) is in a `RefundNames` list, so
/// that hundreds of thousands of refunds are copied, merged and freed as bytes, without
/// a string each to retain and release.
struct PendingRefund {
    var id0: UInt64
    var id1: UInt64
    var ref0: UInt64
    var ref1: UInt64
    var meta: UInt64
    var feature: Int
    var amount: Int64
    var seconds: Int64
    var nanos: UInt32
    /// Where its `refundOf` text is in its `RefundNames` list, and its length.
    var nameAt: Int
    var nameCount: Int32
    /// Which list of a `RefundNames` holds the text (the shard that merged the refund).
    var nameList: Int32
}

/// The `refundOf` texts of pending refunds: one byte list per shard that merged them,
/// read only to write a rejected refund's message.
struct RefundNames {
    var lists: [[UInt8]]

    /// Appends the bytes of a `refundOf` to one list's bytes, `names`, and returns where
    /// they start there and how many they are.
    static func add<Bytes: Collection<UInt8>>(_ bytes: Bytes, to names: inout [UInt8]) -> (
        at: Int, count: Int32
    ) {
        let at = names.count
        names.append(contentsOf: bytes)
        return (at, Int32(truncatingIfNeeded: names.count - at))
    }

    /// The bytes of `r`'s `refundOf` in the list that holds them.
    static func bytes(_ r: PendingRefund, in names: [UInt8]) -> ArraySlice<UInt8> {
        let end = min(names.count, r.nameAt + Int(r.nameCount))
        return names[min(r.nameAt, end)..<end]
    }

    /// The `refundOf` text of `r`.
    func text(_ r: PendingRefund) -> String {
        String(decoding: Self.bytes(r, in: lists[Int(r.nameList)]), as: UTF8.self)
    }
}

/// A pending refund on disk, the one codec of the record: the record's own bytes (with
/// `nameCount`, its `refundOf` length), then the `refundOf` bytes. A partitioned run writes
/// accepted refunds to the partition of the charge they name and reads them back here;
/// `nameAt` and `nameList` are set anew on reading (the text goes to the reader's list).
enum RefundCodec {
    /// Appends `r` and its `refundOf` bytes (`name`) to `out`.
    static func encode(_ r: PendingRefund, name: ArraySlice<UInt8>, into out: inout [UInt8]) {
        var stored = r
        stored.nameAt = 0
        stored.nameCount = Int32(truncatingIfNeeded: name.count)
        stored.nameList = 0
        withUnsafeBytes(of: &stored) { out.append(contentsOf: $0) }
        out.append(contentsOf: name)
    }

    /// Every refund in `bytes` (as `encode` wrote them), with their `refundOf` texts in one
    /// list (`RefundNames` with list 0). A short tail (a file cut off) is not read.
    static func decodeAll(_ bytes: UnsafeRawBufferPointer, expected: Int = 0) -> (
        [PendingRefund], RefundNames
    ) {
        var refunds: [PendingRefund] = []
        var names: [UInt8] = []
        refunds.reserveCapacity(expected)
        let size = MemoryLayout<PendingRefund>.size
        guard let base = bytes.baseAddress else { return ([], RefundNames(lists: [[]])) }
        var at = 0
        while at + size <= bytes.count {
            var r = base.loadUnaligned(fromByteOffset: at, as: PendingRefund.self)
            let n = max(0, min(Int(r.nameCount), bytes.count - at - size))
            let name = RefundNames.add(
                UnsafeRawBufferPointer(start: base + at + size, count: n), to: &names)
            r.nameAt = name.at
            r.nameCount = name.count
            r.nameList = 0
            refunds.append(r)
            at += size + n
        }
        return (refunds, RefundNames(lists: [names]))
    }
}
