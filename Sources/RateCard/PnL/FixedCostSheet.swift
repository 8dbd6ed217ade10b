/// Costs of features that no meter measures (what it took to build a feature and what it
/// takes to keep it), stated per feature for a period by the team.
///
/// ```json
/// {"kind": "costs", "currency": "GBP", "since": "2026-11-01", "until": "2026-12-01",
///  "costs": [{"feature": "debrief", "amount": "120.00", "note": "model upkeep"}]}
/// ```
///
/// The period is `[since, until)` in UTC. How a sheet is applied to a window (in full,
/// prorated, or refused) is `FixedCosts`' rule.
struct FixedCostSheet: Sendable, Hashable {
    let currency: Currency
    let since: CalendarDate
    let until: CalendarDate
    let costs: [String: Money]
    let path: String
    /// Where each feature key is written, for messages about it.
    let featureLocations: [String: SourceLocation]
    /// Where `since` is written, for messages about the period.
    let periodLocation: SourceLocation

    /// The first instant of the period (midnight UTC of `since`).
    var start: Timestamp { Timestamp(startOf: since) }
    /// The first instant after the period (midnight UTC of `until`).
    var end: Timestamp { Timestamp(startOf: until) }

    static func load(path: String) throws(Diagnostics) -> FixedCostSheet {
        let (bytes, _) = try JSONParser.parseFile(path, what: "the cost sheet")
        return try load(bytes: bytes, path: path)
    }

    static func load(bytes: [UInt8], path: String) throws(Diagnostics) -> FixedCostSheet {
        let root = try JSONParser.parseDocument(bytes, path: path)
        let r = FieldReader(path: path)
        guard
            let m = r.object(
                root, "", allowed: ["kind", "currency", "since", "until", "costs", "note"])
        else { throw Diagnostics(r.diagnostics) }
        if let k = r.required(m, "kind", in: "", at: root.location), let s = r.string(k, "kind"),
            s != "costs"
        {
            r.error("kind: expected \"costs\", found \"\(s)\"", at: k.location)
        }
        let currency = r.required(m, "currency", in: "", at: root.location).flatMap {
            r.currency($0, "currency")
        }
        let since = r.required(m, "since", in: "", at: root.location).flatMap {
            r.date($0, "since")
        }
        let until = r.required(m, "until", in: "", at: root.location).flatMap {
            r.date($0, "until")
        }
        if let since, let until, until <= since, let node = m["until"]?.value {
            r.error("until: must be after since (\(since))", at: node.location)
        }
        var costs: [String: Money] = [:]
        var locations: [String: SourceLocation] = [:]
        if let node = r.required(m, "costs", in: "", at: root.location),
            let items = r.array(node, "costs")
        {
            for (i, item) in items.enumerated() {
                let f = "costs[\(i)]"
                guard let cm = r.object(item, f, allowed: ["feature", "amount", "note"]) else {
                    continue
                }
                let feature = r.required(cm, "feature", in: f, at: item.location).flatMap {
                    r.nonEmptyString($0, "\(f).feature")
                }
                let amountNode = r.required(cm, "amount", in: f, at: item.location)
                let amount = amountNode.flatMap { r.decimal($0, "\(f).amount") }
                guard let feature, let amount, let amountNode, let currency else { continue }
                if amount.isNegative {
                    r.error("\(f).amount: a cost must not be negative", at: amountNode.location)
                    continue
                }
                if costs[feature] != nil {
                    r.error("\(f).feature: \"\(feature)\" appears twice", at: item.location)
                    continue
                }
                costs[feature] = Money(amount, currency)
                locations[feature] = cm["feature"]?.value.location ?? item.location
            }
        }
        guard r.diagnostics.isEmpty, let currency, let since, let until else {
            throw Diagnostics(r.diagnostics)
        }
        return FixedCostSheet(
            currency: currency, since: since, until: until, costs: costs, path: path,
            featureLocations: locations,
            periodLocation: m["since"]?.value.location ?? root.location)
    }
}
