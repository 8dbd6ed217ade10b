#!/usr/bin/env python3
"""Runs `margin pnl --sql` and `--sql-audit` on the real engines and checks each engine's
table against `margin pnl --format json`, field by field.

Engines: DuckDB, chdb (ClickHouse in-process), pyspark (local[2]) and PostgreSQL (a
server started on a Unix socket in a temporary directory, stopped at the end). The cases
are generated here, deterministically: two versions of the OSG card (the second with a
provider that bills in started 15-second increments with a 30-second minimum), DeepSeek
peak/off-peak boundaries written in several offsets, duplicates spelled differently,
refunds (good, of unknown charges, of another feature, of a revoke, twice, larger than the
charge), revokes (valid, spelled twice, and rejected: positive, zero, without a paymentRef
or with an empty one), rejected lines of every class, unknown features, FX into USD and GBP, and an export of
Benchmarks/generate_takings.py priced by the voice card.

Without a window, the query's `rejected` column must equal the number of lines margin
rejects for what they are (its line classes); with one, the query checks only the rows near
the window, so it is not compared.

Money: where the query's header says the scale is exact, the engine's decimal must equal
margin's exact value; otherwise both round half-even at 12 places (margin's JSON for a
figure that never ends) and must agree digit for digit. A margin figure longer than the
query's scale that ends in 5000… there is reported as undecidable, never passed.

Usage: sql_equality.py [--engines duckdb,clickhouse,spark,postgres] [--spark-cases N] [--cases A,B] [--keep]
Environment: MARGIN (default .build/debug/margin), PG_BIN (default: the newest
/usr/lib/postgresql/*/bin).
"""

import argparse
import csv
import glob
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARGIN = os.environ.get("MARGIN", os.path.join(ROOT, ".build", "debug", "margin"))
COLUMNS = [("feature", "feature"), ("charges", "charges"), ("charged", "charged"), ("declines", "declines"),
           ("given_back", "givenBack"), ("left_credits", "left"), ("metered_cost", "meteredCost"), ("value", "value"),
           ("profit", "profit"), ("fixed_cost", "fixedCost")]
MONEY = {"metered_cost", "value", "profit", "fixed_cost"}
# The classes of a line rejected for itself (not for what other lines say): the rows the
# query's `rejected` column counts (malformed and truncated lines never reach an engine).
LINE = {"missing-field", "bad-value", "bad-timestamp", "unknown-kind", "fractional-amount",
        "amount-out-of-range", "wrong-sign", "wrong-type", "malformed-json", "truncated"}
FIELDS = [("id", "id"), ("at", "at"), ("kind", "kind"), ("amount", "amount"), ("feature", "feature"), ("refund_of", "refundOf"),
          ("reason", "reason"), ("quantity", "quantity"), ("device", "device"), ("note", "note"), ("card", "card"),
          ("balance_after", "balanceAfter"), ("payment_ref", "paymentRef"), ("price", "price")]


# ---------------------------------------------------------------- the cases

def osg_v11(v10):
    card = json.loads(v10)
    card["version"] = 11
    card["effective"] = "2026-11-20T00:00:00+08:00"
    card["title"] = "OSG V11 (test: ASR per started 2 s on a provider billing 15 s increments, 30 s minimum)"
    for f in card["features"]:
        if f["key"] == "asr":
            f["dimensions"][0]["per"] = 2
            f["dimensions"][0]["cost"] = {"provider": "test-asr-increments", "meter": "audio"}
        if f["key"] == "llm":
            f["dimensions"][1]["per"] = 500
    card["features"].append({"key": "summary", "name": "Summary on the device", "dimensions": [
        {"name": "passage", "unit": "passage", "credits": 2, "per": 1, "rounding": "exact", "cost": {"none": "runs on the device"}}]})
    return json.dumps(card, indent=1)


PROVIDER = {
    "kind": "provider", "id": "test-asr-increments", "name": "Test ASR billed per started 15 s", "currency": "CNY",
    "reviewed": "2026-11-20", "source": "https://example.invalid/test",
    "meters": [{"key": "audio", "unit": "second", "per": "3600", "price": "4.8", "increment": "15", "minimum": "30"}],
}


def make_osg_repo(folder):
    os.makedirs(os.path.join(folder, "providers"))
    src = os.path.join(ROOT, "RateCards")
    for name in ["osg-v10.json", "fx.json", "commission.json"]:
        shutil.copy(os.path.join(src, name), folder)
    for p in glob.glob(os.path.join(src, "providers", "*.json")):
        shutil.copy(p, os.path.join(folder, "providers"))
    with open(os.path.join(src, "osg-v10.json")) as f:
        v11 = osg_v11(f.read())
    with open(os.path.join(folder, "osg-v11.json"), "w") as f:
        f.write(v11)
    with open(os.path.join(folder, "providers", "test-asr-increments.json"), "w") as f:
        json.dump(PROVIDER, f, indent=1)


OFFSETS = [("Z", 0), ("+08:00", 480), ("-05:00", -300), ("+05:30", 330), ("+09:45", 585), ("-08:00", -480)]


