/// `margin storefronts` output: the same rows as a table, Markdown, CSV or JSON.
///
/// Display rounding: money half-even to the currency's minor unit, percentages half-even to
/// one place, once, here. JSON and CSV carry exact decimal strings (12 places at most where
/// a converted amount does not terminate).
extension StorefrontMargins {
    static func money(_ m: Money?) -> String {
        m.map { $0.formatted(rule: .halfEven) } ?? Format.missing
    }

    /// "30% standard", "25% standard (reported)"
    static func commissionText(_ r: CommissionRegime?) -> String {
        guard let r else { return Format.missing }
        return
            "\(Format.percent(r.rate, places: 0)) \(r.program.rawValue)\(r.status == .reported ? " (reported)" : "")"
    }

    /// "19%", "20% + 2% DST", "excl.", "18% + 13.5% withheld": the taxes in force on `date`;
    /// "unknown" for a row dated before the data's tax histories (`Gap.noTaxHistory`).
    static func taxText(_ sf: Storefront?, on date: CalendarDate, gap: Gap? = nil) -> String {
        guard let sf else { return Format.missing }
        if gap == .noTaxHistory { return "unknown" }
        let rates = sf.rates(on: date)
        var s = sf.taxIncluded ? Format.percent(rates.vat) : "excl."
        if !rates.digitalServicesTax.isZero {
            s += " + \(Format.percent(rates.digitalServicesTax)) DST"
        }
        if !rates.withholding.isZero { s += " + \(Format.percent(rates.withholding)) withheld" }
        return s
    }

    /// The margin % cell for people: the share, "free" for a price of 0, else why there is none.
    static func shareText(_ r: Row) -> String {
        if let share = r.marginShare { return Format.percent(share) }
        if r.isFree { return "free" }
        return r.missing ?? Format.missing
    }

    /// Margin share × 100, exact.
    static func percentValue(_ share: Exact?) -> Exact? {
        share.flatMap { try? $0.multiplied(by: 100) }
    }

    /// One row per pack and territory, worst first.
    var table: TextTable {
        var t = TextTable([
            .init("card"), .init("pack"), .init("territory"), .init("currency"),
            .init("price", .right), .init("tax", .right),
            .init("commission"), .init("proceeds", .right), .init("source"),
            .init("worst cost", .right), .init("margin", .right), .init("margin %", .right),
        ])
        for r in rows {
            t.append([
                card.reference, r.pack.productId, r.territory, r.customerPrice.currency.code,
                StorefrontMargins.money(r.customerPrice),
                StorefrontMargins.taxText(r.storefront, on: date, gap: r.gap),
                StorefrontMargins.commissionText(r.modelled?.regime),
                StorefrontMargins.money(r.proceeds),
                r.proceedsSource?.rawValue ?? Format.missing, StorefrontMargins.money(r.worstCost),
                StorefrontMargins.money(r.margin), StorefrontMargins.shareText(r),
            ])
        }
        return t
    }

    /// The worst storefront of each pack.
    var worstTable: TextTable {
        var t = TextTable([
            .init("pack"), .init("worst territory"), .init("currency"), .init("price", .right),
            .init("proceeds", .right),
            .init("worst cost", .right), .init("margin", .right), .init("margin %", .right),
        ])
        for r in worstPerPack {
            t.append([
                r.pack.productId, r.territory, r.customerPrice.currency.code,
                StorefrontMargins.money(r.customerPrice), StorefrontMargins.money(r.proceeds),
                StorefrontMargins.money(r.worstCost), StorefrontMargins.money(r.margin),
                StorefrontMargins.shareText(r),
            ])
        }
        return t
    }

