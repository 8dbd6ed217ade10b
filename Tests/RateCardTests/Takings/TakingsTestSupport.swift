import Testing

@testable import RateCard

/// A deterministic random source for generated exports.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Takings {
    static let now = try! Timestamp(rfc3339: "2026-11-29T12:00:00Z")

    static func ts(_ text: String) -> Timestamp { try! Timestamp(rfc3339: text) }

    /// Runs the takings over in-memory files `(name, text)`.
    static func run(
        _ files: [(String, String)], window: TakingsWindow = .all, series: TakingsSeries? = nil,
        strict: Bool = false, threads: Int = 2, chunkBytes: Int = 8 << 20,
        pricing: (any TakingsPricing)? = nil, format: TakingsFormat? = nil
    ) throws -> TakingsReport {
        let options = TakingsOptions(
            window: window, series: series, strict: strict, threads: threads, chunkBytes: chunkBytes
        )
        return try TakingsRun.run(
            inputs: files.map { TakingsInput(name: $0.0, text: $0.1, format: format) },
            options: options, pricing: pricing)
    }

    static func run(
        _ text: String, name: String = "t.jsonl", window: TakingsWindow = .all,
        format: TakingsFormat? = nil
    ) throws -> TakingsReport {
        try run([(name, text)], window: window, format: format)
    }

    static func row(_ report: TakingsReport, _ feature: String) -> TakingsReport.Row? {
        report.rows.first { $0.feature == feature }
    }

    /// A JSON Lines entry.
    static func line(
        id: String, at: String = "2026-11-20T10:00:00Z", kind: String = "charge",
        amount: String = "-30000",
        feature: String? = "transcript", extra: String = ""
    ) -> String {
        var s = "{\"id\":\"\(id)\",\"at\":\"\(at)\",\"kind\":\"\(kind)\",\"amount\":\(amount)"
        if let feature { s += ",\"feature\":\"\(feature)\"" }
        return s + extra + "}"
    }

    static func refund(
        id: String, of charge: String, at: String = "2026-11-20T11:00:00Z",
        amount: String = "30000",
        feature: String = "transcript"
    ) -> String {
        line(
            id: id, at: at, kind: "refund", amount: amount, feature: feature,
            extra: ",\"refundOf\":\"\(charge)\",\"reason\":\"notUsable\"")
    }

    /// Checks the accounting identity and returns the report for chaining.
    @discardableResult
    static func balanced(
        _ report: TakingsReport, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> TakingsReport {
        #expect(
            report.input.isBalanced,
            "lines \(report.input.lines) ≠ entries + duplicates + rejected + blank",
            sourceLocation: sourceLocation)
        return report
    }
}

/// A stand-in for the card's pricing: a fixed cost per unit of each dimension, in GBP.
struct FakePricing: TakingsPricing {
    let known: Set<String>
    let perUnit: [String: Exact]

    func isKnownFeature(_ key: String) -> Bool { known.contains(key) }

    func cost(feature: String, quantity: [String: Exact], at: Timestamp) throws -> Money? {
        guard known.contains(feature) else { return nil }
        var total = Exact.zero
        for (dimension, amount) in quantity {
            guard let price = perUnit[dimension] else { continue }
            total = try total.adding(amount.multiplied(by: price))
        }
        return Money(total, Currency(code: "GBP")!)
    }
}
