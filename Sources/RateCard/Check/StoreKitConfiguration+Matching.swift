extension StoreKitConfiguration {
    /// Every disagreement between this file's products and a card's packs, both ways,
    /// sorted by file and place.
    ///
    /// - `storekit-unknown-product`: a consumable in the file that is no pack of the card
    ///   (at its `productID`). Non-consumables and subscriptions that are no pack are not
    ///   reported: a credit card only describes consumable packs.
    /// - `storekit-type`: a pack's product has another type in the file (at its `type`).
    /// - `storekit-price`: the file's `displayPrice` differs from the pack's price in the
    ///   storefront's currency, or the pack has no price in that currency (at `displayPrice`).
    /// - `storekit-missing-product`: a pack with no product in the file, reported at the
    ///   pack in the card file `cardPath`.
    ///
    /// When `packs` repeats a product id, the first one counts.
    public func mismatches(with packs: [StoreKitPackExpectation], cardPath: String) -> [Diagnostic] {
        var packsByID: [String: StoreKitPackExpectation] = [:]
        for pack in packs where packsByID[pack.productId] == nil {
            packsByID[pack.productId] = pack
        }
        let productIDs = Set(products.map(\.id))
        var findings: [Diagnostic] = []
        func report(_ message: String, at location: SourceLocation, rule: String) {
            findings.append(Diagnostic(path: path, location: location, message: message, rule: rule))
        }

        for product in products {
            guard let pack = packsByID[product.id] else {
                if product.type == "Consumable" {
                    report("consumable \"\(product.id)\" is not a pack of the card \(cardPath)",
                           at: product.idLocation, rule: CheckRule.storeKitUnknownProduct.rawValue)
                }
                continue
            }
            if Self.normalizedType(product.type) != Self.normalizedType(pack.type) {
                report("\"\(product.id)\" is \(product.type) here but the card \(cardPath) sells it as \(pack.type)",
                       at: product.typeLocation, rule: CheckRule.storeKitType.rawValue)
            }
            if let expected = pack.prices[currency] {
                if expected != product.price {
                    report("\"\(product.id)\" has displayPrice \(show(product.price)) (storefront \(storefront)) but the card \(cardPath) prices it at \(show(expected))",
                           at: product.priceLocation, rule: CheckRule.storeKitPrice.rawValue)
                }
            } else {
                let sold = pack.prices.keys.sorted().map(\.code).joined(separator: ", ")
                report("\"\(product.id)\" has displayPrice \(show(product.price)) (storefront \(storefront)) but the card \(cardPath) has no \(currency.code) price for it (only \(sold.isEmpty ? "none" : sold))",
                       at: product.priceLocation, rule: CheckRule.storeKitPrice.rawValue)
            }
        }

        for pack in packs where packsByID[pack.productId] == pack && !productIDs.contains(pack.productId) {
            findings.append(Diagnostic(
                path: cardPath, location: pack.location,
                message: "pack \"\(pack.productId)\" has no product in the StoreKit configuration \(path)",
                rule: CheckRule.storeKitMissingProduct.rawValue))
        }
        return findings.sorted()
    }

    /// "USD 0.90": the currency's decimals, or more when the amount needs them (a card
    /// price of USD 0.999 is shown as such, not rounded into agreement).
    private func show(_ amount: Exact) -> String {
        let scale = max(currency.minorUnits, amount.terminatingScale ?? 0)
        let text = (try? amount.formatted(scale: scale, rule: .halfEven)) ?? amount.decimalText()
        return "\(currency.code) \(text)"
    }

    /// The type without case or punctuation: "NonConsumable" and "non-consumable" are
    /// both "nonconsumable".
    static func normalizedType(_ type: String) -> String {
        String(type.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }.map(Character.init))
    }
}
