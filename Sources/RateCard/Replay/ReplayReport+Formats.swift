/// The replay for people (a plain table, Markdown), for spreadsheets (CSV) and for tools
/// (JSON), built from the figures `ReplayReport` computed: the same numbers in every
/// format. Money shown to people is rounded once, here, half-even to the currency's minor
/// unit, percentages half-even to one place; CSV and JSON carry exact decimals. Feature
/// keys and device names come from the exports: untrusted text.
extension ReplayReport: RenderableReport {
    static func exact(_ v: Exact) -> String { v.decimalText() }

    func money(_ v: Exact) -> String {
        Money(v, currency).formatted(rule: .halfEven)
    }

    static func percent(_ v: Exact?) -> String { v.map { Format.percent($0) } ?? Format.missing }

    static func signed(_ v: Int128) -> String { (v > 0 ? "+" : "") + Format.grouped(v) }

    /// The per-feature table's cells for people.
    func featureTable() -> TextTable {
        var t = TextTable(
            [.init("feature", .left, .untrusted)]
                + [
                    "requests", "not re-priced", "credits before", "credits after", "change",
                    "change %", "cost before", "cost after", "value before", "value after",
                    "profit before", "profit after", "margin before", "margin after",
                    "declined before", "declined after",
                ].map { .init($0, .right) })
        for r in features + [total] {
            // With no charge re-priced, the credits, costs and margins are of no request:
            // "—", not 0 (a feature NEW removes is not free). CSV and JSON say `repriced`.
            let figures: [String] =
                r.repriced == 0
                ? Array(repeating: Format.missing, count: 12)
                : [
                    Format.grouped(r.creditsBefore), Format.grouped(r.creditsAfter),
                    Self.signed(r.creditChange),
                    r.creditChangeShare.map { ($0.isPositive ? "+" : "") + Format.percent($0) }
                        ?? Format.missing,
                    money(r.costBefore), money(r.costAfter), money(r.valueBefore),
                    money(r.valueAfter), money(r.profitBefore), money(r.profitAfter),
                    Self.percent(r.marginBefore), Self.percent(r.marginAfter),
                ]
            t.append(
                [
                    r.feature ?? "total", Format.grouped(Int128(r.requests)),
                    Format.grouped(Int128(r.notRepriced)),
                ] + figures
                    + [
                        Format.grouped(Int128(r.declinedBefore)),
                        Format.grouped(Int128(r.declinedAfter)),
                    ], emphasized: r.feature == nil)
        }
        return t
    }

    func balanceTable() -> TextTable {
        var t = TextTable(
            [
                "devices", "entries without device", "declined before", "declined after",
                "newly declined", "devices newly declined", "credits left before",
                "credits left after",
            ].map { .init($0, .right) })
        let b = balances
        let c = b.counts
        t.append([
            Format.grouped(Int128(b.devices)), Format.grouped(Int128(b.entriesWithoutDevice)),
            Format.grouped(Int128(c.declinedBefore)), Format.grouped(Int128(c.declinedAfter)),
            Format.grouped(Int128(c.newlyDeclined)), Format.grouped(Int128(b.devicesNewlyDeclined)),
            Format.grouped(c.leftBefore), Format.grouped(c.leftAfter),
        ])
        return t
    }

    func deviceTable() -> TextTable {
        var t = TextTable(
            [.init("device", .left, .untrusted)]
                + [
                    "newly declined", "declined before", "declined after", "left before",
                    "left after",
                ].map { .init($0, .right) })
        for d in balances.worst {
            let c = d.counts
            t.append([
                d.name, Format.grouped(Int128(c.newlyDeclined)),
                Format.grouped(Int128(c.declinedBefore)), Format.grouped(Int128(c.declinedAfter)),
                Format.grouped(c.leftBefore), Format.grouped(c.leftAfter),
            ])
        }
        return t
    }

    func packTable() -> TextTable {
        var t = TextTable(
            [.init("pack", .left, .untrusted)]
                + ["buyers", "top-ups", "credits spent before", "credits spent after"].map {
                    .init($0, .right)
                } + [.init("mix (after)", .left, .untrusted)]
                + [
                    "price", "commission", "proceeds", "typical cost before",
                    "typical cost after", "typical margin before", "worst margin before",
                    "typical margin after", "worst margin after",
                ].map { .init($0, .right) })
        for p in packs {
            let spent = p.mix.reduce(Int128(0)) { $0 + $1.credits }
            let mix = p.mix.map { m in
                spent > 0
                    ? "\(m.feature) \(Format.percent((try? Exact(m.credits, over: spent)) ?? .zero, places: 0))"
                    : m.feature
            }.joined(separator: ", ")
            let head = [
                p.pack, Format.grouped(Int128(p.buyers)), Format.grouped(Int128(p.topups)),
                Format.grouped(p.creditsBefore), Format.grouped(p.creditsAfter),
                mix.isEmpty ? Format.missing : mix,
            ]
            if p.prices.isEmpty {
                t.append(head + Array(repeating: Format.missing, count: 9))
            }
            for x in p.prices {
                func m(_ v: Exact?) -> String {
                    v.map { Money($0, x.price.currency).formatted(rule: .halfEven) }
                        ?? Format.missing
                }
                t.append(
                    head + [
                        "\(x.price.currency.code) \(x.price.formatted())",
                        Format.percent(x.commission, places: 0),
                        x.proceeds.formatted(rule: .halfEven), m(x.typicalBefore),
                        m(x.typicalAfter),
                        Self.percent(x.typicalMarginBefore), Self.percent(x.worstMarginBefore),
                        Self.percent(x.typicalMarginAfter), Self.percent(x.worstMarginAfter),
                    ])
            }
        }
        return t
    }