def rfc3339(epoch, nanos, offset):
    name, minutes = offset
    t = time.gmtime(epoch + minutes * 60)
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % t[:6]
    if nanos:
        s += ("." + "%09d" % nanos).rstrip("0")
    return s + name


def epoch_of(y, mo, d, h=0, mi=0, s=0, offset_minutes=0):
    import calendar
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) - offset_minutes * 60


def osg_export(seed, conflicts):
    """Lines (text) and the ids the charge audit must find, by reason."""
    rng = random.Random(seed)
    lines, planted = [], {"price-mismatch": set(), "metered-without-quantity": set(), "refund-exceeds-charge": set()}
    entries = []

    def emit(e, spelled=None):
        lines.append(spelled if spelled is not None else json.dumps(e, separators=(",", ":")))

    def price(feature, q, v11):
        if feature == "asr":
            per = 2 if v11 else 3
            return -(-q["second"] // per)
        if feature == "llm":
            out = 500 if v11 else 400
            return -(-q.get("inputTokens", 0) // 1000) + -(-q.get("outputTokens", 0) // out)
        return 1
    # Instants: around the DeepSeek peak edges (09:00, 12:00, 14:00, 18:00 at +08:00) on a
    # Friday and a Saturday, either side of the V11 effective time, and at random.
    base = []
    for day in [(2026, 11, 13), (2026, 11, 14), (2026, 11, 19), (2026, 11, 20), (2026, 11, 27), (2026, 11, 28)]:
        for hh, mm in [(9, 0), (12, 0), (14, 0), (18, 0), (0, 0)]:
            t = epoch_of(*day, hh, mm, 0, 480)
            base += [(t, 0), (t - 1, 999999999), (t, 1)]
    for _ in range(260):
        base.append((epoch_of(2026, 11, 1) + rng.randrange(0, 30 * 86400), rng.choice([0, 0, 0, 500000000, 123456789])))
    n = 0
    charges = []
    for t, nanos in base:
        n += 1
        at = rfc3339(t, nanos, rng.choice(OFFSETS))
        v11 = (t, nanos) >= (epoch_of(2026, 11, 20, 0, 0, 0, 480), 0)
        r = rng.random()
        if r < 0.45:
            q = {"second": rng.choice([1, 7, 15, 29, 30, 31, 76, 600])}
            e = {"id": "c%04d" % n, "at": at, "kind": "charge", "feature": "asr", "quantity": q}
            e["amount"] = -price("asr", q, v11)
        elif r < 0.8:
            q = {"inputTokens": rng.choice([0, 1, 999, 1200, 4000]), "outputTokens": rng.choice([1, 300, 401, 1000])}
            if rng.random() < 0.2:
                q["inputTokens"] = "%d.5" % q["inputTokens"]
            e = {"id": "c%04d" % n, "at": at, "kind": "charge", "feature": "llm", "quantity": q}
            qq = {k: int(float(v)) + (1 if isinstance(v, str) else 0) for k, v in q.items()}
            e["amount"] = -price("llm", qq, v11)
        elif r < 0.85:
            e = {"id": "g%04d" % n, "at": at, "kind": "grant", "amount": 1000, "note": "signup"}
        elif r < 0.9:
            e = {"id": "t%04d" % n, "at": at, "kind": "topup", "amount": 3000, "paymentRef": "apple-%d" % n, "price": "USD 2.99"}
        else:
            e = {"id": "c%04d" % n, "at": at, "kind": "charge", "feature": rng.choice(["summary", "mystery"]), "amount": -2}
            if e["feature"] == "summary" and v11:
                e["quantity"] = {"passage": 1}
        if e["kind"] == "charge" and e["feature"] in ("asr", "llm") and rng.random() < 0.05:
            e["amount"] -= 1
            planted["price-mismatch"].add(e["id"])
        if e["kind"] == "charge" and e["feature"] == "llm" and rng.random() < 0.04:
            del e["quantity"]
            planted["metered-without-quantity"].add(e["id"])
            planted["price-mismatch"].discard(e["id"])
        emit(e)
        entries.append(e)
        if e["kind"] == "charge":
            charges.append(e)
    # Refunds: a few seconds to days later, some across the window edges.
    for c in rng.sample(charges, 40):
        n += 1
        t = epoch_of(2026, 11, 1) + rng.randrange(0, 30 * 86400)
        e = {"id": "r%04d" % n, "at": rfc3339(t, 0, rng.choice(OFFSETS)), "kind": "refund", "feature": c["feature"],
             "refundOf": c["id"], "amount": -c["amount"], "reason": rng.choice(["notUsable", "notNeeded"])}
        if rng.random() < 0.1:
            e["amount"] += 5
            planted["refund-exceeds-charge"].add(e["id"])
        emit(e)
        if rng.random() < 0.15:
            n += 1
            again = dict(e, id="r%04d" % n)
            emit(again)
            if again["amount"] > -c["amount"]:
                planted["refund-exceeds-charge"].add(again["id"])
    # Revokes (credits taken back after an Apple refund): about half the top-ups' purchases,
    # some days later, of part or all of the credits; a few spelled again differently (keys
    # reversed, the amount as a string), one with a feature (margin ignores it), and
    # further below the ones margin rejects and a refund that names a revoke. Their own
    # generator, so the draws above and below are those of the export without revokes.
    rv = random.Random(seed + 1000)
    revokes = []
    for t in [e for e in entries if e["kind"] == "topup"]:
        if rv.random() < 0.5:
            n += 1
            at = epoch_of(2026, 11, 1) + rv.randrange(0, 30 * 86400)
            e = {"id": "v%04d" % n, "at": rfc3339(at, rv.choice([0, 250000000]), rv.choice(OFFSETS)), "kind": "revoke",
                 "amount": -rv.choice([1, 500, 2999, 3000]), "paymentRef": t["paymentRef"], "device": "d%d" % rv.randrange(5)}
            if rv.random() < 0.3:
                e["balanceAfter"] = rv.randrange(0, 100)
            if rv.random() < 0.2:
                e["feature"] = "asr"
            emit(e)
            revokes.append(e)
    for e in rv.sample(revokes, min(3, len(revokes))):
        d = dict(reversed(list(e.items())))
        d["amount"] = str(e["amount"])
        emit(d)
    if revokes:
        emit({"id": "rx5", "at": "2026-11-21T10:00:00Z", "kind": "refund", "feature": "asr", "refundOf": revokes[0]["id"], "amount": 1})
    emit({"id": "rx1", "at": "2026-11-21T10:00:00Z", "kind": "refund", "feature": "asr", "refundOf": "nope", "amount": 3})
    llm = next(e for e in entries if e["kind"] == "charge" and e["feature"] == "llm")
    emit({"id": "rx2", "at": "2026-11-21T10:00:00Z", "kind": "refund", "feature": "asr", "refundOf": llm["id"], "amount": 3})
    grant = next(e for e in entries if e["kind"] == "grant")
    emit({"id": "rx3", "at": "2026-11-21T10:00:00Z", "kind": "refund", "feature": "asr", "refundOf": grant["id"], "amount": 3})
    # Two ids that DuckDB's hash gives one value: each is one entry, though DuckDB's table
    # query picks them as if they were copies of one id; one of them refunded.
    twin = next(e for e in charges if e["feature"] == "asr" and "quantity" in e and e["id"] not in planted["price-mismatch"])
    for i in ("988fb60f-0000007", "988fb696-0000056"):
        emit(dict(twin, id=i))
    emit({"id": "rx4", "at": twin["at"], "kind": "refund", "feature": "asr", "refundOf": "988fb696-0000056",
          "amount": -twin["amount"]})
    # Duplicates spelled differently: keys reversed, the amount as a string, another offset,
    # 76 as 76.0; and blank lines.
    for e in rng.sample(entries, 30):
        d = dict(reversed(list(e.items())))
        d["amount"] = str(e["amount"])
        if "quantity" in d:
            d["quantity"] = {k: (str(v) + ".0" if isinstance(v, int) else v) for k, v in d["quantity"].items()}
        emit(d)
    lines.append("")
    # Rejected lines, one of each class.
    bad = [
        '{"id":"b1","at":"2026-11-21T10:00:00","kind":"charge","amount":-1,"feature":"asr"}',
        '{"id":"b2","at":"2026-02-30T10:00:00Z","kind":"charge","amount":-1,"feature":"asr"}',
        '{"id":"b3","at":"2026-11-21T10:00:00Z","kind":"spend","amount":-1,"feature":"asr"}',
        '{"id":"b4","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-1.5,"feature":"asr"}',
        '{"id":"b5","at":"2026-11-21T10:00:00Z","kind":"charge","amount":1,"feature":"asr"}',
        '{"id":"b6","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-1}',
        '{"at":"2026-11-21T10:00:00Z","kind":"charge","amount":-1,"feature":"asr"}',
        # More lines without an id, one twice: never one entry, whatever their copies.
        '{"at":"2026-11-22T10:00:00Z","kind":"grant","amount":7}',
        '{"at":"2026-11-22T10:00:00Z","kind":"grant","amount":7}',
        '{"id":"b8","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-1,"feature":"asr","quantity":{"second":-3}}',
        '{"id":"b9","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-12345678901234567890,"feature":"asr"}',
        '{"id":"","at":"2026-11-21T10:00:00Z","kind":"grant","amount":5}',
        '{"id":"b11","at":"2026-11-21T10:00:00Z","kind":"refund","amount":5,"feature":"asr"}',
        # margin's wrong-type cases the engines' readers can still tell from the text.
        '{"id":"w1","at":"2026-11-21T10:00:00Z","kind":"charge","amount":{"credits":1},"feature":"asr"}',
        '{"id":"w2","at":"2026-11-21T10:00:00Z","kind":"charge","amount":"-abc","feature":"asr"}',
        '{"id":"w3","at":"2026-11-21T10:00:00Z","kind":"charge","amount":"-05","feature":"asr"}',
        '{"id":"w4","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-3,"feature":"asr","quantity":"76"}',
        '{"id":"w5","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-3,"feature":"asr","quantity":{"second":true}}',
        '{"id":"w6","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-3,"feature":"asr","quantity":{"second":"7x"}}',
        '{"id":"w7","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-3,"feature":"asr","quantity":{"second":"07"}}',
        '{"id":"w8","at":"2026-11-21T10:00:00Z","kind":"grant","amount":5,"balanceAfter":[5]}',
        '{"id":"v1","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-3,"feature":"asr","quantity":{"second":"1e3"}}',
        # Revokes margin rejects: positive or zero (wrong-sign), without a paymentRef, with an
        # empty or null one (missing-field), with an empty feature (bad-value).
        '{"id":"vb1","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":500,"paymentRef":"apple-1"}',
        '{"id":"vb2","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":0,"paymentRef":"apple-1"}',
        '{"id":"vb3","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-500}',
        '{"id":"vb4","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-500,"paymentRef":""}',
        '{"id":"vb5","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-500,"paymentRef":null,"device":"d1"}',
        '{"id":"vb6","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-500,"paymentRef":"apple-1","feature":""}',
        '{"id":"vb7","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":"-5.0","paymentRef":"apple-1"}',
    ]
    lines.extend(bad)
    if conflicts:
        for e in rng.sample([e for e in entries if e["kind"] == "charge"], 3):
            lines.append(json.dumps(dict(e, amount=e["amount"] - 7), separators=(",", ":")))
        # A revoke whose copy takes back another amount.
        v = next(e for e in entries if e["kind"] == "topup")
        lines.append('{"id":"v-conflict","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-30,"paymentRef":"%s"}' % v["paymentRef"])
        lines.append('{"id":"v-conflict","at":"2026-11-21T10:00:00Z","kind":"revoke","amount":-31,"paymentRef":"%s"}' % v["paymentRef"])
        # A metered charge in a dimension its feature does not have: margin cannot cost it.
        lines.append('{"id":"odd1","at":"2026-11-21T10:00:00Z","kind":"charge","amount":-2,"feature":"llm","quantity":{"inputTokens":5,"images":1}}')
    return "\n".join(lines) + "\n", planted


# ---------------------------------------------------------------- margin

def margin(args, expect_ok=True):
    p = subprocess.run([MARGIN] + args, capture_output=True, text=True)
    if expect_ok and p.returncode not in (0, 1):
        raise RuntimeError("margin %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def header_scale(query):
    for line in query.splitlines():
        if line.startswith("-- money columns: DECIMAL(38, "):
            scale = int(line.split("DECIMAL(38, ")[1].split(")")[0])
            return scale, ", exact" in line
    raise RuntimeError("no money header in the query")


def fraction(text):
    text = str(text).strip()
    if "/" in text:
        n, d = text.split("/")
        return Fraction(int(n), int(d))
    return Fraction(Decimal(text))


def round_half_even(x, scale):
    q = x * 10 ** scale
    f = q.numerator // q.denominator
    r = q - f
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and f % 2 == 1):
        f += 1
    return Fraction(f, 10 ** scale)


def expected_money(text, scale, exact):
    """margin's figure as the query must give it, or None when it cannot be decided."""
    v = fraction(text)
    if exact or "/" in text:
        return v if exact else round_half_even(v, scale)
    frac = text.split(".")[1] if "." in text else ""
    if len(frac) >= 38 and frac[scale:] == "5" + "0" * (len(frac) - scale - 1):
        return None
    return round_half_even(v, scale)


def line_rejections(report, other_feature=0):
    """The lines margin rejects for what they are: what the query's `rejected` column counts
    when it reads every row in full, or None when margin's run has a window (the query then
    checks only the rows near it). margin counts a refund of a charge of another feature as
    `bad-value` too, a line class, though it is rejected for what another line says: the
    caller gives how many of those there are (`other_feature`)."""
    if report["window"]["since"] is not None or report["window"]["until"] is not None:
        return None
    return sum(v for k, v in report["input"]["rejectedByClass"].items()
               if k in LINE and k not in ("malformed-json", "truncated")) - other_feature


def other_feature_refunds(path):
    """How many refunds of the export name a charge of another feature (the export's
    refunds and the charges they name are written validly: margin's relational
    `bad-value`)."""
    charges, refunds = {}, []
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e, dict) and e.get("kind") == "charge" and isinstance(e.get("id"), str):
                charges.setdefault(e["id"], e.get("feature"))
            elif isinstance(e, dict) and e.get("kind") == "refund":
                refunds.append(e)
    return sum(1 for r in refunds if r.get("refundOf") in charges and charges[r["refundOf"]] != r.get("feature"))


def compare(engine, case, rows, report, scale, exact, rejected=None):
    """Problems (empty when the engine's table equals margin's). `rejected`: the count the
    query's last column must say (None: not compared, as with a window, where the query
    checks only the rows near it)."""
    problems = []
    features = report["features"]
    if "periods" in report:
        # With --by, one row per period and feature, the period first.
        features = [dict(f, period=p["period"]) for p in report["periods"] for f in p["features"]]
        for row, f in zip(rows, features):
            if str(row[0]) != f["period"]:
                problems.append("%s: period %s, margin %s" % (f["feature"], row[0], f["period"]))
        rows = [r[1:] for r in rows]
    if len(rows) != len(features):
        problems.append("%d rows, margin has %d" % (len(rows), len(features)))
    for row, f in zip(rows, features):
        for i, (col, key) in enumerate(COLUMNS):
            got, want = row[i], f[key]
            if col == "feature":
                ok = str(got) == want
            elif col in MONEY:
                exp = expected_money(want, scale, exact)
                if exp is None:
                    problems.append("%s.%s: margin's %s is a tie at scale %d: undecidable" % (f["feature"], col, want, scale))
                    continue
                ok = fraction(got) == exp
            else:
                ok = int(got) == int(want)
            if not ok:
                problems.append("%s.%s: engine %s, margin %s" % (f["feature"], col, got, want))
        if rejected is not None and int(row[len(COLUMNS)]) != rejected:
            problems.append("%s.rejected: engine %s, margin %d lines rejected for what they are" % (f["feature"], row[len(COLUMNS)], rejected))
    return problems


# ---------------------------------------------------------------- the engines

class DuckDB:
    name = "duckdb"

    def __init__(self, work):
        import duckdb
        self.con = duckdb.connect()
        self.con.execute("SET threads TO 2")

    def load(self, table, path):
        # A quoted empty cell is an empty string (an empty id or feature, which margin
        # rejects), not NULL (an absent field); an unquoted one is NULL.
        self.con.execute("DROP TABLE IF EXISTS %s" % table)
        self.con.execute(schema("duckdb", table))
        self.con.execute("INSERT INTO %s SELECT * FROM read_csv(?, header = false, all_varchar = true, allow_quoted_nulls = false, columns = {%s})"
                         % (table, ", ".join("'%s': 'VARCHAR'" % c for c, _ in FIELDS)), [csv_of(path)])

    def run(self, query):
        return [list(r) for r in self.con.sql(query).fetchall()]


class ClickHouse:
    name = "clickhouse"

    def __init__(self, work):
        import chdb
        self.chdb = chdb

    def run(self, query):
        out = self.chdb.query(query, "CSV")
        text = out.data() if hasattr(out, "data") else str(out)
        return [r for r in csv.reader(io.StringIO(text))]


# Spark 4.3's optimizer holds the whole plan of one of these queries on the driver; with the
# default 1 GB it ran out of heap planning the `--costs --by week` and voice cases.
SPARK_DRIVER_MEMORY = os.environ.get("SPARK_DRIVER_MEMORY", "4g")


class Spark:
    name = "spark"

    def __init__(self, work):
        from pyspark.sql import SparkSession
        self.s = (SparkSession.builder.master("local[2]").appName("margin-sql-equality")
                  .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                  .config("spark.sql.ansi.enabled", "true").config("spark.sql.shuffle.partitions", "4")
                  .config("spark.driver.memory", SPARK_DRIVER_MEMORY).getOrCreate())
        self.s.sparkContext.setLogLevel("OFF")

    def run(self, query):
        return [list(r) for r in self.s.sql(query.rstrip().rstrip(";")).collect()]

    def close(self):
        self.s.stop()


class Postgres:
    name = "postgres"

    def __init__(self, work):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        self.bin = os.environ.get("PG_BIN") or (bins[-1] if bins else "")
        if not os.path.exists(os.path.join(self.bin, "initdb")):
            raise RuntimeError("PostgreSQL server binaries not found (set PG_BIN or install postgresql)")
        self.dir = tempfile.mkdtemp(prefix="margin-pg-")
        os.chmod(self.dir, 0o777)
        self.user = []
        if os.geteuid() == 0:
            self.user = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.user + [os.path.join(self.bin, "initdb"), "-D", self.dir + "/data", "-A", "trust", "-U", "postgres"],
                       check=True, capture_output=True)
        subprocess.run(self.user + [os.path.join(self.bin, "pg_ctl"), "-D", self.dir + "/data", "-l", self.dir + "/log", "-w",
                                    "-o", "-k %s -c listen_addresses='' -c fsync=off" % self.dir, "start"], check=True, capture_output=True)

    def psql(self, args, stdin=None):
        p = subprocess.run(["psql", "-h", self.dir, "-U", "postgres", "-X", "-q", "-v", "ON_ERROR_STOP=1"] + args,
                           input=stdin, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip())
        return p.stdout

    def load(self, table, path):
        self.psql(["-c", "DROP TABLE IF EXISTS %s" % table])
        self.psql([], stdin=schema("postgres", table))
        self.psql(["-c", "\\copy %s FROM '%s' WITH (FORMAT csv)" % (table, csv_of(path))])

    def run(self, query):
        out = self.psql(["--csv", "-f", "-"], stdin=query)
        rows = list(csv.reader(io.StringIO(out)))
        return rows[1:]

    def close(self):
        subprocess.run(self.user + [os.path.join(self.bin, "pg_ctl"), "-D", self.dir + "/data", "-m", "fast", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def schema(dialect, table):
    return margin(["pnl", "--sql-schema", dialect, "--table", table]).stdout


def csv_of(path):
    """The export as CSV rows of the documented schema (NULL unquoted, text quoted)."""
    out = path + ".csv"
    if not os.path.exists(out):
        write_schema_csv(path, out)
    return out


def write_schema_csv(path, out, raw_quantity=False):
    """Writes the export at `path` to `out` as CSV rows of the schema (docs/sql.md): each
    JSON object line's fields in `FIELDS` order, NULL unquoted and the rest quoted, a
    number's digits as written. `quantity` is re-serialised (its numbers as strings), or
    with `raw_quantity` the object's text as written, as a loader that copies it would."""
    dec = json.JSONDecoder()
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
        for line in f:
            if not line.strip():
                continue
            try:
                e = json.loads(line, parse_int=str, parse_float=str)
            except ValueError:
                continue
            if not isinstance(e, dict):
                continue
            cells = []
            for _, key in FIELDS:
                v = e.get(key)
                if v is None:
                    cells.append("")
                    continue
                if raw_quantity and key == "quantity" and isinstance(v, (dict, list)):
                    k = line.find('"quantity":')
                    v = line[k + 11:k + 11 + dec.raw_decode(line[k + 11:])[1]]
                elif isinstance(v, (dict, list)):
                    v = json.dumps(v)
                elif isinstance(v, bool):
                    v = "true" if v else "false"
                cells.append('"' + str(v).replace('"', '""') + '"')
            w.write(",".join(cells) + "\n")


# ---------------------------------------------------------------- the run

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="duckdb,clickhouse,spark,postgres")
    ap.add_argument("--spark-cases", type=int, default=99, help="run Spark on the first N cases only")
    ap.add_argument("--cases", help="run only these cases (comma-separated names; the conflicts and audit checks always run)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="margin-sql-")
    cards = os.path.join(work, "cards")
    make_osg_repo(cards)
    text, planted = osg_export(7, conflicts=False)
    export = os.path.join(work, "osg.jsonl")
    with open(export, "w") as f:
        f.write(text)
    conflicted = os.path.join(work, "osg-conflicts.jsonl")
    with open(conflicted, "w") as f:
        f.write(osg_export(7, conflicts=True)[0])
    # One conflict alone, of a field absent in one copy and set in the other, on a charge
    # before the window of the check: the table's query must still see it and stop.
    nulled = os.path.join(work, "osg-null-conflict.jsonl")
    with open(nulled, "w") as f:
        f.write(text + null_conflict(text, before="2026-11-12") + "\n")
    # Two copies whose fields' text would read alike if field boundaries were not tagged:
    # note "a|9:b" and no card, against note "a" and card "b|-" (the original line removed).
    crafted = os.path.join(work, "osg-crafted-conflict.jsonl")
    with open(crafted, "w") as f:
        f.write(crafted_conflict(text, before="2026-11-12"))
    voice = os.path.join(work, "voice.jsonl")
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate_takings.py"), "--entries", "20000", "--out", voice,
                    "--devices", "300"], check=True)
    osg = ["--cards", cards, "--card", "osg"]
    cases = [
        ("osg-all-default-value", export, osg + []),
        ("osg-window-stated-value", export, osg + ["--since", "2026-11-13T01:00:00Z", "--until", "2026-11-27T06:00:00Z",
                                                  "--credit-value", "CNY 0.005"]),
        ("osg-30d-usd", export, osg + ["--now", "2026-11-28T10:00:00+08:00", "--window", "30d", "--currency", "USD"]),
        ("osg-gbp-fixed-costs", export, osg + ["--currency", "GBP", "--credit-value", "GBP 0.0008", "--costs", os.path.join(work, "costs.json")]),
        ("osg-by-day-+08:00", export, osg + ["--by", "day", "--tz", "+08:00", "--credit-value", "CNY 0.005"]),
        ("osg-by-week--05:00-usd", export, osg + ["--by", "week", "--tz", "-05:00", "--currency", "USD"]),
        ("osg-by-month", export, osg + ["--by", "month", "--since", "2026-11-13T01:00:00Z"]),
        ("osg-by-day-costs-+05:30", export, osg + ["--by", "day", "--tz", "+05:30", "--since", "2026-11-10T03:00:00Z",
                                                  "--until", "2026-11-24T18:30:00Z", "--currency", "GBP", "--credit-value", "GBP 0.0008",
                                                  "--costs", os.path.join(work, "costs.json")]),
        ("osg-by-week-costs", export, osg + ["--by", "week", "--costs", os.path.join(work, "costs.json")]),
        ("voice-30d", voice, ["--cards", os.path.join(ROOT, "RateCards"), "--card", "voice-debrief", "--now", "2026-11-29T12:00:00Z", "--window", "30d"]),
    ]
    with open(os.path.join(work, "costs.json"), "w") as f:
        json.dump({"kind": "costs", "currency": "CNY", "since": "2026-11-01", "until": "2026-12-01",
                   "costs": [{"feature": "llm", "amount": "1.50"}, {"feature": "summary", "amount": "0.07"}]}, f)
    engines = {"duckdb": DuckDB, "clickhouse": ClickHouse, "spark": Spark, "postgres": Postgres}
    results = {}
    failures = 0
    for name in args.engines.split(","):
        t0 = time.time()
        try:
            engine = engines[name](work)
        except Exception as e:  # an engine that cannot start fails the run
            print("FAIL %s: cannot start: %s" % (name, e))
            failures += 1
            continue
        try:
            for i, (case, path, opts) in enumerate(cases):
                if name == "spark" and i >= args.spark_cases:
                    continue
                if args.cases and case not in args.cases.split(","):
                    continue
                failures += run_case(engine, name, case, path, opts, results)
            window = osg + ["--since", "2026-11-13T01:00:00Z", "--until", "2026-11-27T06:00:00Z"]
            for label, check in [("conflicts stop the query", lambda: run_conflicts(engine, name, conflicted, osg, results)),
                                 ("conflicts stop the query (window: two passes)",
                                  lambda: run_conflicts(engine, name, conflicted, window, results, " (window: two passes)")),
                                 ("a conflict of a field absent and set stops the query",
                                  lambda: run_null_conflict(engine, name, nulled, window, results)),
                                 ("a conflict the fields' text could hide stops the query",
                                  lambda: run_null_conflict(engine, name, crafted, window, results,
                                                            "a conflict the fields' text could hide stops the query")),
                                 ("audit", lambda: run_audit(engine, name, export, osg, planted, results))]:
                try:
                    failures += check()
                except Exception as e:
                    print("FAIL %s %s: %s" % (name, label, str(e)[:500]))
                    results[(name, label)] = "error"
                    failures += 1
        finally:
            if hasattr(engine, "close"):
                engine.close()
        print("   %s: %.1f s" % (name, time.time() - t0), flush=True)
    print()
    names = [n for n in args.engines.split(",")]
    cases_all = sorted({c for (_, c) in results}, key=lambda c: [k for k, *_ in cases].index(c) if c in [k for k, *_ in cases] else 99)
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for c in cases_all:
        print("| %s | " % c + " | ".join(results.get((n, c), "-") for n in names) + " |")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("work folder:", work)
    print("\n%s" % ("all equal" if failures == 0 else "%d failures" % failures))
    return 1 if failures else 0


