import Foundation

/// Everything in a rate-card folder: cards of every version, provider sheets, FX rates and
/// commission rates, cross-checked against each other.
struct CardRepository: Sendable {
    let cards: [RateCard]
    let providers: [String: ProviderSheet]
    let fx: FXTable
    let commission: CommissionSchedule
    /// The storefront data file (`"kind": "storefronts"`), when the folder has one.
    let storefronts: StorefrontTable?
    /// Every file that was read, sorted.
    let files: [String]

    init(
        cards: [RateCard], providers: [String: ProviderSheet], fx: FXTable,
        commission: CommissionSchedule, storefronts: StorefrontTable? = nil, files: [String] = []
    ) {
        self.cards = cards.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
        self.providers = providers
        self.fx = fx
        self.commission = commission
        self.storefronts = storefronts
        self.files = files
    }

    /// Reads every `*.json` file under `paths` (files or folders, recursively), in sorted
    /// order, collecting every problem of every file before throwing.
    static func load(paths: [String]) throws(Diagnostics) -> CardRepository {
        var problems: [Diagnostic] = []
        let files = CardChecker.enumerate(paths, problems: &problems)
        // Each file read and checked on its own thread, then taken in sorted order: the
        // storefront file is most of the work, so the others are read beside it (`margin
        // pnl` of a few lines started 1.5 ms sooner).
        let results = ResultSlots<Result<CardFile, Diagnostics>>(
            count: files.count, empty: .failure(Diagnostics([])))
        DispatchQueue.concurrentPerform(iterations: files.count) { k in
            results[k] = Result { () throws(Diagnostics) in try CardFileLoader.load(path: files[k])
            }
        }
        var loaded: [(String, CardFile)] = []
        for (file, result) in zip(files, results.values) {
            switch result {
            case .success(let f): loaded.append((file, f))
            case .failure(let error): problems.append(contentsOf: error.items)
            }
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        return try assemble(loaded, files: files)
    }

    /// Builds a repository from already-loaded files, checking cross-references.
    static func assemble(_ loaded: [(path: String, file: CardFile)], files: [String] = [])
        throws(Diagnostics) -> CardRepository
    {
        var problems: [Diagnostic] = []
        var cards: [RateCard] = []
        var providers: [String: ProviderSheet] = [:]
        var fx: FXTable?
        var commission: CommissionSchedule?
        var storefronts: StorefrontTable?
        for (path, file) in loaded {
            switch file {
            case .card(let c):
                if let other = cards.first(where: { $0.id == c.id && $0.version == c.version }) {
                    problems.append(
                        Diagnostic(
                            path: path, location: c.source.location,
                            message: "card \(c.reference) is also defined in \(other.source.path)",
                            rule: .check(.duplicateVersion)))
                } else {
                    cards.append(c)
                }
            case .provider(let p):
                if let other = providers[p.id] {
                    problems.append(
                        Diagnostic(
                            path: path, location: p.source.location,
                            message:
                                "provider sheet \"\(p.id)\" is also defined in \(other.source.path)"
                        ))
                } else {
                    providers[p.id] = p
                }
            case .fx(let t):
                if let fx {
                    problems.append(
                        Diagnostic(
                            path: path, location: t.source.location,
                            message: "a second FX file; the first is \(fx.source.path) (keep one)"))
                } else {
                    fx = t
                }
            case .commission(let c):
                if let commission, let first = commission.source {
                    problems.append(
                        Diagnostic(
                            path: path, location: c.source?.location ?? .start,
                            message:
                                "a second commission file; the first is \(first.path) (keep one)"))
                } else {
                    commission = c
                }
            case .storefronts(let t):
                if let storefronts {
                    problems.append(
                        Diagnostic(
                            path: path, location: t.source.location,
                            message:
                                "a second storefront file; the first is \(storefronts.source.path) (keep one)"
                        ))
                } else {
                    storefronts = t
                }
            }
        }
        for card in cards {
            problems.append(contentsOf: bindingProblems(card, providers: providers))
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        return CardRepository(
            cards: cards, providers: providers, fx: fx ?? .empty,
            commission: commission ?? .appStoreDefault, storefronts: storefronts, files: files)
    }

    /// Each provider binding must name a sheet and meter that exist, in a unit the card's
    /// dimension converts to.
    static func bindingProblems(_ card: RateCard, providers: [String: ProviderSheet])
        -> [Diagnostic]
    {
        var out: [Diagnostic] = []
        for f in card.features {
            for d in f.dimensions {
                guard case .provider(let sheetID, let meterKey, let loc) = d.cost else { continue }
                guard let sheet = providers[sheetID] else {
                    let hint =
                        FieldReader.didYouMean(sheetID, in: providers.keys)
                    out.append(
                        Diagnostic(
                            path: card.source.path, location: loc,
                            message:
                                "features.\(f.key).\(d.name).cost.provider: no provider sheet \"\(sheetID)\" is loaded\(hint)"
                        ))
                    continue
                }
                guard let meter = sheet.meter(meterKey) else {
                    out.append(
                        Diagnostic(
                            path: card.source.path, location: loc,
                            message:
                                "features.\(f.key).\(d.name).cost.meter: provider \"\(sheetID)\" has no meter \"\(meterKey)\" (it has: \(sheet.meters.map(\.key).joined(separator: ", ")))"
                        ))
                    continue
                }
                if d.unit.size(in: meter.unit) == nil {
                    out.append(
                        Diagnostic(
                            path: card.source.path, location: loc,
                            message:
                                "features.\(f.key).\(d.name): the card counts \(d.unit.rawValue)s but meter \"\(sheetID)/\(meterKey)\" bills \(meter.unit.rawValue)s"
                        ))
                }
            }
        }
        return out
    }

    /// Every version of a card family, oldest first.
    func versions(of id: String) -> [RateCard] {
        cards.filter { $0.id == id }.sorted { $0.version < $1.version }
    }

    /// The card families, sorted by id.
    var cardIDs: [String] { Array(Set(cards.map(\.id))).sorted() }

    /// The newest version of each family.
    var newestCards: [RateCard] {
        cardIDs.compactMap { versions(of: $0).last }
    }

    /// The version of `id` in force at `instant`: the newest whose effective time is not
    /// after it. Older history is priced by the card that applied then.
    func card(_ id: String, at instant: Timestamp) -> RateCard? {
        versions(of: id).last { $0.effective <= instant }
    }

    /// A card by `id` (newest version) or `id@version`.
    func card(reference: String) -> RateCard? {
        let parts = reference.split(separator: "@", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            guard let v = Int(parts[1]) else { return nil }
            return cards.first { $0.id == parts[0] && $0.version == v }
        }
        return versions(of: reference).last
    }
}
