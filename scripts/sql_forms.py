#!/usr/bin/env python3
"""The input forms of `margin pnl --sql` on the real engines, each against `margin pnl`.

Forms (docs/sql.md, "Sources"): local JSON Lines; CSV; Parquet of the text layout written
by pyarrow; a URI on an S3-compatible server (moto's server on 127.0.0.1, read by
ClickHouse's s3()); typed columns (a DuckDB and a PostgreSQL table of
`--sql-schema D --sql-columns typed`, a typed Parquet dataset partitioned by day read by
DuckDB, ClickHouse and Spark as a directory); `--sql-params` bound on each engine and
compared with margin and with the constant form; and a PostgreSQL view printing
`timestamptz::text` (`+00`), whose rows margin's grammar rejects: the query must say so in
its `rejected` column instead of answering zeros.

Every form runs one case (`--window 30d --now 2026-11-28T10:00:00+08:00 --currency USD`:
the window's two passes, the DeepSeek peak edges, FX), Spark on fewer forms (`--spark`).

Usage: sql_forms.py [--engines duckdb,clickhouse,spark,postgres] [--spark jsonl,csv,parquet,typed,params] [--all] [--keep]
Environment: MARGIN (default .build/debug/margin), PG_BIN.
"""

import argparse
import calendar
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_equality as eq  # noqa: E402

NOW = "2026-11-28T10:00:00+08:00"
NOW_EPOCH = calendar.timegm((2026, 11, 28, 2, 0, 0, 0, 0, 0))
CASE = ["--now", NOW, "--window", "30d", "--currency", "USD"]
SINCE_UNTIL = ["--since", "2026-11-13T01:00:00Z", "--until", "2026-11-27T06:00:00Z", "--credit-value", "CNY 0.005"]
SINCE_EPOCH = calendar.timegm((2026, 11, 13, 1, 0, 0, 0, 0, 0))
UNTIL_EPOCH = calendar.timegm((2026, 11, 27, 6, 0, 0, 0, 0, 0))
CSV_FIELDS = ["id", "at", "kind", "amount", "feature", "refundOf", "reason", "device", "note", "card", "balanceAfter",
              "paymentRef", "price"]
RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


# ---------------------------------------------------------------- the files

def write_csv(export, out, dims):
    """The export as margin's ledger CSV (a header of the JSON names, quantity.<dim>
    columns); a line whose quantity is not an object, or not JSON, is left out."""
    import csv
    rows = 0
    with open(export) as f, open(out, "w", newline="") as w:
        cw = csv.writer(w, lineterminator="\n")
        cw.writerow(CSV_FIELDS + ["quantity." + d for d in dims])
        for line in f:
            if not line.strip():
                continue
            e = json.loads(line, parse_int=str, parse_float=str)
            q = e.get("quantity")
            if q is not None and not isinstance(q, dict):
                continue
            if any(isinstance(e.get(k), (dict, list, bool)) for k in CSV_FIELDS):
                continue
            if q and any(k not in dims or isinstance(v, (dict, list, bool)) for k, v in q.items()):
                continue
            cw.writerow([e.get(k, "") if e.get(k) is not None else "" for k in CSV_FIELDS] +
                        [(q or {}).get(d, "") for d in dims])
            rows += 1
    return rows


