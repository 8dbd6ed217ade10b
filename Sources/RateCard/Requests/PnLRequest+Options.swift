/// `margin pnl`'s options, each declared once with the field of `PnLRequest` it sets: a new
/// option is one line in `options` (and its field in `PnLRequest`).
extension PnLRequest {
    public static let options: [RequestOption<PnLRequest>] = [
        RequestOption(.cards) { r, args in r.cards = [args.value("cards") ?? "RateCards"] },
        .text(
            "card", "ID",
            help: "The card family that priced the takings (needed when the folder has several).",
            \.card),
        RequestOption(
            .init(
                "window", value: "WINDOW",
                help: "all (default), 7d, 30d or Nd: the N days before --now."),
            apply: { r, args in try r.readWindow(args) }),
        RequestOption(
            .init(
                "now", value: "TIME",
                help: "RFC 3339 time the window ends at (default: the current time).")),
        RequestOption(
            .init("since", value: "TIME", help: "Start of the window (RFC 3339, inclusive).")),
        RequestOption(
            .init("until", value: "TIME", help: "End of the window (RFC 3339, exclusive).")),
        RequestOption(
            .init("by", value: "PERIOD", help: "Also a series by day, week or month."),
            apply: { r, args in try r.readSeries(args) }),
        RequestOption(
            .init(
                "tz", value: "OFFSET",
                help: "UTC offset for --by periods, e.g. +08:00 (default UTC).")),
        RequestOption(
            .init(
                "input-format", value: "FORMAT",
                help:
                    "Force the input format: jsonl, ledger, csv, rollup-jsonl or rollup-csv (default: detected)."
            ),
            apply: { r, args in try r.readInputs(args) }),
        .flag("strict", help: "Exit 1 on any rejected line or broken balance chain.", \.strict),
        RequestOption(
            .init("quiet", help: "No progress line on a terminal (there is never one on a pipe).")),
        RequestOption(
            .init(
                "memory", value: "SIZE",
                help:
                    "Cap on the de-duplication state, e.g. 256M or 2G (default: half the machine's memory); past it the run is partitioned into temporary files."
            ),
            apply: { r, args in try r.readMemory(args) }),
        .value(
            "credit-value", "MONEY",
            help:
                "Value one credit at this, e.g. 'CNY 0.005' (default: the lowest per-credit proceeds of any pack of the versions in force, after the highest commission).",
            \.creditValue),
        .value(
            "currency", "CUR",
            help: "Reporting currency for value and cost (default: the providers' currency).",
            \.currency),
        .text(
            "costs", "FILE",
            help:
                "Fixed costs per feature for a period (a JSON cost sheet, see docs/takings.md); prorated by days to a window inside its period, refused for a window outside it.",
            \.costSheet),
        RequestOption(.fx) { r, args in r.fxOverrides = try args.fxOverrides() },
        RequestOption(
            .init(
                "proceeds", value: "FILE", repeatable: true,
                help:
                    "Also value each feature's credits at what they really earned, first in, first out per account, with the liability and breakage at --now: Apple's Summary Sales or financial reports (tab-separated, told by their header). Repeatable (docs/proceeds.md)."
            ),
            apply: { r, args in try r.readProceeds(args) }),
        RequestOption(
            .init(
                "transactions", value: "FILE", repeatable: true,
                help:
                    "With --proceeds: App Store transactions and notifications that tie a top-up's paymentRef to its product, currency and purchase date. Repeatable."
            )),
        RequestOption(.format),
    ]

    /// The request the command line makes; bad values are usage errors. `now` is the
    /// current time unless `--now` says otherwise.
    public init(arguments args: ParsedArguments) throws {
        try self.init(arguments: args, now: .current)
    }

    /// The request the command line makes at `now` (the current time unless `--now` says
    /// otherwise).
    init(arguments args: ParsedArguments, now: Timestamp) throws {
        let format = try args.choice("format", default: OutputFormat.table)
        guard !args.positionals.isEmpty || args.value("table") != nil else {
            throw UsageError("give at least one export file (or - for standard input)")
        }
        self.init(inputs: [], now: try args.value("now", as: Timestamp.self) ?? now)
        try Self.options.apply(args, to: &self)
        self.format = format
    }

    /// What `margin pnl` prints: the report in the request's format on stdout, then on
    /// stderr its diagnostics (the first rejections, warnings, errors) and closing note.
    public func output(bold: Bool) throws -> CommandOutput {
        let report = try PnLRun.run(self)
        return CommandOutput(
            [.data(report.render(format, bold: bold)), .diagnostics(report.diagnostics)]
                + (report.closingNote.map { [.message($0)] } ?? []),
            exitCode: report.exitCode)
    }

    /// Whether the command line asks for a query (`--sql`, `--sql-audit`) instead of a run:
    /// then `--input-format` names the engine's reader and `--memory` is refused
    /// (`PnLQueryRequest`).
    static func isSQL(_ args: ParsedArguments) -> Bool {
        args.value("sql") != nil || args.value("sql-audit") != nil
    }

    /// `--window`, or `--since`/`--until` (not both kinds), ending at `now`.
    mutating func readWindow(_ args: ParsedArguments) throws {
        let since = try args.value("since", as: Timestamp.self)
        let until = try args.value("until", as: Timestamp.self)
        if since != nil || until != nil {
            guard args.value("window") == nil else {
                throw UsageError("give either --window or --since/--until, not both")
            }
            window = TakingsWindow(since: since, until: until)
        } else {
            window = try TakingsWindow(named: args.value("window") ?? "all", now: now)
        }
    }

    /// `--by PERIOD [--tz OFFSET]`; `--tz` alone is bad usage.
    mutating func readSeries(_ args: ParsedArguments) throws {
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
    }

    /// The FILE operands, each read as `--input-format` says (detected by default).
    mutating func readInputs(_ args: ParsedArguments) throws {
        var format: TakingsFormat?
        if let f = args.value("input-format"), !Self.isSQL(args) {
            guard let v = TakingsFormat(rawValue: f) else {
                throw UsageError(
                    "unknown input format '\(f)' (one of: \(TakingsFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            format = v
        }
        inputs = args.positionals.map { TakingsInput(path: $0, format: format) }
    }

    /// `--proceeds FILE…` and `--transactions FILE…` (only with `--proceeds`, never with
    /// the SQL form, which does not run the proceeds pass, nor with `--by`: the section has
    /// no series, and a series of the P&L beside a section without one would read as if
    /// the proceeds were in it).
    mutating func readProceeds(_ args: ParsedArguments) throws {
        let reports = args.all("proceeds")
        let transactions = args.all("transactions")
        guard !reports.isEmpty else {
            if !transactions.isEmpty {
                throw UsageError("--transactions only applies with --proceeds")
            }
            return
        }
        if Self.isSQL(args) {
            throw UsageError(
                "--proceeds is valued by margin's own pass over the ledger; the SQL form (--sql) does not take it"
            )
        }
        proceeds = ProceedsSources(reports: reports, transactions: transactions)
    }

    /// `--memory`, else the default cap; standard input has no size to plan by, so it is
    /// partitioned only under an explicit cap.
    mutating func readMemory(_ args: ParsedArguments) throws {
        guard !Self.isSQL(args) else { return }
        takingsOptions.memoryLimit =
            try args.value("memory", as: ByteSize.self)?.bytes
            ?? (args.positionals.contains("-") ? nil : TakingsOptions.defaultMemoryLimit)
    }
}
