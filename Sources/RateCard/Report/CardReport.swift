/// The generated report of one card version: a Markdown page a finance reader reviews in a
/// pull request, and the margin chart drawn beside it as SVG.
///
/// Everything is derived from the card, the provider sheets, the FX table and the
/// commission schedule of one `CardRepository`, through `PackMargins`; nothing depends on
/// the clock, the locale or where the rate-card folder sits on disk, so the same cards
/// always give byte-identical files.
struct CardReport: Sendable {
    let card: RateCard
    /// The worst case and margins the report shows.
    let margins: PackMargins
    /// The subscription plans and free tier, by subscription year.
    let plans: PlanMargins
    /// How file paths are written in the report.
    let paths: ReportPaths
    /// Each feature's candidate requests, for the price list's running costs.
    let profiles: [FeatureCostProfile]
    /// Every pack in every storefront the storefront data covers, on the data's date; nil
    /// without a storefront file or when it covers none of the card's prices.
    let storefronts: StorefrontMargins?

    /// Computes the figures of `card`. Throws when its worst case cannot be computed
    /// exactly (a missing FX rate, an overflow).
    init(card: RateCard, repository: CardRepository, paths: ReportPaths) throws(ReportError) {
        self.card = card
        self.paths = paths
        do {
            margins = try PackMargins(card: card, repository: repository)
            plans = try PlanMargins(card: card, repository: repository)
            profiles = try WorstCaseEngine(card: card, providers: repository.providers).profiles
            if let table = repository.storefronts {
                let s = try StorefrontMargins(card: card, repository: repository, date: table.date)
                storefronts = s.rows.isEmpty ? nil : s
            } else {
                storefronts = nil
            }
        } catch {
            throw .worstCase(WorstCaseFailure(error, card: card))
        }
    }

    /// "osg-v10": the stem of the report's file names.
    var baseName: String { CardReport.baseName(id: card.id, version: card.version) }
    /// "osg-v10.md"
    var markdownName: String { baseName + ".md" }
    /// "osg-v10.svg"
    var chartName: String { baseName + ".svg" }
    /// "osg-v10-storefronts.svg": the margin % chart of every storefront.
    var storefrontChartName: String { baseName + "-storefronts.svg" }

    static func baseName(id: String, version: Int) -> String { "\(id)-v\(version)" }
}

/// How the report names the files it was generated from.
///
/// Paths are written relative to the folder that holds the rate-card folder
/// ("RateCards/osg-v10.json"), so a report generated from a copy of the folder elsewhere
/// is byte-identical to one generated in the repository.
struct ReportPaths: Sendable, Hashable {
    /// The rate-card folder as given, without trailing slashes.
    let cardsDirectory: String

    init(cardsDirectory: String) {
        var d = cardsDirectory
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.cardsDirectory = d
    }

    /// The folder's own name, e.g. "RateCards".
    var folderName: String {
        let name = AtomicFile.baseName(of: cardsDirectory)
        return name.isEmpty || name == "." || name == "/" ? "RateCards" : name
    }

    /// `path` (as loaded, under `cardsDirectory`) as "RateCards/…"; other paths unchanged.
    func display(_ path: String) -> String {
        let prefix = cardsDirectory == "/" ? "/" : cardsDirectory + "/"
        guard path.hasPrefix(prefix) else { return path }
        return folderName + "/" + path.dropFirst(prefix.count)
    }
}

/// Why a report could not be generated.
enum ReportError: DiagnosedError, Sendable, Hashable, CustomStringConvertible {
    /// A card's worst case cannot be computed: its findings, as every command gives them.
    case worstCase(WorstCaseFailure)
    case chart(card: String, path: String, MarginChartError)
    /// A proceeds folder (`Proceeds/<card-id>/`) that cannot be valued.
    case proceeds([Diagnostic], summary: String?)

    var description: String {
        switch self {
        case .worstCase(let f): f.description
        case .chart(let card, _, let e): "\(card): \(e)"
        case .proceeds(let d, let s):
            (d.map(\.rendered) + [s].compactMap { $0 }).joined(separator: "\n")
        }
    }

    var diagnostics: [Diagnostic] {
        switch self {
        case .worstCase(let f): f.diagnostics
        case .chart(_, let path, _): [Diagnostic(path: path, message: description)]
        case .proceeds(let d, _): d
        }
    }

    var summary: String? {
        if case .proceeds(_, let s) = self { return s }
        return nil
    }

    var failureClass: FailureClass {
        switch self {
        case .worstCase(let f): f.failureClass
        case .chart, .proceeds: .unreadable
        }
    }
}
