/// What a card says about one pack, as far as the App Store is concerned: the product id,
/// its type and its price in each currency, and where the pack is written in the card.
///
/// The card loader builds these; `StoreKitConfiguration.mismatches(with:cardPath:)`
/// compares them with the products of a `.storekit` file.
struct StoreKitPackExpectation: Sendable, Hashable {
    /// The App Store product id, e.g. "3000tks".
    let productId: String
    /// The product type as the card writes it, e.g. "consumable". Compared with StoreKit's
    /// type ignoring case and punctuation, so "non-consumable" matches "NonConsumable".
    let type: String
    /// The pack's price in each currency it is sold in.
    let prices: [Currency: Exact]
    /// The pack in the card file: where a pack missing from the `.storekit` file is reported.
    let location: SourceLocation

}
