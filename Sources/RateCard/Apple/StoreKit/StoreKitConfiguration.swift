/// The in-app products of an Xcode StoreKit configuration file (`.storekit`, JSON), as
/// `margin check --storekit` compares them with a card's packs.
///
/// Every shape Xcode has written (file format versions 1.0 to 5.0) is read; fields the
/// comparison does not need are ignored:
///
/// ```json
/// {
///   "identifier" : "…",                          (3.0 on; absent in older files)
///   "products" : [ { "productID" : "3000tks", "type" : "Consumable",
///                    "displayPrice" : "2.99", "referenceName" : "3,000 credits", … } ],
///   "nonRenewingSubscriptions" : [ … ],          (absent in older files)
///   "subscriptionGroups" : [ { "subscriptions" : [ { "productID" : …, … } ], … } ],
///   "appPolicies" : { … },                       (newer files)
///   "settings" : { "_storefront" : "USA", … },   (no _storefront: Xcode uses USA)
///   "version" : { "major" : 4, "minor" : 0 }
/// }
/// ```
///
/// Newer files also carry `billingPlans`, `introductoryOffers`, `winbackOffers` and
/// more on subscriptions; `referenceName` may be `null` (Xcode 12); `displayPrice` may be
/// `""` (a product with no price yet: a finding about that product when it is compared,
/// never an unreadable file). Every `displayPrice` is in the currency of the file's one
/// storefront, read as an exact decimal; storefronts whose currency has no minor unit in
/// practice price in whole numbers ("600" JPY, "13900" COP).
///
/// Refused (exit 2) is only what is not Xcode's format, saying what it looks like
/// instead: an empty file, an XML property list, a JSON value that is not an object, or an
/// object with none of Xcode's product lists (another schema).
struct StoreKitConfiguration: Sendable, Hashable {
    /// One in-app product of the file, with where each of its fields is written.
    struct Product: Sendable, Hashable {
        /// `productID`, the App Store product identifier.
        let id: String
        /// `type`: "Consumable", "NonConsumable", "NonRenewingSubscription" or
        /// "RecurringSubscription".
        let type: String
        /// `displayPrice` in the storefront's currency, exact; nil when the file gives none
        /// (`""`).
        let price: Exact?
        /// `referenceName`, when present and not null.
        let referenceName: String?
        /// The array the product is listed in: "products", "nonRenewingSubscriptions" or
        /// "subscriptionGroups[2].subscriptions".
        let list: String
        /// For a subscription in a group: the group's `name` (else its `id`).
        let subscriptionGroup: String?
        /// `recurringSubscriptionPeriod` ("P1M", "P1Y") of an auto-renewable subscription.
        let subscriptionPeriod: String?
        /// The product's object.
        let location: SourceLocation
        let idLocation: SourceLocation
        let typeLocation: SourceLocation
        let priceLocation: SourceLocation

        /// A subscription (auto-renewable or not), which a credit pack never is.
        var isSubscription: Bool {
            type == "RecurringSubscription" || type == "NonRenewingSubscription"
        }
    }

    /// The product types Xcode writes.
    static let productTypes: Set<String> = [
        "Consumable", "NonConsumable", "NonRenewingSubscription", "RecurringSubscription",
    ]

    /// The storefront Xcode uses when a file names none (`settings._storefront` absent).
    static let defaultStorefront = "USA"

    /// The file the configuration was read from, as given.
    let path: String
    /// The storefront code, e.g. "USA".
    let storefront: String
    /// Where `settings._storefront` is written, or the top-level object when the file
    /// names no storefront.
    let storefrontLocation: SourceLocation
    /// True when the file names no storefront and Xcode's default (USA) applies.
    let storefrontIsDefault: Bool
    /// The currency of every `displayPrice` in the file.
    let currency: Currency
    /// Every product: `products`, then `nonRenewingSubscriptions`, then the subscriptions
    /// of each group, in file order.
    let products: [Product]

    /// The subscriptions of the file (`nonRenewingSubscriptions` and every group's), parsed
    /// but not compared with packs: the hook for checking them against a card's
    /// subscription plans.
    var subscriptions: [Product] { products.filter(\.isSubscription) }

