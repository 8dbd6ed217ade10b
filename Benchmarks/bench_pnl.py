#!/usr/bin/env python3
"""Runs `margin pnl` and DuckDB alternately on generated exports and prints medians and spread.

Called by `Benchmarks/bench-pnl` (which installs GNU time and DuckDB and builds margin);
see that script for the usage. For every shape and size: the export is generated if it is
missing (deterministic by seed), read once so both tools start from the page cache, then
each tool runs `--warmup` times (default once: margin, then DuckDB; printed, checked, not
counted), then margin and DuckDB run one after the other `--runs` times (margin first in
odd runs, DuckDB first in even runs). Each pair of runs is checked: the two tables must
agree, or the benchmark stops.

Why a warm-up: on this project's virtual machines, memory the guest has not touched for a
while costs several times more to fault in (the host backs it again), so the first run
after a pause or after smaller runs pays for it and the runs after it do not. Without a
warm-up that first run was always margin's (margin starts each shape), so the slowest
margin run of a shape was usually its first. The warm-up round gives both tools the same
start; its ratio is printed beside the table (`warm-up ratio`), not hidden. Reported per shape and size: the median and the range (min–max) of the
wall time, the peak RSS and the CPU time of each tool, and of the ratio DuckDB ÷ margin
of each pair (its minimum is the worst run), and of the ratio of CPU times (which a busy
machine disturbs less than wall time). Never the best single run.
"""

import argparse
import datetime
import hashlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def count(size):
    s = size.upper()
    if s.endswith("M"):
        return int(s[:-1]) * 1_000_000
    if s.endswith("K"):
        return int(s[:-1]) * 1_000
    return int(s)


def export_files(data, shape, size, files):
    if shape == "plain":
        return [os.path.join(data, "takings-%s.jsonl" % size)]
    if shape == "ledger":
        return [os.path.join(data, "takings-ledger-%s.jsonl" % size)]
    return [os.path.join(data, "takings-%s-%s-%d.jsonl" % (shape, size, k + 1)) for k in range(files)]


def generate(data, shape, size, files, now, seed):
    paths = export_files(data, shape, size, files)
    done = paths[0] + ".done"
    if all(os.path.exists(p) for p in paths) and os.path.exists(done):
        return paths
    n = count(size)
    print("generating %s %s (%d entries, %d file%s)…" % (shape, size, n, len(paths), "" if len(paths) == 1 else "s"),
          file=sys.stderr, flush=True)
    parts = [p + ".part" for p in paths]
    # PyPy writes the same bytes (the same Mersenne Twister), several times faster.
    python = shutil.which("pypy3") or sys.executable
    subprocess.run([python, os.path.join(HERE, "generate_takings.py"), "--shape", shape, "--entries", str(n),
                    "--seed", str(seed), "--now", now, "--out"] + parts, check=True)
    for part, path in zip(parts, paths):
        os.replace(part, path)
    open(done, "w").close()
    return paths


