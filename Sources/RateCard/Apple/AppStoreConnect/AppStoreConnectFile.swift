/// One App Store Connect API response as a user saves it (JSON:API): a page of price
/// points (`GET /v2/inAppPurchases/{id}/pricePoints?include=territory`), a point's
/// equalizations (`GET /v1/inAppPurchasePricePoints/{id}/equalizations?include=territory`),
/// a price schedule (`GET /v1/inAppPurchasePriceSchedules/{id}?include=manualPrices,
/// automaticPrices,…`) or its prices (`…/manualPrices?include=inAppPurchasePricePoint,territory`).
///
/// Apple's format is Apple's: members this reader does not use are ignored (Apple adds
/// attributes such as `currency` and `additional` in some responses). The members it does
/// use are read strictly: amounts with the project's decimal parser, dates as `YYYY-MM-DD`,
/// every problem a diagnostic naming the file, line, column and field.
struct AppStoreConnectFile: Sendable, Hashable {
    let path: String
    /// Price points, each with its territory and currency resolved.
    let pricePoints: [ApplePricePoint]
    /// Dated prices of a schedule, each with its point.
    let scheduledPrices: [AppleScheduledPrice]
    /// `links.self` and `links.next` of the page.
    let selfLink: String?
    let nextLink: String?
    /// `meta.paging.total`: the records of the whole collection, across pages.
    let total: Int?
    /// The records of `data[]` on this page.
    let dataCount: Int
    /// Problems that do not stop the file from being used (a point with no proceeds).
    let warnings: [Diagnostic]

    static let pointTypes: Set<String> = [
        "inAppPurchasePricePoints", "subscriptionPricePoints", "appPricePoints",
    ]
    static let priceTypes: Set<String> = ["inAppPurchasePrices", "subscriptionPrices", "appPrices"]
    static let scheduleTypes: Set<String> = ["inAppPurchasePriceSchedules", "appPriceSchedules"]
    /// The relationship of a price record that names its point, by record type.
    static let pointRelationships = [
        "inAppPurchasePricePoint", "subscriptionPricePoint", "appPricePoint",
    ]

    /// Reads and parses the file at `path`.
    static func load(path: String) throws(Diagnostics) -> AppStoreConnectFile {
        let (_, root) = try JSONParser.parseFile(path, what: "the App Store Connect file")
        return try read(root, path: path)
    }

    /// Reads a parsed response; `path` names it in messages.
    static func read(_ root: JSONNode, path: String) throws(Diagnostics)
        -> AppStoreConnectFile
    {
        var reader = Reader(r: FieldReader(path: path))
        let file = reader.file(root)
        if let file, reader.r.diagnostics.isEmpty { return file }
        throw Diagnostics(reader.r.diagnostics)
    }

    /// One resource object of `data[]` or `included[]`, before references are resolved.
    struct Resource {
        let type: String
        let id: String
        let node: JSONNode
        let field: String
    }

    struct Reader {
        let r: FieldReader
        var warnings: [Diagnostic] = []

        mutating func file(_ root: JSONNode) -> AppStoreConnectFile? {
            guard let m = r.object(root, "") else { return nil }
            if let errors = m["errors"] {
                r.error(
                    "errors: the file is an App Store Connect error response, not price data",
                    at: errors.value.location)
                return nil
            }
            guard let dataNode = r.required(m, "data", in: "", at: root.location),
                let data = dataResources(dataNode)
            else { return nil }
            var included: [Resource] = []
            if let inc = m["included"]?.value, let items = r.array(inc, "included") {
                for (i, item) in items.enumerated() {
                    if let res = resource(item, "included[\(i)]") { included.append(res) }
                }
            }
            for res in data
            where
                !(pointTypes.contains(res.type) || priceTypes.contains(res.type)
                || scheduleTypes.contains(res.type))
            {
                r.error(
                    "\(res.field).type: \"\(FieldReader.excerpt(res.type))\" is not a price point, price or price schedule (save inAppPurchasePricePoints, inAppPurchasePrices or inAppPurchasePriceSchedules)",
                    at: res.node["type"]?.location ?? res.node.location)
            }
            let all = data + included
            let currencies = territoryCurrencies(all)
            let records = priceRecords(all)
            let points = pricePoints(all, records: records, currencies: currencies)
            checkSchedules(data, records: records)
            let scheduled = scheduledPrices(
                records, points: points, manualIDs: manualPriceIDs(data + included))
            let links = m["links"]?.value
            let selfLink = links?["self"].flatMap {
                if case .string(let s) = $0.value { s } else { nil }
            }
            let nextLink = links?["next"].flatMap {
                if case .string(let s) = $0.value { s } else { nil }
            }
            var total: Int?
            if let t = m["meta"]?.value["paging"]?["total"] {
                total = r.integer(t, "meta.paging.total", range: 0...1_000_000).map { Int($0) }
            }
            return AppStoreConnectFile(
                path: r.path, pricePoints: points.list, scheduledPrices: scheduled,
                selfLink: selfLink, nextLink: nextLink,
                total: total, dataCount: data.count, warnings: warnings)
        }

