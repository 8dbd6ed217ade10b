/// The in-app products of an Xcode StoreKit configuration file (`.storekit`, JSON), as
/// `margin check --storekit` compares them with a card's packs.
///
/// The file's shape, as Xcode writes it (other fields are ignored):
///
/// ```json
/// {
///   "products" : [ { "productID" : "3000tks", "type" : "Consumable",
///                    "displayPrice" : "2.99", "referenceName" : "3,000 credits", … } ],
///   "nonRenewingSubscriptions" : [ … ],
///   "subscriptionGroups" : [ { "subscriptions" : [ { "productID" : …, … } ], … } ],
///   "settings" : { "_storefront" : "USA", … },
///   "version" : { "major" : 4, "minor" : 0 }
/// }
/// ```
///
/// Every `displayPrice` is in the currency of the file's one storefront
/// (`settings._storefront`), read as an exact decimal.
public struct StoreKitConfiguration: Sendable, Hashable {
    /// One in-app product of the file, with where each of its fields is written.
    public struct Product: Sendable, Hashable {
        /// `productID`, the App Store product identifier.
        public let id: String
        /// `type`: "Consumable", "NonConsumable", "NonRenewingSubscription" or
        /// "RecurringSubscription".
        public let type: String
        /// `displayPrice` in the storefront's currency, exact.
        public let price: Exact
        /// `referenceName`, when present.
        public let referenceName: String?
        /// The product's object.
        public let location: SourceLocation
        public let idLocation: SourceLocation
        public let typeLocation: SourceLocation
        public let priceLocation: SourceLocation
    }

    /// The product types Xcode writes.
    public static let productTypes: Set<String> = ["Consumable", "NonConsumable", "NonRenewingSubscription", "RecurringSubscription"]

    /// The file the configuration was read from, as given.
    public let path: String
    /// The storefront code, e.g. "USA".
    public let storefront: String
    public let storefrontLocation: SourceLocation
    /// The currency of every `displayPrice` in the file.
    public let currency: Currency
    /// Every product: `products`, then `nonRenewingSubscriptions`, then the subscriptions
    /// of each group, in file order.
    public let products: [Product]

    /// Reads the StoreKit configuration file at `path`.
    public static func load(path: String) throws(Diagnostics) -> StoreKitConfiguration {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "the StoreKit configuration") } catch { throw Diagnostics([error]) }
        return try load(bytes: bytes, path: path)
    }

    /// Parses StoreKit configuration bytes read from `path`, collecting every problem: a
    /// missing or unknown storefront, products without an id, type or price, a price that
    /// is not an exact non-negative decimal in the storefront currency's minor units, a
    /// product id given twice.
    public static func load(bytes: [UInt8], path: String) throws(Diagnostics) -> StoreKitConfiguration {
        let root = try JSONParser.parseDocument(bytes, path: path)
        guard case .object = root.value else {
            throw Diagnostics([Diagnostic(path: path, location: root.location, message: "expected a JSON object at the top level, found \(root.value.kindName)")])
        }
        let reader = FieldReader(path: path)
        guard let top = reader.object(root, "") else { throw Diagnostics(reader.diagnostics) }

        var storefront: (code: String, location: SourceLocation, currency: Currency)?
        if let settingsNode = reader.required(top, "settings", in: "", at: root.location),
           let settings = reader.object(settingsNode, "settings"),
           let node = reader.required(settings, "_storefront", in: "settings", at: settingsNode.location),
           let code = reader.nonEmptyString(node, "settings._storefront") {
            if let currency = StoreKitStorefront.currency(for: code) {
                storefront = (code, node.location, currency)
            } else {
                let hint = FieldReader.closest(code, in: StoreKitStorefront.currencies.keys).map { "; did you mean \"\($0)\"?" } ?? ""
                reader.error("settings._storefront: \"\(code)\" is not an App Store storefront margin knows (its currency decides every displayPrice)\(hint)", at: node.location)
            }
        }

        // Every product-bearing array, with the field path to name in messages.
        var lists: [(field: String, node: JSONNode)] = []
        if let node = reader.required(top, "products", in: "", at: root.location) {
            lists.append(("products", node))
        }
        if let node = top["nonRenewingSubscriptions"]?.value {
            lists.append(("nonRenewingSubscriptions", node))
        }
        if let groupsNode = top["subscriptionGroups"]?.value, let groups = reader.array(groupsNode, "subscriptionGroups") {
            for (g, groupNode) in groups.enumerated() {
                guard let group = reader.object(groupNode, "subscriptionGroups[\(g)]"),
                      let node = group["subscriptions"]?.value else { continue }
                lists.append(("subscriptionGroups[\(g)].subscriptions", node))
            }
        }

        var products: [Product] = []
        var seen: [String: SourceLocation] = [:]
        for list in lists {
            guard let items = reader.array(list.node, list.field) else { continue }
            for (i, node) in items.enumerated() {
                let field = "\(list.field)[\(i)]"
                // A repeated id is reported even when either product has other faults.
                if let idNode = node["productID"], case .string(let id) = idNode.value {
                    if let first = seen[id] {
                        reader.error("\(field).productID: \"\(id)\" is already used at line \(first.line), column \(first.column)", at: idNode.location)
                        continue
                    }
                    seen[id] = idNode.location
                }
                if let product = readProduct(node, field, currency: storefront?.currency, reader) {
                    products.append(product)
                }
            }
        }

        guard reader.diagnostics.isEmpty, let storefront else { throw Diagnostics(reader.diagnostics) }
        return StoreKitConfiguration(path: path, storefront: storefront.code, storefrontLocation: storefront.location,
                                     currency: storefront.currency, products: products)
    }

    private static func readProduct(_ node: JSONNode, _ field: String, currency: Currency?, _ reader: FieldReader) -> Product? {
        guard let m = reader.object(node, field) else { return nil }
        var id: (String, SourceLocation)?
        var type: (String, SourceLocation)?
        var price: (Exact, SourceLocation)?
        if let n = reader.required(m, "productID", in: field, at: node.location), let s = reader.nonEmptyString(n, "\(field).productID") {
            id = (s, n.location)
        }
        if let n = reader.required(m, "type", in: field, at: node.location), let s = reader.string(n, "\(field).type") {
            if productTypes.contains(s) {
                type = (s, n.location)
            } else {
                let hint = FieldReader.closest(s, in: productTypes).map { "did you mean \"\($0)\"? " } ?? ""
                reader.error("\(field).type: \"\(s)\" is not a StoreKit product type (\(hint)expected one of \(productTypes.sorted().joined(separator: ", ")))", at: n.location)
            }
        }
        if let n = reader.required(m, "displayPrice", in: field, at: node.location), let value = reader.decimal(n, "\(field).displayPrice") {
            if value.isNegative {
                reader.error("\(field).displayPrice: \(value) is negative", at: n.location)
            } else if let currency, !Money(value, currency).isWholeMinorUnits {
                reader.error("\(field).displayPrice: \(value) has more decimals than \(currency.code) allows (\(currency.minorUnits))", at: n.location)
            } else {
                price = (value, n.location)
            }
        }
        var referenceName: String?
        if let n = m["referenceName"]?.value {
            referenceName = reader.string(n, "\(field).referenceName")
        }
        guard let id, let type, let price else { return nil }
        return Product(id: id.0, type: type.0, price: price.0, referenceName: referenceName,
                       location: node.location, idLocation: id.1, typeLocation: type.1, priceLocation: price.1)
    }
}
