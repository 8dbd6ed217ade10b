/// A tab-separated report of App Store Connect's that is read for one card family's
/// products (`SummarySalesReport`, `FinancialReport`): read from a file, or from its bytes.
protocol AppleReport {
    /// What the report is called in the message when its file cannot be read.
    static var fileName: String { get }

    /// Reads the report's bytes; `path` names it in each diagnostic. `products` are the
    /// product ids of the card family: a row of another product is an error.
    static func read(_ bytes: [UInt8], path: String, products: Set<String>)
        throws(AppleRecordError) -> Self
}

extension AppleReport {
    /// Reads the report at `path`. `products` are the product ids of the card family: an
    /// in-app row of another product is an error (give the report of this app only).
    static func read(path: String, products: Set<String>) throws(AppleRecordError) -> Self {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: fileName) } catch {
            throw AppleRecordError([error])
        }
        return try read(bytes, path: path, products: products)
    }
}