        /// The resources of `data`: an array of them or one; nil (and an error) for
        /// anything else.
        func dataResources(_ dataNode: JSONNode) -> [Resource]? {
            var data: [Resource] = []
            switch dataNode.value {
            case .array(let items):
                for (i, item) in items.enumerated() {
                    if let res = resource(item, "data[\(i)]") { data.append(res) }
                }
            case .object:
                if let res = resource(dataNode, "data") { data.append(res) }
            default:
                r.error(
                    "data: expected an array or an object, found \(dataNode.value.kindName)",
                    at: dataNode.location)
                return nil
            }
            return data
        }

        /// A price record: the point it names and, in schedules, the territory the point
        /// lacks.
        struct PriceRecord {
            let res: Resource
            let pointID: String
            let pointNode: JSONNode
            let territory: (String, JSONNode)?
        }

        /// Every price record of `all`, in order.
        func priceRecords(_ all: [Resource]) -> [PriceRecord] {
            var records: [PriceRecord] = []
            for res in all where priceTypes.contains(res.type) {
                guard
                    let rel = relationshipID(
                        res, AppStoreConnectFile.pointRelationships, kind: "price point")
                else { continue }
                records.append(
                    PriceRecord(
                        res: res, pointID: rel.0, pointNode: rel.1,
                        territory: optionalRelationshipID(res, "territory")))
            }
            return records
        }

        /// The price points of a file: by id, the list the file gives (included points only
        /// when no price record names them), the ids seen and those without a price.
        struct Points {
            var byID: [String: ApplePricePoint] = [:]
            var list: [ApplePricePoint] = []
            var seen = Set<String>()
            var withoutPrice = Set<String>()
        }

        mutating func pricePoints(
            _ all: [Resource], records: [PriceRecord], currencies: [String: Currency]
        ) -> Points {
            // Price records name their point and, in schedules, the territory the point lacks.
            var pointTerritory: [String: (String, JSONNode)] = [:]
            for record in records {
                if let territory = record.territory { pointTerritory[record.pointID] = territory }
            }
            var points = Points()
            for res in all where AppStoreConnectFile.pointTypes.contains(res.type) {
                guard points.seen.insert(res.id).inserted else { continue }
                if res.node["attributes"]?["customerPrice"] == nil {
                    points.withoutPrice.insert(res.id)
                }
                if let p = point(
                    res, territoryFromPrice: pointTerritory[res.id], currencies: currencies)
                {
                    points.byID[res.id] = p
                    if !res.field.hasPrefix("included") || records.isEmpty { points.list.append(p) }
                }
            }
            return points
        }

        /// Which list of a schedule each price record is on, when the record does not say.
        func manualPriceIDs(_ resources: [Resource]) -> Set<String> {
            var manualIDs = Set<String>()
            for res in resources where scheduleTypes.contains(res.type) {
                for id in listIDs(res, "manualPrices") { manualIDs.insert(id) }
            }
            return manualIDs
        }

        /// A schedule lists its prices by id; each must be in the file (saved with
        /// include=manualPrices,automaticPrices), as a missing price point is an error: a
        /// price that is not there would otherwise contribute nothing, silently.
        func checkSchedules(_ data: [Resource], records: [PriceRecord]) {
            let recordIDs = Set(records.map(\.res.id))
            for res in data where scheduleTypes.contains(res.type) {
                var listed = 0
                for list in ["manualPrices", "automaticPrices"] {
                    for (i, (id, node)) in listIDNodes(res, list).enumerated() {
                        listed += 1
                        guard !recordIDs.contains(id) else { continue }
                        r.error(
                            "\(res.field).relationships.\(list).data[\(i)].id: price \"\(FieldReader.excerpt(id))\" is not in included[] (save the schedule with include=manualPrices,automaticPrices)",
                            at: node.location)
                    }
                }
                if listed == 0 && records.isEmpty {
                    r.error(
                        "\(res.field): the price schedule lists no prices and the file holds none (save it with include=manualPrices,automaticPrices, or save its manualPrices and automaticPrices)",
                        at: res.node.location)
                }
            }
        }

