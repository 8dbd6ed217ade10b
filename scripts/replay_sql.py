#!/usr/bin/env python3
"""Runs `margin replay --sql` on the real engines and checks each engine's per-feature
table against `margin replay --format json`, field by field (docs/replay.md, The SQL form).

Engines and their start-up are those of scripts/sql_equality.py (DuckDB, chdb, pyspark,
PostgreSQL on a Unix socket). The cases, few so that CI stays short:

  worked         the worked example of docs/replay.md (osg@10's ledger, the candidate osg@11)
  osg-ledger     sql_equality.py's generated OSG export (two versions, a card field, peak
                 and off-peak in six offsets, refunds, duplicates, rejected lines, unknown
                 features) against a candidate that changes ASR and LLM, removes `summary`
                 and charges `asr` per started 5 s: the ledger's own charges before
  osg-against    the same, re-priced on both sides (--against osg@11), in USD
  osg-costs-at   osg@11 against osg@10, NEW costed as if every request ran at one instant
  voice          an export of Benchmarks/generate_takings.py under voice-debrief@1

Credits and counts must be equal; money as sql_equality.py compares it (exact at the
query's scale, else both rounded half-even once); the change share and the margins at the
query's 12 places, half-even, against margin's exact figure.

Usage: replay_sql.py [--engines duckdb,clickhouse,postgres,spark] [--spark-cases N] [--keep]
Environment: MARGIN (default .build/debug/margin), PG_BIN.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sql_equality as eq  # noqa: E402  (the engines, the OSG repository and export)

ROOT = eq.ROOT
COUNTS = [("requests", "requests"), ("repriced", "repriced"), ("not_repriced", "notRepriced"),
          ("not_repriced_credits", "notRepricedCredits"), ("refunded", "refunded"),
          ("credits_before", "creditsBefore"), ("credits_after", "creditsAfter"), ("credit_change", "creditChange")]
MONEY = [("cost_before", "costBefore"), ("cost_after", "costAfter"), ("value_before", "valueBefore"),
         ("value_after", "valueAfter"), ("profit_before", "profitBefore"), ("profit_after", "profitAfter")]
RATIOS = [("credit_change_share", "creditChangeShare"), ("margin_before", "marginBefore"),
          ("margin_after", "marginAfter")]
COLUMNS = ["feature"] + [c for c, _ in COUNTS[:8]] + ["credit_change_share"] + [c for c, _ in MONEY] + \
    ["margin_before", "margin_after", "ledger_credits", "rejected"]


def candidate(folder):
    """osg@12: ASR per started 5 s, LLM output per started 300 tokens, `summary` removed."""
    with open(os.path.join(folder, "osg-v11.json")) as f:
        card = json.load(f)
    card["version"] = 12
    card["effective"] = "2026-12-01T00:00:00+08:00"
    card["title"] = "OSG V12 (test candidate: ASR per started 5 s, LLM output per 300 tokens, no summary)"
    card["features"] = [f for f in card["features"] if f["key"] != "summary"]
    for f in card["features"]:
        if f["key"] == "asr":
            f["dimensions"][0]["per"] = 5
        if f["key"] == "llm":
            f["dimensions"][1]["per"] = 300
    path = os.path.join(os.path.dirname(folder), "osg-v12-candidate.json")
    with open(path, "w") as f:
        json.dump(card, f, indent=1)
    return path


def ratio_expected(text):
    return eq.round_half_even(eq.fraction(text), 12)


def null(v):
    return v is None or v == "" or v == "\\N"  # chdb's CSV writes NULL as \N


def compare(rows, report, scale, exact):
    problems = []
    want = report["features"] + [dict(report["total"], feature=None)]
    if len(rows) != len(want):
        problems.append("%d rows, margin has %d" % (len(rows), len(want)))
    for row, f in zip(rows, want):
        cell = dict(zip(COLUMNS, row))
        name = f["feature"] or "total"
        got = cell["feature"]
        if null(got) != (f["feature"] is None) or (f["feature"] is not None and str(got) != f["feature"]):
            problems.append("%s: feature %r" % (name, got))
        for col, key in COUNTS:
            if int(cell[col]) != int(f[key]):
                problems.append("%s.%s: engine %s, margin %s" % (name, col, cell[col], f[key]))
        for col, key in MONEY:
            exp = eq.expected_money(f[key], scale, exact)
            if exp is None:
                problems.append("%s.%s: margin's %s is a tie at scale %d: undecidable" % (name, col, f[key], scale))
            elif eq.fraction(cell[col]) != exp:
                problems.append("%s.%s: engine %s, margin %s" % (name, col, cell[col], f[key]))
        for col, key in RATIOS:
            g = cell[col]
            if f[key] is None or null(g):
                if not (f[key] is None and null(g)):
                    problems.append("%s.%s: engine %r, margin %r" % (name, col, g, f[key]))
            elif eq.fraction(g) != ratio_expected(f[key]):
                problems.append("%s.%s: engine %s, margin %s" % (name, col, g, f[key]))
        if f["feature"] is None and int(cell["ledger_credits"]) != int(report["ledgerCredits"]):
            problems.append("total.ledger_credits: engine %s, margin %s" % (cell["ledger_credits"], report["ledgerCredits"]))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="duckdb,clickhouse,postgres,spark")
    ap.add_argument("--spark-cases", type=int, default=1, help="run Spark on the first N cases only")
    ap.add_argument("--clickhouse-cases", type=int, default=99, help="run ClickHouse (chdb) on the first N cases only")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="margin-replay-sql-")
    cards = os.path.join(work, "cards")
    eq.make_osg_repo(cards)
    cand = candidate(cards)
    export = os.path.join(work, "osg.jsonl")
    with open(export, "w") as f:
        f.write(eq.osg_export(7, conflicts=False)[0])
    voice = os.path.join(work, "voice.jsonl")
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate_takings.py"), "--entries", "5000",
                    "--out", voice, "--devices", "100"], check=True)
    fixtures = os.path.join(ROOT, "Tests", "RateCardTests", "Fixtures", "replay")
    worked = os.path.join(work, "osg-worked.jsonl")  # PostgreSQL loads a CSV beside it
    shutil.copy(os.path.join(fixtures, "osg-worked.jsonl"), worked)
    cases = [
        ("worked", worked,
         ["--card", os.path.join(fixtures, "osg-v11-candidate.json"), "--credit-value", "CNY 0.01"]),
        ("osg-ledger", export, ["--cards", cards, "--card", cand]),
        ("osg-against", export, ["--cards", cards, "--card", cand, "--against", "osg@11", "--currency", "USD"]),
        ("osg-costs-at", export, ["--cards", cards, "--card", "osg@11", "--against", "osg@10",
                                  "--costs-at", "2026-11-18T10:30:00+08:00", "--credit-value", "CNY 0.005"]),
        ("voice", voice, ["--cards", os.path.join(ROOT, "RateCards"), "--card", "voice-debrief@1"]),
    ]
    engines = {"duckdb": eq.DuckDB, "clickhouse": eq.ClickHouse, "spark": eq.Spark, "postgres": eq.Postgres}
    failures = 0
    summary = []
    for name in args.engines.split(","):
        t0 = time.time()
        try:
            engine = engines[name](work)
        except Exception as e:
            print("FAIL %s: cannot start: %s" % (name, e))
            failures += 1
            continue
        try:
            limit = {"spark": args.spark_cases, "clickhouse": args.clickhouse_cases}.get(name, len(cases))
            chosen = cases[:limit]
            for case, path, opts in chosen:
                report = json.loads(eq.margin(["replay", path, "--format", "json"] + opts).stdout)
                query = eq.margin(["replay", "--sql", name] + eq.source_args(engine, path) + opts).stdout
                scale, exact = eq.header_scale(query)
                t = time.time()
                try:
                    rows = engine.run(query)
                except Exception as e:
                    print("FAIL %s %s: %s" % (name, case, str(e)[:600]), flush=True)
                    failures += 1
                    continue
                problems = compare(rows, report, scale, exact)
                print("%s %s %s: %d rows (%d charges, %d not re-priced), scale %d, %.1f s" % (
                    "ok  " if not problems else "FAIL", name, case, len(rows), report["total"]["requests"],
                    report["total"]["notRepriced"], scale, time.time() - t), flush=True)
                for p in problems[:20]:
                    print("     " + p)
                failures += 1 if problems else 0
        finally:
            if hasattr(engine, "close"):
                engine.close()
        summary.append("%s %.0f s" % (name, time.time() - t0))
    print("engines: " + ", ".join(summary))
    if args.keep:
        print("work folder: " + work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("replay-sql: %d failures" % failures)
        sys.exit(1)
    print("replay-sql: every engine's table equals margin replay's")


if __name__ == "__main__":
    main()
