/// The `price` fields one parser has read, each distinct text read once: an export
/// repeats a handful of prices (`"GBP 4.99"`) on thousands of top-ups, and reading one
/// builds strings and a decimal. The answer for a text is the same every time, so the
/// cache changes no result; past `limit` distinct texts it reads each one afresh.
struct PriceCache {
    private struct Entry {
        var bytes: [UInt8]
        var topup: Bool
        var price: Money?
        var problem: String?
        var hash: UInt64
    }

    private var entries: [Entry] = []
    static let limit = 32

    /// The money of the entry's `price`, why it is ignored if it is, and its share of the
    /// content hash (see `EntryScanner.parsePrice`, `priceProblem` and
    /// `Fields.priceFieldHash`).
    mutating func read(_ f: EntryScanner.Fields, _ scanner: EntryScanner) -> (
        price: Money?, problem: String?, hash: UInt64
    ) {
        let bytes = UnsafeBufferPointer(start: scanner.pointer(f.price), count: Int(f.price.count))
        let topup = f.kind == .topup
        for e in entries where e.topup == topup && e.bytes.elementsEqual(bytes) {
            return (e.price, e.problem, e.hash)
        }
        let price = scanner.parsePrice(f.price)
        let problem = !topup || price == nil ? scanner.priceProblem(f) : nil
        let hash = f.priceFieldHash(scanner)
        if entries.count < Self.limit {
            entries.append(
                Entry(bytes: Array(bytes), topup: topup, price: price, problem: problem, hash: hash)
            )
        }
        return (price, problem, hash)
    }
}
