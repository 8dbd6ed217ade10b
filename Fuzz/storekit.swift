// Fuzz target `storekit`: the `.storekit` configuration loader never crashes, and a
// loaded configuration can be matched against packs without trapping.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let configuration: StoreKitConfiguration
    do {
        configuration = try StoreKitConfiguration.load(
            bytes: inputBytes(data, size), path: "fuzz.storekit")
    } catch {
        require(!error.items.isEmpty, "a rejected file without a diagnostic")
        return 0
    }
    let packs = configuration.products.enumerated().map { i, product in
        // Every other pack disagrees on price, so both outcomes of the match run.
        let price =
            i % 2 == 0
            ? (product.price ?? .zero) : ((try? (product.price ?? .zero).adding(.one)) ?? .zero)
        return StoreKitPackExpectation(
            productId: product.id, type: "consumable", prices: [configuration.currency: price],
            location: .start)
    }
    _ = configuration.mismatches(with: packs, cardPath: "card.json")
    _ = configuration.mismatches(with: [], cardPath: "card.json")
    return 0
}
