#!/usr/bin/env python3
"""Times the DuckDB query `margin pnl --sql duckdb` writes against the hand-written
Benchmarks/duckdb_pnl.py query (and, unless --no-margin, `margin pnl` itself) on one
export, runs alternating, and prints each run (wall and CPU time), the median and the
spread (min-max) of each, the ratio of the medians, and the ratio of each pair of runs
side by side (generated run i / hand-written run i): its median and its min-max.

Both queries run in this process, on a fresh connection each, with the same settings
(threads, preserve_insertion_order = false): the hand-written one through
duckdb_pnl.py's own main(), so neither pays for starting Python or importing DuckDB.

Usage: bench_sql.py FILE... --margin PATH [--query-margin PATH] [--runs N] [--threads N]
       [--now RFC3339] [--window 30d] [--card voice-debrief] [--cards RateCards]
       [--no-margin] [--profile DIR] [--label TEXT] [--query SQL]

--margin is the (release) binary timed as `margin pnl`; --query-margin, when given, is the
one that writes the query (a debug build of a branch writes the same SQL). --profile DIR
writes DuckDB's JSON profile of one more run of each query into DIR and prints the
operators that take the most time. --query SQL times that file's query instead of the one
margin writes (to try a change by hand before compiling it). --label names the row printed at the end in Markdown.
"""
import argparse
import contextlib
import datetime
import importlib.util
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def load_hand_written():
    spec = importlib.util.spec_from_file_location("duckdb_pnl", os.path.join(here, "duckdb_pnl.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu():
    # This process (both queries run in it) and its finished children (margin pnl): CPU
    # time moves much less with the load of a shared machine than wall time does.
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def operators(node, out, depth=0):
    """(depth, name, seconds, rows) of every operator in a DuckDB JSON profile, in plan
    order (DuckDB 2.0: the plan is the list under "operator"; older: "children")."""
    if "operator" in node and isinstance(node["operator"], list):
        for child in node["operator"]:
            operators(child, out, depth)
        return out
    name = node.get("name") or node.get("operator_name") or node.get("operator_type") or "?"
    t = node.get("timing", node.get("operator_timing", 0.0)) or 0.0
    extra = node.get("extra_info") or {}
    if isinstance(extra, dict):
        detail = (extra.get("CTE Name") or extra.get("Function") or extra.get("Table") or extra.get("Aggregates")
                  or extra.get("Groups") or extra.get("Join Type") or extra.get("Expression") or "")
        if isinstance(detail, list):
            detail = " ".join(str(x) for x in detail)
        name = ("%s %s" % (name.strip(), " ".join(str(detail).split())[:70])).strip()
    rows = node.get("intermediate_rows", node.get("operator_cardinality", 0))
    out.append((depth, name, float(t), rows))
    for child in node.get("children", []):
        operators(child, out, depth + 1)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--margin", required=True)
    ap.add_argument("--query-margin")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--window", default="30d")
    ap.add_argument("--card", default="voice-debrief")
    ap.add_argument("--cards", default=os.path.join(os.path.dirname(here), "RateCards"))
    ap.add_argument("--no-margin", action="store_true", help="time only the two queries")
    ap.add_argument("--profile", metavar="DIR")
    ap.add_argument("--label", default="")
    ap.add_argument("--query", metavar="SQL", help="time this file's query instead of the one margin writes (experiments)")
    args = ap.parse_args()
    import duckdb
    hand_module = load_hand_written()
    opts = ["--cards", args.cards, "--card", args.card, "--now", args.now, "--window", args.window]
    if args.query:
        query = open(args.query).read()
    else:
        query = subprocess.run([args.query_margin or args.margin, "pnl"] + args.files + ["--sql", "duckdb"] + opts,
                               capture_output=True, text=True, check=True).stdout
    days = int(args.window[:-1])
    now = datetime.datetime.strptime(args.now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    since = (now - datetime.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def connect():
        con = duckdb.connect()
        con.execute("SET threads TO %d" % args.threads)
        con.execute("SET preserve_insertion_order = false")
        return con

    def generated():
        return connect().sql(query).fetchall()

    hand_argv = ["duckdb_pnl.py"] + args.files + ["--since", since, "--until", until, "--threads", str(args.threads)]

    def hand():
        saved, sys.argv = sys.argv, hand_argv
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                hand_module.main()
        finally:
            sys.argv = saved
        return buffer.getvalue()

    def swift():
        p = subprocess.run([args.margin, "pnl"] + args.files + ["--format", "csv"] + opts, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise RuntimeError(p.stderr)
        return p.stdout

    runs = {"generated": generated, "hand-written": hand}
    if not args.no_margin:
        runs["margin pnl"] = swift
    times = {name: [] for name in runs}
    cpus = {name: [] for name in runs}
    results = {}
    print("%s  load %.1f  %s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                                 os.getloadavg()[0], " ".join(os.path.basename(f) for f in args.files)), flush=True)
    for i in range(args.runs):
        # Alternate which query goes first, so neither always meets the other's leftovers.
        order = list(runs) if i % 2 == 0 else [n for n in reversed(list(runs))]
        for name in order:
            t, c = time.time(), cpu()
            results[name] = runs[name]()
            times[name].append(time.time() - t)
            cpus[name].append(cpu() - c)
            print("run %d %-12s %.2f s  (CPU %.2f s)" % (i + 1, name, times[name][-1], cpus[name][-1]), flush=True)
    # The generated query's credits must agree with the hand-written query's table.
    hand_rows = {l.split(",")[0]: l.split(",")[1:] for l in results["hand-written"].strip().splitlines()[1:]}
    gen_rows = {str(r[0]): [str(v) for v in r[1:6]] for r in results["generated"] if int(r[1]) or int(r[3])}
    agree = hand_rows == gen_rows
    rejected = sorted({int(r[-1]) for r in results["generated"]})
    print("tables agree:", agree, "  rejected (the query's last column):", rejected)
    for name, ts in times.items():
        print("%-12s median %.2f s  spread %.2f-%.2f s  CPU median %.2f s" % (name, statistics.median(ts), min(ts), max(ts),
                                                                          statistics.median(cpus[name])))
    g, h = statistics.median(times["generated"]), statistics.median(times["hand-written"])
    pairs = [a / b for a, b in zip(times["generated"], times["hand-written"])]
    cpu_pairs = [a / b for a, b in zip(cpus["generated"], cpus["hand-written"])]
    print("generated / hand-written: %.2fx (medians)   pairs: median %.2fx, %.2f-%.2fx" % (
        g / h, statistics.median(pairs), min(pairs), max(pairs)))
    print("CPU: generated / hand-written: %.2fx (medians)   pairs: median %.2fx, %.2f-%.2fx" % (
        statistics.median(cpus["generated"]) / statistics.median(cpus["hand-written"]),
        statistics.median(cpu_pairs), min(cpu_pairs), max(cpu_pairs)))
    if "margin pnl" in times:
        print("generated / margin pnl: %.2fx" % (g / statistics.median(times["margin pnl"])))
    print("| %s | %.2f s (%.2f–%.2f) | %.2f s (%.2f–%.2f) | **%.2f×** | %.2f× (%.2f–%.2f) | %.2f× |" % (
        args.label or "?", g, min(times["generated"]), max(times["generated"]), h, min(times["hand-written"]),
        max(times["hand-written"]), g / h, statistics.median(pairs), min(pairs), max(pairs),
        statistics.median(cpus["generated"]) / statistics.median(cpus["hand-written"])))
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
        for name, text in (("generated", query), ("hand-written", None)):
            path = os.path.join(args.profile, name + ".json")
            con = connect()
            con.execute("PRAGMA enable_profiling = 'json'")
            con.execute("PRAGMA profiling_output = '%s'" % path)
            if text is None:
                # The hand-written query, as duckdb_pnl.py writes it, on this connection.
                real = duckdb.connect
                hand_module.duckdb.connect = lambda *a, **k: con
                try:
                    hand()
                finally:
                    hand_module.duckdb.connect = real
            else:
                con.sql(text).fetchall()
            con.close()
            tree = json.load(open(path))
            ops = operators(tree, [])
            total = sum(t for _, _, t, _ in ops)
            print("profile %s: operator time %.2f s (summed over threads), CPU %.2f s, peak buffers %d MB" % (
                name, total, tree.get("query", {}).get("cpu_time", 0.0),
                tree.get("system", {}).get("peak_buffer_memory", 0) // 1_000_000))
            for depth, op, t, n in ops:
                if t >= 0.01 * total:
                    print("  %6.2f s %5.1f%%  %10s rows  %s%s" % (t, 100 * t / total if total else 0, n, "  " * depth, op))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
