/// One request a customer could make: a quantity of one dimension of one feature, what the
/// card charges for it and what the provider bills for it at its most expensive.
struct RequestShape: Sendable, Hashable {
    let feature: String
    let dimension: String
    /// The quantity in the card's unit (whole units).
    let quantity: Int128
    let unit: MeterUnit
    /// Credits the card charges for this request.
    let credits: Int128
    /// What the provider bills for it, in the provider's unit.
    let billedUnits: Exact
    let providerUnit: MeterUnit
    /// The provider's cost, at the most expensive variant and schedule period.
    let cost: Money
    /// "doubao-seedasr-2-streaming/audio"
    let meter: String
    let variant: String
    /// The schedule period that makes it most expensive, when the provider has a schedule.
    let period: String?

    /// Cost per credit (infinite cost per credit is never formed: `credits` is positive
    /// for every shape the engine ranks).
    func costPerCredit() throws(ArithmeticError) -> Exact {
        try cost.amount.divided(by: Exact(integer: credits))
    }

    /// The same request with its cost converted by `factor` into `currency`.
    func converted(by factor: Exact, to currency: Currency) throws(ArithmeticError) -> RequestShape
    {
        RequestShape(
            feature: feature, dimension: dimension, quantity: quantity, unit: unit,
            credits: credits,
            billedUnits: billedUnits, providerUnit: providerUnit,
            cost: Money(try cost.amount.multiplied(by: factor), currency),
            meter: meter, variant: variant, period: period)
    }

    /// "3 s of asr.second for 1 credit (billed 3 s of doubao/audio, peak)"
    var summary: String {
        "\(quantity) \(unit.abbreviation) of \(feature).\(dimension) for \(credits) credit\(credits == 1 ? "" : "s") (\(billing))"
    }

    /// "billed 3 s, peak": what the provider bills for the request.
    var billing: String {
        // Say the billed quantity in the card's unit when the two convert (a provider billing
        // hours still reads "billed 3 s"), else in the provider's.
        var billing: String
        if let f = providerUnit.size(in: unit), let inCardUnit = try? billedUnits.multiplied(by: f)
        {
            billing = "billed \(inCardUnit.decimalText()) \(unit.abbreviation)"
        } else {
            billing = "billed \(billedUnits.decimalText()) \(providerUnit.abbreviation)"
        }
        if variant != "standard" { billing += ", \(variant)" }
        if let period { billing += ", \(period)" }
        return billing
    }
}

extension RequestShape {
    /// For a request charged nothing that costs money: "feature "asr", dimension "second":
    /// a request of 2 s is charged 0 credits but costs demo-asr/audio USD 0.0002, so credits
    /// can be spent without limit; charge started intervals (rounding "up") or a positive price".
    var freeUsageMessage: String {
        "feature \"\(feature)\", dimension \"\(dimension)\": a request of \(Format.grouped(quantity)) \(unit.abbreviation) is charged \(credits) credits but costs \(meter) \(cost), so credits can be spent without limit; charge started intervals (rounding \"up\") or a positive price"
    }
}

extension RequestShape {
    /// The `free-usage` finding of this request on `card`, at its dimension: the one finding
    /// `margin packs` and `margin check` both print for it, worded and placed alike.
    func freeUsageDiagnostic(card: RateCard) -> Diagnostic {
        let location =
            card.feature(feature)?.dimensions.first { $0.name == dimension }?.location
            ?? card.source.location
        return Diagnostic(
            path: card.source.path, location: location,
            message: "\(card.reference): \(freeUsageMessage)", rule: .check(.freeUsage))
    }
}

extension MeterUnit {
    /// "s", "min", "h", "tokens", …
    var abbreviation: String {
        switch self {
        case .second: "s"
        case .minute: "min"
        case .hour: "h"
        default: rawValue + "s"
        }
    }
}
