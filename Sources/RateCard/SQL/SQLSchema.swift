/// The table `margin pnl --table NAME --sql DIALECT` reads: one row per ledger entry as
/// exported, every field as its text (a JSON number's digits, a string's content), the
/// quantity object as JSON.
///
/// Text, not `TIMESTAMPTZ` or `BIGINT`, on purpose: the query checks each value the way
/// `margin pnl` does (an amount of `1.5`, a timestamp without an offset are rejected, and
/// listed by `--sql-audit`), and computes instants to the nanosecond from the RFC 3339
/// text, which a microsecond timestamp type would round.
enum SQLSchema {
    /// A column: its name in the table and the JSON field it holds.
    struct Column: Sendable, Hashable {
        let name: String
        let json: String
        let meaning: String
    }

    static let columns: [Column] = [
        Column(name: "id", json: "id", meaning: "the entry id (required)"),
        Column(name: "at", json: "at", meaning: "RFC 3339 time with an offset (required)"),
        Column(
            name: "kind", json: "kind", meaning: "grant, charge, refund, topup or revoke (required)"
        ),
        Column(
            name: "amount", json: "amount",
            meaning: "whole credits as text, charges negative (required)"),
        Column(name: "feature", json: "feature", meaning: "the feature key (charges, refunds)"),
        Column(
            name: "refund_of", json: "refundOf", meaning: "the id of the charge a refund gives back"
        ),
        Column(name: "reason", json: "reason", meaning: "why a charge was declined"),
        Column(
            name: "quantity", json: "quantity", meaning: "dimension → number used, a JSON object"),
        Column(name: "device", json: "device", meaning: "the device log"),
        Column(name: "note", json: "note", meaning: "a note"),
        Column(name: "card", json: "card", meaning: "the card id@version that priced it"),
        Column(name: "balance_after", json: "balanceAfter", meaning: "whole credits as text"),
        Column(
            name: "payment_ref", json: "paymentRef",
            meaning: "the payment reference of a top-up (required on a revoke)"),
        Column(name: "price", json: "price", meaning: "the money a top-up recorded, e.g. GBP 4.99"),
    ]

    /// The type of a text column and of the quantity column in each dialect.
    static func types(_ d: SQLDialect) -> (text: String, json: String) {
        switch d {
        case .duckdb: ("VARCHAR", "JSON")
        case .clickhouse: ("Nullable(String)", "Nullable(String)")
        case .spark: ("STRING", "STRING")
        case .postgres: ("TEXT", "JSONB")
        }
    }

    /// The type of column `name` in the typed layout (`SQLColumns.typed`): the time a
    /// timestamp with time zone (microseconds; ClickHouse `DateTime64(6, 'UTC')`), the
    /// amounts 64-bit integers, the quantity a map of dimension to `DECIMAL(38, 6)`
    /// (PostgreSQL: `JSONB`), the rest text. The query turns each into the text the checks
    /// read (`SQLTypedColumns`).
    static func typedType(_ d: SQLDialect, _ name: String) -> String {
        switch (name, d) {
        case ("at", .duckdb), ("at", .postgres): "TIMESTAMPTZ"
        case ("at", .clickhouse): "Nullable(DateTime64(6, 'UTC'))"
        case ("at", .spark): "TIMESTAMP"
        case ("amount", .clickhouse), ("balance_after", .clickhouse): "Nullable(Int64)"
        case ("amount", _), ("balance_after", _): "BIGINT"
        case ("quantity", .duckdb): "MAP(VARCHAR, DECIMAL(38, 6))"
        case ("quantity", .clickhouse): "Map(String, Decimal(38, 6))"
        case ("quantity", .spark): "MAP<STRING, DECIMAL(38, 6)>"
        case ("quantity", .postgres): "JSONB"
        default: types(d).text
        }
    }

    /// `CREATE TABLE name (…)` in `dialect`, of the text layout or the typed one.
    static func createTable(
        _ dialect: SQLDialect, name: String, columns layout: SQLColumns = .text
    ) -> String {
        let (text, json) = types(dialect)
        let width = columns.map(\.name.count).max() ?? 0
        let lines = columns.map { c in
            let q = dialect.quoted(c.name)
            let pad = String(repeating: " ", count: width - c.name.count + 1)
            let type =
                layout == .typed
                ? typedType(dialect, c.name) : c.name == "quantity" ? json : text
            return "    \(q)\(pad)\(type)"
        }
        var body = lines.joined(separator: ",\n")
        var tail = ""
        switch dialect {
        case .clickhouse: tail = "\nENGINE = MergeTree ORDER BY tuple()"
        case .spark: tail = "\nUSING parquet"
        default: break
        }
        body =
            (layout == .typed
                ? "-- The ledger entries `margin pnl --table \(name) --sql-columns typed --sql \(dialect.rawValue)` reads: one row per entry,\n"
                    + "-- typed (the time with its time zone, amounts as integers, the quantity as a map); the query converts them. See docs/sql.md.\n"
                : "-- The ledger entries `margin pnl --table \(name) --sql \(dialect.rawValue)` reads: one row per entry,\n"
                    + "-- every field as exported (text; quantity as a JSON object). See docs/sql.md.\n")
            + "CREATE TABLE \(name) (\n\(body)\n)\(tail);\n"
        return body
    }
}
