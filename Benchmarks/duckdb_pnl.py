#!/usr/bin/env python3
"""The same per-feature takings table as `margin pnl --format csv`, computed by DuckDB.

Semantics matched to margin: every entry once by id; the window is half-open
[since, until) on the instant (offsets honoured); a charge counts in the window of its
time, a refund in the window of its own time and only when the charge it names exists.
Prints CSV: feature,charges,charged,declines,givenBack,left (sorted by feature).

Usage: duckdb_pnl.py FILE... --since RFC3339 --until RFC3339 [--threads N]
(several files are read as one export, as `margin pnl FILE...` reads them)
"""
import argparse
import sys

import duckdb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--since")
    ap.add_argument("--until")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    con = duckdb.connect()
    con.execute("SET threads TO %d" % args.threads)
    con.execute("SET preserve_insertion_order = false")
    since = "TIMESTAMPTZ '%s'" % args.since if args.since else "'-infinity'::TIMESTAMPTZ"
    until = "TIMESTAMPTZ '%s'" % args.until if args.until else "'infinity'::TIMESTAMPTZ"
    query = f"""
    WITH raw AS (
        SELECT * FROM read_json(?, format = 'newline_delimited',
            columns = {{'id': 'VARCHAR', 'at': 'VARCHAR', 'kind': 'VARCHAR', 'amount': 'VARCHAR',
                        'feature': 'VARCHAR', 'refundOf': 'VARCHAR'}})
    ),
    e AS (
        SELECT id, any_value("at") AS "at", any_value(kind) AS kind, any_value(amount) AS amount,
               any_value(feature) AS feature, any_value(refundOf) AS refundOf
        FROM raw GROUP BY id
    ),
    t AS (SELECT id, kind, feature, refundOf, CAST("at" AS TIMESTAMPTZ) AS ts, CAST(amount AS BIGINT) AS amt FROM e),
    w AS (SELECT * FROM t WHERE ts >= {since} AND ts < {until}),
    c AS (SELECT feature, count(*) AS charges, sum(-amt) AS charged FROM w WHERE kind = 'charge' GROUP BY feature),
    r AS (
        SELECT w.feature, count(*) AS declines, sum(w.amt) AS givenBack
        FROM w JOIN t AS ch ON ch.id = w.refundOf AND ch.kind = 'charge'
        WHERE w.kind = 'refund' GROUP BY w.feature
    )
    SELECT feature, coalesce(charges, 0), coalesce(charged, 0), coalesce(declines, 0), coalesce(givenBack, 0),
           coalesce(charged, 0) - coalesce(givenBack, 0)
    FROM c FULL OUTER JOIN r USING (feature)
    ORDER BY feature
    """
    rows = con.execute(query, [args.files]).fetchall()
    out = sys.stdout
    out.write("feature,charges,charged,declines,givenBack,left\n")
    for row in rows:
        out.write(",".join(str(v) for v in row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
