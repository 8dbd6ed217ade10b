#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The library entry point of `margin replay`: from a request to a report.
///
/// In order: load the cards, resolve NEW (and OLD with `--against`), choose the reporting
/// currency and the value of a credit, read every input once (`ReplayReader` into a
/// `ReplayLedger`, each charge priced by both sides as it is read), take refunds off, replay
/// the balances, match buyers to packs, and compute every figure of the report once.
enum ReplayRun {
    static func run(_ request: ReplayRequest) throws -> ReplayReport {
        let plan = try ReplayPlan(request)
        guard request.inputs.count <= TakingsRun.maxInputs else {
            throw UsageError(
                "at most \(TakingsRun.maxInputs) exports at once, given \(request.inputs.count)")
        }
        let ledger = ReplayLedger(
            before: plan.before, after: plan.after, paths: request.inputs.map(\.path))
        let threads = max(1, request.threads)
        let parts = ReplaySpill.partitions(
            inputBytes: inputBytes(request.inputs), memoryLimit: request.memoryLimit,
            threads: threads)
        ledger.threads = threads
        if parts > 1, let limit = request.memoryLimit {
            do {
                ledger.spill = try ReplaySpill(partitions: parts, memoryLimit: limit)
            } catch {
                throw RunFailure(error.description)
            }
        } else if threads > 1 {
            ledger.shards = ReplayShards(
                count: threads, before: plan.before, after: plan.after, paths: ledger.paths)
        }
        defer { ledger.spill?.remove() }
        for (k, input) in request.inputs.enumerated() {
            try ReplayReader.read(input, index: k, into: ledger)
        }
        return try ReplayReport(ledger: ledger, plan: plan)
    }

    /// The inputs' size in bytes, or nil when one has no known size (standard input, a
    /// pipe).
    static func inputBytes(_ inputs: [TakingsInput]) -> Int? {
        var bytes = 0
        for input in inputs {
            switch input.source {
            case .file(let path):
                var st = stat()
                guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
                bytes += Int(st.st_size)
            case .bytes(let b): bytes += b.count
            case .standardInput: return nil
            }
        }
        return bytes
    }
}

/// Every choice of a replay made before its inputs are read.
struct ReplayPlan {
    let repository: CardRepository
    let new: RateCard
    /// OLD with `--against`; nil for the ledger's own charges.
    let old: RateCard?
    /// The family versions the ledger's side costs by.
    let family: [RateCard]
    let before: ReplaySide
    let after: ReplaySide
    let currency: Currency
    let credit: CreditValuation
    let costsAt: Timestamp?
    let rates: [Exact]?

    init(_ request: ReplayRequest) throws {
        let loaded = try CardRepository.load(paths: request.cards)
        let repo = CardRepository(
            cards: loaded.cards, providers: loaded.providers,
            fx: loaded.fx.overriding(with: request.fxOverrides),
            commission: loaded.commission, files: loaded.files)
        repository = repo
        new = try repo.card(operand: request.new)
        old = try request.against.map { operand throws(Diagnostics) in
            try repo.card(operand: operand)
        }
        family = repo.versions(of: new.id)
        currency =
            request.currency
            ?? PackMargins.costCurrency(
                card: new, providers: PackMargins.providers(of: new, in: repo))
        credit = try PnLRun.creditValue(
            request.creditValue, versions: [new], repo: repo, currency: currency,
            hint: request.valueHint
        ).0
        costsAt = request.costsAt
        rates = request.rates
        let costing = RequestCosting(providers: repo.providers)
        // Every provider currency either side can cost in must convert.
        var sheets = PackMargins.providers(of: new, in: repo)
        for c in old.map({ [$0] }) ?? family { sheets += PackMargins.providers(of: c, in: repo) }
        for c in Set(sheets.map(\.currency)).sorted() {
            do { _ = try repo.fx.factor(from: c, to: currency) } catch {
                throw RunFailure(
                    [
                        Diagnostic(
                            path: repo.fx.source.path,
                            message:
                                "no rate converts \(c.code) provider costs into \(currency.code): \(error)",
                            rule: .pnl(.fx))
                    ], message: "cannot cost the replay in \(currency.code)")
            }
        }
        let ledgerSide: ReplaySide.Credits =
            old.map { .card($0, features: ReplaySide.features(of: $0)) }
            ?? .ledger(versions: family.map { ($0, ReplaySide.features(of: $0)) })
        before = ReplaySide(
            credits: ledgerSide, costing: costing, fx: repo.fx, currency: currency, costsAt: nil)
        after = ReplaySide(
            credits: .card(new, features: ReplaySide.features(of: new)), costing: costing,
            fx: repo.fx, currency: currency, costsAt: request.costsAt)
    }

    /// "the ledger's own charges" or OLD's reference.
    var beforeName: String { old?.reference ?? Self.ledgerName }
    static let ledgerName = "the ledger's own charges"
}