    /// What a reader needs under the table: program, date, FX, sources, rounding.
    var notes: [String] {
        var out = [
            "program \(program.rawValue), prices and regimes on \(date); margin % is the margin as a share of the price the customer pays"
        ]
        if let s = storefronts {
            out.append(
                "storefront data dated \(s.date) (\(s.source.path)\(s.placeholder ? ", placeholder" : "")): \(s.sourceNote)"
            )
        } else {
            out.append("no storefront data file: only Apple's figures are shown")
        }
        if let s = storefronts, let note = s.lateNote(date) { out.append(note) }
        if let note = coverage?.note { out.append(note) }
        let fileRates = fxUsed.filter { !$0.fromCommandLine }
        let commandLineRates = fxUsed.filter(\.fromCommandLine)
        if !fileRates.isEmpty {
            let d = fx.date.map { " dated \($0)" } ?? ""
            out.append(
                "FX\(d) (\(fx.source.path)\(fx.placeholder ? ", placeholder" : "")): "
                    + fileRates.map(\.description).joined(separator: ", "))
        }
        if !commandLineRates.isEmpty {
            out.append(
                "FX given on the command line: "
                    + commandLineRates.map(\.description).joined(separator: ", "))
        }
        if rows.contains(where: { $0.gap != nil }) {
            out.append(
                "rows without a margin say why in the margin % column (no FX rate, no proceeds, no regime in force, no tax history, not in storefront data, no credits); the warnings name what to add"
            )
        }
        out.append(
            "proceeds: \"apple\" is App Store Connect's figure; \"modelled\" is price ÷ (1 + tax) × (1 − commission) − digital services tax, rounded \(ModelledProceeds.rounding.displayName) to the unit Apple pays in (the minor unit, or the storefront data's currencyUnit); a difference of more than that unit between the two is a warning"
        )
        out.append(
            "amounts rounded half-even to the currency's minor unit for display; worst costs are the worst case converted at the FX rates named"
        )
        out.append(contentsOf: card.placeholders.map { "placeholder: \($0)" })
        return out
    }

    /// "osg@10 in every storefront", or "osg@10 in 110 of the 175 storefronts".
    var heading: String {
        "\(card.reference) \(coverage?.phrase ?? "in every storefront")"
    }

    /// The JSON object of one card.
    var json: JSONOutput {
        func opt(_ m: Money?) -> JSONOutput { m.map { .decimal($0.amount) } ?? .null }
        let rowList: [JSONOutput] = rows.map { r in
            var o: [String: JSONOutput] = [
                "card": .string(card.reference), "productId": .string(r.pack.productId),
                "territory": .string(r.territory),
                "currency": .string(r.customerPrice.currency.code),
                "customerPrice": .decimal(r.customerPrice.amount),
                "proceeds": opt(r.proceeds),
                "proceedsSource": r.proceedsSource.map { .string($0.rawValue) } ?? .null,
                "appleProceeds": opt(r.apple?.proceeds),
                "modelledProceeds": opt(r.modelled?.rounded),
                "worstCost": opt(r.worstCost), "margin": opt(r.margin),
                "marginPercent": StorefrontMargins.percentValue(r.marginShare).map { .decimal($0) }
                    ?? .null,
                "fx": .array(r.fxUsed.map { .string($0.description) }),
                "free": .bool(r.isFree),
                "missing": r.missing.map { .string($0) } ?? .null,
            ]
            if let sf = r.storefront, r.gap == .noTaxHistory {
                o["name"] = .string(sf.name)
                o["taxIncluded"] = .bool(sf.taxIncluded)
                for key in ["tax", "digitalServicesTax", "withholding"] { o[key] = .null }
            } else if let sf = r.storefront {
                o["name"] = .string(sf.name)
                o["taxIncluded"] = .bool(sf.taxIncluded)
                let rates = sf.rates(on: date)
                o["tax"] = .decimal(rates.vat)
                o["digitalServicesTax"] = .decimal(rates.digitalServicesTax)
                o["withholding"] = .decimal(rates.withholding)
            }
            if let m = r.modelled {
                o["commission"] = .object([
                    "rate": .decimal(m.regime.rate), "program": .string(m.regime.program.rawValue),
                    "paymentProcessing": .decimal(m.regime.paymentProcessing),
                    "status": .string(m.regime.status.rawValue),
                    "from": .string(m.regime.from.description),
                ])
            }
            if let p = r.apple {
                o["applePricePoint"] = .string(p.id)
                if let y2 = p.proceedsYear2 { o["appleProceedsYear2"] = .decimal(y2.amount) }
                if let tier = p.priceTier { o["priceTier"] = .string(tier) }
            }
            return .object(o)
        }
        var fxObject: [String: JSONOutput] = [
            "file": .string(fx.source.path), "placeholder": .bool(fx.placeholder),
            "used": .array(
                fxUsed.map {
                    .object([
                        "base": .string($0.base.code), "quote": .string($0.quote.code),
                        "rate": .decimal($0.rate),
                        "from": .string($0.fromCommandLine ? "command line" : "file"),
                    ])
                }),
            "restsOnPlaceholder": .bool(fx.placeholder && fxUsed.contains { !$0.fromCommandLine }),
        ]
        if let d = fx.date { fxObject["date"] = .string(d.description) }
        return .object([
            "card": .string(card.reference), "program": .string(program.rawValue),
            "at": .string(date.description),
            "rows": .array(rowList),
            "worst": .array(
                worstPerPack.map { r in
                    .object([
                        "productId": .string(r.pack.productId), "territory": .string(r.territory),
                        "marginPercent": StorefrontMargins.percentValue(r.marginShare).map {
                            .decimal($0)
                        } ?? .null,
                    ])
                }),
            "fx": .object(fxObject),
            "notShown": coverage?.json ?? .array([]),
            "warnings": .array(warnings.map { .string($0.rendered) }),
        ])
    }
}

