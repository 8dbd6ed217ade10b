/// The territory codes App Store Connect knows: what a card price's `storefront` may name.
///
/// Source: the possible values of App Store Connect API's `TerritoryCode` type
/// (<https://developer.apple.com/documentation/appstoreconnectapi/territorycode>, as
/// published in 2026), ISO 3166-1 alpha-3 codes. The list includes a few codes Apple keeps
/// for territories it no longer sells in (`ANT`); a code outside it is no storefront at all,
/// so a price for it could never be charged. Whether a listed territory is in the
/// storefront data file is a separate question (`StorefrontTable.storefront(_:)`).
enum AppStoreTerritory {
    static let codes: Set<String> = Set(
        """
        ABW AFG AGO AIA ALB AND ANT ARE ARG ARM ASM ATG AUS AUT AZE BDI BEL BEN BES BFA BGD BGR
        BHR BHS BIH BLR BLZ BMU BOL BRA BRB BRN BTN BWA CAF CAN CHE CHL CHN CIV CMR COD COG COK
        COL COM CPV CRI CUB CUW CXR CYM CYP CZE DEU DJI DMA DNK DOM DZA ECU EGY ERI ESP EST ETH
        FIN FJI FLK FRA FRO FSM GAB GBR GEO GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF
        GUM GUY HKG HND HRV HTI HUN IDN IMN IND IRL IRQ ISL ISR ITA JAM JEY JOR JPN KAZ KEN KGZ
        KHM KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE LKA LSO LTU LUX LVA MAC MAR MCO MDA MDG MDV
        MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ MUS MWI MYS MYT NAM NCL NER NFK NGA
        NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PER PHL PLW PNG POL PRI PRT PRY PSE PYF QAT REU
        ROU RUS RWA SAU SEN SGP SHN SLB SLE SLV SMR SOM SPM SRB SSD STP SUR SVK SVN SWE SWZ SXM
        SYC TCA TCD TGO THA TJK TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR URY USA UZB VAT VCT
        VEN VGB VIR VNM VUT WSM XKS YEM ZAF ZMB ZWE
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))

    /// True when `code` is an App Store territory ("FRA", "ARG"); false for "XYZ" or "fr".
    static func isTerritory(_ code: String) -> Bool { codes.contains(code) }
}
