/// The temporary files of `margin reconcile --memory SIZE` past its cap: `TakingsSpill`'s
/// private directory (mode 0700, under `TMPDIR`), removed after the run and on SIGINT or
/// SIGTERM. Of the four files it keeps per partition, reconcile writes:
///
/// - `.rec`: every ledger entry read, by the hash of its `id` (so every copy of an id meets
///   its first in one partition, for de-duplication), in input order;
/// - `.req`: the top-ups and revokes kept, by the hash of their `paymentRef`;
/// - `.cs`: Apple's transaction records and the notifications that carry one, by the hash
///   of `transactionId` (the same hash and count as `.req`: a purchase and every credit
///   that names it are in one partition);
/// - `.rf`: the charges and refunds of named devices, by the hash of the device.
final class ReconcileSpill {
    let files: TakingsSpill
    /// The input paths, by index (a record names its file by index).
    let ledgerPaths: [String]
    let applePaths: [String]

    static let entries = TakingsSpill.File.records
    static let credits = TakingsSpill.File.requests
    static let apple = TakingsSpill.File.chargeSlots
    static let spending = TakingsSpill.File.refunds

    init(partitions: Int, memoryLimit: Int, ledgerPaths: [String], applePaths: [String])
        throws(TakingsInputError)
    {
        // Four files per partition are buffered at once: together at most an eighth of the
        // cap, and never more than 1 MiB a file.
        files = try TakingsSpill(
            partitions: partitions,
            bufferBytes: min(1 << 20, max(4 << 10, memoryLimit / (32 * partitions))))
        self.ledgerPaths = ledgerPaths
        self.applePaths = applePaths
    }

    var partitions: Int { files.partitions }

    /// The partition of a key (an id, a payment reference, a transaction id, a device).
    func partition(of key: String) -> Int {
        TakingsSpill.partition(of: TakingsHash.id(key).0, count: partitions)
    }

    func append(_ p: Int, _ file: TakingsSpill.File, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { files.append(p, file, $0) }
    }

    /// The whole of one partition's file (empty when none was written), then deletes it.
    func take(_ p: Int, _ file: TakingsSpill.File) throws(TakingsInputError) -> [UInt8] {
        try files.take(p, file)
    }

    func finish(_ file: TakingsSpill.File) throws(TakingsInputError) { try files.finish(file) }

    func remove() { files.remove() }

    func damaged(_ p: Int, _ file: TakingsSpill.File) -> TakingsInputError {
        TakingsInputError(path: files.path(p, file), message: "a partition file is damaged")
    }
}
