/// The worst-case margin of every pack of a card in every storefront it is sold in:
/// "does every pack make money everywhere?".
///
/// Proceeds come from Apple's own price points where a file is bound to the pack, else they
/// are modelled from the storefront data file (`ModelledProceeds`); where both exist they
/// are cross-checked. The worst-case cost is the engine's (`WorstCaseEngine`), converted
/// into each storefront's currency with the FX table. A row whose margin cannot be computed
/// (no FX rate, no proceeds, no regime in force, a territory the data lacks) stays, with
/// what is known and a `gaps` diagnostic that says what is missing; `check` makes those
/// errors, since a floor it cannot compute is not a floor that holds.
struct StorefrontMargins: Sendable {
    let card: RateCard
    let program: StoreProgram
    /// The date prices and commission regimes are taken at.
    let date: CalendarDate
    /// Worst first: free rows (a price of 0), then by margin share; rows without a margin last.
    let rows: [Row]
    /// What is wrong or worth knowing apart from missing margins: card prices for no
    /// territory, Apple's price differing from the card's, cross-check differences, pages
    /// not loaded. Errors and warnings.
    let findings: [Diagnostic]
    /// Rows whose margin cannot be computed, each said once (warnings; `check` reports them
    /// as errors).
    let gaps: [Diagnostic]
    let fx: FXTable
    /// Every FX rate a row used, in the order first needed.
    let fxUsed: [FXRate]
    let storefronts: StorefrontTable?
    /// The storefronts of the data that no row covers, by currency; nil without data.
    let coverage: StorefrontCoverage?

    /// Every diagnostic, sorted: what `margin storefronts` prints on stderr.
    var warnings: [Diagnostic] {
        (findings + gaps
            + card.packs.filter { $0.credits <= 0 }.map {
                PackMargins.noCreditsWarning($0, card: card)
            }).sorted()
    }

    /// 1 when a finding is an error (a card price for no territory, Apple's price differing
    /// from the card's), else 0.
    var exitCode: Int32 { findings.contains { $0.severity == .error } ? 1 : 0 }

    /// Where a row's proceeds come from.
    enum ProceedsSource: String, Sendable, Hashable {
        /// `attributes.proceeds` of an App Store Connect price point.
        case apple
        /// The storefront data file's tax and commission.
        case modelled
    }

    /// Why a row has no margin.
    enum Gap: String, Sendable, Hashable {
        /// No FX rate converts the worst-case cost into the storefront's currency.
        case noFXRate = "no FX rate"
        /// Apple states no proceeds and the storefront data cannot model them.
        case noProceeds = "no proceeds"
        /// No commission regime of the program is in force on the date.
        case noRegime = "no regime in force"
        /// The date is before the storefront data's tax histories start.
        case noTaxHistory = "no tax history"
        /// The territory is not in the storefront data file (and no Apple file covers it).
        case notInData = "not in storefront data"
        /// The pack adds 0 credits or fewer: it sells nothing to spend, so it has no worst
        /// case (said once per pack, `PackMargins.noCreditsWarning`; `check`: `free-price`).
        case noCredits = "no credits"
    }

    /// One pack in one territory.
    struct Row: Sendable, Hashable {
        let pack: Pack
        let territory: String
        let storefront: Storefront?
        let customerPrice: Money
        /// What Apple pays: Apple's figure, else the model's (rounded to the payment unit).
        let proceeds: Money?
        let proceedsSource: ProceedsSource?
        let apple: ApplePricePoint?
        let modelled: ModelledProceeds?
        /// The worst-case provider cost in the territory's currency; nil without an FX rate.
        let worstCost: Money?
        let fxUsed: [FXRate]
        /// proceeds − worst-case cost
        let margin: Money?
        /// margin ÷ customer price; nil when the price is 0 (a free row) or there is no margin.
        let marginShare: Exact?
        /// Why there is no margin, when there is none.
        let gap: Gap?
        /// Where the price was read: the Apple file's point, else the card's price.
        let path: String
        let location: SourceLocation

        /// A pack sold for nothing (Apple's price point of 0): every credit is given away.
        var isFree: Bool { customerPrice.amount.isZero && pack.credits > 0 }

        /// Why the row has no margin share, in every format: its gap, or a price below 0
        /// (not "free": a card error, which `check` reports as `free-price`).
        var missing: String? {
            gap?.rawValue ?? (customerPrice.amount.isNegative ? "negative price" : nil)
        }
    }

