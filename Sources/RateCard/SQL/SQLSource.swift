import Foundation

/// Where the query reads ledger entries: files or URIs (JSON Lines, CSV, Parquet) with the
/// engine's own reader, or a table (`SQLSchema`), its columns as text or typed.
///
/// Whatever the source, the rest of the query sees the same columns, all text except
/// `quantity` (JSON text), so the checks and the arithmetic are the same for every source:
/// a typed column is turned into the text the checks expect here, in the query (a
/// timestamp into RFC 3339 in UTC, an integer into its digits, a map into a JSON object).
enum SQLSource: Sendable, Hashable {
    case files([SQLInput])
    /// A table of the text layout (`SQLColumns.text`).
    case table(String)
    /// A table of the typed layout (`SQLColumns.typed`).
    case typedTable(String)

    /// The table's name, for a table.
    var tableName: String? {
        switch self {
        case .table(let name), .typedTable(let name): name
        case .files: nil
        }
    }

    /// The `SELECT` giving the schema's columns (or only those named `only`), one row per
    /// line or table row. With `origin`, also where each row came from, as far as the
    /// engine's reader tells: `src_file` (DuckDB `filename`, ClickHouse `_path`, Spark
    /// `input_file_name()`; NULL for a table) and `src_row`, the row's number in its file
    /// counting entries, not blank lines (ClickHouse's JSON Lines `_row_number` + 1; NULL
    /// elsewhere: the other readers give no line number).
    func select(
        _ dialect: SQLDialect, only: [String]? = nil, origin: Bool = false,
        dimensions: [String] = []
    ) -> String {
        let columns = SQLSchema.columns.filter { only?.contains($0.name) ?? true }
        switch self {
        case .table(let name), .typedTable(let name):
            let none =
                origin
                ? ", CAST(NULL AS \(SQLSchema.types(dialect).text)) AS src_file, \(dialect.nullInteger) AS src_row"
                : ""
            let typed = self == .typedTable(name)
            let list = columns.map {
                typed
                    ? "\(SQLTypedColumns.text(dialect, $0.name)) AS \(dialect.quoted($0.name))"
                    : dialect.quoted($0.name)
            }
            let from = typed ? SQLTypedColumns.from(dialect, name) : name
            return "SELECT \(list.joined(separator: ", "))\(none) FROM \(from)"
        case .files(let inputs):
            return inputs.map {
                $0.select(dialect, columns: columns, origin: origin, dimensions: dimensions)
            }.joined(separator: "\n    UNION ALL\n    ")
        }
    }

    /// Whether `dialect` can read this source; the reason it cannot, as a usage error.
    func check(_ dialect: SQLDialect) throws(SQLCompileError) {
        if let name = tableName {
            guard Self.isTableName(name) else {
                throw .usage(
                    "--table \(name): expected a table name (letters, digits and underscores, optionally qualified with dots)"
                )
            }
            return
        }
        guard case .files(let inputs) = self else { return }
        if dialect == .postgres {
            if let remote = inputs.first(where: { $0.scheme != nil }) {
                throw .usage(
                    "\(remote.path): PostgreSQL reads no files or URIs: load the entries into a table (margin pnl --sql-schema postgres) and give --table NAME"
                )
            }
            throw .usage(
                "PostgreSQL reads no JSON Lines files: load the entries into a table (margin pnl --sql-schema postgres) and give --table NAME"
            )
        }
        for input in inputs {
            if let why = input.unsupported(dialect) { throw .input(path: input.path, why: why) }
        }
    }

    static func isTableName(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty
            && parts.allSatisfy { p in
                guard let first = p.first, first == "_" || first.isASCII && first.isLetter else {
                    return false
                }
                return p.allSatisfy { $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }
            }
    }
}

/// The formats `--sql` reads files and URIs in (`--input-format`).
enum SQLInputFormat: String, Sendable, Hashable, CaseIterable, OptionChoice {
    case jsonl
    case csv
    case parquet

    static var noun: String { "SQL input format" }

    var name: String {
        switch self {
        case .jsonl: "JSON Lines"
        case .csv: "CSV"
        case .parquet: "Parquet"
        }
    }
}