def timed(cmd, out_path, log_path):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak KiB, CPU seconds)."""
    with open(out_path, "w") as out, open(log_path, "w") as log:
        rc = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=out, stderr=log).returncode
    text = open(log_path).read()
    if rc != 0:
        sys.stderr.write(text)
        raise SystemExit("error: %s exited %d" % (cmd[0], rc))
    wall, rss, cpu = None, None, 0.0
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("User time (seconds)") or line.startswith("System time (seconds)"):
            cpu += float(line.rsplit(" ", 1)[1])
        elif line.startswith("Elapsed (wall clock) time"):
            t = line.rsplit(" ", 1)[1].split(":")
            wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(t)))
        elif line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(" ", 1)[1])
    return wall, rss, cpu


def used_rows(path):
    """margin's CSV cut to DuckDB's: features with charges or declines, six columns."""
    rows = []
    for k, line in enumerate(open(path)):
        cells = line.rstrip("\n").split(",")
        if k == 0 or cells[1] != "0" or cells[3] != "0":
            rows.append(",".join(cells[:6]))
    return rows


def spread(values, fmt):
    return "%s [%s–%s]" % (fmt % statistics.median(values), fmt % min(values), fmt % max(values))


def window_bounds(now, window):
    if window == "all":
        return []
    end = datetime.datetime.strptime(now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    start = end - datetime.timedelta(days=int(window[:-1]))
    return ["--since", start.strftime("%Y-%m-%dT%H:%M:%SZ"), "--until", end.strftime("%Y-%m-%dT%H:%M:%SZ")]


def machine(args):
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.0f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    load = " ".join("%.2f" % x for x in os.getloadavg())
    commit = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %cd", "--date=short"],
                            capture_output=True, text=True).stdout.strip()
    duck = subprocess.run([args.python, "-c", "import duckdb; print(duckdb.__version__)"], capture_output=True, text=True).stdout.strip()
    # The binary timed, by its own hash: MARGIN may name a build of another checkout.
    digest = hashlib.sha256()
    with open(args.margin, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return ("%s UTC; %s, %d cores, %s RAM, %s %s; load average %s at the start; margin %s (sha256 %s), checkout %s; DuckDB %s (PyPI), %d threads"
            % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), cpu, os.cpu_count() or 0, mem,
               platform.system(), platform.release(), load, args.margin, digest.hexdigest()[:12], commit or "?",
               duck or "?", args.threads))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", default=["1M", "10M"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1, help="uncounted runs of each tool before the counted ones")
    ap.add_argument("--shapes", default="plain,rich,ledger")
    ap.add_argument("--files", type=int, default=4, help="files of the rich shape")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--window", default="30d")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--margin", required=True)
    ap.add_argument("--python", required=True, help="the Python that has duckdb")
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--margin-arg", action="append", default=[], help="one more argument for margin pnl (repeatable)")
    args = ap.parse_args()
    os.makedirs(args.data, exist_ok=True)
    shapes = [s for s in args.shapes.split(",") if s]

    print("machine: " + machine(args))
    print("window %s before %s; %d uncounted warm-up run%s, then %d alternating runs of each tool; median [min–max]; ratio = DuckDB ÷ margin per pair of runs"
          % (args.window, args.now, args.warmup, "" if args.warmup == 1 else "s", args.runs), flush=True)
    results = []
    for shape in shapes:
        for size in args.sizes:
            paths = generate(args.data, shape, size, args.files, args.now, args.seed)
            nbytes = sum(os.path.getsize(p) for p in paths)
            for p in paths:  # both tools start with the export in the page cache
                with open(p, "rb") as f:
                    while f.read(8 << 20):
                        pass
            margin_cmd = [args.margin, "pnl"] + paths + ["--card", "voice-debrief", "--cards", os.path.join(ROOT, "RateCards"),
                                                         "--now", args.now, "--window", args.window, "--format", "csv"] + args.margin_arg
            duck_cmd = [args.python, os.path.join(HERE, "duckdb_pnl.py")] + paths + window_bounds(args.now, args.window) + [
                "--threads", str(args.threads)]
            tag = "%s-%s" % (shape, size)
            m_out, d_out, log = (os.path.join(args.data, "%s.%s" % (tag, x)) for x in ("margin.csv", "duckdb.csv", "time.log"))
            runs, warm = [], []
            for r in range(-args.warmup, args.runs):
                order = ["margin", "duckdb"] if r % 2 == 0 or r < 0 else ["duckdb", "margin"]
                got = {}
                for tool in order:
                    got[tool] = timed(margin_cmd, m_out, log) if tool == "margin" else timed(duck_cmd, d_out, log)
                name = "warm-up %d (not counted)" % (r + args.warmup + 1) if r < 0 else "run %d" % (r + 1)
                mine, theirs = used_rows(m_out), [l.rstrip("\n") for l in open(d_out)]
                if mine != theirs:
                    sys.stderr.write("margin:\n%s\nduckdb:\n%s\n" % ("\n".join(mine), "\n".join(theirs)))
                    raise SystemExit("error: %s %s: the tables differ" % (tag, name))
                (warm if r < 0 else runs).append((got["margin"], got["duckdb"]))
                print("  %s %s: margin %.2f s (CPU %.2f s) %d MiB, DuckDB %.2f s (CPU %.2f s) %d MiB, %.2fx, tables agree"
                      % (tag, name, got["margin"][0], got["margin"][2], got["margin"][1] / 1024, got["duckdb"][0],
                         got["duckdb"][2], got["duckdb"][1] / 1024, got["duckdb"][0] / got["margin"][0]), file=sys.stderr, flush=True)
            results.append((shape, size, nbytes, runs, warm))

    header = ["shape", "entries", "export", "margin s", "margin MiB", "margin CPU s", "DuckDB s", "DuckDB MiB",
              "DuckDB CPU s", "DuckDB ÷ margin", "CPU ratio", "warm-up ratio", "tables"]
    lines = []
    for shape, size, nbytes, runs, warm in results:
        m = [r[0] for r in runs]
        d = [r[1] for r in runs]
        lines.append([shape, size, "%.2f GB" % (nbytes / 1e9) if nbytes >= 1e9 else "%.0f MB" % (nbytes / 1e6),
                      spread([x[0] for x in m], "%.2f"), spread([x[1] / 1024 for x in m], "%.0f"), spread([x[2] for x in m], "%.2f"),
                      spread([x[0] for x in d], "%.2f"), spread([x[1] / 1024 for x in d], "%.0f"), spread([x[2] for x in d], "%.2f"),
                      spread([b[0] / a[0] for a, b in zip(m, d)], "%.2f×"), spread([b[2] / a[2] for a, b in zip(m, d)], "%.2f×"),
                      " ".join("%.2f×" % (b[0] / a[0]) for a, b in warm) or "-",
                      "agree %d/%d" % (len(runs) + len(warm), len(runs) + len(warm))])
    widths = [max(len(h), *(len(l[k]) for l in lines)) for k, h in enumerate(header)]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for l in lines:
        print("  ".join(c.ljust(w) for c, w in zip(l, widths)))
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if k < 3 else "---:" for k in range(len(header))) + "|")
    for l in lines:
        print("| " + " | ".join(l) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