    var heading: String {
        "Replay under \(new) against \(before): \(Format.grouped(Int128(total.requests))) charges, \(Format.grouped(Int128(total.repriced))) re-priced, \(Format.grouped(Int128(total.notRepriced))) not (\(Format.grouped(total.notRepricedCredits)) credits of \(Format.grouped(ledgerCredits)) charged)"
    }

    var notes: [String] {
        [
            "Figures in \(currency.code); a credit valued at \(creditValue.currency.code) \(creditValue.amount.decimalText()) (\(creditBasis)).",
            "Costs: \(costsNote).",
            "Input: \(input.lines) lines, \(input.entries) entries, \(input.duplicates) duplicates, \(input.conflicts) conflicting, \(input.rejected) rejected, \(input.blank) blank; \(input.refundsOfUnknownCharges) refunds of no charge.",
            "Balances: each device's entries in time order from its first balanceAfter (else 0), the same grants and top-ups; entries without a device are in no balance; a refund is in the balance of its charge's device.",
            "Packs: a device is a pack's buyer when every top-up it made bought that pack; \(mixedBuyers) devices bought several or unmatched packs and are in no row.",
        ]
    }

    func renderTable(bold: Bool) -> String {
        var out = heading + "\n\n" + featureTable().plain(bold: bold)
        out += "\nBalances replayed\n" + balanceTable().plain(bold: bold)
        if !balances.worst.isEmpty { out += "\n" + deviceTable().plain(bold: bold) }
        if !packs.isEmpty { out += "\nPacks in practice\n" + packTable().plain(bold: bold) }
        out += "\n" + notes.joined(separator: "\n") + "\n"
        return out
    }

    func renderMarkdown() -> String {
        var out = "## " + heading + "\n\n" + featureTable().markdown()
        out += "\n### Balances replayed\n\n" + balanceTable().markdown()
        if !balances.worst.isEmpty { out += "\n" + deviceTable().markdown() }
        if !packs.isEmpty { out += "\n### Packs in practice\n\n" + packTable().markdown() }
        out +=
            "\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n"
        return out
    }

    /// One row per feature and a `total` row, exact decimals, no thousands separators:
    /// `feature,requests,repriced,notRepriced,notRepricedCredits,refunded,creditsBefore,
    /// creditsAfter,creditChange,creditChangeShare,costBefore,costAfter,valueBefore,
    /// valueAfter,profitBefore,profitAfter,marginBefore,marginAfter,declinedBefore,
    /// declinedAfter,newlyDeclined,currency`.
    func renderCSV() -> String {
        var t = TextTable(
            [.init("feature", .left, .untrusted)]
                + [
                    "requests", "repriced", "notRepriced", "notRepricedCredits", "refunded",
                    "creditsBefore", "creditsAfter", "creditChange", "creditChangeShare",
                    "costBefore", "costAfter", "valueBefore", "valueAfter", "profitBefore",
                    "profitAfter", "marginBefore", "marginAfter", "declinedBefore",
                    "declinedAfter", "newlyDeclined", "currency",
                ].map { .init($0, .right) })
        for r in features + [total] {
            t.append(
                [r.feature ?? "total"] + Self.exactCells(r).map { $0 ?? "" } + [currency.code])
        }
        return t.csv()
    }

    static func exactCells(_ r: FeatureRow) -> [String?] {
        [
            String(r.requests), String(r.repriced), String(r.notRepriced),
            String(r.notRepricedCredits), String(r.refunded), String(r.creditsBefore),
            String(r.creditsAfter), String(r.creditChange), r.creditChangeShare.map(exact),
            exact(r.costBefore), exact(r.costAfter), exact(r.valueBefore), exact(r.valueAfter),
            exact(r.profitBefore), exact(r.profitAfter), r.marginBefore.map(exact),
            r.marginAfter.map(exact), String(r.declinedBefore), String(r.declinedAfter),
            String(r.newlyDeclined),
        ]
    }

    /// A balance count's fields, for the totals and each device listed.
    static func json(_ c: ReplayBalanceCounts) -> [String: JSONOutput] {
        [
            "declinedBefore": .integer(Int128(c.declinedBefore)),
            "declinedAfter": .integer(Int128(c.declinedAfter)),
            "newlyDeclined": .integer(Int128(c.newlyDeclined)),
            "creditsLeftBefore": .string(String(c.leftBefore)),
            "creditsLeftAfter": .string(String(c.leftAfter)),
        ]
    }