def source_args(engine, path):
    """FILE for the engines that read JSON Lines, --table for PostgreSQL (and DuckDB's table form)."""
    if engine.name == "postgres":
        table = "ledger_" + os.path.basename(path).replace(".jsonl", "").replace("-", "_")
        engine.load(table, path)
        return ["--table", table]
    return [path]


def run_case(engine, name, case, path, opts, results):
    report = json.loads(margin(["pnl", path, "--format", "json"] + opts).stdout)
    query = margin(["pnl", "--sql", name] + source_args(engine, path) + opts).stdout
    scale, exact = header_scale(query)
    t = time.time()
    try:
        rows = engine.run(query)
    except Exception as e:
        print("FAIL %s %s: %s" % (name, case, str(e)[:500]))
        results[(name, case)] = "error"
        return 1
    rejected = line_rejections(report, other_feature_refunds(path))
    problems = compare(name, case, rows, report, scale, exact, rejected)
    status = "equal" if not problems else "DIFFERS"
    results[(name, case)] = "%s (%d rows, %.1f s)" % (status.lower(), len(rows), time.time() - t)
    print("%s %s %s: %d rows, scale %d %s" % ("ok  " if not problems else "FAIL", name, case, len(rows), scale,
                                              "exact" if exact else "rounded once"), flush=True)
    for p in problems[:20]:
        print("     " + p)
    if name == "duckdb" and not problems and case.startswith("osg-all"):
        # The table form on DuckDB too: the same query over a loaded table.
        engine.load("ledger", path)
        tq = margin(["pnl", "--sql", name, "--table", "ledger"] + opts).stdout
        tp = compare(name, case, engine.run(tq), report, scale, exact, rejected)
        results[(name, case + " (table)")] = "equal" if not tp else "DIFFERS"
        print("%s %s %s (table)" % ("ok  " if not tp else "FAIL", name, case), flush=True)
        for p in tp[:20]:
            print("     " + p)
        problems += tp
    return 1 if problems else 0


