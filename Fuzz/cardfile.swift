// Fuzz target `cardfile`: the card loader on arbitrary bytes, and the engine on what it
// accepts. The input is one or more files separated by NUL bytes (cards, provider sheets,
// FX, commission); every file is loaded, the loaded ones are assembled into a repository,
// and every card's packs and grants are priced and rendered. Nothing may trap: bad input
// is a `Diagnostics`, an engine limit a `WorstCaseError`.
//
// Also exercised on every input (issue 10): the schedule analysis (periods in force, the
// `period-never-in-force` findings, the worst period among those in force), every free
// dimension (`free-usage` messages), the FX rates each figure names (file and command-line
// overrides, placeholder status), unspent credits when nothing costs, and the one decimal
// rule of machine output on every figure.
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
                require(
                    d.location.line >= 1 && d.location.column >= 1, "diagnostic at \(d.location)")
                require(!d.message.isEmpty, "empty diagnostic")
            }
        }
    }
    for (path, file) in loaded {
        guard case .provider(let sheet) = file, let schedule = sheet.schedule else { continue }
        let inForce = schedule.periodsInForce
        require(!inForce.isEmpty, "a schedule with no period in force")
        let never = schedule.periodsNeverInForce.map(\.period)
        require(Set(inForce).isDisjoint(with: never), "a period both in force and never in force")
        require(
            inForce.contains(schedule.worstPeriod.name),
            "the worst period \(schedule.worstPeriod.name) is never in force")
        for d in CardChecker.scheduleFindings(sheet, path: path) {
            require(
                d.rule?.id == CheckRule.periodNeverInForce.rawValue && d.severity == .warning,
                "schedule finding \(d)")
        }
    }
    guard let repository = try? CardRepository.assemble(loaded) else { return 0 }
    var all: [PackMargins] = []
    // A command-line override of the first rate of the file, in the other direction.
    let overrides = repository.fx.rates.prefix(1).map {
        FXRate(base: $0.quote, quote: $0.base, rate: $0.rate, fromCommandLine: true)
    }
    for card in repository.cards {
        if let engine = try? WorstCaseEngine(card: card, providers: repository.providers) {
            for shape in engine.freeUsage {
                require(!shape.freeUsageMessage.isEmpty, "empty free-usage message")
            }
        }
        for fx in [repository.fx, repository.fx.overriding(with: overrides)] {
            guard let margins = try? PackMargins(card: card, repository: repository, fx: fx) else {
                continue
            }
            for row in margins.rows {
                let w = row.worst
                require(w.credits == row.pack.credits, "worst case of another credit count")
                require(!w.cost.amount.isNegative, "negative worst-case cost")
                let spent = w.plan.reduce(Int128(0)) { $0 &+ $1.count &* $1.shape.credits }
                if w.credits > 0 {
                    require(
                        spent &+ w.unspent == w.credits, "witness and unspent credits do not add up"
                    )
                }
                if w.plan.isEmpty && w.credits > 0 {
                    require(w.unspent == w.credits, "nothing spent but not every credit unspent")
                }
                for r in row.fxUsed {
                    require(margins.fxUsed.contains(r), "a row's rate missing from fx.used")
                }
                _ = w.witnessSummary
                _ = w.witnessFeature
                for text in [w.cost.amount.decimalText(), row.price.price.amount.decimalText()]
                    + row.lines.map({ $0.marginShare.decimalText() })
                {
                    require(
                        (try? Exact(decimal: text)) != nil || text.count > 38,
                        "machine decimal \(text) does not read back")
                }
            }
            if !margins.fxUsed.isEmpty && margins.fxUsed.allSatisfy(\.fromCommandLine) {
                require(
                    !margins.fxRestsOnPlaceholder,
                    "command-line rates credited to the file's placeholder")
            }
            _ = margins.notes
            all.append(margins)
        }
    }
    for format in OutputFormat.allCases {
        _ = PackReport(all).render(format)
    }
    return 0
}
