extension SQLSource {
    /// Where a query reads the entries: `--table NAME` (text or typed columns,
    /// `--sql-columns`), or the FILE… and URI… operands in their `--input-format`.
    init(arguments args: ParsedArguments) throws {
        let columns = try args.choice("sql-columns", default: SQLColumns.text)
        let format =
            args.value("input-format") == nil
            ? nil : try args.choice("input-format", default: SQLInputFormat.jsonl)
        if let table = args.value("table") {
            guard args.positionals.isEmpty else {
                throw UsageError("give either FILE… or --table, not both")
            }
            guard format == nil else {
                throw UsageError("--input-format names the format of FILE… or URI…, not of --table")
            }
            self = columns == .typed ? .typedTable(table) : .table(table)
            return
        }
        let source = try SQLSource.inputs(args.positionals, format: format, columns: columns)
        if columns == .typed, case .files(let inputs) = source,
            inputs.contains(where: { $0.format != .parquet })
        {
            throw UsageError(
                "--sql-columns typed applies to a table or Parquet; JSON Lines and CSV hold text")
        }
        self = source
    }
}