/// How the columns of a table or a Parquet file are typed (`--sql-columns`): `text`, every
/// field as its text and the quantity as JSON (the schema `margin pnl --sql-schema` prints),
/// or `typed`, the time a timestamp with time zone, the amounts 64-bit integers and the
/// quantity a map of decimals (JSONB in PostgreSQL) (`--sql-schema D --sql-columns typed`).
enum SQLColumns: String, Sendable, Hashable, CaseIterable, OptionChoice {
    case text
    case typed

    static var noun: String { "column layout" }
}

/// One file or URI the query reads, in one format.
///
/// A path with a scheme (`s3://`, `gs://`, `hdfs://`, `abfss://`, `https://`) is a URI:
/// it is written into the query as given and resolved by the engine where it runs (a glob
/// such as `s3://bucket/2026-11-*/*.parquet` included); it is never opened here.
struct SQLInput: Sendable, Hashable, ExpressibleByStringLiteral {
    let path: String
    let format: SQLInputFormat
    /// `typed` for a Parquet file of the typed layout; JSON Lines and CSV are text.
    let columns: SQLColumns
    /// The columns of a local CSV file's header; nil for a URI (the query then names the
    /// schema's columns and the card's quantity dimensions).
    let header: [String]?

    init(
        path: String, format: SQLInputFormat = .jsonl, columns: SQLColumns = .text,
        header: [String]? = nil
    ) {
        self.path = path
        self.format = format
        self.columns = format == .parquet ? columns : .text
        self.header = header
    }

    init(stringLiteral value: String) { self.init(path: value) }

    /// The URI's scheme, lowercased (`s3`, `https`), or nil for a local path.
    var scheme: String? { Self.scheme(of: path) }

    static func scheme(of path: String) -> String? {
        guard let r = path.range(of: "://"), r.lowerBound != path.startIndex else { return nil }
        let s = path[path.startIndex..<r.lowerBound]
        guard let first = s.first, first.isASCII, first.isLetter,
            s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return s.lowercased()
    }

    /// The schemes each engine reads (DuckDB through its httpfs and azure extensions;
    /// ClickHouse through `s3()`, `url()`, `hdfs()`; Spark through its Hadoop file systems).
    static let objectStores: Set<String> = ["s3", "s3a", "s3n", "gs", "gcs", "r2"]
    static let web: Set<String> = ["http", "https"]
    static let azure: Set<String> = ["abfs", "abfss", "az", "azure", "wasb", "wasbs"]

    /// Why `d` cannot read this input, or nil.
    func unsupported(_ d: SQLDialect) -> String? {
        guard let s = scheme else { return nil }
        let known = Self.objectStores.union(Self.web).union(Self.azure).union(["hdfs"])
        guard known.contains(s) else {
            return
                "unknown URI scheme '\(s)://' (--sql takes s3, gs, hdfs, abfss, https and their kin, or a local path)"
        }
        switch d {
        case .duckdb where s == "hdfs":
            return
                "DuckDB has no HDFS reader: read it with spark or clickhouse, or copy it to object storage"
        case .clickhouse where Self.azure.contains(s):
            return
                "ClickHouse's azureBlobStorage() takes a connection string and a container, not a URI: give the blob's https:// URL, or load the entries into a table and give --table"
        case .clickhouse where s == "r2" || s == "gcs" || s == "s3a" || s == "s3n":
            return
                "ClickHouse's s3() takes s3://, gs:// or the bucket's https:// URL, not \(s)://"
        case .spark where Self.web.contains(s):
            return
                "Spark's file sources do not read HTTP: copy it to storage Spark reads (s3a://, gs://, hdfs://, abfss://)"
        case .spark where s == "r2" || s == "gcs":
            return "Spark reads s3a://, gs://, hdfs:// or abfss:// paths, not \(s)://"
        default: return nil
        }
    }

    /// The `SELECT` of the schema's `columns` from this input, by the engine's own reader.
    func select(
        _ d: SQLDialect, columns: [SQLSchema.Column], origin: Bool, dimensions: [String]
    ) -> String {
        let reader = self.reader(d, origin: origin, dimensions: dimensions)
        var list: [String] = []
        for c in columns {
            list.append("\(expression(d, c, dimensions: dimensions)) AS \(d.quoted(c.name))")
        }
        var from = ""
        if origin {
            switch d {
            case .duckdb: from = ", filename AS src_file, \(d.nullInteger) AS src_row"
            case .clickhouse:
                from =
                    format == .jsonl
                    ? ", _path AS src_file, toInt64(_row_number) + 1 AS src_row"
                    : ", _path AS src_file, \(d.nullInteger) AS src_row"
            case .spark: from = ", input_file_name() AS src_file, \(d.nullInteger) AS src_row"
            case .postgres: break
            }
        }
        var select = "SELECT \(list.joined(separator: ", "))\(from) FROM \(reader)"
        if d == .spark && format == .jsonl { select += " WHERE trim(value) <> ''" }
        return select
    }

