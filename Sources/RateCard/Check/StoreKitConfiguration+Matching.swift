extension StoreKitConfiguration {
    /// Every disagreement between this file's products and a card's packs, both ways,
    /// sorted by file and place.
    ///
    /// - `storekit-unknown-product`: a consumable in the file that is no pack of the card
    ///   (at its `productID`).
    /// - `storekit-type`: a pack's product has another type in the file (at its `type`).
    /// - `storekit-price`: the file's `displayPrice` differs from the pack's price in the
    ///   storefront's currency, or the pack has no price in that currency (at `displayPrice`).
    /// - `storekit-no-price`: a pack's product, or a consumable, whose `displayPrice` is
    ///   empty (at `displayPrice`).
    /// - `storekit-missing-product`: a pack with no product in the file, reported at the
    ///   pack in the card file `cardPath`.
    /// - `storekit-skipped` (a note): how many products are not compared because they are
    ///   no pack — non-consumables, subscriptions (subscription plans are checked
    ///   elsewhere) and the ids in `ignore` (a voluntary tip) — so that nothing is skipped
    ///   without a word.
    ///
    /// When `packs` repeats a product id, the first one counts. An id in `ignore` is never
    /// compared, even when a pack has it (the pack is then not reported missing either).
    func mismatches(
        with packs: [StoreKitPackExpectation], cardPath: String, ignore: Set<String> = []
    ) -> [Diagnostic] {
        var packsByID: [String: StoreKitPackExpectation] = [:]
        for pack in packs where packsByID[pack.productId] == nil {
            packsByID[pack.productId] = pack
        }
        var findings: [Diagnostic] = []
        var skipped = Skipped()
        for product in products {
            if ignore.contains(product.id) {
                skipped.ignored.append(product.id)
                continue
            }
            guard let pack = packsByID[product.id] else {
                if product.type == "Consumable" {
                    findings.append(
                        finding(
                            "consumable \"\(product.id)\" is not a pack of the card \(cardPath); if it is not a credit pack (a tip), pass --storekit-ignore \(product.id)",
                            at: product.idLocation, rule: .storeKitUnknownProduct))
                } else if product.isSubscription {
                    skipped.subscriptions += 1
                } else {
                    skipped.nonConsumables += 1
                }
                continue
            }
            findings += compare(product, with: pack, cardPath: cardPath)
        }
        let productIDs = Set(products.map(\.id))
        for pack in packs
        where packsByID[pack.productId] == pack && !productIDs.contains(pack.productId)
            && !ignore.contains(pack.productId)
        {
            findings.append(
                Diagnostic(
                    path: cardPath, location: pack.location,
                    message:
                        "pack \"\(pack.productId)\" has no product in the StoreKit configuration \(path)",
                    rule: .check(.storeKitMissingProduct)))
        }
        if let note = skippedNote(skipped, cardPath: cardPath) { findings.append(note) }
        return findings.sorted()
    }

    /// The products not compared with a pack, by why.
    struct Skipped {
        var nonConsumables = 0
        var subscriptions = 0
        var ignored: [String] = []
    }

    private func finding(_ message: String, at location: SourceLocation, rule: CheckRule)
        -> Diagnostic
    {
        Diagnostic(path: path, location: location, message: message, rule: .check(rule))
    }

    /// Where the prices come from, as the messages say it.
    private var priceSource: String {
        storefrontIsDefault
            ? "storefront \(storefront), Xcode's default: the file names none"
            : "storefront \(storefront)"
    }

    /// One product against the card's pack of its id: its type, and its price in the
    /// file's currency.
    private func compare(
        _ product: StoreKitConfiguration.Product, with pack: StoreKitPackExpectation,
        cardPath: String
    ) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        if Self.normalizedType(product.type) != Self.normalizedType(pack.type) {
            findings.append(
                finding(
                    "\"\(product.id)\" is \(product.type) here but the card \(cardPath) sells it as \(pack.type)",
                    at: product.typeLocation, rule: .storeKitType))
        }
        let from = priceSource
        let expected = pack.prices[currency]
        guard let price = product.price else {
            let card =
                expected.map { "the card \(cardPath) prices it at \(show($0))" }
                ?? "the card \(cardPath) has no \(currency.code) price for it either"
            findings.append(
                finding(
                    "\"\(product.id)\" has no displayPrice (\"\") in the StoreKit configuration (\(from)); \(card)",
                    at: product.priceLocation, rule: .storeKitNoPrice))
            return findings
        }
        if let expected {
            if expected != price {
                findings.append(
                    finding(
                        "\"\(product.id)\" has displayPrice \(show(price)) (\(from)) but the card \(cardPath) prices it at \(show(expected))",
                        at: product.priceLocation, rule: .storeKitPrice))
            }
        } else {
            let sold = pack.prices.keys.sorted().map(\.code).joined(separator: ", ")
            findings.append(
                finding(
                    "\"\(product.id)\" has displayPrice \(show(price)) (\(from)) but the card \(cardPath) has no \(currency.code) price for it (only \(sold.isEmpty ? "none" : sold))",
                    at: product.priceLocation, rule: .storeKitPrice))
        }
        return findings
    }

    /// The note that says which products were not compared, and why; nil when none.
    private func skippedNote(_ skipped: Skipped, cardPath: String) -> Diagnostic? {
        var parts: [String] = []
        if skipped.nonConsumables > 0 {
            parts.append(
                "\(skipped.nonConsumables) non-consumable\(skipped.nonConsumables == 1 ? "" : "s")")
        }
        if skipped.subscriptions > 0 {
            parts.append(
                "\(skipped.subscriptions) subscription\(skipped.subscriptions == 1 ? "" : "s") (compared with subscription plans, not packs)"
            )
        }
        if !skipped.ignored.isEmpty {
            parts.append(
                "\(skipped.ignored.count) ignored (\(skipped.ignored.joined(separator: ", ")))")
        }
        guard !parts.isEmpty else { return nil }
        let count = skipped.nonConsumables + skipped.subscriptions + skipped.ignored.count
        return Diagnostic(
            path: path, location: storefrontLocation, severity: .note,
            message:
                "\(count) of \(products.count) product\(products.count == 1 ? "" : "s") not compared with the packs of \(cardPath): \(parts.joined(separator: ", "))",
            rule: .check(.storeKitSkipped))
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
        String(
            type.lowercased().unicodeScalars.filter {
                ("a"..."z").contains($0) || ("0"..."9").contains($0)
            }.map(Character.init))
    }
}