    static func json(_ r: FeatureRow) -> JSONOutput {
        func d(_ v: Exact?) -> JSONOutput { v.map(JSONOutput.decimal) ?? .null }
        var o: [String: JSONOutput] = [
            "requests": .integer(Int128(r.requests)), "repriced": .integer(Int128(r.repriced)),
            "notRepriced": .integer(Int128(r.notRepriced)),
            "notRepricedCredits": .string(String(r.notRepricedCredits)),
            "refunded": .integer(Int128(r.refunded)),
            "creditsBefore": .string(String(r.creditsBefore)),
            "creditsAfter": .string(String(r.creditsAfter)),
            "creditChange": .string(String(r.creditChange)),
            "creditChangeShare": d(r.creditChangeShare),
            "costBefore": .decimal(r.costBefore), "costAfter": .decimal(r.costAfter),
            "valueBefore": .decimal(r.valueBefore), "valueAfter": .decimal(r.valueAfter),
            "profitBefore": .decimal(r.profitBefore), "profitAfter": .decimal(r.profitAfter),
            "marginBefore": d(r.marginBefore), "marginAfter": d(r.marginAfter),
            "declinedBefore": .integer(Int128(r.declinedBefore)),
            "declinedAfter": .integer(Int128(r.declinedAfter)),
            "newlyDeclined": .integer(Int128(r.newlyDeclined)),
        ]
        if let f = r.feature { o["feature"] = .string(f) }
        return .object(o)
    }

    func renderJSON() -> String {
        func d(_ v: Exact?) -> JSONOutput { v.map(JSONOutput.decimal) ?? .null }
        let b = balances
        let root: [String: JSONOutput] = [
            "new": .string(new), "before": .string(before), "currency": .string(currency.code),
            "creditValue": .money(creditValue), "creditBasis": .string(creditBasis),
            "costs": .string(costsNote),
            "features": .array(features.map(Self.json)), "total": Self.json(total),
            "ledgerCredits": .string(String(ledgerCredits)),
            "balances": .object(
                Self.json(b.counts).merging([
                    "devices": .integer(Int128(b.devices)),
                    "entriesWithoutDevice": .integer(Int128(b.entriesWithoutDevice)),
                    "devicesNewlyDeclined": .integer(Int128(b.devicesNewlyDeclined)),
                    "devicesMostNewlyDeclined": .array(
                        b.worst.map {
                            .object(
                                Self.json($0.counts).merging(["device": .string($0.name)]) { $1 })
                        }),
                ]) { $1 }),
            "packs": .array(
                packs.map { p in
                    .object([
                        "pack": .string(p.pack), "buyers": .integer(Int128(p.buyers)),
                        "topups": .integer(Int128(p.topups)),
                        "creditsBefore": .string(String(p.creditsBefore)),
                        "creditsAfter": .string(String(p.creditsAfter)),
                        "costBefore": .decimal(p.costBefore), "costAfter": .decimal(p.costAfter),
                        "mix": .object(
                            Dictionary(
                                p.mix.map { ($0.feature, JSONOutput.string(String($0.credits))) },
                                uniquingKeysWith: { a, _ in a })),
                        "prices": .array(
                            p.prices.map { x in
                                .object([
                                    "price": .money(x.price), "commission": .decimal(x.commission),
                                    "proceeds": .money(x.proceeds),
                                    "typicalCostBefore": d(x.typicalBefore),
                                    "typicalCostAfter": d(x.typicalAfter),
                                    "typicalMarginBefore": d(x.typicalMarginBefore),
                                    "typicalMarginAfter": d(x.typicalMarginAfter),
                                    "worstMarginBefore": d(x.worstMarginBefore),
                                    "worstMarginAfter": d(x.worstMarginAfter),
                                ])
                            }),
                    ])
                }),
            "mixedBuyers": .integer(Int128(mixedBuyers)),
            "input": .object([
                "lines": .integer(Int128(input.lines)), "entries": .integer(Int128(input.entries)),
                "duplicates": .integer(Int128(input.duplicates)),
                "conflicts": .integer(Int128(input.conflicts)),
                "rejected": .integer(Int128(input.rejected)),
                "blank": .integer(Int128(input.blank)),
                "refundsOfUnknownCharges": .integer(Int128(input.refundsOfUnknownCharges)),
            ]),
            "notRepriced": .array(
                named.filter { $0.rule == .replay(.notRepriced) }.map {
                    .object([
                        "path": .string($0.path), "line": .integer(Int128($0.location.line)),
                        "message": .string($0.message),
                    ])
                }),
            "overflowed": .bool(overflowed),
        ]
        return JSONOutput.object(root).rendered()
    }

    /// The named charges not re-priced, the rejected lines and the other findings, for
    /// stderr.
    var warnings: [Diagnostic] { named }
}