def run_conflicts(engine, name, path, opts, results, label=""):
    """Conflicting duplicates: margin exits 1; the query must stop with an error, and the
    audit must list exactly the conflicting ids."""
    p = margin(["pnl", path, "--format", "json"] + opts)
    report = json.loads(p.stdout)
    want = report["input"]["rejectedByClass"].get("conflicting-duplicate", 0)
    query = margin(["pnl", "--sql", name] + source_args(engine, path) + opts).stdout
    message = ""
    try:
        engine.run(query)
        stopped = False
    except Exception as e:
        message = str(e)
        stopped = "conflicting" in message
    audit = engine.run(margin(["pnl", "--sql-audit", name] + source_args(engine, path) + opts).stdout)
    ids = {r[0] for r in audit if r[1] == "conflicting-duplicate"}
    odd = [r[0] for r in audit if r[1] == "unknown-dimension"]
    cost_errors = [e for e in report["errors"] if e.endswith("[cost]")]
    ok = p.returncode == 1 and stopped and len(ids) == want and want > 0 and len(odd) == len(cost_errors) == 1
    results[(name, "conflicts stop the query" + label)] = "equal" if ok else "DIFFERS"
    print("%s %s conflicts%s: margin exit %d, %d conflicting, %d cost errors; query stopped: %s; audit lists %d ids, %d unknown-dimension%s"
          % ("ok  " if ok else "FAIL", name, label, p.returncode, want, len(cost_errors), stopped, len(ids), len(odd),
             "" if stopped else " (the engine said: %r)" % (message[:400] or "nothing: the query ran to its end")), flush=True)
    return 0 if ok else 1


