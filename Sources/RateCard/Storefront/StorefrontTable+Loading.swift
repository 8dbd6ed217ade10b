/// Reading the storefront data file strictly: every problem is a diagnostic naming the
/// file, line, column and field (`territories[3].tax`).
extension StorefrontTable {
    static let allowedKeys: Set<String> = [
        "kind", "date", "placeholder", "source", "commission", "territories", "notes", "$schema",
    ]
    static let territoryKeys: Set<String> = [
        "territory", "name", "currency", "taxIncluded", "tax", "digitalServicesTax", "commission",
        "placeholder", "note", "currencyUnit",
    ]
    static let regimeKeys: Set<String> = ["program", "rate", "from", "until", "status", "source"]

    static func read(_ root: JSONNode, _ r: FieldReader) -> StorefrontTable? {
        guard let m = r.object(root, "", allowed: allowedKeys) else { return nil }
        let date = r.required(m, "date", in: "", at: root.location).flatMap { r.date($0, "date") }
        let source = r.required(m, "source", in: "", at: root.location).flatMap {
            r.nonEmptyString($0, "source")
        }
        let placeholder = m["placeholder"].flatMap { r.bool($0.value, "placeholder") } ?? false
        let notes = CardFileLoader.stringList(m["notes"]?.value, "notes", r)
        let defaults =
            r.required(m, "commission", in: "", at: root.location).map {
                regimes($0, "commission", r)
            } ?? []
        var storefronts: [Storefront] = []
        if let tn = r.required(m, "territories", in: "", at: root.location),
            let items = r.array(tn, "territories")
        {
            storefronts = r.uniqueItems(
                items, "territories", read: { storefront($0, $1, r) }, key: \.territory,
                at: \.location,
                duplicate: { path, key, line in
                    "\(path).territory: \(key) is already listed at line \(line)"
                })
        }
        for program in StoreProgram.allCases
        where !defaults.contains(where: { $0.program == program }) {
            r.error(
                "commission: no regime for the \"\(program.rawValue)\" program (every storefront needs a default)",
                at: m["commission"]?.value.location ?? root.location)
        }
        // One currency is paid in one unit: two territories may not disagree about it.
        var units: [Currency: Storefront] = [:]
        for sf in storefronts {
            if let first = units[sf.currency], first.paymentScale != sf.paymentScale {
                r.error(
                    "territories: \(sf.territory) has currencyUnit \(sf.paymentUnit.decimalText()) for \(sf.currency.code) but \(first.territory) (line \(first.location.line)) has \(first.paymentUnit.decimalText()); Apple pays one currency in one unit",
                    at: sf.location)
            } else if units[sf.currency] == nil {
                units[sf.currency] = sf
            }
        }
        guard let date, let source else { return nil }
        return StorefrontTable(
            date: date, placeholder: placeholder, sourceNote: source, commission: defaults,
            storefronts: storefronts, notes: notes,
            source: SourceFile(path: r.path, location: root.location))
    }

    /// A three-letter territory code as App Store Connect writes it: "USA", "DEU", "CHN".
    static func isTerritoryCode(_ s: String) -> Bool {
        let b = Array(s.utf8)
        return b.count == 3 && b.allSatisfy { $0 >= 0x41 && $0 <= 0x5A }
    }

    static func storefront(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Storefront? {
        guard let m = r.object(node, field, allowed: territoryKeys) else { return nil }
        let code = r.required(m, "territory", in: field, at: node.location).flatMap {
            n -> String? in
            guard let s = r.string(n, "\(field).territory") else { return nil }
            guard isTerritoryCode(s) else {
                r.error(
                    "\(field).territory: \"\(FieldReader.excerpt(s))\" is not a territory code (three capital letters, as App Store Connect writes them: USA, DEU, CHN)",
                    at: n.location)
                return nil
            }
            return s
        }
        let name = r.required(m, "name", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).name")
        }
        let currency = r.required(m, "currency", in: field, at: node.location).flatMap {
            r.currency($0, "\(field).currency")
        }
        let included = r.required(m, "taxIncluded", in: field, at: node.location).flatMap {
            r.bool($0, "\(field).taxIncluded")
        }
        let taxNode = r.required(m, "tax", in: field, at: node.location)
        let tax = taxNode.flatMap { share($0, "\(field).tax", r) }
        if let included, !included, let tax, let taxNode, !tax.isZero {
            r.error(
                "\(field).tax: prices exclude tax here (taxIncluded is false), so Apple removes none: write \"0\"",
                at: taxNode.location)
        }
        let dst =
            m["digitalServicesTax"].flatMap { share($0.value, "\(field).digitalServicesTax", r) }
            ?? .zero
        let commission = m["commission"].map { regimes($0.value, "\(field).commission", r) } ?? []
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        let note = m["note"].flatMap { r.string($0.value, "\(field).note") }
        var scale: Int?
        if let unitNode = m["currencyUnit"]?.value, let currency {
            scale = paymentScale(unitNode, "\(field).currencyUnit", currency, r)
        }
        guard let code, let name, let currency, let included, let tax else { return nil }
        return Storefront(
            territory: code, name: name, currency: currency, taxIncluded: included, tax: tax,
            digitalServicesTax: dst, paymentScale: scale,
            commission: commission, placeholder: placeholder, note: note, location: node.location)
    }

