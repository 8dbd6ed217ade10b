/// Where the query reads ledger entries: JSON Lines files with the engine's own reader, or
/// a table of the documented schema (`SQLSchema`).
///
/// Either way the rest of the query sees the same columns, all text except `quantity`
/// (JSON), so the checks and the arithmetic are the same for both.
public enum SQLSource: Sendable, Hashable {
    case files([String])
    case table(String)

    /// The `SELECT` giving the schema's columns (or only those named `only`), one row per
    /// line or table row. With `origin`, also where each row came from, as far as the
    /// engine's reader tells: `src_file` (DuckDB `filename`, ClickHouse `_path`, Spark
    /// `input_file_name()`; NULL for a table) and `src_row`, the row's number in its file
    /// counting entries, not blank lines (ClickHouse `_row_number` + 1; NULL elsewhere: the
    /// DuckDB and Spark readers give no line number).
    func select(_ dialect: SQLDialect, only: [String]? = nil, origin: Bool = false) -> String {
        let columns = SQLSchema.columns.filter { only?.contains($0.name) ?? true }
        switch self {
        case .table(let name):
            let none =
                origin
                ? ", CAST(NULL AS \(SQLSchema.types(dialect).text)) AS src_file, \(dialect.nullInteger) AS src_row"
                : ""
            return
                "SELECT \(columns.map { dialect.quoted($0.name) }.joined(separator: ", "))\(none) FROM \(name)"
        case .files(let paths):
            return paths.map { fileSelect(dialect, path: $0, columns: columns, origin: origin) }
                .joined(separator: "\n    UNION ALL\n    ")
        }
    }

    private func fileSelect(
        _ d: SQLDialect, path: String, columns: [SQLSchema.Column], origin: Bool
    ) -> String {
        switch d {
        case .duckdb:
            // Every field as text: DuckDB writes a JSON number or object into VARCHAR as its
            // JSON text, so the query checks the digits itself.
            let spec = columns.map { "\(d.literal($0.json)): 'VARCHAR'" }.joined(separator: ", ")
            let list = columns.map { "\(d.quoted($0.json)) AS \(d.quoted($0.name))" }.joined(
                separator: ", ")
            let from = origin ? ", filename AS src_file, \(d.nullInteger) AS src_row" : ""
            return
                "SELECT \(list)\(from) FROM read_ndjson(\(d.literal(path)), columns = {\(spec)}\(origin ? ", filename = true" : ""))"
        case .clickhouse:
            // Numbers and objects read as text by the query's SETTINGS.
            let spec = columns.map { "\($0.json) Nullable(String)" }.joined(separator: ", ")
            let list = columns.map { "\(d.quoted($0.json)) AS \(d.quoted($0.name))" }.joined(
                separator: ", ")
            let from = origin ? ", _path AS src_file, toInt64(_row_number) + 1 AS src_row" : ""
            return
                "SELECT \(list)\(from) FROM file(\(d.literal(path)), 'JSONEachRow', \(d.literal(spec)))"
        case .spark:
            // Spark's JSON source infers types (quantities as DOUBLE): each line is read as
            // text and its fields taken with get_json_object, which keeps a number's digits.
            let list = columns.map {
                "get_json_object(value, \(d.literal("$.\($0.json)"))) AS \(d.quoted($0.name))"
            }.joined(separator: ", ")
            let from = origin ? ", input_file_name() AS src_file, \(d.nullInteger) AS src_row" : ""
            return "SELECT \(list)\(from) FROM text.\(d.quoted(path)) WHERE trim(value) <> ''"
        case .postgres:
            // Not reached: PostgreSQL reads a table only (checked when the query is built).
            return "SELECT NULL"
        }
    }
}

extension SQLSource {
    /// JSON Lines files, each checked to be one: the engines' readers take JSON Lines only,
    /// so a device ledger document, CSV, a roll-up or standard input is an error.
    public static func jsonLinesFiles(_ paths: [String]) throws(SQLCompileError) -> SQLSource {
        for path in paths {
            guard path != "-" else {
                throw .input(
                    path: "-",
                    why:
                        "--sql reads files where the engine runs, not standard input: give a file or --table"
                )
            }
            let peek: [UInt8]
            do { peek = try FileBytes.prefix(path: path, count: 1 << 16) } catch {
                throw .input(path: path, why: error.message)
            }
            let format: TakingsFormat
            do { format = try TakingsFormatDetector.detect(peek, path: path) } catch {
                throw .input(path: path, why: error.message)
            }
            guard format == .jsonLines else {
                throw .input(
                    path: path,
                    why:
                        "is \(format.sqlName), not JSON Lines: --sql reads JSON Lines with the engine's own reader (convert it, or load it into a table and give --table)"
                )
            }
        }
        return .files(paths)
    }
}

extension TakingsFormat {
    /// How an error names the format.
    var sqlName: String {
        switch self {
        case .jsonLines: "JSON Lines"
        case .ledgerDocument: "a device ledger document"
        case .csv: "CSV"
        case .rollupJSONLines: "a roll-up in JSON Lines"
        case .rollupCSV: "a roll-up in CSV"
        }
    }
}
