import RateCard

/// `margin diff OLD NEW`: what changed between two card versions and what it does to the
/// worst-case margin of every pack.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary =
        "What changed between two card versions: prices, features, packs, and every pack's worst-case margin before and after."
    static let usage =
        "margin diff OLD NEW [--cards DIR] [--format table|json|csv|markdown] [--commission RATES] [--fx BASE/QUOTE=RATE]"
    static let parser = ArgumentParser([
        Common.cardsOption, Common.formatOption, Common.commissionOption, Common.fxOption,
    ])

    static func run(_ args: ParsedArguments, _ io: Terminal) -> Int32 {
        let format: String
        let fxOverrides: [FXRate]
        let rates: [Exact]?
        do throws(UsageError) {
            format = try OutputFormat.parse(args.value("format"))
            fxOverrides = try Common.fxOverrides(args)
            rates = try Common.commissionRates(args)
            guard args.positionals.count == 2 else {
                throw UsageError(
                    "expected two cards, OLD and NEW (card files or id@version), found \(args.positionals.count)"
                )
            }
        } catch {
            io.error(error.message)
            io.err("Usage: \(usage)\n")
            return 2
        }
        // OLD and NEW are card files or references (`osg@10`) into the folder.
        let dir = Common.cardsDirectory(args)
        guard let repo = Common.loadRepository([dir], io) else { return 2 }
        var sides: [RateCard] = []
        for operand in args.positionals {
            do {
                sides.append(try repo.card(operand: operand))
            } catch {
                io.report(error.items)
                return 2
            }
        }
        let diff: CardDiff
        do {
            diff = try CardDiff(
                old: sides[0], new: sides[1], repository: repo,
                fx: repo.fx.overriding(with: fxOverrides), rates: rates)
        } catch {
            io.error("cannot price \(sides[0].reference) against \(sides[1].reference): \(error)")
            return 2
        }
        io.out(diff.render(format: format, bold: io.colour))
        return 0
    }
}
