import Foundation

/// What one JSON file in `RateCards/` holds, told apart by its `"kind"` field.
enum CardFile: Sendable, Hashable {
    case card(RateCard)
    case provider(ProviderSheet)
    case fx(FXTable)
    case commission(CommissionSchedule)
    case storefronts(StorefrontTable)
}

/// Reads rate cards, provider sheets, FX and commission files, strictly.
///
/// Every problem in a file is collected (not only the first) and reported as a
/// `Diagnostic` naming the file, line, column and field. Unknown fields are errors, so a
/// misspelt key never silently falls back to a default.
enum CardFileLoader {
    /// The largest credit count a card may state: packs, grants and feature prices.
    /// Large enough for micro-credit packs of any real price, small enough that every
    /// product the engine forms stays far inside 128 bits.
    static let maxCredits: Int128 = 1_000_000_000_000_000  // 10^15

    /// Loads one file from disk.
    static func load(path: String) throws(Diagnostics) -> CardFile {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the file") } catch {
            throw Diagnostics([error])
        }
        return try load(bytes: bytes, path: path)
    }

    /// Loads one file's bytes; `path` is used in messages.
    static func load(bytes: [UInt8], path: String) throws(Diagnostics) -> CardFile {
        try load(root: try JSONParser.parseDocument(bytes, path: path), path: path)
    }

    /// Loads a file that is already parsed (`margin check` also hashes the parsed tree).
    static func load(root: JSONNode, path: String) throws(Diagnostics) -> CardFile {
        let r = FieldReader(path: path)
        guard let members = r.object(root, "") else { throw Diagnostics(r.diagnostics) }
        guard let kindNode = members["kind"]?.value else {
            r.error(
                "kind: missing required field (one of \"card\", \"provider\", \"fx\", \"commission\", \"storefronts\")",
                at: root.location)
            throw Diagnostics(r.diagnostics)
        }
        guard let kind = r.string(kindNode, "kind") else { throw Diagnostics(r.diagnostics) }
        let result: CardFile?
        switch kind {
        case "card": result = readCard(root, r).map(CardFile.card)
        case "provider": result = readProvider(root, r).map(CardFile.provider)
        case "fx": result = readFX(root, r).map(CardFile.fx)
        case "commission": result = readCommission(root, r).map(CardFile.commission)
        case "storefronts": result = StorefrontTable.read(root, r).map(CardFile.storefronts)
        default:
            let hint =
                FieldReader.didYouMean(
                    kind, in: ["card", "provider", "fx", "commission", "storefronts"])
            r.error(
                "kind: \"\(FieldReader.excerpt(kind))\" is not one of \"card\", \"provider\", \"fx\", \"commission\", \"storefronts\"\(hint)",
                at: kindNode.location)
            result = nil
        }
        if let result, r.diagnostics.isEmpty { return result }
        throw Diagnostics(r.diagnostics)
    }

    // MARK: Cards

    static let keyPattern =
        "a stable identifier: a letter, then letters, digits, '_', '-' or '.' (at most 64)"

    /// True for keys such as `transcript`, `asr`, `inputTokens`, `saveToVault`.
    static func isStableIdentifier(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard let first = b.first, b.count <= 64, isLetter(first) else { return false }
        return b.allSatisfy {
            isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    static func readCard(_ root: JSONNode, _ r: FieldReader) -> RateCard? {
        let allowed: Set<String> = [
            "kind", "id", "version", "effective", "title", "creditUnit", "features", "retired",
            "grants", "packs", "subscriptions", "freeTier", "placeholders", "notes", "storeProgram",
            "creditExpiry", "$schema",
        ]
        guard let m = r.object(root, "", allowed: allowed) else { return nil }
        let loc = root.location
        let id = r.required(m, "id", in: "", at: loc).flatMap { node -> String? in
            guard let s = r.string(node, "id") else { return nil }
            guard isStableIdentifier(s) else {
                r.error("id: \"\(FieldReader.excerpt(s))\" is not \(keyPattern)", at: node.location)
                return nil
            }
            return s
        }
        let version = r.required(m, "version", in: "", at: loc).flatMap {
            r.integer($0, "version", range: 1...1_000_000)
        }
        let effective = r.required(m, "effective", in: "", at: loc).flatMap {
            timestamp($0, "effective", r)
        }
        let title = m["title"].flatMap { r.string($0.value, "title") } ?? ""
        let unit = r.required(m, "creditUnit", in: "", at: loc).flatMap { readCreditUnit($0, r) }
        var features: [Feature] = []
        if let node = r.required(m, "features", in: "", at: loc),
            let items = r.array(node, "features")
        {
            for (i, item) in items.enumerated() {
                if let f = readFeature(item, "features[\(i)]", r) { features.append(f) }
            }
        }
        let retired = m["retired"].map { readRetired($0.value, r) } ?? []
        var grants: [Grant] = []
        if let node = m["grants"]?.value, let items = r.array(node, "grants") {
            grants = r.uniqueItems(
                items, "grants", read: { readGrant($0, $1, r) }, key: \.key, at: \.location,
                duplicate: { path, key, line in
                    "\(path).key: grant \"\(key)\" appears twice (first at line \(line))"
                })
        }
        var packs: [Pack] = []
        if let node = m["packs"]?.value, let items = r.array(node, "packs") {
            packs = r.uniqueItems(
                items, "packs", read: { readPack($0, $1, r) }, key: \.productId, at: \.location,
                duplicate: { path, key, line in
                    "\(path).productId: product \"\(key)\" appears twice (first at line \(line))"
                })
        }
        let subscriptions =
            m["subscriptions"].map {
                readSubscriptions($0.value, features: features, packs: packs, r)
            } ?? []
        let freeTier = m["freeTier"].flatMap { readFreeTier($0.value, features: features, r) }
        let placeholders = stringList(m["placeholders"]?.value, "placeholders", r)
        let notes = stringList(m["notes"]?.value, "notes", r)
        // `"storeProgram": "small-business"`: the App Store program the card is priced under.
        let program = m["storeProgram"].flatMap { r.storeProgram($0.value, "storeProgram") }
        let expiry = m["creditExpiry"].flatMap { readCreditExpiry($0.value, r) }
        guard let id, let version, let effective, let unit else { return nil }
        var card = RateCard(
            id: id, version: Int(version), effective: effective, title: title, creditUnit: unit,
            features: features, retired: retired, grants: grants, packs: packs,
            subscriptions: subscriptions, freeTier: freeTier,
            placeholders: placeholders, notes: notes,
            source: SourceFile(path: r.path, location: loc)
        )
        card.storeProgram = program
        card.creditExpiry = expiry
        return card
    }

    /// `"retired": ["key", {"key": …, "since": 3}]`: feature keys no longer offered.
    static func readRetired(_ node: JSONNode, _ r: FieldReader) -> [RetiredFeature] {
        guard let items = r.array(node, "retired") else { return [] }
        var retired: [RetiredFeature] = []
        for (i, item) in items.enumerated() {
            let field = "retired[\(i)]"
            if case .string(let key) = item.value {
                retired.append(RetiredFeature(key: key, since: nil, location: item.location))
            } else if let rm = r.object(item, field, allowed: ["key", "since", "note"]) {
                let key = r.required(rm, "key", in: field, at: item.location).flatMap {
                    r.string($0, "\(field).key")
                }
                let since = rm["since"].flatMap {
                    r.integer($0.value, "\(field).since", range: 1...1_000_000)
                }
                if let key {
                    retired.append(
                        RetiredFeature(
                            key: key, since: since.map { Int($0) }, location: item.location))
                }
            }
        }
        return retired
    }

    /// `"creditExpiry": {"days": 365, "expectedBreakage": "0.10", "note": "…"}`.
    static func readCreditExpiry(_ node: JSONNode, _ r: FieldReader) -> CreditExpiry? {
        let field = "creditExpiry"
        guard
            let m = r.object(node, field, allowed: ["days", "expectedBreakage", "note"])
        else { return nil }
        let days = r.required(m, "days", in: field, at: node.location).flatMap {
            r.integer($0, "\(field).days", range: 1...36_500)
        }
        var rate = Exact.zero
        if let b = m["expectedBreakage"] {
            guard let v = r.decimal(b.value, "\(field).expectedBreakage") else { return nil }
            guard !v.isNegative, v < .one else {
                r.error(
                    "\(field).expectedBreakage: \(v.decimalText()) is not a share in [0, 1) (0.10 is 10%)",
                    at: b.value.location)
                return nil
            }
            rate = v
        }
        let note = m["note"].flatMap { r.string($0.value, "\(field).note") }
        guard let days else { return nil }
        return CreditExpiry(
            days: Int(days), expectedBreakage: rate, note: note, location: node.location)
    }

    static func stringList(_ node: JSONNode?, _ field: String, _ r: FieldReader) -> [String] {
        guard let node, let items = r.array(node, field) else { return [] }
        return items.enumerated().compactMap { r.string($1, "\(field)[\($0)]") }
    }

    static func timestamp(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Timestamp? {
        guard let s = r.string(node, field) else { return nil }
        do {
            return try Timestamp(rfc3339: s)
        } catch {
            r.error("\(field): \"\(FieldReader.excerpt(s))\": \(error)", at: node.location)
            return nil
        }
    }

    static func readCreditUnit(_ node: JSONNode, _ r: FieldReader) -> CreditUnit? {
        guard let m = r.object(node, "creditUnit", allowed: ["name", "priceStep", "faceValue"])
        else { return nil }
        let name = r.required(m, "name", in: "creditUnit", at: node.location).flatMap {
            r.nonEmptyString($0, "creditUnit.name")
        }
        let step = r.required(m, "priceStep", in: "creditUnit", at: node.location).flatMap {
            r.integer($0, "creditUnit.priceStep", range: 1...maxCredits)
        }
        let face = m["faceValue"].flatMap {
            readMoney($0.value, "creditUnit.faceValue", r, allowFraction: true)
        }
        guard let name, let step else { return nil }
        return CreditUnit(name: name, priceStep: step, faceValue: face)
    }

    /// Money written as `{"currency": "CNY", "amount": "28"}`.
    static func readMoney(_ node: JSONNode, _ field: String, _ r: FieldReader, allowFraction: Bool)
        -> Money?
    {
        guard let m = r.object(node, field, allowed: ["currency", "amount"]) else { return nil }
        let c = r.required(m, "currency", in: field, at: node.location).flatMap {
            r.currency($0, "\(field).currency")
        }
        let a = r.required(m, "amount", in: field, at: node.location).flatMap {
            r.decimal($0, "\(field).amount")
        }
        guard let c, let a else { return nil }
        return Money(a, c)
    }

    static func readFeature(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Feature? {
        guard
            let m = r.object(
                node, field, allowed: ["key", "name", "dimensions", "placeholder", "note"])
        else { return nil }
        let keyNode = r.required(m, "key", in: field, at: node.location)
        let key = keyNode.flatMap { r.string($0, "\(field).key") }
        let name = m["name"].flatMap { r.string($0.value, "\(field).name") } ?? key ?? ""
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        var dims: [Dimension] = []
        if let dn = r.required(m, "dimensions", in: field, at: node.location),
            let items = r.array(dn, "\(field).dimensions")
        {
            if items.isEmpty {
                r.error(
                    "\(field).dimensions: a feature needs at least one dimension", at: dn.location)
            }
            dims = r.uniqueItems(
                items, "\(field).dimensions", read: { readDimension($0, $1, r) }, key: \.name,
                at: \.location,
                duplicate: { path, key, line in
                    "\(path).name: dimension \"\(key)\" appears twice (first at line \(line))"
                })
        }
        guard let key, let keyNode else { return nil }
        return Feature(
            key: key, name: name, dimensions: dims, placeholder: placeholder,
            location: node.location, keyLocation: keyNode.location)
    }

    static func readDimension(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Dimension? {
        guard
            let m = r.object(
                node, field,
                allowed: ["name", "unit", "credits", "per", "rounding", "cost", "note"])
        else { return nil }
        let name = r.required(m, "name", in: field, at: node.location).flatMap { n -> String? in
            guard let s = r.string(n, "\(field).name") else { return nil }
            guard isStableIdentifier(s) else {
                r.error(
                    "\(field).name: \"\(FieldReader.excerpt(s))\" is not \(keyPattern)",
                    at: n.location)
                return nil
            }
            return s
        }
        let unit = r.required(m, "unit", in: field, at: node.location).flatMap {
            meterUnit($0, "\(field).unit", r)
        }
        let creditsNode = r.required(m, "credits", in: field, at: node.location)
        // Free and negative prices are findings of `margin check`, not load errors, so
        // that CI reports them with their rule; the loader only insists on a whole number.
        let credits = creditsNode.flatMap {
            r.integer($0, "\(field).credits", range: -maxCredits...maxCredits)
        }
        let per = r.required(m, "per", in: field, at: node.location).flatMap {
            r.integer($0, "\(field).per", range: 1...maxCredits)
        }
        let rounding = r.required(m, "rounding", in: field, at: node.location).flatMap {
            n -> ChargeRounding? in
            guard let s = r.string(n, "\(field).rounding") else { return nil }
            guard let v = ChargeRounding(rawValue: s) else {
                r.error(
                    "\(field).rounding: \"\(FieldReader.excerpt(s))\" is not one of \"up\", \"down\", \"exact\"",
                    at: n.location)
                return nil
            }
            return v
        }
        let cost = r.required(m, "cost", in: field, at: node.location).flatMap {
            readCostBinding($0, "\(field).cost", r)
        }
        guard let name, let unit, let credits, let creditsNode, let per, let rounding, let cost
        else { return nil }
        return Dimension(
            name: name, unit: unit, credits: credits, per: per, rounding: rounding, cost: cost,
            location: node.location, creditsLocation: creditsNode.location)
    }

    static func meterUnit(_ node: JSONNode, _ field: String, _ r: FieldReader) -> MeterUnit? {
        guard let s = r.string(node, field) else { return nil }
        guard let u = MeterUnit(rawValue: s) else {
            let hint =
                FieldReader.didYouMean(s, in: MeterUnit.allCases.map(\.rawValue))
            r.error(
                "\(field): unknown unit \"\(FieldReader.excerpt(s))\"\(hint) (known: \(MeterUnit.allCases.map(\.rawValue).joined(separator: ", ")))",
                at: node.location)
            return nil
        }
        return u
    }

    static func readCostBinding(_ node: JSONNode, _ field: String, _ r: FieldReader) -> CostBinding?
    {
        guard let m = r.object(node, field, allowed: ["provider", "meter", "none"]) else {
            return nil
        }
        if let none = m["none"] {
            if m["provider"] != nil || m["meter"] != nil {
                r.error(
                    "\(field): give either \"none\" (with the reason) or \"provider\" and \"meter\", not both",
                    at: none.keyLocation)
                return nil
            }
            return r.nonEmptyString(none.value, "\(field).none").map {
                CostBinding.none(reason: $0)
            }
        }
        let sheet = r.required(m, "provider", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).provider")
        }
        let meter = r.required(m, "meter", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).meter")
        }
        guard let sheet, let meter else { return nil }
        return .provider(sheet: sheet, meter: meter, location: node.location)
    }

    static func readGrant(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Grant? {
        guard let m = r.object(node, field, allowed: ["key", "credits", "note", "placeholder"])
        else { return nil }
        let key = r.required(m, "key", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).key")
        }
        let credits = r.required(m, "credits", in: field, at: node.location).flatMap {
            r.integer($0, "\(field).credits", range: -maxCredits...maxCredits)
        }
        let note = m["note"].flatMap { r.string($0.value, "\(field).note") }
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        guard let key, let credits else { return nil }
        return Grant(
            key: key, credits: credits, note: note, placeholder: placeholder,
            location: node.location)
    }

    static func readPack(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Pack? {
        guard
            let m = r.object(
                node, field,
                allowed: ["productId", "type", "credits", "prices", "placeholder", "note", "name"])
        else { return nil }
        let id = r.required(m, "productId", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).productId")
        }
        let type = r.required(m, "type", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).type")
        }
        let credits = r.required(m, "credits", in: field, at: node.location).flatMap {
            r.integer($0, "\(field).credits", range: -maxCredits...maxCredits)
        }
        let placeholder =
            m["placeholder"].flatMap { r.bool($0.value, "\(field).placeholder") } ?? false
        let prices =
            r.required(m, "prices", in: field, at: node.location).map {
                readPrices($0, "\(field).prices", r)
            } ?? []
        guard let id, let type, let credits else { return nil }
        return Pack(
            productId: id, type: type, credits: credits, prices: prices, placeholder: placeholder,
            location: node.location, creditsLocation: m["credits"]?.value.location ?? node.location)
    }

    // MARK: Provider sheets

    static func readProvider(_ root: JSONNode, _ r: FieldReader) -> ProviderSheet? {
        let allowed: Set<String> = [
            "kind", "id", "name", "currency", "reviewed", "source", "meters", "schedule",
            "placeholder", "notes", "$schema",
        ]
        guard let m = r.object(root, "", allowed: allowed) else { return nil }
        let loc = root.location
        let id = r.required(m, "id", in: "", at: loc).flatMap { n -> String? in
            guard let s = r.string(n, "id") else { return nil }
            guard isStableIdentifier(s) else {
                r.error("id: \"\(FieldReader.excerpt(s))\" is not \(keyPattern)", at: n.location)
                return nil
            }
            return s
        }
        let name = m["name"].flatMap { r.string($0.value, "name") } ?? id ?? ""
        let currency = r.required(m, "currency", in: "", at: loc).flatMap {
            r.currency($0, "currency")
        }
        let reviewed = r.required(m, "reviewed", in: "", at: loc).flatMap { r.date($0, "reviewed") }
        let source = r.required(m, "source", in: "", at: loc).flatMap {
            r.nonEmptyString($0, "source")
        }
        let placeholder = m["placeholder"].flatMap { r.bool($0.value, "placeholder") } ?? false
        let notes = stringList(m["notes"]?.value, "notes", r)
        var meters: [Meter] = []
        if let mn = r.required(m, "meters", in: "", at: loc), let items = r.array(mn, "meters") {
            if items.isEmpty {
                r.error("meters: a provider sheet needs at least one meter", at: mn.location)
            }
            var seen: [String: SourceLocation] = [:]
            for (i, item) in items.enumerated() {
                guard let meter = readMeter(item, "meters[\(i)]", r),
                    r.isFirst(
                        meter.key, at: item.location, in: &seen,
                        {
                            "meters[\(i)].key: meter \"\(meter.key)\" appears twice (first at line \($0.line))"
                        })
                else { continue }
                meters.append(meter)
            }
        }
        let schedule = m["schedule"].flatMap { readSchedule($0.value, "schedule", r) }
        guard let id, let currency, let reviewed, let source else { return nil }
        return ProviderSheet(
            id: id, name: name, currency: currency, reviewed: reviewed, sourceURL: source,
            meters: meters, schedule: schedule, placeholder: placeholder, notes: notes,
            source: SourceFile(path: r.path, location: loc))
    }

    static func readMeter(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Meter? {
        guard
            let m = r.object(
                node, field,
                allowed: [
                    "key", "unit", "per", "price", "variants", "increment", "minimum", "note",
                ])
        else { return nil }
        let key = r.required(m, "key", in: field, at: node.location).flatMap {
            r.nonEmptyString($0, "\(field).key")
        }
        let unit = r.required(m, "unit", in: field, at: node.location).flatMap {
            meterUnit($0, "\(field).unit", r)
        }
        let per = r.required(m, "per", in: field, at: node.location).flatMap {
            r.positiveDecimal($0, "\(field).per")
        }
        var variants: [Variant] = []
        if let price = m["price"] {
            if m["variants"] != nil {
                r.error(
                    "\(field): give either \"price\" or \"variants\", not both",
                    at: price.keyLocation)
            } else if let p = nonNegativeDecimal(price.value, "\(field).price", r) {
                variants.append(Variant(name: "standard", price: p))
            }
        } else if let vn = m["variants"]?.value, let items = r.array(vn, "\(field).variants") {
            if items.isEmpty {
                r.error("\(field).variants: give at least one variant", at: vn.location)
            }
            var seen = Set<String>()
            for (i, item) in items.enumerated() {
                let vf = "\(field).variants[\(i)]"
                guard let vm = r.object(item, vf, allowed: ["name", "price", "note"]) else {
                    continue
                }
                let n = r.required(vm, "name", in: vf, at: item.location).flatMap {
                    r.nonEmptyString($0, "\(vf).name")
                }
                let p = r.required(vm, "price", in: vf, at: item.location).flatMap {
                    nonNegativeDecimal($0, "\(vf).price", r)
                }
                if let n, let p {
                    if !seen.insert(n).inserted {
                        r.error("\(vf).name: variant \"\(n)\" appears twice", at: item.location)
                        continue
                    }
                    variants.append(Variant(name: n, price: p))
                }
            }
        } else {
            r.error("\(field): missing \"price\" (or \"variants\")", at: node.location)
        }
        let increment = m["increment"].flatMap { r.positiveDecimal($0.value, "\(field).increment") }
        let minimum = m["minimum"].flatMap { nonNegativeDecimal($0.value, "\(field).minimum", r) }
        guard let key, let unit, let per, !variants.isEmpty else { return nil }
        return Meter(
            key: key, unit: unit, per: per, variants: variants, increment: increment,
            minimum: minimum, location: node.location)
    }

    static func nonNegativeDecimal(_ node: JSONNode, _ field: String, _ r: FieldReader) -> Exact? {
        guard let v = r.decimal(node, field) else { return nil }
        guard !v.isNegative else {
            r.error("\(field): must not be negative, found \(v)", at: node.location)
            return nil
        }
        return v
    }

    static let weekdayNames = [
        "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7,
    ]

    static func readSchedule(_ node: JSONNode, _ field: String, _ r: FieldReader) -> PriceSchedule?
    {
        guard
            let m = r.object(
                node, field,
                allowed: [
                    "utcOffset", "default", "windows", "multipliers", "reviewed", "source", "note",
                ])
        else { return nil }
        let offset = r.required(m, "utcOffset", in: field, at: node.location).flatMap { n -> Int? in
            guard let s = r.string(n, "\(field).utcOffset") else { return nil }
            guard let o = parseOffset(s) else {
                r.error(
                    "\(field).utcOffset: \"\(FieldReader.excerpt(s))\" is not a fixed UTC offset like \"+08:00\" (time zone names are not supported)",
                    at: n.location)
                return nil
            }
            return o
        }
        let defNode = r.required(m, "default", in: field, at: node.location)
        let def = defNode.flatMap { r.nonEmptyString($0, "\(field).default") }
        var multipliers: [String: Exact] = [:]
        var multiplierLocations: [String: SourceLocation] = [:]
        if let mn = r.required(m, "multipliers", in: field, at: node.location),
            let mm = r.object(mn, "\(field).multipliers")
        {
            for (k, member) in mm {
                if let v = nonNegativeDecimal(member.value, "\(field).multipliers.\(k)", r) {
                    multipliers[k] = v
                    multiplierLocations[k] = member.keyLocation
                }
            }
        }
        var windows: [PriceSchedule.Window] = []
        if let wn = r.required(m, "windows", in: field, at: node.location),
            let items = r.array(wn, "\(field).windows")
        {
            for (i, item) in items.enumerated() {
                let wf = "\(field).windows[\(i)]"
                guard let wm = r.object(item, wf, allowed: ["period", "days", "from", "until"])
                else { continue }
                let periodNode = r.required(wm, "period", in: wf, at: item.location)
                let period = periodNode.flatMap { r.nonEmptyString($0, "\(wf).period") }
                if let period, let periodNode, multipliers[period] == nil, !multipliers.isEmpty {
                    r.error(
                        "\(wf).period: \"\(period)\" has no multiplier in \(field).multipliers",
                        at: periodNode.location)
                }
                var days = Set<Int>()
                if let dn = r.required(wm, "days", in: wf, at: item.location),
                    let ds = r.array(dn, "\(wf).days")
                {
                    for (j, d) in ds.enumerated() {
                        guard let s = r.string(d, "\(wf).days[\(j)]") else { continue }
                        guard let v = weekdayNames[s] else {
                            r.error(
                                "\(wf).days[\(j)]: \"\(FieldReader.excerpt(s))\" is not one of mon, tue, wed, thu, fri, sat, sun",
                                at: d.location)
                            continue
                        }
                        days.insert(v)
                    }
                }
                let from = r.required(wm, "from", in: wf, at: item.location).flatMap {
                    clock($0, "\(wf).from", r, allow24: false)
                }
                let until = r.required(wm, "until", in: wf, at: item.location).flatMap {
                    clock($0, "\(wf).until", r, allow24: true)
                }
                if let from, let until, until <= from {
                    r.error(
                        "\(wf): \"until\" must be later than \"from\" (split a window that crosses midnight in two)",
                        at: item.location)
                    continue
                }
                if let period, let from, let until {
                    windows.append(
                        PriceSchedule.Window(
                            period: period, weekdays: days, from: from, until: until,
                            location: item.location))
                }
            }
        }
        if let def, let defNode, multipliers[def] == nil, !multipliers.isEmpty {
            r.error(
                "\(field).default: \"\(def)\" has no multiplier in \(field).multipliers",
                at: defNode.location)
        }
        let reviewed = m["reviewed"].flatMap { r.date($0.value, "\(field).reviewed") }
        let source = m["source"].flatMap { r.string($0.value, "\(field).source") }
        guard let offset, let def, let defNode, !multipliers.isEmpty else { return nil }
        return PriceSchedule(
            offsetMinutes: offset, defaultPeriod: def, windows: windows, multipliers: multipliers,
            reviewed: reviewed, sourceURL: source,
            defaultLocation: defNode.location, multiplierLocations: multiplierLocations)
    }

    /// "+08:00" → 480; "-05:30" → -330; "Z" → 0 (`UTCOffset`, the one offset rule).
    static func parseOffset(_ s: String) -> Int? {
        UTCOffset.parse(s)
    }

    static func clock(_ node: JSONNode, _ field: String, _ r: FieldReader, allow24: Bool) -> Int? {
        guard let s = r.string(node, field) else { return nil }
        let b = Array(s.utf8)
        if b.count == 5, b[2] == UInt8(ascii: ":"), let h = CalendarDate.digits(b[0..<2]),
            let m = CalendarDate.digits(b[3..<5])
        {
            if h <= 23, m <= 59 { return h * 3600 + m * 60 }
            if allow24, h == 24, m == 0 { return 86_400 }
        }
        r.error(
            "\(field): \"\(FieldReader.excerpt(s))\" is not a time of day HH:MM\(allow24 ? " (24:00 for midnight at the end)" : "")",
            at: node.location)
        return nil
    }

    // MARK: FX and commission

    static func readFX(_ root: JSONNode, _ r: FieldReader) -> FXTable? {
        guard
            let m = r.object(
                root, "",
                allowed: ["kind", "date", "source", "placeholder", "rates", "notes", "$schema"])
        else { return nil }
        let date = r.required(m, "date", in: "", at: root.location).flatMap { r.date($0, "date") }
        let source = r.required(m, "source", in: "", at: root.location).flatMap {
            r.nonEmptyString($0, "source")
        }
        let placeholder = m["placeholder"].flatMap { r.bool($0.value, "placeholder") } ?? false
        var rates: [FXRate] = []
        if let rn = r.required(m, "rates", in: "", at: root.location),
            let items = r.array(rn, "rates")
        {
            var seen: [String: SourceLocation] = [:]
            for (i, item) in items.enumerated() {
                let f = "rates[\(i)]"
                guard let rm = r.object(item, f, allowed: ["base", "quote", "rate"]) else {
                    continue
                }
                let base = r.required(rm, "base", in: f, at: item.location).flatMap {
                    r.currency($0, "\(f).base")
                }
                let quote = r.required(rm, "quote", in: f, at: item.location).flatMap {
                    r.currency($0, "\(f).quote")
                }
                let rate = r.required(rm, "rate", in: f, at: item.location).flatMap {
                    r.positiveDecimal($0, "\(f).rate")
                }
                guard let base, let quote, let rate else { continue }
                if base == quote {
                    r.error("\(f): base and quote are both \(base.code)", at: item.location)
                    continue
                }
                let pair = [base.code, quote.code].sorted().joined(separator: "/")
                guard
                    r.isFirst(
                        pair, at: item.location, in: &seen,
                        {
                            "\(f): a rate between \(base.code) and \(quote.code) is already given at line \($0.line)"
                        })
                else { continue }
                rates.append(FXRate(base: base, quote: quote, rate: rate, location: item.location))
            }
        }
        guard let date, let source else { return nil }
        return FXTable(
            date: date, sourceNote: source, placeholder: placeholder, rates: rates,
            source: SourceFile(path: r.path, location: root.location))
    }

    static func readCommission(_ root: JSONNode, _ r: FieldReader) -> CommissionSchedule? {
        guard
            let m = r.object(root, "", allowed: ["kind", "rates", "overrides", "note", "$schema"])
        else { return nil }
        let rates = r.required(m, "rates", in: "", at: root.location).flatMap {
            commissionRates($0, "rates", r)
        }
        let note = m["note"].flatMap { r.string($0.value, "note") }
        var overrides: [CommissionSchedule.Override] = []
        if let on = m["overrides"]?.value, let items = r.array(on, "overrides") {
            for (i, item) in items.enumerated() {
                let f = "overrides[\(i)]"
                guard let om = r.object(item, f, allowed: ["currency", "from", "rates", "note"])
                else { continue }
                let c = r.required(om, "currency", in: f, at: item.location).flatMap {
                    r.currency($0, "\(f).currency")
                }
                let from = r.required(om, "from", in: f, at: item.location).flatMap {
                    r.date($0, "\(f).from")
                }
                let rs = r.required(om, "rates", in: f, at: item.location).flatMap {
                    commissionRates($0, "\(f).rates", r)
                }
                let n = om["note"].flatMap { r.string($0.value, "\(f).note") }
                if let c, let from, let rs {
                    overrides.append(.init(currency: c, from: from, rates: rs, note: n))
                }
            }
        }
        guard let rates else { return nil }
        return CommissionSchedule(
            defaultRates: rates, overrides: overrides, note: note,
            source: SourceFile(path: r.path, location: root.location))
    }

    static func commissionRates(_ node: JSONNode, _ field: String, _ r: FieldReader) -> [Exact]? {
        guard let items = r.array(node, field) else { return nil }
        if items.isEmpty {
            r.error("\(field): give at least one rate", at: node.location)
            return nil
        }
        var out: [Exact] = []
        for (i, item) in items.enumerated() {
            guard let v = r.decimal(item, "\(field)[\(i)]") else { continue }
            guard !v.isNegative, v < .one else {
                r.error(
                    "\(field)[\(i)]: a commission rate is a fraction from 0 to below 1 (0.15 for 15%), found \(v)",
                    at: item.location)
                continue
            }
            out.append(v)
        }
        return out.count == items.count ? out : nil
    }
}