        /// Each price record with its point and dates; a record whose point is missing or
        /// whose dates are reversed is an error.
        func scheduledPrices(_ records: [PriceRecord], points: Points, manualIDs: Set<String>)
            -> [AppleScheduledPrice]
        {
            var scheduled: [AppleScheduledPrice] = []
            for record in records {
                let (res, pointID, pointNode) = (record.res, record.pointID, record.pointNode)
                guard let p = points.byID[pointID] else {
                    if points.withoutPrice.contains(pointID) {
                        r.error(
                            "\(res.field).relationships: price point \"\(FieldReader.excerpt(pointID))\" is included without customerPrice and proceeds (save the response without fields[inAppPurchasePricePoints]=priceTier)",
                            at: pointNode.location)
                    } else if !points.seen.contains(pointID) {
                        r.error(
                            "\(res.field).relationships: price point \"\(FieldReader.excerpt(pointID))\" is not in included[] (save the response with include=inAppPurchasePricePoint)",
                            at: pointNode.location)
                    }
                    continue
                }
                let attrs = res.node["attributes"]
                let start =
                    attrs?["startDate"].flatMap { date($0, "\(res.field).attributes.startDate") }
                    ?? nil
                let end =
                    attrs?["endDate"].flatMap { date($0, "\(res.field).attributes.endDate") } ?? nil
                let manual =
                    attrs?["manual"].flatMap { r.bool($0, "\(res.field).attributes.manual") }
                    ?? (manualIDs.contains(res.id) || manualIDs.isEmpty)
                if let start, let end, end <= start, let endNode = attrs?["endDate"] {
                    r.error(
                        "\(res.field).attributes.endDate: \(end) is not after startDate \(start)",
                        at: endNode.location)
                    continue
                }
                scheduled.append(
                    AppleScheduledPrice(
                        id: res.id, point: p, manual: manual, start: start, end: end,
                        location: res.node.location))
            }
            return scheduled
        }

        func resource(_ node: JSONNode, _ field: String) -> Resource? {
            guard let m = r.object(node, field) else { return nil }
            let type = r.required(m, "type", in: field, at: node.location).flatMap {
                r.nonEmptyString($0, "\(field).type")
            }
            let id = r.required(m, "id", in: field, at: node.location).flatMap {
                r.nonEmptyString($0, "\(field).id")
            }
            guard let type, let id else { return nil }
            return Resource(type: type, id: id, node: node, field: field)
        }

        /// Currency of each included territory (`included[]` of type `territories`).
        func territoryCurrencies(_ all: [Resource]) -> [String: Currency] {
            var out: [String: Currency] = [:]
            for res in all where res.type == "territories" {
                guard let c = res.node["attributes"]?["currency"] else {
                    r.error(
                        "\(res.field).attributes.currency: missing required field (the territory's currency)",
                        at: res.node.location)
                    continue
                }
                if let cur = r.currency(c, "\(res.field).attributes.currency") { out[res.id] = cur }
            }
            return out
        }

        /// `relationships.<name>.data.id` for the first of `names` present; an error when none is.
        func relationshipID(_ res: Resource, _ names: [String], kind: String) -> (String, JSONNode)?
        {
            let rels = res.node["relationships"]
            for name in names {
                guard let rel = rels?[name] else { continue }
                guard let data = rel["data"], let idNode = data["id"] else {
                    r.error(
                        "\(res.field).relationships.\(name).data.id: missing required field (the \(kind) this record points at)",
                        at: rel.location)
                    return nil
                }
                guard
                    let id = r.nonEmptyString(idNode, "\(res.field).relationships.\(name).data.id")
                else { return nil }
                return (id, idNode)
            }
            r.error(
                "\(res.field).relationships.\(names[0]): missing required field (the \(kind) this record points at)",
                at: (rels ?? res.node).location)
            return nil
        }

        /// `relationships.<name>.data.id`, or nil when the relationship is absent or empty
        /// (`"territory": {}` on points included in a schedule response).
        func optionalRelationshipID(_ res: Resource, _ name: String) -> (String, JSONNode)? {
            guard let data = res.node["relationships"]?[name]?["data"], case .object = data.value,
                let idNode = data["id"]
            else { return nil }
            guard let id = r.nonEmptyString(idNode, "\(res.field).relationships.\(name).data.id")
            else { return nil }
            return (id, idNode)
        }

        /// The ids of a schedule's `relationships.<name>.data[]`, with where each is written.
        func listIDNodes(_ res: Resource, _ name: String) -> [(String, JSONNode)] {
            guard let data = res.node["relationships"]?[name]?["data"],
                case .array(let items) = data.value
            else { return [] }
            return items.compactMap { item in
                item["id"].flatMap { n in if case .string(let s) = n.value { (s, n) } else { nil } }
            }
        }

        /// The ids of a schedule's `relationships.<name>.data[]`.
        func listIDs(_ res: Resource, _ name: String) -> [String] {
            guard let data = res.node["relationships"]?[name]?["data"],
                case .array(let items) = data.value
            else { return [] }
            return items.compactMap { item in
                item["id"].flatMap { if case .string(let s) = $0.value { s } else { nil } }
            }
        }

