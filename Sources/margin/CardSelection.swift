import RateCard

extension Common {
    /// The repository and the cards `CARD…` names: card files or references (`osg`,
    /// `osg@10`) into `--cards`; without any, the newest version of every card. Prints why
    /// and returns nil (exit 2) when none can be found.
    static func loadCards(_ args: ParsedArguments, _ io: Terminal) -> (CardRepository, [RateCard])? {
        let dir = cardsDirectory(args)
        let filePaths = args.positionals.filter { $0.hasSuffix(".json") }
        let references = args.positionals.filter { !$0.hasSuffix(".json") }
        guard let repo = loadRepository([dir] + filePaths, io) else { return nil }
        var cards: [RateCard] = []
        if args.positionals.isEmpty {
            cards = repo.newestCards
        } else {
            for path in filePaths {
                let wanted = canonicalPath(path)
                cards.append(contentsOf: repo.cards.filter { canonicalPath($0.source.path) == wanted })
            }
            for ref in references {
                guard let c = repo.card(reference: ref) else {
                    io.error("no card '\(ref)' in \(dir) (cards: \(repo.cards.map(\.reference).joined(separator: ", ")))")
                    return nil
                }
                cards.append(c)
            }
        }
        if cards.isEmpty {
            io.error("no rate card found in \(dir)")
            return nil
        }
        return (repo, cards)
    }
}