    /// The quantity dimensions a CSV's `quantity.<dimension>` columns are read for: the
    /// card's, and those of a local file's header (so a dimension the card does not have is
    /// seen, as margin sees it).
    func csvDimensions(_ dimensions: [String]) -> [String] {
        let own = (header ?? []).filter { $0.hasPrefix("quantity.") }.map {
            String($0.dropFirst("quantity.".count))
        }
        return dimensions + own.filter { !dimensions.contains($0) }.sorted()
    }

    /// The table function (or path) that reads this input, giving its own columns.
    func reader(_ d: SQLDialect, origin: Bool, dimensions: [String]) -> String {
        let lit = d.literal(path)
        switch d {
        case .duckdb:
            let name = origin ? ", filename = true" : ""
            switch format {
            case .jsonl:
                // Every field as text: DuckDB writes a JSON number or object into VARCHAR
                // as its JSON text, so the query checks the digits itself.
                let spec = SQLSchema.columns.map { "\(d.literal($0.json)): 'VARCHAR'" }.joined(
                    separator: ", ")
                return "read_ndjson(\(lit), columns = {\(spec)}\(name))"
            case .csv:
                // A column the file lacks is NULL: the file is read by name, after a row
                // of every column the query names (UNION ALL BY NAME), which it then drops.
                let names =
                    SQLSchema.columns.filter { $0.name != "quantity" }.map(\.json)
                    + csvDimensions(dimensions).map { "quantity.\($0)" }
                let template = names.map { "CAST(NULL AS VARCHAR) AS \(d.quoted($0))" }.joined(
                    separator: ", ")
                return
                    "(SELECT \(template)\(origin ? ", CAST(NULL AS VARCHAR) AS filename" : "") WHERE FALSE UNION ALL BY NAME SELECT * FROM read_csv(\(lit), header = true, all_varchar = true\(name)))"
            case .parquet:
                return "read_parquet(\(lit)\(name))"
            }
        case .clickhouse:
            let function: String
            switch scheme {
            case nil: function = "file"
            case "hdfs": function = "hdfs"
            case let s? where SQLInput.web.contains(s) && path.contains("?"): function = "url"
            default: function = "s3"
            }
            let structure: String?
            switch format {
            case .jsonl:
                structure = SQLSchema.columns.map { "\($0.json) Nullable(String)" }.joined(
                    separator: ", ")
            case .csv:
                let names =
                    SQLSchema.columns.filter { $0.name != "quantity" }.map(\.json)
                    + csvDimensions(dimensions).map { "quantity.\($0)" }
                structure = names.map { "\(d.quoted($0)) Nullable(String)" }.joined(
                    separator: ", ")
            case .parquet:
                // Typed columns as the file has them (the conversion names them); text
                // columns as nullable strings.
                structure =
                    columns == .typed
                    ? nil
                    : SQLSchema.columns.map { "\($0.name) Nullable(String)" }.joined(
                        separator: ", ")
            }
            let formatName: String
            switch format {
            case .jsonl: formatName = "JSONEachRow"
            case .csv: formatName = "CSVWithNames"
            case .parquet: formatName = "Parquet"
            }
            return
                "\(function)(\(lit), '\(formatName)'\(structure.map { ", \(d.literal($0))" } ?? ""))"
        case .spark:
            switch format {
            // Spark's JSON source infers types (quantities as DOUBLE): each line is read
            // as text and its fields taken with get_json_object, which keeps the digits.
            case .jsonl: return "text.\(d.quoted(path))"
            // Every cell as text (no schema inference), a quoted cell may span lines.
            case .csv:
                return "csv.\(d.quoted(path)) WITH ('header' = 'true', 'multiLine' = 'true')"
            case .parquet:
                return columns == .typed
                    ? SQLTypedColumns.from(d, "parquet.\(d.quoted(path))")
                    : "parquet.\(d.quoted(path))"
            }
        case .postgres:
            // Not reached: PostgreSQL reads a table only (`SQLSource.check`).
            return "(SELECT NULL) none"
        }
    }