    static func regimes(_ node: JSONNode, _ field: String, _ r: FieldReader) -> [CommissionRegime] {
        guard let items = r.array(node, field) else { return [] }
        var out: [CommissionRegime] = []
        for (i, item) in items.enumerated() {
            let f = "\(field)[\(i)]"
            guard let m = r.object(item, f, allowed: regimeKeys) else { continue }
            let program = r.required(m, "program", in: f, at: item.location).flatMap {
                n -> StoreProgram? in
                guard let s = r.string(n, "\(f).program") else { return nil }
                guard let p = StoreProgram(name: s) else {
                    let hint =
                        FieldReader.closest(s, in: StoreProgram.allCases.map(\.rawValue)).map {
                            "; did you mean \"\($0)\"?"
                        } ?? ""
                    r.error(
                        "\(f).program: \"\(FieldReader.excerpt(s))\" is not \"standard\" or \"small-business\"\(hint)",
                        at: n.location)
                    return nil
                }
                return p
            }
            let rate = r.required(m, "rate", in: f, at: item.location).flatMap {
                share($0, "\(f).rate", r)
            }
            let from = r.required(m, "from", in: f, at: item.location).flatMap {
                r.date($0, "\(f).from")
            }
            let untilNode = m["until"]?.value
            let until = untilNode.flatMap { r.date($0, "\(f).until") }
            if let from, let until, let untilNode, until <= from {
                r.error(
                    "\(f).until: \(until) is not after \"from\" (\(from))", at: untilNode.location)
            }
            let status = r.required(m, "status", in: f, at: item.location).flatMap {
                n -> CommissionRegime.Status? in
                guard let s = r.string(n, "\(f).status") else { return nil }
                guard let st = CommissionRegime.Status(rawValue: s) else {
                    r.error(
                        "\(f).status: \"\(FieldReader.excerpt(s))\" is not \"confirmed\" (Apple's own figure) or \"reported\" (not yet confirmed)",
                        at: n.location)
                    return nil
                }
                return st
            }
            let source = m["source"].flatMap { r.nonEmptyString($0.value, "\(f).source") }
            guard let program, let rate, let from, let status else { continue }
            if let same = out.first(where: { $0.program == program && $0.from == from }) {
                r.error(
                    "\(f).from: a \(program.rawValue) regime from \(from) is already given at line \(same.location.line)",
                    at: item.location)
                continue
            }
            out.append(
                CommissionRegime(
                    program: program, rate: rate, from: from, until: until, status: status,
                    source: source, location: item.location))
        }
        return out
    }

    /// `currencyUnit`: the unit Apple prices and pays in, a power of ten from 1 down to the
    /// currency's ISO 4217 minor unit ("1" for HUF; "0.01" is the default for EUR); its
    /// decimal places.
    static func paymentScale(
        _ node: JSONNode, _ field: String, _ currency: Currency, _ r: FieldReader
    )
        -> Int?
    {
        guard let v = r.decimal(node, field) else { return nil }
        for places in 0...currency.minorUnits {
            if let unit = try? Exact(1, over: Exact.powerOfTen(places)), unit == v { return places }
        }
        r.error(
            "\(field): \(v.decimalText()) is not a unit \(currency.code) can be paid in: write a power of ten from 1 down to the currency's minor unit (\(currency.minorUnits) decimals), e.g. \"1\" for whole units",
            at: node.location)
        return nil
    }

    /// A rate from 0 to below 1 (0.19 for 19%).
    static func share(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Exact? {
        guard let v = r.decimal(node, field) else { return nil }
        guard !v.isNegative, v < .one else {
            r.error("\(field): \(v) must be from 0 to below 1 (0.19 for 19%)", at: node.location)
            return nil
        }
        return v
    }
}
