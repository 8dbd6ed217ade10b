/// `--storekit`: the Xcode StoreKit configuration file against the card's packs.
extension CardChecker {
    /// The `storekit-*` findings of the file at `path` against the newest version of the
    /// card family that sells the most of its products. A file that cannot be read is a load
    /// problem (exit 2).
    /// Product ids in `ignore` are not packs (a voluntary tip) and are never compared.
    static func storeKitFindings(
        _ path: String, cards: [LoadedCard], ignore: Set<String>, problems: inout [Diagnostic]
    ) -> [Diagnostic] {
        let configuration: StoreKitConfiguration
        do {
            configuration = try StoreKitConfiguration.load(path: path)
        } catch {
            problems.append(contentsOf: error.items)
            return []
        }
        let newest = Set(cards.map(\.card.id)).sorted().compactMap { id in
            cards.filter { $0.card.id == id }.max { $0.card.version < $1.card.version }
        }
        let productIDs = Set(configuration.products.map(\.id))
        // The most products in common; ties go to the first card id.
        var best: (card: LoadedCard, shared: Int)?
        for c in newest {
            let shared = c.card.packs.count { productIDs.contains($0.productId) }
            if best.map({ shared > $0.shared }) ?? true { best = (c, shared) }
        }
        guard let chosen = best?.card else { return [] }
        let expectations = chosen.card.packs.map { pack in
            StoreKitPackExpectation(
                productId: pack.productId, type: pack.type,
                prices: prices(of: pack, storefront: configuration.storefront),
                location: pack.location)
        }
        return configuration.mismatches(
            with: expectations, cardPath: chosen.file.path, ignore: ignore)
    }

    /// The pack's price in each currency: the one for `storefront` when the card names
    /// storefronts, else the first one without a storefront, else the first one.
    private static func prices(of pack: Pack, storefront: String) -> [Currency: Exact] {
        var out: [Currency: (Exact, rank: Int)] = [:]
        for price in pack.prices {
            let rank = price.storefront == storefront ? 0 : (price.storefront == nil ? 1 : 2)
            let currency = price.price.currency
            if let existing = out[currency], existing.rank <= rank { continue }
            out[currency] = (price.price.amount, rank)
        }
        return out.mapValues(\.0)
    }
}
