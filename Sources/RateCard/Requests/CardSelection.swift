/// Which cards a command works on: the rate-card folder and the operands the user named,
/// card files (`RateCards/osg-v10.json`) or references (`osg`, the newest version, or
/// `osg@10`). No operand means the newest version of every card in the folder.
struct CardSelection: Sendable, Hashable {
    /// The rate-card folder (`--cards`; `RateCards` by default).
    var directory: String
    var operands: [String]

    init(directory: String = "RateCards", operands: [String] = []) {
        self.directory = directory
        self.operands = operands
    }

    /// `--cards DIR` (`RateCards` without it) and the command's operands.
    init(arguments args: ParsedArguments) {
        self.init(directory: args.value("cards") ?? "RateCards", operands: args.positionals)
    }

    /// The folder's files (and any card file operand outside it), checked and assembled;
    /// their problems are one failure listing every one (exit 2).
    func repository() throws(RunFailure) -> CardRepository {
        let files = operands.filter { $0.hasSuffix(".json") }
        do {
            return try CardRepository.load(paths: [directory] + files)
        } catch {
            throw RunFailure.problems(error.items, in: "the rate-card files")
        }
    }

    /// The repository and the cards the operands name, in the operands' order.
    func load() throws(RunFailure) -> (repository: CardRepository, cards: [RateCard]) {
        let repo = try repository()
        return (repo, try cards(in: repo))
    }

    /// The cards the operands name in `repo`; an unknown reference is a failure listing the
    /// folder's cards, and an empty selection is one too.
    func cards(in repo: CardRepository) throws(RunFailure) -> [RateCard] {
        var cards: [RateCard] = []
        if operands.isEmpty {
            cards = repo.newestCards
        }
        for operand in operands {
            if operand.hasSuffix(".json") {
                let wanted = FilePath.canonical(operand)
                cards.append(
                    contentsOf: repo.cards.filter { FilePath.canonical($0.source.path) == wanted })
            } else if let c = repo.card(reference: operand) {
                cards.append(c)
            } else {
                let known = repo.cards.map(\.reference).joined(separator: ", ")
                throw RunFailure("no card '\(operand)' in \(directory) (cards: \(known))")
            }
        }
        if cards.isEmpty { throw RunFailure("no rate card found in \(directory)") }
        return cards
    }
}
