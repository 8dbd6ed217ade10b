/// An SQL engine `margin pnl --sql` writes for, and how it spells what the query needs.
///
/// Only the spellings differ; the arithmetic is the same everywhere: credits and money
/// numerators in a 128-bit exact integer type (DuckDB `HUGEINT`, ClickHouse `Int128`,
/// Spark `DECIMAL(38, 0)`, PostgreSQL `NUMERIC`), integer division only of values that
/// are not negative (engines disagree about the sign of a quotient, not about its
/// magnitude), and no time-zone function at all: instants are computed from the RFC 3339
/// text by integer arithmetic (DuckDB: by one `TIMESTAMPTZ` cast of a text whose offset is
/// written and whose fraction has at most 6 digits, `PnLSQLCompiler.castsInstant`), so the
/// session's time zone and the engine's timestamp precision (microseconds in three of
/// them) cannot change a result.
enum SQLDialect: String, Sendable, Hashable, CaseIterable {
    case duckdb
    case clickhouse
    case spark
    case postgres

    /// "one of: duckdb, clickhouse, spark, postgres"
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The dialect `text` names, given to `--option`; any other word is bad usage.
    static func parse(option: String, _ text: String) throws(UsageError) -> SQLDialect {
        guard let d = SQLDialect(rawValue: text) else {
            throw UsageError("--\(option) \(text): unknown SQL dialect (one of: \(names))")
        }
        return d
    }

