import RateCard

/// `margin check [PATH…]`: the CI guard over rate-card files.
enum CheckCommand: Command {
    static let name = "check"
    static let summary = "Validate rate cards for CI: prices, feature keys, versions, published cards, margins, StoreKit."
    static let usage = "margin check [PATH…] [--min-margin PCT] [--price-points PRODUCT_ID=FILE]… [--at DATE] [--program standard|small-business] [--storekit FILE] [--lock FILE] [--format text|github|json]"
    static let parser = ArgumentParser([
        ArgumentParser.Option("min-margin", value: "PCT", help: "Fail a pack whose worst-case margin at the highest commission is below PCT% of its price (default 0)."),
        ArgumentParser.Option("storekit", value: "FILE", help: "Compare an Xcode StoreKit configuration file with the newest card's packs."),
        ArgumentParser.Option("lock", value: "FILE", help: "The publish lock (default: published.lock in the first PATH)."),
        ArgumentParser.Option("format", value: "FORMAT", help: "text (default: findings and a summary on stderr), github (workflow commands on stdout) or json."),
    ] + Common.storefrontOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) -> Int32 {
        let format: String
        var options = CardChecker.Options(storeKitPath: args.value("storekit"), lockPath: args.value("lock"))
        do {
            format = try OutputFormat.parse(args.value("format") ?? "text", allowed: ["text", "github", "json"])
            options.storefronts = try Common.storefrontArguments(args)
            if let floor = args.value("min-margin") {
                options.minMargin = try CardChecker.Options.marginFloor(percent: floor)
            }
        } catch {
            io.error(error.message)
            io.err("Usage: \(usage)\n")
            return 2
        }
        let paths = args.positionals.isEmpty ? ["RateCards"] : args.positionals
        let report = CardChecker.check(paths: paths, options: options)
        switch format {
        case "github":
            io.out(report.githubAnnotations())
            io.err(report.summary + "\n")
        case "json":
            io.out(report.json())
        default:
            io.report(report.diagnostics)
            io.err(report.summary + "\n")
        }
        return report.exitCode
    }
}