    /// The tolerance of the cross-check: the unit Apple pays in (one minor unit of the
    /// currency, or the storefront data's `currencyUnit`: 1 for HUF), since Apple rounds.
    static func tolerance(_ currency: Currency, storefront: Storefront? = nil) -> Exact {
        if let storefront { return storefront.paymentUnit }
        return (try? Exact(1, over: Exact.powerOfTen(currency.minorUnits))) ?? .one
    }

    init(
        card: RateCard, repository: CardRepository, priceLists: [String: ApplePriceList] = [:],
        program: StoreProgram? = nil,
        date: CalendarDate, fx: FXTable? = nil
    ) throws(WorstCaseError) {
        self.card = card
        let program = program ?? card.storeProgram ?? .standard
        self.program = program
        self.date = date
        let fx = fx ?? repository.fx
        self.fx = fx
        let table = repository.storefronts
        self.storefronts = table
        let engine = try WorstCaseEngine(card: card, providers: repository.providers)
        var rows: [Row] = []
        var findings: [Diagnostic] = []
        for pack in card.packs {
            var builder = PackRows(
                pack: pack, card: card, table: table, program: program, date: date,
                engine: engine, fx: fx, findings: &findings)
            if let list = priceLists[pack.productId] { try builder.addApple(list) }
            try builder.addModelled()
            try builder.addUnmodelled()
            builder.addUnreached()
            rows += builder.rows
            findings += builder.findings
        }
        var used: [FXRate] = []
        for r in rows {
            for rate in r.fxUsed where !used.contains(rate) { used.append(rate) }
        }
        self.rows = rows.sorted(by: StorefrontMargins.worstFirst)
        self.findings = findings.sorted()
        self.gaps = StorefrontMargins.gapDiagnostics(
            rows, card: card, table: table, program: program, date: date
        ).sorted()
        self.fxUsed = used
        self.coverage = table.map { StorefrontCoverage($0, shown: Set(rows.map(\.territory))) }
    }

    static func makeRow(
        _ pack: Pack, _ territory: String, _ sf: Storefront?, _ price: Money, _ proceeds: Money?,
        _ source: ProceedsSource?,
        _ apple: ApplePricePoint?, _ modelled: ModelledProceeds?, _ gap: Gap?,
        _ cost: (Money?, [FXRate]), path: String, location: SourceLocation
    ) throws(WorstCaseError) -> Row {
        // A pack of no credits has no worst case, so no margin anywhere.
        let (worst, rates) = pack.credits > 0 ? cost : (nil, [])
        var margin: Money?
        var share: Exact?
        if let proceeds, let worst {
            do {
                let m = try proceeds.subtracting(worst)
                margin = m
                share = price.amount.isPositive ? try m.amount.divided(by: price.amount) : nil
            } catch {
                throw .arithmetic(
                    "pack \(pack.productId) in \(territory): the margin is too large to compute exactly"
                )
            }
        }
        return Row(
            pack: pack, territory: territory, storefront: sf, customerPrice: price,
            proceeds: proceeds, proceedsSource: source, apple: apple,
            modelled: modelled, worstCost: worst, fxUsed: rates, margin: margin, marginShare: share,
            gap: pack.credits <= 0 ? .noCredits : margin == nil ? (gap ?? .noFXRate) : nil,
            path: path, location: location)
    }

