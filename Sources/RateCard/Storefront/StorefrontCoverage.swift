/// Which storefronts of the data a set of rows leaves out, by currency: a card priced in
/// USD and CNY reaches the storefronts of those currencies only, and a report that says
/// "every storefront" must say which it did not show and why.
struct StorefrontCoverage: Sendable, Hashable {
    /// The storefronts of one currency that no row covers.
    struct Group: Sendable, Hashable {
        let currency: Currency
        /// Territory codes, sorted.
        let territories: [String]
    }

    /// How many storefronts the data has.
    let total: Int
    /// The storefronts left out, one group per currency, sorted by currency code.
    let missing: [Group]

    /// The storefronts of `table` outside `shown` (territory codes), grouped by currency.
    init(_ table: StorefrontTable, shown: Set<String>) {
        total = table.storefronts.count
        let left = table.storefronts.filter { !shown.contains($0.territory) }
        let byCode = Dictionary(grouping: left, by: \.currency.code)
        missing = byCode.keys.sorted().compactMap { code in
            guard let group = byCode[code], let first = group.first else { return nil }
            return Group(currency: first.currency, territories: group.map(\.territory).sorted())
        }
    }

    var missingCount: Int { missing.reduce(0) { $0 + $1.territories.count } }
    var shownCount: Int { total - missingCount }
    var isComplete: Bool { missing.isEmpty }

    /// "in every storefront", or "in 110 of the 175 storefronts".
    var phrase: String {
        isComplete ? "in every storefront" : "in \(shownCount) of the \(total) storefronts"
    }

    /// The note naming what is left out, or nil when nothing is.
    var note: String? {
        guard !isComplete else { return nil }
        let groups = missing.map {
            "\($0.currency.code) (\($0.territories.joined(separator: ", ")))"
        }
        return
            "shown in \(shownCount) of the \(total) storefronts of the data; not shown, since no price is in their currency and no Apple price points cover them: \(missingCount) in "
            + groups.joined(separator: "; ")
            + " (add prices in those currencies to the card, or give Apple's price points with --price-points)"
    }

    /// `[{"currency": "EUR", "territories": ["AUT", …]}, …]`
    var json: JSONOutput {
        .array(
            missing.map {
                .object([
                    "currency": .string($0.currency.code),
                    "territories": .array($0.territories.map { .string($0) }),
                ])
            })
    }
}
