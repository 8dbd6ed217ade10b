import Foundation

@testable import RateCard

/// The hand-made App Store Connect responses in `Fixtures/storefronts/`.
enum StorefrontFixtures {
    static let folder = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/storefronts"
    ).path

    static func path(_ name: String) -> String { folder + "/" + name }

    static func file(_ name: String) throws -> AppStoreConnectFile {
        try AppStoreConnectFile.load(path: path(name))
    }

    /// The errors loading `name` gives (empty when it loads).
    static func errors(_ name: String) -> [Diagnostic] {
        do {
            _ = try AppStoreConnectFile.load(path: path(name))
            return []
        } catch {
            return error.items
        }
    }

    static func list(_ names: String..., product: String = "3000tks") throws -> [String:
        ApplePriceList]
    {
        try ApplePriceList.load(names.map { (product, path($0)) })
    }

    static func date(_ s: String) -> CalendarDate { CalendarDate(s)! }
}
