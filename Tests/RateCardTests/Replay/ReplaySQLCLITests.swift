import Foundation
import Testing

/// `margin replay --sql` through the built binary: the query's header says what it covers
/// and what it leaves out, its source is `pnl --sql`'s, and options that do not apply are
/// usage errors. That the query's table equals `margin replay`'s is checked on the real
/// engines by `scripts/replay-sql` (docs/replay.md, The SQL form).
@Suite("Replay as SQL through the binary")
struct ReplaySQLCLITests {
    static let ledger = ReplayGateCLITests.ledger
    static let candidate = ReplayGateCLITests.candidate

    @Test("--sql prints one query per dialect, with the figures it leaves to margin replay")
    func query() throws {
        for dialect in ["duckdb", "clickhouse", "spark"] {
            let out = try expectMargin(
                [
                    "replay", Self.ledger, "--card", Self.candidate, "--credit-value", "CNY 0.01",
                    "--sql", dialect,
                ], exits: 0,
                stdout: .contains(
                    "-- the per-feature replay of margin replay, for \(dialect)",
                    "-- after: osg@11; before: the ledger's own charges",
                    "osg@10 from 2026-08-17T16:00:00Z",
                    "-- not in this query: the balance replay (declines, credits left) and the packs in practice",
                    "AS credits_before", "AS margin_after"))
            #expect(out.stdout.hasSuffix(";\n"))
        }
        try expectMargin(
            [
                "replay", "--table", "ledger", "--card", Self.candidate, "--against", "osg@10",
                "--costs-at", "2026-11-02T10:00:00+08:00", "--sql", "postgres",
            ], exits: 0,
            stdout: .contains(
                "-- after: osg@11; before: osg@10",
                "after as if every request ran at 2026-11-02T02:00:00Z",
                "FROM ledger"))
    }

    @Test("options that do not apply to --sql are usage errors")
    func usage() throws {
        let base = ["replay", Self.ledger, "--card", Self.candidate]
        try expectMargin(
            base + ["--sql", "sqlite"], exits: 2, stderr: .contains("unknown SQL dialect"))
        try expectMargin(
            base + ["--sql", "duckdb", "--format", "json"], exits: 2,
            stderr: .contains("--format does not apply to --sql"))
        try expectMargin(
            base + ["--sql", "duckdb", "--strict"], exits: 2,
            stderr: .contains("--strict does not apply to --sql"))
        try expectMargin(
            base + ["--sql", "postgres"], exits: 2,
            stderr: .contains("PostgreSQL reads no JSON Lines files"))
        try expectMargin(
            base + ["--table", "ledger"], exits: 2,
            stderr: .contains("--table applies only with --sql"))
        try expectMargin(
            base + ["--sql", "duckdb", "--table", "ledger"], exits: 2,
            stderr: .contains("give either FILE… or --table, not both"))
    }
}
