import Foundation

@testable import RateCard

/// The repository's own `RateCards/` as text, edited for one case of issue 24, loaded in
/// memory for the library or written to a temporary folder for the binary; and hand-written
/// App Store Connect price points.
enum StorefrontTrustFixture {
    /// Every file of `RateCards/` (path relative to it → text), with `edits` applied to the
    /// OSG V10 card and `storefronts` to the storefront file.
    static func files(
        card edits: [(String, String)] = [], storefronts: [(String, String)] = []
    ) throws -> [String: String] {
        var out: [String: String] = [:]
        let root = URL(fileURLWithPath: repositoryCards)
        let names =
            FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        for name in names where name.hasSuffix(".json") {
            var text = try String(
                contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            if name == "osg-v10.json" {
                for (from, to) in edits { text = text.replacingOccurrences(of: from, with: to) }
            }
            if name == "storefronts.json" {
                for (from, to) in storefronts {
                    text = text.replacingOccurrences(of: from, with: to)
                }
            }
            out[name] = text
        }
        return out
    }

    /// The 3000tks prices of the card, for edits.
    static let prices =
        #""prices": [ { "currency": "USD", "amount": "2.99" }, { "currency": "CNY", "amount": "28" } ]"#

    /// The 3000tks prices with `extra` price objects added after the card's own.
    static func pricesWith(_ extra: String...) -> (String, String) {
        (
            prices,
            #""prices": [ { "currency": "USD", "amount": "2.99" }, { "currency": "CNY", "amount": "28" }, "#
                + extra.joined(separator: ", ") + " ]"
        )
    }

    /// The repository of `files`, and its OSG V10 card.
    static func load(_ files: [String: String]) throws -> (CardRepository, RateCard) {
        let repo = try repository(files)
        guard let card = repo.card(reference: "osg@10") else {
            throw RunFailure("no osg@10 in the fixture")
        }
        return (repo, card)
    }

    /// Writes `files` into a temporary folder as `RateCards/`, without the publish lock (the
    /// edited card is a draft before `--now 2026-01-01T00:00:00Z`).
    static func folder(_ files: [String: String]) throws -> TemporaryFolder {
        let tmp = try TemporaryFolder()
        for (name, text) in files { try tmp.write("RateCards/" + name, text) }
        return tmp
    }

    /// The time before OSG V10 and the voice card take effect: with no lock, both are drafts.
    static let draftTime = "2026-01-01T00:00:00Z"

    /// One price point of a territory, as an App Store Connect equalizations response.
    struct Point {
        let territory: String
        let currency: String
        let price: String
        let proceeds: String
    }

    /// An equalizations response holding `points`.
    static func pricePoints(_ points: [Point]) -> String {
        let data = points.enumerated().map { i, p in
            #"{"type": "inAppPurchasePricePoints", "id": "pt-\#(p.territory)-\#(i)", "attributes": {"customerPrice": "\#(p.price)", "proceeds": "\#(p.proceeds)"}, "relationships": {"territory": {"data": {"type": "territories", "id": "\#(p.territory)"}}}}"#
        }
        let territories = Dictionary(points.map { ($0.territory, $0.currency) }) { a, _ in a }
        let included = territories.keys.sorted().map { t in
            #"{"type": "territories", "id": "\#(t)", "attributes": {"currency": "\#(territories[t]!)"}}"#
        }
        return
            #"{"data": [\#(data.joined(separator: ",\n"))], "included": [\#(included.joined(separator: ", "))]}"#
            + "\n"
    }

    /// `points` as the price list of product `product`, read as from `path`.
    static func list(_ points: [Point], product: String = "3000tks", path: String = "points.json")
        throws -> [String: ApplePriceList]
    {
        let root = try JSONParser.parse(pricePoints(points))
        let file = try AppStoreConnectFile.read(root, path: path)
        return [product: ApplePriceList(productId: product, files: [file])]
    }
}
