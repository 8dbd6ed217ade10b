import Foundation
import RateCard

/// `margin pnl FILE…`: per-feature profit and loss from exported takings. Options become a
/// `PnLRequest`; `PnLRun` computes the report; the chosen format renders it.
enum PnLCommand: Command {
    static let name = "pnl"
    static let summary =
        "Per-feature profit and loss from exported ledger entries (JSON Lines, ledger documents, CSV, roll-ups)."
    static let usage =
        "margin pnl FILE… [--card ID] [--window all|7d|30d|Nd] [--now TIME] [--since TIME] [--until TIME] [--by day|week|month] [--memory SIZE] [--quiet] [--format table|json|csv|markdown]"
    static let parser = ArgumentParser(
        [
            Common.cardsOption,
            .init(
                "card", value: "ID",
                help:
                    "The card family that priced the takings (needed when the folder has several)."),
            .init(
                "window", value: "WINDOW",
                help: "all (default), 7d, 30d or Nd: the N days before --now."),
            .init(
                "now", value: "TIME",
                help: "RFC 3339 time the window ends at (default: the current time)."),
            .init("since", value: "TIME", help: "Start of the window (RFC 3339, inclusive)."),
            .init("until", value: "TIME", help: "End of the window (RFC 3339, exclusive)."),
            .init("by", value: "PERIOD", help: "Also a series by day, week or month."),
            .init(
                "tz", value: "OFFSET",
                help: "UTC offset for --by periods, e.g. +08:00 (default UTC)."),
            .init(
                "input-format", value: "FORMAT",
                help:
                    "Force the input format: jsonl, ledger, csv, rollup-jsonl or rollup-csv (default: detected)."
            ),
            .init("strict", help: "Exit 1 on any rejected line or broken balance chain."),
            .init("quiet", help: "No progress line on a terminal (there is never one on a pipe)."),
            .init(
                "memory", value: "SIZE",
                help:
                    "Cap on the de-duplication state, e.g. 256M or 2G (default: half the machine's memory); past it the run is partitioned into temporary files."
            ),
            .init(
                "credit-value", value: "MONEY",
                help:
                    "Value one credit at this, e.g. 'CNY 0.005' (default: the lowest per-credit proceeds of any pack of the versions in force, after the highest commission)."
            ),
            .init(
                "currency", value: "CUR",
                help: "Reporting currency for value and cost (default: the providers' currency)."),
            .init(
                "costs", value: "FILE",
                help:
                    "Fixed costs per feature for a period (a JSON cost sheet, see docs/takings.md); prorated by days to a window inside its period, refused for a window outside it."
            ),
            Common.fxOption,
            Common.formatOption,
        ] + sqlOptions)

    static func run(_ args: ParsedArguments, _ io: Terminal) throws -> Int32 {
        if let dialect = args.value("sql-schema") { return try schema(dialect, args, io) }
        let format = try args.choice("format", default: OutputFormat.table)
        var request = try request(args)
        if let sql = try sqlQuery(args, request) {
            io.out(sql)
            return 0
        }
        // Standard input has no size to plan by: it is partitioned only under an explicit cap.
        request.takingsOptions.memoryLimit =
            try args.value("memory", as: ByteSize.self)?.bytes
            ?? (args.positionals.contains("-") ? nil : TakingsOptions.defaultMemoryLimit)
        installCleanup()
        let environment = ProcessInfo.processInfo.environment
        var display: ProgressDisplay?
        if ProgressDisplay.isWanted(
            stderrIsTerminal: isatty(2) == 1, environment: environment,
            quiet: args.flag("quiet"))
        {
            let progress = TakingsProgress()
            request.takingsOptions.progress = progress
            display = ProgressDisplay(progress, delay: ProgressDisplay.delay(environment))
        }
        let report: PnLReport
        do {
            defer { display?.stop() }
            report = try PnLRun.run(request)
        }
        switch format {
        case .table: io.out(report.table(bold: io.colour))
        case .json: io.out(report.json())
        case .csv: io.out(report.csv())
        case .markdown: io.out(report.markdown())
        }
        // Diagnostics once, on stderr: the first rejections, warnings and errors.
        io.report(report.diagnostics)
        if report.rejectionsNotShown > 0 {
            io.err(
                "margin: \(report.rejectionsNotShown) more rejected lines not shown (all are counted)\n"
            )
        }
        return report.hasFindings(strict: args.flag("strict")) ? 1 : 0
    }

    /// The options as a request; bad values are usage errors.
    static func request(_ args: ParsedArguments) throws -> PnLRequest {
        guard !args.positionals.isEmpty || args.value("table") != nil else {
            throw UsageError("give at least one export file (or - for standard input)")
        }
        var inputFormat: TakingsFormat?
        // With --sql, --input-format names the engine's reader instead (sqlQuery).
        if let f = args.value("input-format"), !isSQL(args) {
            guard let v = TakingsFormat(rawValue: f) else {
                throw UsageError(
                    "unknown input format '\(f)' (one of: \(TakingsFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            inputFormat = v
        }
        func time(_ name: String) throws(UsageError) -> Timestamp? {
            try args.value(name, as: Timestamp.self)
        }
        let now = try time("now") ?? Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let since = try time("since")
        let until = try time("until")
        let window: TakingsWindow
        if since != nil || until != nil {
            guard args.value("window") == nil else {
                throw UsageError("give either --window or --since/--until, not both")
            }
            window = TakingsWindow(since: since, until: until)
        } else {
            window = try TakingsWindow(named: args.value("window") ?? "all", now: now)
        }
        var series: TakingsSeries?
        if let by = args.value("by") {
            guard let p = TakingsSeries.Period(rawValue: by) else {
                throw UsageError("--by \(by): one of day, week, month")
            }
            series = TakingsSeries(
                period: p,
                offsetMinutes: try args.value("tz").map { try TakingsSeries.offset($0) } ?? 0)
        } else if args.value("tz") != nil {
            throw UsageError("--tz only applies with --by")
        }
        let currency = try args.value("currency", as: Currency.self)
        return PnLRequest(
            inputs: args.positionals.map { TakingsInput(path: $0, format: inputFormat) },
            window: window, series: series, strict: args.flag("strict"), now: now,
            cards: [Common.cardsDirectory(args)], fxOverrides: try Common.fxOverrides(args),
            card: args.value("card"),
            currency: currency,
            creditValue: try args.value("credit-value", as: Money.self),
            costSheet: args.value("costs"))
    }

    /// On SIGINT, SIGTERM, SIGHUP (the terminal closed) or SIGQUIT, the temporary files
    /// of a partitioned run are deleted before the process ends as the signal says.
    static func installCleanup() {
        // A parent may have blocked them (some process launchers do): unblocked, so that
        // an interrupt still ends the run.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        sigaddset(&set, SIGQUIT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(sig) { sig in
                TakingsRun.removeTemporaryFiles()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }
}
