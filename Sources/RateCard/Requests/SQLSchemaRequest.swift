/// `margin pnl --sql-schema DIALECT [--table NAME] [--sql-columns LAYOUT]`: the CREATE TABLE
/// of the table `--sql --table` reads (`SQLSchema`).
public struct SQLSchemaRequest: Sendable {
    var dialect: SQLDialect
    var table: String
    var columns: SQLColumns

    /// The request the command line makes, or nil when it has no `--sql-schema`.
    public init?(arguments args: ParsedArguments) throws {
        guard let text = args.value("sql-schema") else { return nil }
        dialect = try SQLDialect.parse(option: "sql-schema", text)
        guard args.positionals.isEmpty else {
            throw UsageError("--sql-schema prints a CREATE TABLE and reads no FILE")
        }
        table = args.value("table") ?? "ledger_entries"
        columns = try args.choice("sql-columns", default: SQLColumns.text)
    }

    /// What `margin pnl --sql-schema` prints: the statement on stdout.
    public func output(bold: Bool) -> CommandOutput {
        CommandOutput([.data(run())])
    }

    /// The one call: the statement's text.
    func run() -> String {
        SQLSchema.createTable(dialect, name: table, columns: columns)
    }
}