    /// The text of column `c` from this input's reader.
    func expression(_ d: SQLDialect, _ c: SQLSchema.Column, dimensions: [String]) -> String {
        switch format {
        case .jsonl:
            if d == .spark { return "get_json_object(value, \(d.literal("$.\(c.json)")))" }
            return d.quoted(c.json)
        case .parquet:
            return columns == .typed ? SQLTypedColumns.text(d, c.name) : d.quoted(c.name)
        case .csv:
            if c.name == "quantity" { return csvQuantity(d, csvDimensions(dimensions)) }
            // A local file's header tells which columns exist: Spark names only those.
            if d == .spark, let header, !header.contains(c.json) {
                return "CAST(NULL AS STRING)"
            }
            return d.quoted(c.json)
        }
    }

    /// The quantity of a CSV row as a JSON object text, built from its `quantity.<dim>`
    /// cells (each member a JSON string of the cell's text, which the checks read as they
    /// read a number's digits); NULL when every cell is empty.
    func csvQuantity(_ d: SQLDialect, _ dims: [String]) -> String {
        func cell(_ dim: String) -> String {
            let name = "quantity.\(dim)"
            if d == .spark, let header, !header.contains(name) { return "CAST(NULL AS STRING)" }
            return d.quoted(name)
        }
        guard !dims.isEmpty else { return "CAST(NULL AS \(SQLSchema.types(d).text))" }
        let none = dims.map { "\(cell($0)) IS NULL" }.joined(separator: " AND ")
        switch d {
        case .duckdb:
            let members = dims.map {
                "CASE WHEN \(cell($0)) IS NOT NULL THEN \(d.literal(jsonString($0))) || ':' || to_json(\(cell($0))) END"
            }.joined(separator: ", ")
            return "CASE WHEN \(none) THEN NULL ELSE '{' || concat_ws(',', \(members)) || '}' END"
        case .clickhouse:
            let pairs = dims.map { "\(d.literal($0)), \(cell($0))" }.joined(separator: ", ")
            return
                "if(\(none), NULL, toJSONString(mapFilter((k, v) -> isNotNull(v), map(\(pairs)))))"
        case .spark:
            let pairs = dims.map { "\(d.literal($0)), \(cell($0))" }.joined(separator: ", ")
            return
                "CASE WHEN \(none) THEN NULL ELSE to_json(map_filter(map(\(pairs)), (k, v) -> v IS NOT NULL)) END"
        case .postgres: return "NULL"
        }
    }

    private func jsonString(_ s: String) -> String {
        "\""
            + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"") + "\""
    }
}

/// The typed layout's columns turned into the text the query checks, in the query.
///
/// `at` (a timestamp with time zone, microseconds) becomes RFC 3339 in UTC with six
/// places, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (ClickHouse: a space for the `T`, which margin's
/// grammar also reads), by functions that name UTC, never the session's time zone:
/// DuckDB `strftime(make_timestamp(epoch_us(at)), …)`, PostgreSQL `to_char(at AT TIME
/// ZONE 'UTC', …)`, ClickHouse `toString(at, 'UTC')`, Spark integer arithmetic on
/// `unix_micros(at)` and `date_from_unix_date` (Spark's formatting functions use the
/// session time zone). The amounts become their digits; the quantity map a JSON object
/// (PostgreSQL's `JSONB` is kept as it is).
enum SQLTypedColumns {
    static let microsPerDay = "86400000000"

    /// The relation to read typed columns from. Spark adds two helper columns (`m_us`,
    /// `m_day`: the instant's microseconds since the epoch and its UTC day number).
    static func from(_ d: SQLDialect, _ relation: String) -> String {
        guard d == .spark else { return relation }
        let us = "unix_micros(`at`)"
        let day =
            "(\(us) div \(microsPerDay) - CASE WHEN \(us) % \(microsPerDay) < 0 THEN 1 ELSE 0 END)"
        return "(SELECT t0.*, \(us) AS m_us, \(day) AS m_day FROM \(relation) t0) t1"
    }