def text_parquet(export, out):
    """The export as Parquet of the text layout: the table's 14 columns, each field's JSON
    text (a number's digits, a string's content), NULL for an absent field."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    cols = {c: [] for c, _ in eq.FIELDS}
    with open(eq.csv_of(export)) as f:
        import csv
        for row in csv.reader(f):
            for (c, _), v in zip(eq.FIELDS, row):
                cols[c].append(v if v != "" else None)
    pq.write_table(pa.table({c: pa.array(v, pa.string()) for c, v in cols.items()}), out)


def typed_subset(export, out_jsonl):
    """The lines a typed table can hold (a valid RFC 3339 time, whole amounts, a quantity
    object of numbers), each time written in UTC cut to microseconds (a timestamp column
    holds no more); as JSON Lines for margin, and as rows for the typed sources."""
    rows = []
    with open(export) as f, open(out_jsonl, "w") as w:
        for line in f:
            if not line.strip():
                continue
            e = json.loads(line, parse_float=Decimal)
            m = RFC3339.match(e["at"]) if isinstance(e.get("at"), str) else None
            if not m:
                continue
            y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
            if s > 59 or not (1 <= mo <= 12) or d > calendar.monthrange(y, mo)[1]:
                continue
            frac = (m.group(7) or ".")[1:]
            micros = int((frac + "000000")[:6])
            off = m.group(8)
            off_min = 0 if off in ("Z", "z") else (1 if off[0] == "+" else -1) * (int(off[1:3]) * 60 + int(off[4:6]))
            epoch = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) - off_min * 60

            def whole(v):
                if isinstance(v, bool) or v is None:
                    return None if v is None else False
                if isinstance(v, int):
                    return v
                if isinstance(v, str) and re.fullmatch(r"-?(0|[1-9][0-9]{0,17})", v):
                    return int(v)
                return False
            amount = whole(e.get("amount"))
            balance = whole(e.get("balanceAfter"))
            if amount is False or amount is None or balance is False or abs(amount) >= 2 ** 63:
                continue
            q = e.get("quantity")
            if q is not None:
                if not isinstance(q, dict):
                    continue
                qq = {}
                for k, v in q.items():
                    text = str(v) if isinstance(v, (int, Decimal, str)) and not isinstance(v, bool) else ""
                    if re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]{1,6})?", text):
                        qq[k] = Decimal(text)
                if len(qq) != len(q):
                    continue
                q = qq
            if any(isinstance(e.get(k), (dict, list, bool, int, Decimal)) for k in CSV_FIELDS if k not in ("amount", "balanceAfter")):
                continue
            at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + ".%06dZ" % micros
            e["at"] = at
            w.write(json.dumps(e, default=str, separators=(",", ":")) + "\n")
            rows.append({"id": e.get("id"), "at": (epoch, micros), "kind": e.get("kind"), "amount": amount,
                         "feature": e.get("feature"), "refund_of": e.get("refundOf"), "reason": e.get("reason"),
                         "quantity": q, "device": e.get("device"), "note": e.get("note"), "card": e.get("card"),
                         "balance_after": balance, "payment_ref": e.get("paymentRef"), "price": e.get("price")})
    return rows


def typed_table(rows):
    import datetime
    import pyarrow as pa
    utc = datetime.timezone.utc

    def ts(r):
        epoch, micros = r["at"]
        return datetime.datetime.fromtimestamp(epoch, utc).replace(microsecond=micros)
    cols = {c: [] for c, _ in eq.FIELDS}
    for r in rows:
        for c, _ in eq.FIELDS:
            cols[c].append(r[c])
    types = {"at": pa.timestamp("us", tz="UTC"), "amount": pa.int64(), "balance_after": pa.int64(),
             "quantity": pa.map_(pa.string(), pa.decimal128(38, 6))}
    arrays = {}
    for c, v in cols.items():
        if c == "at":
            arrays[c] = pa.array([ts(r) for r in rows], types[c])
        elif c == "quantity":
            arrays[c] = pa.array([list(q.items()) if q is not None else None for q in v], types[c])
        else:
            arrays[c] = pa.array(v, types.get(c, pa.string()))
    return pa.table(arrays)


def write_typed_parquet(rows, single, folder):
    """One file, and a folder partitioned by day (`day=YYYY-MM-DD/part-0.parquet`)."""
    import pyarrow.parquet as pq
    table = typed_table(rows)
    pq.write_table(table, single)
    by_day = {}
    for i, r in enumerate(rows):
        by_day.setdefault(time.strftime("%Y-%m-%d", time.gmtime(r["at"][0])), []).append(i)
    for day, idx in sorted(by_day.items()):
        os.makedirs(os.path.join(folder, "day=" + day), exist_ok=True)
        pq.write_table(table.take(idx), os.path.join(folder, "day=" + day, "part-0.parquet"))
    return len(by_day)


# ---------------------------------------------------------------- S3 (moto)

class S3Server:
    """moto's S3-compatible server on 127.0.0.1 (a free port), stopped at the end."""

    def __init__(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        exe = os.path.join(os.path.dirname(sys.executable), "moto_server")
        self.log = tempfile.NamedTemporaryFile(prefix="margin-moto-", suffix=".log", delete=False)
        self.p = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(self.port)], stdout=self.log, stderr=self.log)
        self.url = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        # The query names no keys (the URI as given): ClickHouse's s3() takes them from the
        # environment, as a server's would; moto accepts any.
        os.environ.update(AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_REGION="us-east-1")
        import boto3
        self.s3 = boto3.client("s3", endpoint_url=self.url, aws_access_key_id="test", aws_secret_access_key="test",
                               region_name="us-east-1")

    def put_folder(self, bucket, folder, prefix):
        self.s3.create_bucket(Bucket=bucket)
        n = 0
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                self.s3.upload_file(path, bucket, prefix + "/" + os.path.relpath(path, folder))
                n += 1
        return n

    def close(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


# ---------------------------------------------------------------- the run

def run_form(engine, name, form, margin_path, source, opts, results, params=None, expect=None):
    """The engine's table for `source` against margin pnl over `margin_path`."""
    report = json.loads(eq.margin(["pnl", margin_path, "--format", "json"] + opts).stdout)
    p = eq.margin(["pnl", "--sql", name] + source + opts + (["--sql-params"] if params else []))
    if p.returncode != 0:
        print("FAIL %s %s: margin --sql exit %d: %s" % (name, form, p.returncode, p.stderr.strip()))
        results[(name, form)] = "error"
        return 1
    query = p.stdout
    scale, exact = eq.header_scale(query)
    t = time.time()
    try:
        rows = engine_run(engine, name, query, params)
    except Exception as e:
        print("FAIL %s %s: %s" % (name, form, str(e)[:600]))
        results[(name, form)] = "error"
        return 1
    problems = eq.compare(name, form, rows, report, scale, exact)
    rejected = sorted({int(r[-1]) for r in rows})
    status = "equal" if not problems else "not equal"
    results[(name, form)] = "%s (%d rows, rejected %s, %.1f s)" % (status, len(rows), ",".join(map(str, rejected)), time.time() - t)
    print("%s %s %s: %d rows, rejected %s, %.1f s" % ("ok  " if not problems else "FAIL", name, form, len(rows), rejected,
                                                     time.time() - t), flush=True)
    for pr in problems[:10]:
        print("     " + pr)
    return 1 if problems else 0


def engine_run(engine, name, query, params):
    if not params:
        return engine.run(query)
    body = query.rstrip().rstrip(";")
    if name == "duckdb":
        return [list(r) for r in engine.con.execute(body, params).fetchall()]
    if name == "clickhouse":
        import csv
        import io
        out = engine.chdb.query(body, "CSV", params=params)
        return [r for r in csv.reader(io.StringIO(out.data()))]
    if name == "spark":
        return [list(r) for r in engine.s.sql(body, args=params).collect()]
    # PostgreSQL: PREPARE with $1…, EXECUTE with the values in the header's order.
    names = [n.strip().split(" = ")[1] for n in
             query.split("-- parameters: ")[1].split(" (64-bit")[0].split(",")]
    stmt = "PREPARE pnl(%s) AS %s;\nEXECUTE pnl(%s);\n" % (", ".join("bigint" for _ in names), body,
                                                           ", ".join(str(params[n]) for n in names))
    return engine.run(stmt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="duckdb,clickhouse,spark,postgres")
    ap.add_argument("--spark", default="typed,params", help="the forms Spark runs (each query takes Spark 30-110 s)")
    ap.add_argument("--all", action="store_true",
                    help="also local JSON Lines on ClickHouse and Spark (scripts/sql-equality runs it on every case)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="margin-sql-forms-")
    cards = os.path.join(work, "cards")
    eq.make_osg_repo(cards)
    osg = ["--cards", cards, "--card", "osg"]
    text, _ = eq.osg_export(7, conflicts=False)
    export = os.path.join(work, "osg.jsonl")
    with open(export, "w") as f:
        f.write(text)
    dims = ["inputTokens", "outputTokens", "passage", "second"]
    csv_path = os.path.join(work, "osg.csv")
    csv_rows = write_csv(export, csv_path, dims)
    parquet = os.path.join(work, "osg-text.parquet")
    text_parquet(export, parquet)
    typed_jsonl = os.path.join(work, "osg-typed.jsonl")
    rows = typed_subset(export, typed_jsonl)
    typed_single = os.path.join(work, "osg-typed.parquet")
    typed_dir = os.path.join(work, "typed-by-day")
    days = write_typed_parquet(rows, typed_single, typed_dir)
    print("files: %d CSV rows, %d typed rows in %d day partitions" % (csv_rows, len(rows), days), flush=True)
    engines = {"duckdb": eq.DuckDB, "clickhouse": eq.ClickHouse, "spark": eq.Spark, "postgres": eq.Postgres}
    results, failures, times = {}, 0, {}
    s3 = None
    if "clickhouse" in args.engines.split(","):
        t = time.time()
        s3 = S3Server()
        n = s3.put_folder("ledger", typed_dir, "entries")
        s3.s3.upload_file(export, "ledger", "jsonl/osg.jsonl")
        print("moto S3 on %s: %d objects (%.1f s)" % (s3.url, n + 1, time.time() - t), flush=True)
    spark_forms = set(args.spark.split(","))
    try:
        for name in args.engines.split(","):
            t0 = time.time()
            engine = engines[name](work)
            try:
                def want(form):
                    if form == "jsonl" and name in ("clickhouse", "spark") and not args.all:
                        return False
                    return name != "spark" or form in spark_forms
                forms = []
                if want("jsonl"):
                    if name == "postgres":
                        engine.load("ledger_text", export)
                        forms.append(("local JSONL (as a text table)", export, ["--table", "ledger_text"], None))
                    else:
                        forms.append(("local JSONL", export, [export], None))
                if name != "postgres" and want("csv"):
                    forms.append(("CSV", csv_path, [csv_path], None))
                if name != "postgres" and want("parquet"):
                    forms.append(("Parquet (text)", export, [parquet], None))
                if name == "clickhouse":
                    forms.append(("S3 URI, typed Parquet by day (s3())", typed_jsonl,
                                  ["--input-format", "parquet", "--sql-columns", "typed",
                                   s3.url + "/ledger/entries/day=*/*.parquet"], None))
                    forms.append(("S3 URI, JSON Lines (s3())", export,
                                  ["--input-format", "jsonl", s3.url + "/ledger/jsonl/osg.jsonl"], None))
                if want("typed"):
                    if name in ("duckdb", "postgres"):
                        load_typed(engine, name, typed_single, rows)
                        forms.append(("typed table", typed_jsonl, ["--table", "ledger_typed", "--sql-columns", "typed"], None))
                    if name != "postgres":
                        glob = typed_dir if name == "spark" else typed_dir + "/*/*.parquet"
                        forms.append(("typed Parquet, a folder by day", typed_jsonl,
                                      ["--sql-columns", "typed", "--input-format", "parquet", glob], None))
                if want("params"):
                    src = ["--table", "ledger_text"] if name == "postgres" else [export]
                    if name == "postgres" and not want("jsonl"):
                        engine.load("ledger_text", export)
                    forms.append(("parameters (now)", export, src, {"now": NOW_EPOCH}))
                    if name != "spark":
                        forms.append(("parameters (since, until)", export, src,
                                      {"since": SINCE_EPOCH, "until": UNTIL_EPOCH}))
                for form, margin_path, source, params in forms:
                    opts = osg + (SINCE_UNTIL if params and "since" in params else CASE)
                    failures += run_form(engine, name, form, margin_path, source, opts, results, params)
                if name == "postgres":
                    failures += run_offset_view(engine, rows, osg, results)
            finally:
                if hasattr(engine, "close"):
                    engine.close()
            times[name] = time.time() - t0
            print("   %s: %.1f s" % (name, times[name]), flush=True)
    finally:
        if s3:
            s3.close()
    names = args.engines.split(",")
    forms_all = []
    for (_, f) in results:
        if f not in forms_all:
            forms_all.append(f)
    print("\n| form | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for f in forms_all:
        print("| %s | " % f + " | ".join(results.get((n, f), "-") for n in names) + " |")
    print("\ntimes: " + ", ".join("%s %.1f s" % (n, t) for n, t in times.items()))
    if args.keep:
        print("work folder:", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    print("\n%s" % ("all equal" if failures == 0 else "%d failures" % failures))
    return 1 if failures else 0


def load_typed(engine, name, parquet, rows):
    schema = eq.margin(["pnl", "--sql-schema", name, "--table", "ledger_typed", "--sql-columns", "typed"]).stdout
    if name == "duckdb":
        engine.con.execute("DROP TABLE IF EXISTS ledger_typed")
        engine.con.execute(schema)
        engine.con.execute("INSERT INTO ledger_typed SELECT %s FROM read_parquet(?)" % ", ".join(
            '"%s"' % c for c, _ in eq.FIELDS), [parquet])
        return
    # PostgreSQL: \copy of CSV, the time as ISO text (timestamptz), the quantity as JSON.
    out = parquet + ".pg.csv"
    import csv
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        for r in rows:
            cells = []
            for c, _ in eq.FIELDS:
                v = r[c]
                if c == "at":
                    v = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(v[0])) + ".%06dZ" % v[1]
                elif c == "quantity" and v is not None:
                    v = "{" + ",".join('"%s":%s' % (k, format(x, "f")) for k, x in v.items()) + "}"
                cells.append("" if v is None else str(v))
            w.writerow(cells)
    engine.psql(["-c", "DROP VIEW IF EXISTS ledger_offsets"])
    engine.psql(["-c", "DROP TABLE IF EXISTS ledger_typed"])
    engine.psql([], stdin=schema)
    engine.psql(["-c", "\\copy ledger_typed FROM '%s' WITH (FORMAT csv)" % out])


def run_offset_view(engine, rows, osg, results):
    """A text-layout view over the typed table with `at::text` (PostgreSQL prints `+00`):
    margin's grammar rejects every such time, so the query must say how many rows it
    rejected, not answer zeros in silence."""
    cols = ", ".join('"%s"::text AS "%s"' % (c, c) if c != "quantity" else '"quantity"' for c, _ in eq.FIELDS)
    engine.psql(["-c", "CREATE OR REPLACE VIEW ledger_offsets AS SELECT %s FROM ledger_typed" % cols])
    sample = engine.run("SELECT at FROM ledger_offsets LIMIT 1")[0][0]
    q = eq.margin(["pnl", "--sql", "postgres", "--table", "ledger_offsets"] + osg).stdout
    got = engine.run(q)
    rejected = {int(r[-1]) for r in got}
    charges = sum(int(r[1]) for r in got)
    ok = rejected == {len(rows)} and charges == 0
    label = "view with at::text (%s)" % sample[-3:]
    results[("postgres", label)] = ("says rejected %d of %d rows" % (min(rejected), len(rows))) if ok else "SILENT"
    print("%s postgres %s: at prints %r; %d charges, rejected %s of %d rows" % ("ok  " if ok else "FAIL", label, sample,
                                                                              charges, sorted(rejected), len(rows)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
