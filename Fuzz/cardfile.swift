// Fuzz target `cardfile`: the card loader on arbitrary bytes, and the engine on what it
// accepts. The input is one or more files separated by NUL bytes (cards, provider sheets,
// FX, commission); every file is loaded, the loaded ones are assembled into a repository,
// and every card's packs and grants are priced and rendered. Nothing may trap: bad input
// is a `Diagnostics`, an engine limit a `WorstCaseError`.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var loaded: [(path: String, file: CardFile)] = []
    for (i, file) in splitAtNUL(inputBytes(data, size)).enumerated() {
        let path = "fuzz-\(i).json"
        do {
            loaded.append((path, try CardFileLoader.load(bytes: file, path: path)))
        } catch {
            require(!error.items.isEmpty, "a rejected file without a diagnostic")
            for d in error.items {
                require(d.path == path, "diagnostic names \(d.path), not \(path)")
                require(d.location.line >= 1 && d.location.column >= 1, "diagnostic at \(d.location)")
                require(!d.message.isEmpty, "empty diagnostic")
            }
        }
    }
    guard let repository = try? CardRepository.assemble(loaded) else { return 0 }
    var all: [PackMargins] = []
    for card in repository.cards {
        guard let margins = try? PackMargins(card: card, repository: repository) else { continue }
        for row in margins.rows {
            require(row.worst.credits == row.pack.credits, "worst case of another credit count")
            require(!row.worst.cost.amount.isNegative, "negative worst-case cost")
            _ = row.worst.witnessSummary
            _ = row.worst.witnessFeature
        }
        all.append(margins)
    }
    for format in ["table", "json", "csv", "markdown"] {
        _ = PackMargins.render(all, format: format)
    }
    return 0
}
