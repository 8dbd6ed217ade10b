#!/usr/bin/env python3
"""Times the DuckDB query `margin pnl --sql duckdb` writes against the hand-written
Benchmarks/duckdb_pnl.py query and against `margin pnl` itself, on one export, runs
alternating, and prints each run (wall and CPU time), the median and the spread (min-max)
of each, and the ratios of the medians.

Usage: bench_sql.py FILE --margin PATH [--query-margin PATH] [--runs N] [--threads N]
       [--now RFC3339] [--window 30d] [--card voice-debrief] [--cards RateCards]

--margin is the (release) binary timed as `margin pnl`; --query-margin, when given, is the
one that writes the query (a debug build of a branch writes the same SQL).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--margin", required=True)
    ap.add_argument("--query-margin")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--window", default="30d")
    ap.add_argument("--card", default="voice-debrief")
    ap.add_argument("--cards", default=os.path.join(os.path.dirname(here), "RateCards"))
    args = ap.parse_args()
    import duckdb
    opts = ["--cards", args.cards, "--card", args.card, "--now", args.now, "--window", args.window]
    query = subprocess.run([args.query_margin or args.margin, "pnl", args.file, "--sql", "duckdb"] + opts, capture_output=True, text=True, check=True).stdout
    days = int(args.window[:-1])
    import datetime
    now = datetime.datetime.strptime(args.now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    since = (now - datetime.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def generated():
        con = duckdb.connect()
        con.execute("SET threads TO %d" % args.threads)
        con.execute("SET preserve_insertion_order = false")
        return con.sql(query).fetchall()

    def hand():
        p = subprocess.run([sys.executable, os.path.join(here, "duckdb_pnl.py"), args.file, "--since", since, "--until", until,
                            "--threads", str(args.threads)], capture_output=True, text=True, check=True)
        return p.stdout

    def swift():
        p = subprocess.run([args.margin, "pnl", args.file, "--format", "csv"] + opts, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise RuntimeError(p.stderr)
        return p.stdout

    times = {"generated": [], "hand-written": [], "margin pnl": []}
    cpus = {name: [] for name in times}
    runs = {"generated": generated, "hand-written": hand, "margin pnl": swift}
    results = {}

    def cpu():
        # This process (the generated query runs in it) and its finished children (the
        # hand-written query and margin pnl run as subprocesses): CPU time moves much
        # less with the load of a shared machine than wall time does.
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    for i in range(args.runs):
        for name in times:
            t, c = time.time(), cpu()
            results[name] = runs[name]()
            times[name].append(time.time() - t)
            cpus[name].append(cpu() - c)
            print("run %d %-12s %.2f s  (CPU %.2f s)" % (i + 1, name, times[name][-1], cpus[name][-1]), flush=True)
    # The generated query's credits must agree with the hand-written query's table.
    hand_rows = {l.split(",")[0]: l.split(",")[1:] for l in results["hand-written"].strip().splitlines()[1:]}
    gen_rows = {str(r[0]): [str(v) for v in r[1:6]] for r in results["generated"] if int(r[1]) or int(r[3])}
    print("tables agree:", hand_rows == gen_rows)
    for name, ts in times.items():
        print("%-12s median %.2f s  spread %.2f-%.2f s  CPU median %.2f s" % (name, statistics.median(ts), min(ts), max(ts),
                                                                          statistics.median(cpus[name])))
    g, h, m = (statistics.median(times[k]) for k in ("generated", "hand-written", "margin pnl"))
    print("generated / hand-written: %.2fx   generated / margin pnl: %.2fx" % (g / h, g / m))
    g, h, m = (statistics.median(cpus[k]) for k in ("generated", "hand-written", "margin pnl"))
    print("CPU: generated / hand-written: %.2fx   generated / margin pnl: %.2fx" % (g / h, g / m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