/// What `margin storefronts` prints, and the cross-check warnings of every card.
struct StorefrontReport: RenderableReport, Sendable {
    let cards: [StorefrontMargins]

    init(_ cards: [StorefrontMargins]) {
        self.cards = cards
    }

    var warnings: [Diagnostic] { Array(Set(cards.flatMap(\.warnings))).sorted() }

    /// 1 when any card's rows hold an error finding (a price that cannot be margined).
    var exitCode: Int32 { cards.map(\.exitCode).max() ?? 0 }

    func renderJSON() -> String {
        JSONOutput.object(["cards": .array(cards.map(\.json))]).rendered()
    }

    func renderCSV() -> String {
        var t = TextTable([
            .init("card"), .init("product_id"), .init("territory"), .init("currency"),
            .init("customer_price"), .init("proceeds"),
            .init("proceeds_source"), .init("worst_cost"), .init("margin"),
            .init("margin_percent"), .init("missing"),
        ])
        for m in cards {
            for r in m.rows {
                t.append([
                    m.card.reference, r.pack.productId, r.territory,
                    r.customerPrice.currency.code, r.customerPrice.amount.decimalText(),
                    r.proceeds?.amount.decimalText() ?? "", r.proceedsSource?.rawValue ?? "",
                    r.worstCost?.amount.decimalText() ?? "",
                    r.margin?.amount.decimalText() ?? "",
                    StorefrontMargins.percentValue(r.marginShare)?.decimalText() ?? "",
                    r.missing ?? "",
                ])
            }
        }
        return t.csv()
    }

    func renderMarkdown() -> String {
        cards.map { m in
            var s = "## \(m.heading)\n\n"
            s +=
                m.rows.isEmpty
                ? "No storefront prices this card's packs.\n"
                : m.table.markdown() + "\nWorst storefront per pack:\n\n"
                    + m.worstTable.markdown()
            s += "\n" + m.notes.map { "- \($0)" }.joined(separator: "\n") + "\n"
            return s
        }.joined(separator: "\n")
    }

    func renderTable(bold: Bool) -> String {
        cards.map { m in
            var s = "\(m.heading)\n\n"
            s +=
                m.rows.isEmpty
                ? "No storefront prices this card's packs.\n"
                : m.table.plain(bold: bold) + "\nworst storefront per pack:\n"
                    + m.worstTable.plain(bold: bold)
            s += "\n" + m.notes.joined(separator: "\n") + "\n"
            return s
        }.joined(separator: "\n")
    }
}