    /// Reads the StoreKit configuration file at `path`.
    static func load(path: String) throws(Diagnostics) -> StoreKitConfiguration {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the StoreKit configuration") } catch {
            throw Diagnostics([error])
        }
        return try load(bytes: bytes, path: path)
    }

    /// Parses StoreKit configuration bytes read from `path`, collecting every problem: an
    /// unknown storefront, products without an id or type, a price that is not an exact
    /// non-negative decimal in the storefront currency's minor units, a product id given
    /// twice; and refusing, with what it looks like instead, a file that is not Xcode's.
    static func load(bytes: [UInt8], path: String) throws(Diagnostics)
        -> StoreKitConfiguration
    {
        if let notXcode = notXcodeFormat(bytes) {
            throw Diagnostics([Diagnostic(path: path, location: .start, message: notXcode)])
        }
        let root = try JSONParser.parseDocument(bytes, path: path)
        guard case .object(let members) = root.value else {
            throw Diagnostics([
                Diagnostic(
                    path: path, location: root.location,
                    message:
                        "expected a JSON object at the top level, found \(root.value.kindName): not an Xcode StoreKit configuration file"
                )
            ])
        }
        let lists = ["products", "nonRenewingSubscriptions", "subscriptionGroups"]
        let keysPresent = Set(members.map(\.key))
        guard lists.contains(where: keysPresent.contains) else {
            let keys = keysPresent.sorted().prefix(6).map { "\"\($0)\"" }.joined(separator: ", ")
            throw Diagnostics([
                Diagnostic(
                    path: path, location: root.location,
                    message:
                        "a JSON object with none of Xcode's product lists (products, nonRenewingSubscriptions, subscriptionGroups)\(keys.isEmpty ? "" : ", only \(keys)"): another schema, not an Xcode StoreKit configuration file"
                )
            ])
        }
        let reader = FieldReader(path: path)
        guard let top = reader.object(root, "") else { throw Diagnostics(reader.diagnostics) }

        let storefront = readStorefront(top, root: root, reader)
        let sources = productLists(top, reader)
        var products: [Product] = []
        var seen: [String: SourceLocation] = [:]
        for source in sources {
            guard let items = reader.array(source.node, source.field) else { continue }
            for (i, node) in items.enumerated() {
                let field = "\(source.field)[\(i)]"
                // A repeated id is reported even when either product has other faults.
                if let idNode = node["productID"], case .string(let id) = idNode.value,
                    !reader.isFirst(
                        id, at: idNode.location, in: &seen,
                        {
                            "\(field).productID: \"\(id)\" is already used at line \($0.line), column \($0.column)"
                        })
                {
                    continue
                }
                if let product = readProduct(
                    node, field, list: source.field, group: source.group,
                    currency: storefront?.currency, reader)
                {
                    products.append(product)
                }
            }
        }

        guard reader.diagnostics.isEmpty, let storefront else {
            throw Diagnostics(reader.diagnostics)
        }
        return StoreKitConfiguration(
            path: path, storefront: storefront.code, storefrontLocation: storefront.location,
            storefrontIsDefault: storefront.isDefault, currency: storefront.currency,
            products: products)
    }

    /// The storefront a configuration prices in, where it was read, and whether it is the
    /// default.
    typealias Storefront = (
        code: String, location: SourceLocation, currency: Currency, isDefault: Bool
    )

    /// `settings._storefront`; without one (files of Xcode 12 and some later ones) Xcode
    /// uses the USA. Nil, with the problem recorded, for a storefront margin does not know.
    static func readStorefront(_ top: [String: JSONMember], root: JSONNode, _ reader: FieldReader)
        -> Storefront?
    {
        var storefront: Storefront?
        var settings: [String: JSONMember]?
        if let settingsNode = top["settings"]?.value {
            settings = reader.object(settingsNode, "settings")
        }
        if let node = settings?["_storefront"]?.value {
            if let code = reader.nonEmptyString(node, "settings._storefront") {
                if let currency = StoreKitStorefront.currency(for: code) {
                    storefront = (code, node.location, currency, false)
                } else {
                    let hint =
                        FieldReader.didYouMean(code, in: StoreKitStorefront.currencies.keys)
                    reader.error(
                        "settings._storefront: \"\(code)\" is not an App Store storefront margin knows (its currency decides every displayPrice)\(hint)",
                        at: node.location)
                }
            }
        } else if let usd = StoreKitStorefront.currency(for: defaultStorefront) {
            storefront = (
                defaultStorefront, top["settings"]?.value.location ?? root.location, usd, true
            )
        }
        return storefront
    }

    /// A product-bearing array with the field path to name in messages, and its group.
    typealias ProductList = (field: String, node: JSONNode, group: String?)

    /// Every product-bearing array: `products`, `nonRenewingSubscriptions`, and each
    /// subscription group's `subscriptions`.
    static func productLists(_ top: [String: JSONMember], _ reader: FieldReader) -> [ProductList] {
        var sources: [ProductList] = []
        if let node = top["products"]?.value { sources.append(("products", node, nil)) }
        if let node = top["nonRenewingSubscriptions"]?.value {
            sources.append(("nonRenewingSubscriptions", node, nil))
        }
        if let groupsNode = top["subscriptionGroups"]?.value,
            let groups = reader.array(groupsNode, "subscriptionGroups")
        {
            for (g, groupNode) in groups.enumerated() {
                guard let group = reader.object(groupNode, "subscriptionGroups[\(g)]"),
                    let node = group["subscriptions"]?.value
                else { continue }
                let name: String?
                if case .string(let n)? = group["name"]?.value.value, !n.isEmpty {
                    name = n
                } else if case .string(let i)? = group["id"]?.value.value {
                    name = i
                } else {
                    name = nil
                }
                sources.append(("subscriptionGroups[\(g)].subscriptions", node, name))
            }
        }
        return sources
    }

    /// What the bytes look like when they cannot be Xcode's JSON: empty, an XML property
    /// list (or other XML), a binary property list. Nil when they may be JSON.
    static func notXcodeFormat(_ bytes: [UInt8]) -> String? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let expected =
            "an Xcode StoreKit configuration file is a JSON object with products, settings and version"
        if start == bytes.count { return "the file is empty: \(expected)" }
        if bytes[start...].starts(with: Array("bplist".utf8)) {
            return "the file is a binary property list, not JSON: \(expected)"
        }
        if bytes[start] == UInt8(ascii: "<") {
            let head = String(decoding: bytes[start..<min(bytes.count, start + 512)], as: UTF8.self)
            let what =
                head.contains("<plist") || head.contains("PropertyList")
                ? "an XML property list" : "XML"
            return
                "the file is \(what), not JSON: \(expected) (save it from Xcode's StoreKit configuration editor)"
        }
        return nil
    }

    private static func readProduct(
        _ node: JSONNode, _ field: String, list: String, group: String?, currency: Currency?,
        _ reader: FieldReader
    ) -> Product? {
        guard let m = reader.object(node, field) else { return nil }
        var id: (String, SourceLocation)?
        var type: (String, SourceLocation)?
        var price: (Exact?, SourceLocation)?
        if let n = reader.required(m, "productID", in: field, at: node.location),
            let s = reader.nonEmptyString(n, "\(field).productID")
        {
            id = (s, n.location)
        }
        if let n = reader.required(m, "type", in: field, at: node.location),
            let s = reader.string(n, "\(field).type")
        {
            if productTypes.contains(s) {
                type = (s, n.location)
            } else {
                let hint =
                    FieldReader.closest(s, in: productTypes).map { "did you mean \"\($0)\"? " }
                    ?? ""
                reader.error(
                    "\(field).type: \"\(s)\" is not a StoreKit product type (\(hint)expected one of \(productTypes.sorted().joined(separator: ", ")))",
                    at: n.location)
            }
        }
        if let n = reader.required(m, "displayPrice", in: field, at: node.location) {
            if case .string(let s) = n.value, s.isEmpty {
                price = (nil, n.location)  // no price yet: a finding when the product is compared
            } else if let value = reader.decimal(n, "\(field).displayPrice") {
                if value.isNegative {
                    reader.error("\(field).displayPrice: \(value) is negative", at: n.location)
                } else if let currency, !Money(value, currency).isWholeMinorUnits {
                    reader.error(
                        "\(field).displayPrice: \(value) has more decimals than \(currency.code) allows (\(currency.minorUnits))",
                        at: n.location)
                } else {
                    price = (value, n.location)
                }
            }
        }
        var referenceName: String?
        if let n = m["referenceName"]?.value, n.value != .null {
            referenceName = reader.string(n, "\(field).referenceName")
        }
        var period: String?
        if case .string(let p)? = m["recurringSubscriptionPeriod"]?.value.value { period = p }
        guard let id, let type, let price else { return nil }
        return Product(
            id: id.0, type: type.0, price: price.0, referenceName: referenceName, list: list,
            subscriptionGroup: list.hasPrefix("subscriptionGroups") ? group : nil,
            subscriptionPeriod: period,
            location: node.location, idLocation: id.1, typeLocation: type.1, priceLocation: price.1)
    }
}