        mutating func point(
            _ res: Resource, territoryFromPrice: (String, JSONNode)?, currencies: [String: Currency]
        ) -> ApplePricePoint? {
            let f = res.field
            guard let attrsNode = res.node["attributes"],
                let attrs = r.object(attrsNode, "\(f).attributes")
            else {
                r.error(
                    "\(f).attributes: missing required field (customerPrice and proceeds)",
                    at: res.node.location)
                return nil
            }
            let own = optionalRelationshipID(res, "territory")
            guard let (territory, territoryNode) = own ?? territoryFromPrice else {
                // A point included only for its tier (fields[inAppPurchasePricePoints]=priceTier)
                // carries no price and no territory: nothing to read from it.
                if attrs["customerPrice"] == nil { return nil }
                r.error(
                    "\(f).relationships.territory.data.id: the point has no territory and no price record names one",
                    at: res.node["relationships"]?.location ?? res.node.location)
                return nil
            }
            guard StorefrontTable.isTerritoryCode(territory) else {
                r.error(
                    "\(f).relationships.territory.data.id: \"\(FieldReader.excerpt(territory))\" is not a territory code (three capital letters)",
                    at: territoryNode.location)
                return nil
            }
            var currency = currencies[territory]
            if let c = attrs["currency"] {
                currency = r.currency(c.value, "\(f).attributes.currency") ?? currency
            }
            guard let currency else {
                r.error(
                    "\(f).relationships.territory.data.id: territory \"\(territory)\" is not in included[] and the point states no currency (save the response with include=territory)",
                    at: territoryNode.location)
                return nil
            }
            let tier = attrs["priceTier"].flatMap {
                r.nonEmptyString($0.value, "\(f).attributes.priceTier")
            }
            guard let priceNode = attrs["customerPrice"]?.value else {
                if tier != nil, own == nil { return nil }
                r.error(
                    "\(f).attributes.customerPrice: missing required field", at: attrsNode.location)
                return nil
            }
            let price = amount(priceNode, "\(f).attributes.customerPrice", currency)
            let proceedsNode = attrs["proceeds"]?.value
            if proceedsNode == nil {
                r.error("\(f).attributes.proceeds: missing required field", at: attrsNode.location)
            }
            var proceeds = proceedsNode.flatMap { amount($0, "\(f).attributes.proceeds", currency) }
            let year2Node = attrs["proceedsYear2"]?.value
            let year2 = year2Node.flatMap {
                amount($0, "\(f).attributes.proceedsYear2", currency)
            }
            guard let price else { return nil }
            // Apple states prices in whole units of the currency: more decimals is a file
            // that was edited, or another currency's figure.
            if !price.isWholeMinorUnits {
                r.error(
                    "\(f).attributes.customerPrice: \(price) has more decimals than \(currency.code) (\(currency.minorUnits)); App Store prices are whole units of the currency",
                    at: priceNode.location)
                return nil
            }
            // Apple never pays more than the customer pays, in any subscription year.
            if let y2 = year2, y2.amount > price.amount, let year2Node {
                r.error(
                    "\(f).attributes.proceedsYear2: \(y2) is more than the customer price \(price)",
                    at: year2Node.location)
                return nil
            }
            if year2 == nil, year2Node != nil { return nil }
            if let p = proceeds, p.amount.isZero, price.amount.isPositive, let proceedsNode {
                warnings.append(
                    Diagnostic(
                        path: r.path, location: proceedsNode.location, severity: .warning,
                        message:
                            "\(f).attributes.proceeds: Apple states proceeds of 0.0 for a price of \(price) in \(territory); the modelled proceeds are used instead",
                        rule: .check(.appleProceeds)))
                proceeds = nil
            } else if let p = proceeds, p.amount > price.amount, let proceedsNode {
                r.error(
                    "\(f).attributes.proceeds: \(p) is more than the customer price \(price)",
                    at: proceedsNode.location)
                return nil
            } else if proceeds == nil, proceedsNode != nil {
                return nil
            }
            return ApplePricePoint(
                id: res.id, territory: territory, customerPrice: price, proceeds: proceeds,
                proceedsYear2: year2, priceTier: tier,
                path: r.path, location: res.node.location)
        }

        /// A non-negative decimal amount, written by Apple as a string ("1.0", "499.0", "190").
        func amount(_ node: JSONNode, _ field: String, _ currency: Currency) -> Money? {
            guard let v = r.decimal(node, field) else { return nil }
            guard !v.isNegative else {
                r.error("\(field): \(v) is negative", at: node.location)
                return nil
            }
            return Money(v, currency)
        }

        /// A `YYYY-MM-DD` date or null (nil inside the optional: no date).
        func date(_ node: JSONNode, _ field: String) -> CalendarDate?? {
            if case .null = node.value { return .some(nil) }
            guard let d = r.date(node, field) else { return nil }
            return .some(d)
        }
    }
}
