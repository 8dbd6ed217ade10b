/// `margin storefronts --changes` output. Money half-even to the currency's minor unit and
/// percentages to one place in the table and Markdown; exact decimal strings in JSON and CSV.
extension StorefrontChanges {
    static let headers = [
        "date", "territory", "change", "card", "product", "kind", "currency", "price",
        "proceeds before",
        "proceeds after", "margin before", "margin after", "margin % before", "margin % after",
    ]

    func cells(_ r: Row, exact: Bool) -> [String] {
        func money(_ m: Money?) -> String {
            guard let m else { return exact ? "" : Format.missing }
            return exact ? m.amount.decimalText() : m.formatted(rule: .halfEven)
        }
        func share(_ s: Exact?) -> String {
            guard let s else { return exact ? "" : Format.missing }
            return exact
                ? (StorefrontMargins.percentValue(s)?.decimalText() ?? "") : Format.percent(s)
        }
        return [
            r.change.date.description, r.change.territory, r.change.what, r.card, r.pack, r.kind,
            r.price.currency.code, money(r.price), money(r.proceedsBefore), money(r.proceedsAfter),
            money(r.marginBefore), money(r.marginAfter), share(r.shareBefore), share(r.shareAfter),
        ]
    }

    var changeTable: TextTable {
        var t = TextTable([.init("date"), .init("territory"), .init("name"), .init("change")])
        for c in changes {
            t.append([c.date.description, c.territory, c.name, c.what])
        }
        return t
    }

    var rowTable: TextTable {
        var t = TextTable(
            StorefrontChanges.headers.enumerated().map { i, h in .init(h, i >= 7 ? .right : .left) }
        )
        for r in rows { t.append(cells(r, exact: false)) }
        return t
    }

    func renderTable(bold: Bool) -> String {
        var s =
            "\(changes.count) tax or commission changes in the storefront data since \(since)\n\n"
        s += changeTable.plain(bold: bold) + "\n"
        s += "margin of each pack and plan the day before and the day of each change:\n\n"
        s += rowTable.plain(bold: bold)
        return s
    }

    func renderMarkdown() -> String {
        var s = "## Tax and commission changes since \(since)\n\n"
        s += changeTable.markdown() + "\n"
        s += "### Margin of each pack and plan before and after\n\n" + rowTable.markdown()
        return s
    }

    func renderCSV() -> String {
        var t = TextTable(
            StorefrontChanges.headers.map { .init($0.replacingOccurrences(of: " ", with: "_")) })
        for r in rows { t.append(cells(r, exact: true)) }
        return t.csv()
    }

    func renderJSON() -> String {
        func opt(_ m: Money?) -> JSONOutput { m.map { .decimal($0.amount) } ?? .null }
        func pct(_ s: Exact?) -> JSONOutput {
            StorefrontMargins.percentValue(s).map { .decimal($0) } ?? .null
        }
        return JSONOutput.object([
            "since": .string(since.description),
            "changes": .array(
                changes.map { c in
                    .object([
                        "date": .string(c.date.description), "territory": .string(c.territory),
                        "name": .string(c.name), "change": .string(c.what),
                        "sources": .array(c.sources.map { .string($0) }),
                    ])
                }),
            "rows": .array(
                rows.map { r in
                    .object([
                        "date": .string(r.change.date.description),
                        "territory": .string(r.change.territory), "card": .string(r.card),
                        "productId": .string(r.pack), "kind": .string(r.kind),
                        "currency": .string(r.price.currency.code),
                        "customerPrice": .decimal(r.price.amount),
                        "proceedsBefore": opt(r.proceedsBefore),
                        "proceedsAfter": opt(r.proceedsAfter), "marginBefore": opt(r.marginBefore),
                        "marginAfter": opt(r.marginAfter),
                        "marginPercentBefore": pct(r.shareBefore),
                        "marginPercentAfter": pct(r.shareAfter),
                    ])
                }),
        ]).rendered()
    }
}