    /// The text of the typed column `name`.
    static func text(_ d: SQLDialect, _ name: String) -> String {
        let q = d.quoted(name)
        switch name {
        case "at":
            switch d {
            case .duckdb: return "strftime(make_timestamp(epoch_us(\(q))), '%Y-%m-%dT%H:%M:%S.%fZ')"
            case .postgres:
                return "to_char(\(q) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
            case .clickhouse: return "concat(toString(\(q), 'UTC'), 'Z')"
            case .spark:
                let rem = "(m_us - m_day * \(microsPerDay))"
                func two(_ e: String) -> String { "lpad(CAST(\(e) AS STRING), 2, '0')" }
                return
                    "CAST(date_from_unix_date(CAST(m_day AS INT)) AS STRING) || 'T' || \(two("\(rem) div 3600000000")) || ':' || \(two("(\(rem) div 60000000) % 60")) || ':' || \(two("(\(rem) div 1000000) % 60")) || '.' || lpad(CAST(\(rem) % 1000000 AS STRING), 6, '0') || 'Z'"
            }
        case "amount", "balance_after": return d.text(q)
        case "quantity":
            switch d {
            case .duckdb: return "CAST(to_json(\(q)) AS VARCHAR)"
            case .clickhouse: return "if(empty(\(q)), NULL, toJSONString(\(q)))"
            case .spark: return "to_json(\(q))"
            case .postgres: return q
            }
        default: return q
        }
    }
}

extension SQLSource {
    /// The inputs as the query reads them: a URI as given, in `format` (which it needs: its
    /// content is not read here); a local file of the format its content shows (`format`,
    /// when given, must agree). A device ledger document, a roll-up or standard input is an
    /// error: the engines have no reader for them.
    static func inputs(
        _ paths: [String], format: SQLInputFormat? = nil, columns: SQLColumns = .text
    ) throws(SQLCompileError) -> SQLSource {
        var inputs: [SQLInput] = []
        for path in paths {
            guard path != "-" else {
                throw .input(
                    path: "-",
                    why:
                        "--sql reads files where the engine runs, not standard input: give a file or --table"
                )
            }
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            let pattern = !exists && path.contains(where: { "*?[{".contains($0) })
            if SQLInput.scheme(of: path) != nil || isFolder.boolValue || pattern {
                // A URI, a folder (Spark reads a partitioned folder) or a glob: the engine
                // resolves it where it runs.
                guard let format else {
                    throw .usage(
                        "\(path): a URI, folder or glob is not opened here, so its format cannot be told: say it with --input-format jsonl, csv or parquet"
                    )
                }
                inputs.append(SQLInput(path: path, format: format, columns: columns))
                continue
            }
            let peek: [UInt8]
            do { peek = try FileBytes.prefix(path: path, count: 1 << 16) } catch {
                throw .input(path: path, why: error.message)
            }
            let found: SQLInputFormat
            var header: [String]?
            if peek.starts(with: Array("PAR1".utf8)) {
                found = .parquet
            } else {
                let takings: TakingsFormat
                do { takings = try TakingsFormatDetector.detect(peek, path: path) } catch {
                    throw .input(path: path, why: error.message)
                }
                switch takings {
                case .jsonLines: found = .jsonl
                case .csv:
                    found = .csv
                    header = csvHeader(peek)
                default:
                    throw .input(
                        path: path,
                        why:
                            "is \(takings.sqlName): --sql reads JSON Lines, CSV or Parquet with the engine's own reader (convert it, or load it into a table and give --table)"
                    )
                }
            }
            if let format, format != found {
                throw .input(
                    path: path, why: "is \(found.name), not \(format.name) (--input-format)")
            }
            inputs.append(SQLInput(path: path, format: found, columns: columns, header: header))
        }
        return .files(inputs)
    }

    /// JSON Lines files only (the form before CSV and Parquet).
    static func jsonLinesFiles(_ paths: [String]) throws(SQLCompileError) -> SQLSource {
        try inputs(paths, format: .jsonl)
    }

    /// The names of a CSV header (its first record), trimmed as margin's CSV reader trims
    /// them; a UTF-8 byte-order mark is skipped.
    static func csvHeader(_ bytes: [UInt8]) -> [String] {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
                        field.append(b)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(b)
                }
            } else if b == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if b == UInt8(ascii: ",") {
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
            } else if b == 0x0A {
                break
            } else {
                field.append(b)
            }
        }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields.map { $0.trimmingWhitespaceString }
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