    /// A quoted identifier.
    func quoted(_ name: String) -> String {
        switch self {
        case .duckdb, .postgres: "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        case .clickhouse, .spark: "`" + name.replacingOccurrences(of: "`", with: "``") + "`"
        }
    }

    /// A string literal. Spark and ClickHouse read backslash escapes in literals, so a
    /// backslash is doubled there; quotes are doubled everywhere.
    func literal(_ text: String) -> String {
        var s = text.replacingOccurrences(of: "'", with: "''")
        if self == .spark || self == .clickhouse {
            s = s.replacingOccurrences(of: "\\", with: "\\\\")
        }
        return "'\(s)'"
    }

    /// The exact 128-bit integer type credits and money numerators are summed in.
    var wide: String {
        switch self {
        case .duckdb: "HUGEINT"
        case .clickhouse: "Int128"
        case .spark: "DECIMAL(38, 0)"
        case .postgres: "NUMERIC"
        }
    }

    /// `e` (an integer or an integral decimal) as the wide integer type.
    func wide(_ e: String) -> String {
        switch self {
        case .clickhouse: "toInt128(\(e))"
        default: "CAST(\(e) AS \(wide))"
        }
    }

    /// A wide integer constant (may be beyond 64 bits).
    func wideLiteral(_ v: Int128) -> String {
        if v >= Int128(Int32.min), v <= Int128(Int32.max) { return wide(String(v)) }
        return wide("'\(v)'")
    }

    /// Text that the query has already checked to be digits, as a 64-bit integer; NULL
    /// where it is not one (so no engine raises an error on a row the query rejects).
    func bigint(_ e: String) -> String {
        switch self {
        case .duckdb: "TRY_CAST(\(e) AS BIGINT)"
        case .clickhouse: "toInt64OrNull(\(e))"
        case .spark: "try_cast(\(e) AS BIGINT)"
        case .postgres: "CAST(\(e) AS BIGINT)"
        }
    }

    /// Text checked to be a decimal, as an exact decimal with `scale` places.
    func decimal(_ e: String, scale: Int) -> String {
        switch self {
        case .duckdb: "TRY_CAST(\(e) AS DECIMAL(38, \(scale)))"
        case .clickhouse: "toDecimal128OrNull(\(e), \(scale))"
        case .spark: "try_cast(\(e) AS DECIMAL(38, \(scale)))"
        case .postgres: "CAST(\(e) AS NUMERIC(38, \(scale)))"
        }
    }

    /// Exact decimal text as the result type `DECIMAL(38, scale)` (`NUMERIC(38, scale)`).
    func decimalResult(_ e: String, scale: Int) -> String {
        switch self {
        case .duckdb, .spark: "CAST(\(e) AS DECIMAL(38, \(scale)))"
        case .clickhouse: "toDecimal128(\(e), \(scale))"
        case .postgres: "CAST(\(e) AS NUMERIC(38, \(scale)))"
        }
    }

    /// `a div b` for `a >= 0` and `b > 0`, exactly.
    ///
    /// Spark's `div` returns a 64-bit integer and wraps silently beyond it, so Spark takes
    /// the floor of its decimal quotient (rounded half-up to 6 places, so at most one too
    /// large) and corrects it by one where the product exceeds the dividend.
    func quotient(_ a: String, _ b: String) -> String {
        switch self {
        case .duckdb: "((\(a)) // (\(b)))"
        case .clickhouse: "intDiv(\(a), \(b))"
        case .spark:
            "CAST(FLOOR((\(a)) / (\(b))) - CASE WHEN FLOOR((\(a)) / (\(b))) * (\(b)) > (\(a)) THEN 1 ELSE 0 END AS DECIMAL(38, 0))"
        case .postgres: "div(\(a), \(b))"
        }
    }

    /// `a div b` of 64-bit integers, where `b > 0` and `a >= 0` or `a` is a multiple of `b`
    /// (then every engine's division is exact, whatever its rule for signs).
    func smallQuotient(_ a: String, _ b: String) -> String {
        switch self {
        case .duckdb: "((\(a)) // (\(b)))"
        case .clickhouse: "intDiv(\(a), \(b))"
        case .spark: "((\(a)) div (\(b)))"
        case .postgres: "((\(a)) / (\(b)))"
        }
    }

    /// An integer as text.
    func text(_ e: String) -> String {
        switch self {
        case .duckdb: "CAST(\(e) AS VARCHAR)"
        case .clickhouse: "toString(\(e))"
        case .spark: "CAST(\(e) AS STRING)"
        case .postgres: "CAST(\(e) AS TEXT)"
        }
    }

    /// Whether `e` (text) matches the anchored `pattern` (a regular expression in the
    /// subset the four engines agree on: no backslashes, classes in brackets).
    func matches(_ e: String, _ pattern: String) -> String {
        switch self {
        case .duckdb: "regexp_full_match(\(e), \(literal(pattern)))"
        case .clickhouse: "match(\(e), \(literal(pattern)))"
        case .spark: "(\(e) RLIKE \(literal(pattern)))"
        case .postgres: "(\(e) ~ \(literal(pattern)))"
        }
    }

    /// A condition that is false (never NULL) where `e` is NULL.
    func isTrue(_ e: String) -> String {
        switch self {
        case .clickhouse: "ifNull(\(e), 0)"
        default: "COALESCE(\(e), FALSE)"
        }
    }

    /// `n` characters of `s` from 1-based `start`.
    func substring(_ s: String, _ start: String, _ n: String) -> String {
        "substring(\(s), \(start), \(n))"
    }

    func leftPad(_ s: String, _ n: Int, _ fill: String) -> String {
        switch self {
        case .clickhouse: "leftPad(\(s), \(n), \(literal(fill)))"
        default: "lpad(\(s), \(n), \(literal(fill)))"
        }
    }

    func rightPad(_ s: String, _ n: Int, _ fill: String) -> String {
        switch self {
        case .clickhouse: "rightPad(\(s), \(n), \(literal(fill)))"
        default: "rpad(\(s), \(n), \(literal(fill)))"
        }
    }

    /// How the copies of an id are told apart by their canonical content `fields`: an
    /// expression `h` of each row, if any, and the test over a group of rows that is true
    /// when their content differs.
    ///
    /// DuckDB compares the values themselves, field by field (`MIN` and `MAX`, and
    /// `COUNT` for a field absent in some copies): exact, and cheap where only the ids
    /// written differently are grouped (its table query). DuckDB's `hash` of text is not
    /// a sound 64-bit hash (two ids of the benchmark's 1M differing in the last bytes of
    /// both 8-byte blocks, such as `988fb60f-0000007` and `988fb696-0000056`, hash alike:
    /// 23 such pairs). The others hash one text of every field, tagged with its position
    /// and length (NULL as `-`), numbers (`numeric`) written by value, and compare the
    /// 64-bit hashes (as margin compares its own).
    func contentTest(_ fields: [String], numeric: [String]) -> (row: String?, differs: String) {
        if self == .duckdb {
            return (
                nil,
                fields.map {
                    "MIN(\($0)) IS DISTINCT FROM MAX(\($0)) OR COUNT(\($0)) NOT IN (0, COUNT(*))"
                }.joined(separator: " OR ")
            )
        }
        // Each field as `i:length:value` (NULL as `-`), so that the text of the fields is
        // one-to-one: a value holding `|` or `:` cannot pass for a field boundary.
        let parts = fields.enumerated().map { i, f in
            let v = numeric.contains(f) ? text(f) : f
            return "COALESCE('\(i):' || \(text("length(\(v))")) || ':' || \(v), '-')"
        }
        let joined = parts.joined(separator: " || '|' || ")
        let hash: String
        switch self {
        case .clickhouse: hash = "cityHash64(\(joined))"
        case .spark: hash = "xxhash64(\(joined))"
        default: hash = "hashtextextended(\(joined), 0)"
        }
        return (hash, "MIN(h) <> MAX(h)")
    }

    /// The text of a quantity member `key` of a JSON object held as text (`jsonb` in
    /// PostgreSQL): the number's digits, or the string's content, or NULL.
    func jsonMember(_ object: String, _ key: String) -> String {
        switch self {
        case .duckdb: "json_extract_string(\(object), \(literal("$.\"\(key)\"")))"
        case .clickhouse:
            // A member `null` is an absent member (docs/takings.md), as DuckDB's and
            // PostgreSQL's `->>` read it.
            "nullIf(nullIf(replaceAll(JSONExtractRaw(\(object), \(literal(key))), '\"', ''), ''), 'null')"
        case .spark: "get_json_object(\(object), \(literal("$['\(key)']")))"
        case .postgres: "(\(object) ->> \(literal(key)))"
        }
    }

    /// The text of each member `keys` of a JSON object held as text, and the expression,
    /// if any, of a column `q_list` they are taken from. DuckDB reads every member in one
    /// parse of the object (`json_extract_string` with a list of paths); the others take
    /// each member by itself.
    func jsonMembers(_ object: String, _ keys: [String]) -> (list: String?, items: [String]) {
        guard self == .duckdb, keys.count > 1 else {
            return (nil, keys.map { jsonMember(object, $0) })
        }
        let paths = keys.map { literal("$.\"\($0)\"") }.joined(separator: ", ")
        return (
            "json_extract_string(\(object), [\(paths)])", keys.indices.map { "q_list[\($0 + 1)]" }
        )
    }

    /// The 1-based position of `needle` (a literal) in `s`, 0 when it is not there.
    func position(_ s: String, _ needle: String) -> String {
        switch self {
        case .duckdb, .postgres: "strpos(\(s), \(literal(needle)))"
        case .clickhouse: "position(\(s), \(literal(needle)))"
        case .spark: "instr(\(s), \(literal(needle)))"
        }
    }

    /// An aggregate taking any one value of a group (PostgreSQL before 16 has none: MIN).
    var anyValue: String {
        switch self {
        case .duckdb, .spark: "any_value"
        case .clickhouse: "any"
        case .postgres: "MIN"
        }
    }

    /// Whether `bigint` gives NULL rather than raising on text that is not an integer.
    var castNeverRaises: Bool { self != .postgres }

    /// A NULL of a 64-bit integer column (ClickHouse: `Nullable(Int64)`).
    var nullInteger: String {
        self == .clickhouse ? "CAST(NULL AS Nullable(Int64))" : "CAST(NULL AS BIGINT)"
    }

    /// Whether a quantity (JSON text, `jsonb` in PostgreSQL) is an object, not a string,
    /// number or array (margin's `wrong-type`).
    func isJSONObject(_ e: String) -> String {
        switch self {
        case .postgres: "jsonb_typeof(\(e)) = 'object'"
        // DuckDB's `substring` counts characters, walking the text; `prefix` compares bytes.
        case .duckdb: "prefix(\(e), '{')"
        default: "\(substring(e, "1", "1")) = '{'"
        }
    }

    /// Whether the JSON object `object` has a member whose name is not in `keys`.
    func hasMemberOutside(_ object: String, _ keys: [String]) -> String {
        let list = keys.map { literal($0) }.joined(separator: ", ")
        switch self {
        case .duckdb: return "NOT list_has_all([\(list)]::VARCHAR[], json_keys(\(object)))"
        case .clickhouse: return "NOT hasAll([\(list)], JSONExtractKeys(ifNull(\(object), '')))"
        case .spark: return "size(array_except(json_object_keys(\(object)), array(\(list)))) > 0"
        case .postgres:
            return
                "(jsonb_typeof(\(object)) = 'object' AND EXISTS (SELECT 1 FROM jsonb_object_keys(\(object)) k WHERE k NOT IN (\(list))))"
        }
    }

    /// A condition that raises an error with the message `message` (an SQL text
    /// expression that depends on a row, so that no planner evaluates it ahead of time)
    /// unless `ok` holds. PostgreSQL has no such function: casting the message to a
    /// boolean fails with the message quoted in the error. ClickHouse's `throwIf` takes a
    /// constant message only: `constant` (without the counts).
    func check(_ ok: String, message: String, constant: String) -> String {
        switch self {
        case .duckdb: "(CASE WHEN \(ok) THEN TRUE ELSE error(\(message)) END)"
        case .clickhouse: "(throwIf(NOT (\(ok)), \(literal(constant))) = 0)"
        case .spark: "(CASE WHEN \(ok) THEN TRUE ELSE CAST(raise_error(\(message)) AS BOOLEAN) END)"
        case .postgres: "(CASE WHEN \(ok) THEN TRUE ELSE CAST(\(message) AS BOOLEAN) END)"
        }
    }

    /// How the feature column is ordered: byte order, as `margin pnl` sorts keys.
    func orderByBytes(_ e: String) -> String {
        self == .postgres ? "\(e) COLLATE \"C\"" : e
    }

    /// A clause ending the query (ClickHouse reads numbers and objects as text only when told).
    var settings: String {
        switch self {
        case .clickhouse:
            "\nSETTINGS input_format_json_read_numbers_as_strings = 1, input_format_json_read_objects_as_strings = 1, input_format_skip_unknown_fields = 1, join_use_nulls = 1, group_by_use_nulls = 1"
        default: ""
        }
    }
}
