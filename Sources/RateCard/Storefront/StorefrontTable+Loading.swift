/// Reading the storefront data file strictly: every problem is a diagnostic naming the
/// file, line, column and field (`territories[3].taxes[1].from`).
extension StorefrontTable {
    static let allowedKeys: Set<String> = [
        "kind", "date", "placeholder", "source", "commission", "territories", "notes", "$schema",
    ]
    static let territoryKeys: Set<String> = [
        "territory", "countryCode", "name", "currency", "taxIncluded", "tax", "digitalServicesTax",
        "taxes",
        "commission", "placeholder", "note", "currencyUnit",
    ]
    static let taxKeys: Set<String> = [
        "kind", "rate", "from", "until", "source", "placeholder", "note",
    ]
    static let regimeKeys: Set<String> = [
        "program", "rate", "paymentProcessing", "territories", "from", "until", "status",
        "source",
    ]

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
        for program in [StoreProgram.standard, .smallBusiness]
        where !defaults.contains(where: { $0.program == program && $0.territories == nil }) {
            r.error(
                "commission: no regime for the \"\(program.rawValue)\" program (every storefront needs a default)",
                at: m["commission"]?.value.location ?? root.location)
        }
        let known = Set(storefronts.map(\.territory))
        for regime in defaults {
            for code in (regime.territories ?? []).sorted() where !known.contains(code) {
                r.error(
                    "commission: the \(regime.program.rawValue) regime from \(regime.from) names \(code), which is not a listed territory",
                    at: regime.location)
            }
        }
        // A country code names one storefront: two would make a report's country ambiguous.
        var countries: [String: Storefront] = [:]
        for sf in storefronts {
            guard let c = sf.countryCode else { continue }
            if let first = countries[c] {
                r.error(
                    "territories: \(sf.territory) has countryCode \(c), which \(first.territory) (line \(first.location.line)) already has; a country code names one storefront",
                    at: sf.location)
            } else {
                countries[c] = sf
            }
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
        let country = m["countryCode"].flatMap { n -> String? in
            guard let s = r.string(n.value, "\(field).countryCode") else { return nil }
            let b = Array(s.utf8)
            guard b.count == 2, b.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
                r.error(
                    "\(field).countryCode: \"\(FieldReader.excerpt(s))\" is not a country code (two capital letters, ISO 3166-1 alpha-2, as Apple's sales reports write them: US, DE, CN)",
                    at: n.value.location)
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
        var taxes: [StorefrontTax] = []
        if let history = m["taxes"] {
            for key in ["tax", "digitalServicesTax"] {
                if let other = m[key] {
                    r.error(
                        "\(field).\(key): give either \"taxes\" (a dated history) or \"\(key)\", not both",
                        at: other.value.location)
                }
            }
            taxes = taxList(history.value, "\(field).taxes", r)
            if let included, !included {
                for (i, t) in taxes.enumerated() where t.kind == .vat && !t.rate.isZero {
                    r.error(
                        "\(field).taxes[\(i)].rate: prices exclude tax here (taxIncluded is false), so Apple removes no VAT: write \"0\" or drop the entry",
                        at: t.location)
                }
            }
        } else {
            let taxNode = r.required(m, "tax", in: field, at: node.location)
            let tax = taxNode.flatMap { share($0, "\(field).tax", r) }
            if let included, !included, let tax, let taxNode, !tax.isZero {
                r.error(
                    "\(field).tax: prices exclude tax here (taxIncluded is false), so Apple removes none: write \"0\"",
                    at: taxNode.location)
            }
            let dst =
                m["digitalServicesTax"].flatMap {
                    share($0.value, "\(field).digitalServicesTax", r)
                } ?? .zero
            if let tax {
                taxes.append(
                    StorefrontTax(
                        kind: .vat, rate: tax, location: taxNode?.location ?? node.location))
            }
            if !dst.isZero {
                taxes.append(
                    StorefrontTax(
                        kind: .dst, rate: dst,
                        location: m["digitalServicesTax"]?.value.location ?? node.location))
            }
            if tax == nil { taxes = [] }
        }
        let commission = m["commission"].map { regimes($0.value, "\(field).commission", r) } ?? []
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        let note = m["note"].flatMap { r.string($0.value, "\(field).note") }
        var scale: Int?
        if let unitNode = m["currencyUnit"]?.value, let currency {
            scale = paymentScale(unitNode, "\(field).currencyUnit", currency, r)
        }
        guard let code, let name, let currency, let included else { return nil }
        if m["taxes"] == nil && taxes.isEmpty { return nil }
        return Storefront(
            territory: code, countryCode: country, name: name, currency: currency,
            taxIncluded: included, taxes: taxes,
            paymentScale: scale,
            commission: commission, placeholder: placeholder, note: note, location: node.location)
    }

    /// `taxes`: a dated history; two entries of one kind may not overlap in time with the
    /// same rate twice, and each needs `from` before `until`.
    static func taxList(_ node: JSONNode, _ field: String, _ r: FieldReader) -> [StorefrontTax] {
        guard let items = r.array(node, field) else { return [] }
        var out: [StorefrontTax] = []
        for (i, item) in items.enumerated() {
            let f = "\(field)[\(i)]"
            guard let m = r.object(item, f, allowed: taxKeys) else { continue }
            let kind = r.required(m, "kind", in: f, at: item.location).flatMap {
                n -> StorefrontTax.Kind? in
                guard let s = r.string(n, "\(f).kind") else { return nil }
                guard let k = StorefrontTax.Kind(rawValue: s) else {
                    let words = StorefrontTax.Kind.allCases.map(\.rawValue)
                    let hint =
                        FieldReader.didYouMean(s, in: words)
                    r.error(
                        "\(f).kind: \"\(FieldReader.excerpt(s))\" is not one of \(words.joined(separator: ", "))\(hint)",
                        at: n.location)
                    return nil
                }
                return k
            }
            let rate = r.required(m, "rate", in: f, at: item.location).flatMap {
                share($0, "\(f).rate", r)
            }
            let from = m["from"].flatMap { r.date($0.value, "\(f).from") }
            let untilNode = m["until"]?.value
            let until = untilNode.flatMap { r.date($0, "\(f).until") }
            if let from, let until, let untilNode, until <= from {
                r.error(
                    "\(f).until: \(until) is not after \"from\" (\(from))", at: untilNode.location)
            }
            let source = m["source"].flatMap { r.nonEmptyString($0.value, "\(f).source") }
            let placeholder =
                m["placeholder"].flatMap { r.bool($0.value, "\(f).placeholder") } ?? false
            if source == nil && !placeholder && m["source"] == nil {
                r.error(
                    "\(f): no \"source\" (Apple's notice by title and date, Apple's tax page or a government notice); write \"placeholder\": true where none was found",
                    at: item.location)
            }
            let note = m["note"].flatMap { r.string($0.value, "\(f).note") }
            guard let kind, let rate else { continue }
            let tax = StorefrontTax(
                kind: kind, rate: rate, from: from, until: until, source: source,
                placeholder: placeholder, note: note, location: item.location)
            if let clash = out.first(where: {
                $0.kind == kind && $0.from == from && $0.rate == rate
            }) {
                r.error(
                    "\(f): the same \(kind.rawValue) of \(rate) from \(from.map { "\($0)" } ?? "the start") is already given at line \(clash.location.line)",
                    at: item.location)
                continue
            }
            out.append(tax)
        }
        return out
    }

    static func regimes(_ node: JSONNode, _ field: String, _ r: FieldReader) -> [CommissionRegime] {
        guard let items = r.array(node, field) else { return [] }
        var out: [CommissionRegime] = []
        for (i, item) in items.enumerated() {
            let f = "\(field)[\(i)]"
            guard let m = r.object(item, f, allowed: regimeKeys) else { continue }
            let program = r.required(m, "program", in: f, at: item.location).flatMap {
                r.storeProgram($0, "\(f).program")
            }
            let rate = r.required(m, "rate", in: f, at: item.location).flatMap {
                share($0, "\(f).rate", r)
            }
            let processing =
                m["paymentProcessing"].flatMap { share($0.value, "\(f).paymentProcessing", r) }
                ?? .zero
            var territories: Set<String>?
            if let tn = m["territories"]?.value, let codes = r.array(tn, "\(f).territories") {
                var set = Set<String>()
                for (j, c) in codes.enumerated() {
                    guard let s = r.string(c, "\(f).territories[\(j)]") else { continue }
                    guard isTerritoryCode(s) else {
                        r.error(
                            "\(f).territories[\(j)]: \"\(FieldReader.excerpt(s))\" is not a territory code (three capital letters: DEU, FRA)",
                            at: c.location)
                        continue
                    }
                    set.insert(s)
                }
                territories = set
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
            if let same = out.first(where: {
                $0.program == program && $0.from == from && $0.territories == territories
            }) {
                r.error(
                    "\(f).from: a \(program.rawValue) regime from \(from) is already given at line \(same.location.line)",
                    at: item.location)
                continue
            }
            out.append(
                CommissionRegime(
                    program: program, rate: rate, paymentProcessing: processing,
                    territories: territories, from: from, until: until, status: status,
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
