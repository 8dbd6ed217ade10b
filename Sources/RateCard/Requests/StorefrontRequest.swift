/// `margin storefronts`: every pack of the selected cards in every App Store storefront,
/// from Apple's price points where files are given, else modelled from the storefront data.
public struct StorefrontRequest: Sendable {
    var selection: PricedSelection
    /// `--format`.
    var format = OutputFormat.table
    /// `--changes [--since DATE]`: the changes list instead of the margins; the inner nil
    /// is no `--since` (`StorefrontChanges.since`).
    var changesSince: CalendarDate?? = nil

    init(cards: CardSelection, fxOverrides: [FXRate] = [], arguments: StorefrontArguments) {
        selection = PricedSelection(cards: cards, fxOverrides: fxOverrides, arguments: arguments)
    }

    /// The request the command line makes; bad values are usage errors, and so is
    /// `--since` without `--changes`.
    public init(arguments args: ParsedArguments) throws {
        format = try args.choice("format", default: OutputFormat.table)
        selection = try PricedSelection(arguments: args)
        if args.flag("changes") {
            changesSince = .some(try StorefrontChanges.since(args.value("since")))
        } else if args.value("since") != nil {
            throw UsageError("--since applies to --changes only")
        }
    }

    /// What `margin storefronts` prints: the margins, or with `--changes` the changes list,
    /// in the request's format.
    public func output(bold: Bool) throws -> CommandOutput {
        if let since = changesSince { return try changes(since: since).output(format, bold: bold) }
        return try run().output(format, bold: bold)
    }

    /// The one call. Without storefront data and without Apple's files there is nothing to
    /// compute proceeds from (exit 2); a card whose worst case cannot be computed is its
    /// `WorstCaseFailure`.
    func run() throws -> StorefrontReport {
        let s = try selection.load("pack") { $0.packs.map(\.productId) }
        if s.repository.storefronts == nil && s.priceLists.isEmpty {
            throw RunFailure(
                "no storefront data in \(selection.cards.directory) and no --price-points: nothing to compute proceeds from"
            )
        }
        let arguments = selection.arguments
        return StorefrontReport(
            try WorstCaseFailure.each(s.cards) { card throws(WorstCaseError) in
                try StorefrontMargins(
                    card: card, repository: s.repository, priceLists: s.priceLists,
                    program: arguments.program, date: arguments.date, fx: s.fx)
            })
    }

    /// `--changes [--since DATE]`: every dated tax or commission change and each pack's
    /// margin the day before and the day of it (`StorefrontChanges`).
    func changes(since: CalendarDate?) throws -> StorefrontChanges {
        let (repo, cards) = try selection.cards.load()
        if repo.storefronts == nil {
            throw RunFailure(
                "no storefront data in \(selection.cards.directory): --changes lists the changes of the storefront file"
            )
        }
        let fx = repo.fx.overriding(with: selection.fxOverrides)
        do {
            return try StorefrontChanges(
                StorefrontChanges.Request(
                    cards: cards, repository: repo, program: selection.arguments.program,
                    since: since,
                    fx: fx))
        } catch {
            guard let card = cards.first else { throw RunFailure("\(error)") }
            throw WorstCaseFailure(error, card: card)
        }
    }
}

extension ApplePriceList {
    /// Apple's files of `--price-points`, each bound to a product id in `products` (the
    /// `what` of `cards`: "pack", "subscription"). A file that cannot be read, or that is
    /// bound to a product none of the cards sells, is a failure (exit 2).
    static func load(
        _ arguments: StorefrontArguments, products: Set<String>, what: String, cards: [RateCard]
    ) throws(RunFailure) -> [String: ApplePriceList] {
        let lists: [String: ApplePriceList]
        do {
            lists = try ApplePriceList.load(arguments.bindings)
        } catch {
            throw RunFailure.problems(error.items, in: "the App Store Connect files")
        }
        for product in lists.keys.sorted() where !products.contains(product) {
            throw RunFailure(
                "--price-points \(product)=…: no \(what) of \(cards.map(\.reference).joined(separator: ", ")) has product id \(product)"
            )
        }
        return lists
    }
}
