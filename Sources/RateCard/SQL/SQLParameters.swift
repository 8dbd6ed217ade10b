/// `--sql-params`: the window's bounds as named query parameters, bound when the query
/// runs, so that a scheduled job keeps one query instead of writing it again each run.
///
/// A window of N days (`--window 30d`) has one parameter, `now`; `--since`/`--until` have
/// `since` and `until` (those given). Each is a whole number of **seconds since
/// 1970-01-01T00:00:00Z** (64-bit), so the window is `[now − N·86400, now)` or
/// `[since, until)` to the second. Each engine's own syntax: DuckDB `$now` (a prepared
/// statement's named parameter), ClickHouse `{now:Int64}` (a query parameter), Spark
/// `:now` (a named parameter marker of `spark.sql(query, args)`), PostgreSQL `$1`, `$2`
/// (`PREPARE … AS` the query, then `EXECUTE`), numbered in the order of `names`.
///
/// What depends on the window and is not a bound is refused: fixed costs are prorated
/// over the window when the query is written.
struct SQLParameters: Sendable, Hashable {
    let dialect: SQLDialect
    /// The parameters, in PostgreSQL's order.
    let names: [String]
    /// The window's start and end as expressions of seconds, or nil where it is open.
    let since: String?
    let until: String?
    /// A window of N days: its length in seconds.
    let days: Int64?

    init(_ request: PnLSQLRequest) throws(SQLCompileError) {
        dialect = request.dialect
        let window = request.window
        guard window.since != nil || window.until != nil else {
            throw .usage(
                "--sql-params binds the window's bounds: give --window Nd (and the query takes now) or --since/--until"
            )
        }
        guard request.fixedCosts.isEmpty, request.periodFixedCosts.isEmpty else {
            throw .usage(
                "--sql-params cannot take --costs: fixed costs are prorated over the window when the query is written; write the query for each window instead"
            )
        }
        let name = window.name
        if let s = window.since, let u = window.until, name.count >= 2, name.hasSuffix("d"),
            name.dropLast().allSatisfy(\.isASCII), Int(name.dropLast()) != nil
        {
            let length = u.seconds - s.seconds
            names = ["now"]
            days = length / 86_400
            let now = Self.placeholder(dialect, "now", index: 1)
            since = "(\(now) - \(length))"
            until = now
        } else {
            var list: [String] = []
            if window.since != nil { list.append("since") }
            if window.until != nil { list.append("until") }
            names = list
            days = nil
            since =
                window.since == nil
                ? nil : Self.placeholder(dialect, "since", index: 1)
            until =
                window.until == nil
                ? nil : Self.placeholder(dialect, "until", index: list.count)
        }
    }

    /// The value of parameter `name` in `dialect`'s syntax, as a 64-bit integer.
    static func placeholder(_ d: SQLDialect, _ name: String, index: Int) -> String {
        switch d {
        case .duckdb: "CAST($\(name) AS BIGINT)"
        case .clickhouse: "{\(name):Int64}"
        case .spark: "CAST(:\(name) AS BIGINT)"
        case .postgres: "CAST($\(index) AS BIGINT)"
        }
    }

    /// `[since, until)` over a row's seconds `s` (whole-second bounds: the nanoseconds of
    /// the row do not matter).
    func inWindow(_ s: String) -> String {
        var c: [String] = []
        if let since { c.append("\(s) >= \(since)") }
        if let until { c.append("\(s) < \(until)") }
        return c.joined(separator: " AND ")
    }

    /// The header lines saying what to bind and how.
    var header: [String] {
        let list = names.enumerated().map { i, n in
            dialect == .postgres ? "$\(i + 1) = \(n)" : n
        }.joined(separator: ", ")
        var lines = [
            "-- parameters: \(list) (64-bit integers: seconds since 1970-01-01T00:00:00Z); the window is "
                + (days.map { "[now - \($0) days, now)" }
                    ?? "[\(since == nil ? "-infinity" : "since"), \(until == nil ? "infinity" : "until"))")
        ]
        let example = names.map { "\($0) := 1764547200" }.joined(separator: ", ")
        switch dialect {
        case .duckdb:
            lines.append(
                "-- bind: PREPARE pnl AS <this query>; EXECUTE pnl(\(example)), or execute(query, {\"\(names[0])\": …}) from a client"
            )
        case .clickhouse:
            lines.append(
                "-- bind: clickhouse-client \(names.map { "--param_\($0)=1764547200" }.joined(separator: " ")), or SET param_\(names[0]) = …"
            )
        case .spark:
            lines.append(
                "-- bind: spark.sql(query, args={\(names.map { "\"\($0)\": 1764547200" }.joined(separator: ", "))})"
            )
        case .postgres:
            lines.append(
                "-- bind: PREPARE pnl(\(names.map { _ in "bigint" }.joined(separator: ", "))) AS <this query>; EXECUTE pnl(\(names.map { _ in "1764547200" }.joined(separator: ", ")))"
            )
        }
        return lines
    }
}