def null_conflict(text, before):
    """A copy of the first charge dated before `before` that has no note, with a note."""
    for line in text.splitlines():
        e = json.loads(line) if line.strip() else {}
        if e.get("kind") == "charge" and "note" not in e and e.get("at", "9")[:10] < before:
            return json.dumps(dict(e, note="set in one copy only"), separators=(",", ":"))
    raise RuntimeError("no charge without a note before %s" % before)


def crafted_conflict(text, before):
    """The export with its first charge dated before `before` that has no note and no card
    replaced by two copies: note "a|9:b" and no card; note "a" and card "b|-"."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        e = json.loads(line) if line.strip() else {}
        if e.get("kind") == "charge" and "note" not in e and "card" not in e and e.get("at", "9")[:10] < before:
            a = json.dumps(dict(e, note="a|9:b"), separators=(",", ":"))
            b = json.dumps(dict(e, note="a", card="b|-"), separators=(",", ":"))
            return "\n".join(lines[:i] + [a, b] + lines[i + 1:]) + "\n"
    raise RuntimeError("no charge without a note and a card before %s" % before)


def run_null_conflict(engine, name, path, opts, results, label="a conflict of a field absent and set stops the query"):
    """One id, two copies, one with a field the other has not: margin finds one conflict;
    the query must stop and say one id (where the engine's error can carry the count)."""
    p = margin(["pnl", path, "--format", "json"] + opts)
    want = json.loads(p.stdout)["input"]["rejectedByClass"].get("conflicting-duplicate", 0)
    query = margin(["pnl", "--sql", name] + source_args(engine, path) + opts).stdout
    try:
        engine.run(query)
        message = ""
    except Exception as e:
        message = str(e)
    # ClickHouse's throwIf takes a constant message, without the count.
    said = "margin: 1 ids with conflicting duplicates" in message or "margin: ids with conflicting duplicates" in message
    ok = p.returncode == 1 and want == 1 and said
    results[(name, label)] = "equal" if ok else "DIFFERS"
    print("%s %s %s: margin exit %d, %d conflicting; query stopped naming it: %s%s"
          % ("ok  " if ok else "FAIL", name, label, p.returncode, want, ok,
             "" if ok else " (the engine said: %r)" % (message[:400] or "nothing: the query ran to its end")),
          flush=True)
    return 0 if ok else 1


def run_audit(engine, name, path, opts, planted, results):
    """The audit against margin's rejections and warnings, and the planted charge-audit rows."""
    report = json.loads(margin(["pnl", path, "--format", "json"] + opts).stdout)
    rows = engine.run(margin(["pnl", "--sql-audit", name] + source_args(engine, path) + opts).stdout)
    by = {}
    for r in rows:
        by.setdefault(r[1], []).append(r)
    problems = []
    for cls, count in report["input"]["rejectedByClass"].items():
        got = len(by.get(cls, []))
        if got != count:
            problems.append("%s: audit %d, margin %d" % (cls, got, count))
    for cls in by:
        if cls in ("refunded-twice", "unknown-feature", "price-mismatch", "metered-without-quantity", "refund-exceeds-charge"):
            continue
        if cls not in report["input"]["rejectedByClass"]:
            problems.append("%s: audit %d, margin none" % (cls, len(by[cls])))
    # A charge refunded n times: margin keeps the earliest and rejects n - 1 (`refunded-twice`,
    # counted in rejectedByClass above); the audit lists the same n - 1.
    unknown = {r[2].split(" ")[1] for r in by.get("unknown-feature", [])}
    if unknown != set(report["unknownFeatures"]):
        problems.append("unknown-feature: audit %s, margin %s" % (sorted(unknown), report["unknownFeatures"]))
    for cls, ids in planted.items():
        got = {r[0] for r in by.get(cls, [])}
        if got != ids:
            problems.append("%s: audit %s, planted %s" % (cls, sorted(got), sorted(ids)))
    ok = not problems
    results[(name, "audit")] = ("equal (%d rows)" % len(rows)) if ok else "DIFFERS"
    print("%s %s audit: %d rows (%s)" % ("ok  " if ok else "FAIL", name, len(rows),
                                         ", ".join("%s %d" % (k, len(v)) for k, v in sorted(by.items()))), flush=True)
    for p in problems:
        print("     " + p)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
