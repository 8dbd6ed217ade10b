import Foundation
import RateCard

/// Shared option handling.
enum Common {
    static let formatOption = ArgumentParser.Option(
        "format", value: "FORMAT", help: "table (default), json, csv or markdown.")
    static let cardsOption = ArgumentParser.Option(
        "cards", value: "DIR", help: "The rate-card folder (default: RateCards).")
    static let fxOption = ArgumentParser.Option(
        "fx", value: "BASE/QUOTE=RATE", repeatable: true,
        help: "Override an FX rate, e.g. USD/CNY=7.2 (1 USD = 7.2 CNY). Repeatable.")
    static let taxOption = ArgumentParser.Option(
        "tax", value: "CUR=RATE", repeatable: true,
        help:
            "Remove a sales tax from tax-inclusive prices in CUR before commission, e.g. GBP=0.20. Repeatable. Default: tax not modelled."
    )
    static let commissionOption = ArgumentParser.Option(
        "commission", value: "RATES",
        help:
            "Commission rates for every currency, e.g. 0.15,0.30 (default: the commission file, else 15% and 30%)."
    )

    /// The rate-card folder: `--cards`, else `RateCards` in the current directory.
    static func cardsDirectory(_ args: ParsedArguments) -> String {
        args.value("cards") ?? "RateCards"
    }

    /// Loads a repository; its problems are a failure that lists them (exit 2).
    static func loadRepository(_ paths: [String]) throws(CommandFailure) -> CardRepository {
        do {
            return try CardRepository.load(paths: paths)
        } catch {
            throw CommandFailure(
                error.items, message: problems(error.items, in: "the rate-card files"))
        }
    }

    /// "3 problems in the rate-card files"
    static func problems(_ items: [Diagnostic], in what: String) -> String {
        "\(items.count) problem\(items.count == 1 ? "" : "s") in \(what)"
    }

    /// The repository and the cards the CARD arguments name: card files or references
    /// (`osg`, `osg@10`) into the folder; none means the newest version of each card.
    static func loadCards(_ args: ParsedArguments) throws(CommandFailure) -> (
        CardRepository, [RateCard]
    ) {
        let dir = cardsDirectory(args)
        let filePaths = args.positionals.filter { $0.hasSuffix(".json") }
        let references = args.positionals.filter { !$0.hasSuffix(".json") }
        let repo = try loadRepository([dir] + filePaths)
        var cards: [RateCard] = []
        if args.positionals.isEmpty {
            cards = repo.newestCards
        } else {
            for path in filePaths {
                let wanted = FilePath.canonical(path)
                cards.append(
                    contentsOf: repo.cards.filter { FilePath.canonical($0.source.path) == wanted })
            }
            for ref in references {
                guard let c = repo.card(reference: ref) else {
                    throw CommandFailure(
                        "no card '\(ref)' in \(dir) (cards: \(repo.cards.map(\.reference).joined(separator: ", ")))"
                    )
                }
                cards.append(c)
            }
        }
        if cards.isEmpty { throw CommandFailure("no rate card found in \(dir)") }
        return (repo, cards)
    }

    /// What `check` and `publish` share with `packs`: `--lock`, `--fx`, `--commission`,
    /// `--tax` and `--now`.
    static func checkOptions(_ args: ParsedArguments) throws(UsageError) -> CardChecker.Options {
        var options = CardChecker.Options(lockPath: args.value("lock"))
        options.fxOverrides = try fxOverrides(args)
        options.commissionRates = try commissionRates(args)
        options.taxRates = try taxRates(args)
        if let text = args.value("now") {
            do { options.now = try Timestamp(rfc3339: text) } catch {
                throw UsageError("--now \(text): \(error)")
            }
        }
        return options
    }

    static func fxOverrides(_ args: ParsedArguments) throws(UsageError) -> [FXRate] {
        var out: [FXRate] = []
        for text in args.all("fx") {
            let parts = text.split(separator: "=", maxSplits: 1)
            let pair = parts.first?.split(separator: "/") ?? []
            guard parts.count == 2, pair.count == 2,
                let base = Currency(code: String(pair[0])),
                let quote = Currency(code: String(pair[1])), base != quote
            else {
                throw UsageError(
                    "--fx \(text): expected BASE/QUOTE=RATE with ISO 4217 codes, e.g. USD/CNY=7.2")
            }
            guard let rate = try? Exact(decimal: parts[1]), rate.isPositive else {
                throw UsageError("--fx \(text): the rate must be a positive decimal")
            }
            out.append(FXRate(base: base, quote: quote, rate: rate, fromCommandLine: true))
        }
        return out
    }

    static func taxRates(_ args: ParsedArguments) throws(UsageError) -> [Currency: Exact] {
        var out: [Currency: Exact] = [:]
        for text in args.all("tax") {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let c = Currency(code: String(parts[0])) else {
                throw UsageError(
                    "--tax \(text): expected CUR=RATE with an ISO 4217 code, e.g. GBP=0.20")
            }
            guard let rate = try? Exact(decimal: parts[1]), !rate.isNegative, rate < .one else {
                throw UsageError(
                    "--tax \(text): the rate must be a decimal from 0 to below 1 (0.20 for 20%)")
            }
            guard out[c] == nil else { throw UsageError("--tax: \(c.code) is given twice") }
            out[c] = rate
        }
        return out
    }

    /// `--price-points`, `--at` and `--program` of `storefronts` and `check`.
    static let storefrontOptions = [
        ArgumentParser.Option(
            "price-points", value: "PRODUCT_ID=FILE", repeatable: true,
            help:
                "An App Store Connect response saved as JSON (price points, equalizations or a price schedule) for a pack's product id. Repeatable: several pages are several files."
        ),
        ArgumentParser.Option(
            "at", value: "DATE",
            help:
                "The day prices and commission regimes are taken at, YYYY-MM-DD (default: today, UTC)."
        ),
        ArgumentParser.Option(
            "program", value: "PROGRAM",
            help: "standard or small-business (default: the card's storeProgram, else standard)."),
    ]

    static func storefrontArguments(_ args: ParsedArguments) throws(UsageError)
        -> StorefrontArguments
    {
        let today = Timestamp(seconds: Int64(Date().timeIntervalSince1970)).local(offsetMinutes: 0)
            .date
        return try StorefrontArguments(
            pricePoints: args.all("price-points"), at: args.value("at"),
            program: args.value("program"), today: today)
    }

    static func commissionRates(_ args: ParsedArguments) throws(UsageError) -> [Exact]? {
        guard let text = args.value("commission") else { return nil }
        var out: [Exact] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            var s = String(part)
            var percent = false
            if s.hasSuffix("%") {
                s.removeLast()
                percent = true
            }
            guard var v = try? Exact(decimal: s) else {
                throw UsageError("--commission: '\(part)' is not a rate (write 0.15 or 15%)")
            }
            if percent { v = (try? v.divided(by: Exact(100))) ?? v }
            guard !v.isNegative, v < .one else {
                throw UsageError("--commission: '\(part)' must be from 0 to below 1 (0.15 or 15%)")
            }
            out.append(v)
        }
        return out
    }
}