    /// One diagnostic per row without a margin; rows with no regime in force are said once
    /// per card (they share the cause: the date and the program).
    static func gapDiagnostics(
        _ rows: [Row], card: RateCard, table: StorefrontTable?, program: StoreProgram,
        date: CalendarDate
    ) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var noRegime: [Row] = []
        for r in rows {
            guard let gap = r.gap else { continue }
            let head = "\(r.pack.productId) in \(r.territory)"
            switch gap {
            case .noFXRate:
                out.append(
                    Diagnostic(
                        path: r.path, location: r.location, severity: .warning,
                        message:
                            "\(head): no FX rate converts the worst-case cost into \(r.customerPrice.currency) (add one to the FX file or pass --fx); no margin",
                        rule: .check(.storefrontFX)))
            case .noProceeds:
                out.append(
                    Diagnostic(
                        path: r.path, location: r.location, severity: .warning,
                        message:
                            "\(head): Apple states no proceeds and the storefront data cannot model them (Apple prices in \(r.customerPrice.currency.code), the data in \(r.storefront?.currency.code ?? "nothing")); no margin",
                        rule: .check(.storefrontProceeds)))
            case .notInData:
                let data =
                    table.map { "\($0.source.path) has no \(r.territory)" }
                    ?? "there is no storefront data file"
                out.append(
                    Diagnostic(
                        path: r.path, location: r.location, severity: .warning,
                        message:
                            "\(head): \(data), so its tax and commission are unknown, and no App Store Connect file gives its proceeds; listed at \(show(r.customerPrice)) with the worst-case cost \(r.worstCost.map(show) ?? "(no FX rate)") and no margin: add the territory to the storefront data or pass its price points",
                        rule: .check(.storefrontProceeds)))
            case .noRegime, .noTaxHistory:
                noRegime.append(r)
            case .noCredits:
                // Said once per pack (`warnings`), not per storefront, and by `check` as
                // `free-price` at the pack.
                continue
            }
        }
        if !noRegime.isEmpty, let table, let start = table.historyStart,
            let before = table.beforeHistoryText(date)
        {
            let territories = Set(noRegime.map(\.territory)).sorted()
            out.append(
                Diagnostic(
                    path: table.source.path, location: table.source.location, severity: .warning,
                    message:
                        "\(card.reference): \(before) and proceeds cannot be modelled in \(territories.count) storefronts (\(Set(noRegime.map(\.pack.productId)).sorted().joined(separator: ", "))); no margin there: pass --at \(start) or later, or Apple's price points",
                    rule: .check(.storefrontRegime)))
        } else if !noRegime.isEmpty, let table {
            let regimes = table.commission.filter { $0.program == program }
                .sorted { $0.from < $1.from }
                .map {
                    "from \($0.from)\($0.until.map { " until \($0)" } ?? "")"
                        + ($0.territories.map { " in \($0.count) storefronts only" } ?? "")
                }
            let territories = Set(noRegime.map(\.territory)).sorted()
            out.append(
                Diagnostic(
                    path: table.source.path, location: table.source.location, severity: .warning,
                    message:
                        "\(card.reference): no \(program.rawValue) commission regime of the storefront data is in force on \(date) (its default regimes: \(regimes.isEmpty ? "none" : regimes.joined(separator: ", "))), so proceeds cannot be modelled in \(territories.joined(separator: ", ")) (\(Set(noRegime.map(\.pack.productId)).sorted().joined(separator: ", "))); no margin there: pass --at a date a regime covers, or Apple's price points",
                    rule: .check(.storefrontRegime)))
        }
        return out
    }

    /// Free rows first, then by margin share, then rows without a margin; ties by pack and
    /// territory.
    static func worstFirst(_ a: Row, _ b: Row) -> Bool {
        func rank(_ r: Row) -> Int { r.isFree ? 0 : (r.marginShare != nil ? 1 : 2) }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb }
        if let x = a.marginShare, let y = b.marginShare, x != y { return x < y }
        return (a.pack.productId, a.territory) < (b.pack.productId, b.territory)
    }

    /// The worst storefront of each pack (a free one, else the lowest margin share), in the
    /// card's pack order.
    var worstPerPack: [Row] {
        card.packs.compactMap { p in
            rows.first { $0.pack.productId == p.productId && ($0.isFree || $0.marginShare != nil) }
        }
    }

    /// "EUR 1.76": rounded half-even to the currency's minor unit.
    static func show(_ m: Money) -> String { "\(m.currency.code) \(m.formatted(rule: .halfEven))" }

    /// "19% tax removed, 30% standard commission (confirmed)"
    static func modelText(_ sf: Storefront?, _ m: ModelledProceeds) -> String {
        var parts: [String] = []
        if let sf, sf.taxIncluded {
            parts.append("\(Format.percent(m.taxes.vat)) tax removed")
        } else {
            parts.append("prices exclude tax")
        }
        if !m.taxes.digitalServicesTax.isZero {
            parts.append("\(Format.percent(m.taxes.digitalServicesTax)) digital services tax")
        }
        var commission =
            "\(Format.percent(m.regime.rate, places: 0)) \(m.regime.program.rawValue) commission (\(m.regime.status.rawValue))"
        if !m.regime.paymentProcessing.isZero {
            commission +=
                " + \(Format.percent(m.regime.paymentProcessing, places: 0)) payment processing"
        }
        parts.append(commission)
        if !m.taxes.withholding.isZero {
            parts.append("\(Format.percent(m.taxes.withholding)) withheld")
        }
        return parts.joined(separator: ", ")
    }
}
