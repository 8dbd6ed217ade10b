import Foundation
import RateCard

/// A subcommand: its name, help, options and what it does.
protocol Command: SendableMetatype {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static var parser: ArgumentParser { get }
    /// Returns the exit code: 0 success, 1 findings, 2 bad usage or unreadable input.
    static func run(_ args: ParsedArguments, _ io: Terminal) -> Int32
}

extension Command {
    static var help: String {
        "\(summary)\n\nUsage: \(usage)\n\nOptions:\n\(parser.helpText)\n  --help                 Show this help.\n"
    }
}

/// A registered subcommand, captured as plain values (existential metatypes crash
/// this compiler version's SIL generation when used in closures).
struct CommandEntry: Sendable {
    let name: String
    let summary: String
    let usage: String
    let help: String
    let parser: ArgumentParser
    let run: @Sendable (ParsedArguments, Terminal) -> Int32

    init<C: Command>(_ c: C.Type) {
        name = C.name
        summary = C.summary
        usage = C.usage
        help = C.help
        parser = C.parser
        run = { C.run($0, $1) }
    }
}

/// The `margin` entry point: finds the subcommand, parses its options, runs it.
enum MarginCLI {
    static let version = "0.1.0"

    static let commands: [CommandEntry] = [
        CommandEntry(PacksCommand.self),
        CommandEntry(PlansCommand.self),
        CommandEntry(StorefrontsCommand.self),
        CommandEntry(DiffCommand.self),
        CommandEntry(ReportCommand.self),
        CommandEntry(CheckCommand.self),
        CommandEntry(PublishCommand.self),
        CommandEntry(PnLCommand.self),
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map {
            "  \($0.name)" + String(repeating: " ", count: width - $0.name.count + 3) + $0.summary
        }.joined(separator: "\n")
        return """
            margin \(version): exact pricing and worst-case margins for App Store credit packs.

            Usage: margin <command> [options]

            Commands:
            \(list)

            Run 'margin <command> --help' for a command's options.
            Exit codes: 0 success, 1 findings (a check failed), 2 bad usage or unreadable input.

            """
    }

    static func run(_ arguments: [String]) -> Int32 {
        let io = Terminal()
        guard let first = arguments.first else {
            io.err(overview)
            return 2
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1,
                let c = commands.first(where: { $0.name == arguments[1] })
            {
                io.out(c.help)
            } else {
                io.out(overview)
            }
            return 0
        case "--version":
            io.out("margin \(version)\n")
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let hint =
                FieldReader.closest(first, in: commands.map(\.name)).map {
                    "; did you mean '\($0)'?"
                } ?? ""
            io.error("unknown command '\(first)'\(hint)")
            io.err("Run 'margin --help' for the list of commands.\n")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        let args: ParsedArguments
        do {
            args = try command.parser.parse(rest)
        } catch {
            if rest.contains("--help") || rest.contains("-h") {
                io.out(command.help)
                return 0
            }
            return fail(error, usage: command.usage, io)
        }
        if args.flag("help") {
            io.out(command.help)
            return 0
        }
        return command.run(args, io)
    }

    /// The one mapping from a thrown error to what the user sees and the exit code (the
    /// shape of argument-parser's `MessageInfo`): bad usage gets its message and the usage
    /// line, problems in files their diagnostics, anything else its message; all exit 2.
    static func fail(_ error: any Error, usage: String, _ io: Terminal) -> Int32 {
        switch error {
        case let e as UsageError:
            io.error(e.message)
            io.err("Usage: \(usage)\n")
        case let e as PnLError:
            switch e {
            case .usage(let message):
                io.error(message)
                io.err("Usage: \(usage)\n")
            case .valuation(let message):
                io.error(message)
            case .diagnostics(let items):
                io.report(items)
            }
        case let e as Diagnostics:
            io.report(e.items)
        case let e as TakingsInputError:
            io.error(e.description)
        case let e as TakingsOptionError:
            io.error(e.description)
        case let e as SQLCompileError:
            io.error(e.description)
        default:
            io.error("\(error)")
        }
        return 2
    }
}

/// Standard output and error, and whether colour may be used.
final class Terminal: @unchecked Sendable {
    let colour: Bool
    let errColour: Bool

    init() {
        let env = ProcessInfo.processInfo.environment
        let noColour = env["NO_COLOR"].map { !$0.isEmpty } ?? false
        colour = !noColour && isatty(1) == 1 && env["TERM"] != "dumb"
        errColour = !noColour && isatty(2) == 1 && env["TERM"] != "dumb"
    }

    func out(_ s: String) {
        FileHandle.standardOutput.write(Data(s.utf8))
    }

    func err(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }

    /// `margin: error: message`
    func error(_ message: String) {
        err((errColour ? "margin: \u{1B}[31merror:\u{1B}[0m " : "margin: error: ") + message + "\n")
    }

    /// Each diagnostic on its own line, compiler style.
    func report(_ diagnostics: [Diagnostic]) {
        for d in diagnostics.sorted() {
            if errColour {
                let colourCode =
                    d.severity == .error ? "31" : (d.severity == .warning ? "33" : "36")
                var s =
                    "\u{1B}[1m\(d.path):\(d.location.line):\(d.location.column):\u{1B}[0m \u{1B}[\(colourCode)m\(d.severity.rawValue):\u{1B}[0m \(d.message)"
                if let r = d.rule { s += " [\(r.id)]" }
                err(s + "\n")
            } else {
                err(d.rendered + "\n")
            }
        }
    }
}

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

    /// Loads a repository, printing its diagnostics; nil means exit 2.
    static func loadRepository(_ paths: [String], _ io: Terminal) -> CardRepository? {
        do {
            return try CardRepository.load(paths: paths)
        } catch {
            io.report(error.items)
            io.error(
                "\(error.items.count) problem\(error.items.count == 1 ? "" : "s") in the rate-card files"
            )
            return nil
        }
    }

    /// The repository and the cards the CARD arguments name: card files or references
    /// (`osg`, `osg@10`) into the folder; none means the newest version of each card. Nil
    /// (after printing why) means exit 2.
    static func loadCards(_ args: ParsedArguments, _ io: Terminal) -> (CardRepository, [RateCard])?
    {
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
                cards.append(
                    contentsOf: repo.cards.filter { canonicalPath($0.source.path) == wanted })
            }
            for ref in references {
                guard let c = repo.card(reference: ref) else {
                    io.error(
                        "no card '\(ref)' in \(dir) (cards: \(repo.cards.map(\.reference).joined(separator: ", ")))"
                    )
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

    /// A path with `.`, `..` and symbolic links resolved, for comparing two spellings.
    static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
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
