import Foundation
import Testing

@testable import RateCard

/// Every storefront of `RateCards/storefronts.json` carries its ISO 3166-1 alpha-2 code,
/// the country App Store Connect's reports name (transactions name the alpha-3 territory).
@Suite struct StorefrontCountryCodeTests {
    static func table() throws -> StorefrontTable {
        try #require(try CardRepository.load(paths: [repositoryCards]).storefronts)
    }

    @Test func everyStorefrontHasOneCountryCodeOfItsOwn() throws {
        let t = try Self.table()
        #expect(t.storefronts.count == 175)
        let codes = t.storefronts.compactMap(\.countryCode)
        #expect(codes.count == 175)
        #expect(Set(codes).count == 175)
        for (alpha3, alpha2) in [
            ("DEU", "DE"), ("FRA", "FR"), ("GBR", "GB"), ("USA", "US"), ("CYM", "KY"),
            ("SRB", "RS"), ("SVN", "SI"), ("MAC", "MO"), ("KOR", "KR"), ("XKS", "XK"),
        ] {
            #expect(t.countryCode(ofTerritory: alpha3) == alpha2, "\(alpha3)")
        }
    }

    static let isoCodes = "/usr/share/iso-codes/json/iso_3166-1.json"

    /// Against Debian's `iso-codes` copy of ISO 3166-1, where the machine has it; Kosovo's
    /// XKS/XK are user-assigned codes outside the standard (the European Commission's and
    /// Apple's), so it is the one storefront the standard does not list.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: isoCodes)))
    func matchesISO3166() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.isoCodes))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let countries = try #require(root["3166-1"] as? [[String: Any]])
        var iso: [String: String] = [:]
        for c in countries {
            if let a3 = c["alpha_3"] as? String, let a2 = c["alpha_2"] as? String { iso[a3] = a2 }
        }
        var outside: [String] = []
        for sf in try Self.table().storefronts {
            if let a2 = iso[sf.territory] {
                #expect(sf.countryCode == a2, "\(sf.territory)")
            } else {
                outside.append(sf.territory)
            }
        }
        #expect(outside == ["XKS"])
    }
}
