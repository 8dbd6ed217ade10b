/// What `margin reconcile` is asked: the ledger exports, Apple's records and the cards
/// that say what each product grants and costs.
public struct ReconcileRequest: Sendable {
    /// Rate-card folders or files (`--cards`).
    var cards: [String]
    /// The card family (`--card`), needed when the folder holds several.
    var card: String?
    /// Ledger exports, in any format `margin pnl` reads except roll-ups.
    var ledger: [String]
    /// Forces the ledger format (`--input-format`).
    var inputFormat: TakingsFormat?
    /// App Store transactions and notifications (`--transactions`).
    var transactions: [String]
    /// Summary Sales Reports (`--sales`).
    var sales: [String]
    /// Financial reports (`--financial`).
    var financial: [String]
    /// `--memory`: the cap on what the matching holds; past it the run is partitioned
    /// (`ReconcileSpill`). Nil: in memory.
    public var memoryLimit: Int? = TakingsOptions.defaultMemoryLimit
    /// The partitions to use whatever the sizes say (tests force a partitioned run so).
    var partitions: Int? = nil

    public init(
        cards: [String], card: String? = nil, ledger: [String], inputFormat: TakingsFormat? = nil,
        transactions: [String], sales: [String] = [], financial: [String] = []
    ) {
        self.cards = cards
        self.card = card
        self.ledger = ledger
        self.inputFormat = inputFormat
        self.transactions = transactions
        self.sales = sales
        self.financial = financial
    }

    /// `--memory SIZE` (`256M`, `2G`), else the default cap (half the machine's memory).
    mutating func readMemory(_ args: ParsedArguments) throws {
        memoryLimit =
            try args.value("memory", as: ByteSize.self)?.bytes ?? TakingsOptions.defaultMemoryLimit
    }
}

/// The library entry point of `margin reconcile`: from a request to the reconciliation.
///
/// Loads the cards and chooses the family (as `margin pnl` does), reads Apple's records
/// (every problem in every file reported at once), reads the ledger, and matches them
/// (`Reconciler`).
public enum ReconcileRun {
    public static func run(_ request: ReconcileRequest) throws -> Reconciliation {
        let repo = try CardRepository.load(paths: request.cards)
        let family = try PnLRun.chooseFamily(
            request.card, in: repo, folder: request.cards.joined(separator: ", "))
        let versions = repo.versions(of: family).sorted { $0.effective < $1.effective }
        let catalogue = ProductCatalogue(versions: versions)

        // The credits spent since a refund are costed as `pnl` costs charges: the provider
        // sheets of the version in force, in the providers' currency.
        var pricer: ReplaySide?
        if let newest = versions.last {
            let currency = PackMargins.costCurrency(
                card: newest, providers: PackMargins.providers(of: newest, in: repo))
            pricer = ReplaySide(
                credits: .ledger(versions: versions.map { ($0, ReplaySide.features(of: $0)) }),
                costing: RequestCosting(providers: repo.providers), fx: repo.fx,
                currency: currency, costsAt: nil)
        }
        let reconciler = Reconciler(
            catalogue: catalogue, family: family, currency: pricer?.currency,
            storefronts: repo.storefronts)
        let parts =
            request.partitions
            ?? partitions(
                ledgerBytes: ProceedsRun.inputBytes(request.ledger.map { TakingsInput(path: $0) }),
                appleBytes: ProceedsRun.inputBytes(
                    request.transactions.map { TakingsInput(path: $0) }),
                memoryLimit: request.memoryLimit)
        guard parts > 1 else {
            var problems: [Diagnostic] = []
            var records = AppleRecords()
            do { records = try AppleTransactionReader.read(paths: request.transactions) } catch {
                problems += error.diagnostics
            }
            let reports = try readReports(request, catalogue: catalogue, problems: problems)
            let ledger = try ReconcileLedger.read(
                paths: request.ledger, format: request.inputFormat, pricer: pricer)
            return try reconciler.reconcile(
                ledger: ledger, apple: records, sales: reports.sales,
                financial: reports.financial)
        }
        return try partitioned(
            request, parts: parts, reconciler: reconciler, pricer: pricer, catalogue: catalogue)
    }

    /// Apple's reports (`--sales`, `--financial`): every problem in them and `problems` (the
    /// transactions') at once, before the ledger is read.
    static func readReports(
        _ request: ReconcileRequest, catalogue: ProductCatalogue, problems: [Diagnostic]
    ) throws(AppleRecordError) -> (sales: [SummarySalesReport], financial: [FinancialReport]) {
        var problems = problems
        var sales: [SummarySalesReport] = []
        for path in request.sales {
            do {
                sales.append(try SummarySalesReport.read(path: path, products: catalogue.products))
            } catch { problems += error.diagnostics }
        }
        var financial: [FinancialReport] = []
        for path in request.financial {
            do {
                financial.append(try FinancialReport.read(path: path, products: catalogue.products))
            } catch { problems += error.diagnostics }
        }
        if !problems.isEmpty { throw AppleRecordError(problems) }
        return (sales, financial)
    }
}
