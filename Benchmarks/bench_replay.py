#!/usr/bin/env python3
"""Runs `margin replay` and `margin pnl` alternately on the same generated export and prints
medians and spread (docs/replay.md, Speed and memory).

Called by `Benchmarks/bench-replay`, which builds margin in release mode and installs GNU
time. The export is `Benchmarks/generate_takings.py`'s plain shape, the same file
`bench-pnl` reads (Benchmarks/data/takings-SIZE.jsonl, generated once, deterministic by
seed). Per size: one warm-up of each (printed, not counted), then `--runs` pairs, replay
first in odd runs and pnl first in even ones. Reported: the median and range (min–max) of
wall time, CPU time (user + system, which a busy machine disturbs less) and peak RSS of
each, and of the ratio replay ÷ pnl per pair, in wall and in CPU time. Never the best run.

  margin replay FILE --card voice-debrief@1 --format csv
  margin pnl FILE --card voice-debrief --window all --format csv --quiet
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_pnl as bp  # noqa: E402  (generate, timed, spread, machine)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", default=["1M"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--margin", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--replay-arg", action="append", default=[], help="one more argument to margin replay")
    args = ap.parse_args()
    print("machine: %d cores; load average %s at the start" % (os.cpu_count() or 0,
                                                            " ".join("%.2f" % x for x in os.getloadavg())))
    for size in args.sizes:
        path = bp.generate(args.data, "plain", size, 1, args.now, args.seed)[0]
        with open(path, "rb") as f:  # into the page cache, for both
            while f.read(1 << 24):
                pass
        tools = {
            "replay": [args.margin, "replay", path, "--card", "voice-debrief@1", "--format", "csv"] + args.replay_arg,
            "pnl": [args.margin, "pnl", path, "--card", "voice-debrief", "--window", "all", "--format", "csv",
                    "--quiet"],
        }
        out = os.path.join(args.data, "bench-replay-%s" % size)
        results = {"replay": [], "pnl": []}

        def run(tool):
            return bp.timed(tools[tool], out + "." + tool + ".out", out + "." + tool + ".log")

        for _ in range(args.warmup):
            w = {t: run(t) for t in ("replay", "pnl")}
            print("%s warm-up: replay %.2f s (%.2f CPU), pnl %.2f s (%.2f CPU)" % (
                size, w["replay"][0], w["replay"][2], w["pnl"][0], w["pnl"][2]), flush=True)
        for k in range(args.runs):
            order = ("replay", "pnl") if k % 2 == 0 else ("pnl", "replay")
            for t in order:
                results[t].append(run(t))
            r, p = results["replay"][-1], results["pnl"][-1]
            print("%s run %d: replay %.2f s (%.2f CPU, %d MiB), pnl %.2f s (%.2f CPU, %d MiB)" % (
                size, k + 1, r[0], r[2], r[1] // 1024, p[0], p[2], p[1] // 1024), flush=True)
        print("\n%s entries, %d runs (median [min–max])" % (size, args.runs))
        for t in ("replay", "pnl"):
            xs = results[t]
            print("  %-7s wall %s s   CPU %s s   peak RSS %s MiB" % (
                t, bp.spread([x[0] for x in xs], "%.2f"), bp.spread([x[2] for x in xs], "%.2f"),
                bp.spread([x[1] / 1024 for x in xs], "%.0f")))
        wall = [r[0] / p[0] for r, p in zip(results["replay"], results["pnl"])]
        cpu = [r[2] / p[2] for r, p in zip(results["replay"], results["pnl"])]
        print("  replay ÷ pnl: wall %s, CPU %s" % (bp.spread(wall, "%.2f×"), bp.spread(cpu, "%.2f×")))
        print("  median of medians: %.2f× wall, %.2f× CPU" % (
            statistics.median([x[0] for x in results["replay"]]) / statistics.median([x[0] for x in results["pnl"]]),
            statistics.median([x[2] for x in results["replay"]]) / statistics.median([x[2] for x in results["pnl"]])))


if __name__ == "__main__":
    main()
