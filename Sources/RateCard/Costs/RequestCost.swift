/// What a request costs the providers: each dimension's quantity billed by its meter
/// (increments and minimums), at the schedule period in force at the request's time.
struct RequestCosting: Sendable {
    let providers: [String: ProviderSheet]

    /// The provider cost of one request, per provider currency (usually one).
    ///
    /// The variant is the most expensive one unless `variants` names one per meter key
    /// (a ledger does not say whether a prompt hit the cache, so the default is a miss).
    /// A dimension with no running cost adds nothing.
    func cost(
        of feature: Feature, quantities: [String: Exact], at instant: Timestamp?,
        variants: [String: String] = [:]
    ) throws(CostError) -> [Money] {
        var totals: [Currency: Exact] = [:]
        for d in feature.dimensions {
            guard let q = quantities[d.name], !q.isZero else { continue }
            guard case .provider(let sheetID, let meterKey, _) = d.cost else { continue }
            guard let sheet = providers[sheetID], let meter = sheet.meter(meterKey),
                let factor = d.unit.size(in: meter.unit)
            else {
                throw .unboundMeter(feature: feature.key, dimension: d.name)
            }
            let variant =
                variants[meterKey].flatMap { name in meter.variants.first { $0.name == name } }
                ?? meter.worstVariant
            do {
                var multiplier = Exact.one
                if let schedule = sheet.schedule {
                    let period =
                        instant.map { schedule.period(at: $0) } ?? schedule.worstPeriod.name
                    multiplier = schedule.multipliers[period] ?? .one
                }
                let billed = try meter.billedUnits(q.multiplied(by: factor))
                let amount = try billed.multiplied(by: variant.price).divided(by: meter.per)
                    .multiplied(by: multiplier)
                totals[sheet.currency] = try (totals[sheet.currency] ?? .zero).adding(amount)
            } catch {
                throw .overflow(feature: feature.key, dimension: d.name)
            }
        }
        return totals.sorted { $0.key < $1.key }.map { Money($0.value, $0.key) }
    }
}

/// Why a request's cost could not be computed.
enum CostError: Error, Sendable, Hashable, CustomStringConvertible {
    case unboundMeter(feature: String, dimension: String)
    case overflow(feature: String, dimension: String)

    var description: String {
        switch self {
        case .unboundMeter(let f, let d):
            "feature \(f), dimension \(d): its provider meter is not loaded"
        case .overflow(let f, let d):
            "feature \(f), dimension \(d): the cost is too large to compute exactly"
        }
    }
}
