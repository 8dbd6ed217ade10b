"""The differential test of `margin pnl --sql` (issue 24): a seeded generator of
adversarial exports, each run through `margin pnl --format json` and through the query
`margin pnl --sql` writes (and its `--sql-audit`), on DuckDB (and PostgreSQL, ClickHouse
on fewer cases), compared field by field, the audit included.

Each case is one export of `--entries N` lines drawn from every spelling the readers accept
or reject: quantities as JSON integers, decimals, exponents (`1e3`, `1.5E+2`, `1e-7`),
`-0`, `-0.0`, `null` members, strings (`"76"`, `"07"`, `"1e3"`, `"-1"`), too many places;
amounts as numbers and strings, fractional, signed wrongly, too long; ids empty, Unicode,
NFC and NFD, with `|` and `:`; timestamps in offsets from -12:00 to +14:00, `t` and space
separators, fractions of 1-12 digits, leap seconds, impossible dates, no offset; notes
absent, `""`, `null`, escaped; feature keys in NFC and NFD, unknown keys; duplicates written
differently (keys reversed, amount as a string, the time in another offset, `"note": ""`
against no note), conflicts, refunds (good, unknown, twice, larger, of another feature),
revokes (negative with a paymentRef; positive, without one, with `""` or `null`).

What is compared, per case:
- the query stops exactly when margin reports a conflicting duplicate, a quantity finer
  than the query's 6 places (or written with an exponent the query cannot read exactly),
  or a refund tie; otherwise the table equals margin's row by row (every count, every
  credit, every money figure at the query's scale) and, without a window, its `rejected`
  column equals the number of lines margin rejects for what they are;
- the audit: per rejection class the same count as margin's `rejectedByClass` (a
  conflict: the ids), and the charge audit's mismatches and metered charges without a
  quantity the same as margin's `chargeAudit` counts.

A disagreement is printed with its class and the case's seed, so it can be re-run with
`--seed`.

Usage: sql_differential.py [--cases N] [--entries N] [--seed S] [--engines duckdb,postgres,clickhouse]
Environment: MARGIN (default .build/debug/margin).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_equality as eq  # noqa: E402

ROOT = eq.ROOT
CARDS = os.path.join(ROOT, "RateCards")
RESIDUAL = False
# The classes of a line rejected for itself (not for what other lines say).
LINE = eq.LINE
OPTS = ["--cards", CARDS, "--card", "osg", "--credit-value", "CNY 0.01"]

OFFSETS = ["Z", "z", "+00:00", "-00:00", "-12:00", "+14:00", "+08:00", "-05:30", "+05:45", "+13:59", "-11:59"]
FEATURES = ["asr", "llm", "caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9"), "zz-unknown", "\u212asr", "a|b:c"]
IDS = ["x", "\u00e9", unicodedata.normalize("NFD", "\u00e9"), "x|1:y", "\U0001F600", "id with space", "\\u0041"]


def two(n):
    return "%02d" % n


class Gen:
    """One export: lines written from entries, some spoilt on purpose."""

    def __init__(self, seed, entries):
        self.r = random.Random(seed)
        # Every third case has conflicts (the query must stop); the others compare tables.
        self.conflicts = seed % 3 == 0
        # Every other case spells quantities only in ways the query reads exactly (no
        # exponent, at most 6 places), so that its table is compared with margin's.
        self.exotic = seed % 2 == 0
        self.n = entries
        self.lines = []
        self.charges = []  # (id, feature, amount) of charges written validly

    def at(self):
        r = self.r
        y = r.choice([2026, 2026, 2026, 2025, 1, 9999, 2024])
        mo = r.randint(1, 12)
        d = r.randint(1, 28) if r.random() < 0.97 else r.choice([29, 30, 31])
        if y == 1:
            mo, d = 1, r.choice([1, 2])
        if y == 9999:
            mo, d = 12, r.choice([30, 31])
        h, mi, s = r.randint(0, 23), r.randint(0, 59), r.randint(0, 59)
        if r.random() < 0.01:
            s = 60
        sep = r.choice(["T"] * 8 + ["t", " "])
        frac = ""
        if r.random() < 0.3:
            frac = "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 12)))
        off = r.choice(OFFSETS)
        text = "%04d-%s-%s%s%s:%s:%s%s%s" % (y, two(mo), two(d), sep, two(h), two(mi), two(s), frac, off)
        if r.random() < 0.01:
            text = r.choice(["2026-11-20", "2026-11-20T10:00:00", "2026-02-30T10:00:00Z", "2026-11-20T24:00:00Z", "2026-11-20T10:00:00+24:00", "2026-13-01T00:00:00Z"])
        return text

    def qvalue(self):
        r = self.r
        k = r.random()
        if k < 0.5:
            return str(r.randint(0, 5000))
        if k < 0.6:
            return "%d.%d" % (r.randint(0, 500), r.randint(0, 99))
        if k < 0.65:
            return '"%d"' % r.randint(0, 5000)
        if k < 0.68:
            return '"%d.%d"' % (r.randint(0, 500), r.randint(1, 9))
        stops = ["1e-7", "0.0000001", '"1e3"', "0.1234567", "1.5e-3"]
        # A JSON number of more than 15 significant digits that a double rounds to fewer:
        # margin rejects it, DuckDB's reader shows the rounded value (docs/sql.md: the one
        # class left). Only with --residual.
        if RESIDUAL:
            stops.append("0.10000000000000001")
        return r.choice(["1e3", "1.5E+2", "2e1", "-0", "-0.0", "null", '"07"', '"-1"', "76.0", "-1", "true", '"7x"', "0",
                         "0.000001", '"-0"', "12345678901234567"] + (stops if self.exotic else []))

    def quantity(self, feature):
        r = self.r
        if r.random() < 0.1:
            return None
        if feature == "llm":
            dims = ["inputTokens", "outputTokens"]
        else:
            dims = ["second"]
        if self.exotic and r.random() < 0.03:
            dims = dims + ["bogus"]
        # A member of a dimension no feature of the card has is not read by the query, so a
        # bad value there (margin rejects the line) is the class docs/sql.md leaves; only
        # with --residual.
        parts = ['"%s":%s' % (dd, self.qvalue() if dd != "bogus" or RESIDUAL else str(r.randint(0, 99)))
                 for dd in dims if r.random() < 0.9]
        if r.random() < 0.01:
            return r.choice(['"76"', "[76]", "{}"])
        return "{" + ",".join(parts) + "}"

    def amount(self, kind):
        r = self.r
        v = r.randint(1, 400)
        if kind in ("charge", "revoke"):
            v = -v
        k = r.random()
        if k < 0.7:
            return str(v)
        if k < 0.9:
            return '"%d"' % v
        return r.choice(["-1.5", "1.0", "-1e3", '"-05"', '"abc"', "true", "{}", "-" + "9" * 19, str(-v), "0", "null"])

    def note(self):
        r = self.r
        return r.choice([None, None, None, '""', "null", '"hello"', '"caf\\u00e9 \\"q\\""', '"a|9:b"'])

    def entry(self, i):
        r = self.r
        kind = r.choices(["charge", "refund", "grant", "topup", "revoke", "spend"], [70, 12, 8, 8, 3, 0.5])[0]
        eid = "e%d" % i if r.random() < 0.97 else r.choice(IDS) + str(i)
        fields = [("id", json.dumps(eid, ensure_ascii=r.random() < 0.5)), ("at", '"%s"' % self.at()), ("kind", '"%s"' % kind), ("amount", self.amount(kind))]
        if kind in ("charge", "refund"):
            f = r.choice(FEATURES[:2] * 6 + FEATURES)
            fields.append(("feature", json.dumps(f, ensure_ascii=False)))
            if kind == "charge":
                q = self.quantity(f)
                if q is not None:
                    fields.append(("quantity", q))
            else:
                target = r.choice(self.charges) if self.charges and r.random() < 0.85 else ("nope%d" % i, f, -1)
                fields.append(("refundOf", json.dumps(target[0])))
                fields[1:4] = [("at", '"%s"' % self.at()), ("kind", '"refund"'), ("amount", str(r.choice([-target[2], -target[2], 1, 10**6])) if r.random() < 0.9 else self.amount("refund"))]
                if r.random() < 0.85:
                    fields[4] = ("feature", json.dumps(target[1], ensure_ascii=False))
        if kind == "revoke" or (kind == "topup" and r.random() < 0.5):
            # A revoke names the purchase it takes back; one in ten names none (or "").
            ref = r.choice(['"apple-%d"' % r.randint(1, 50)] * 8 + ['""', "null"])
            if r.random() < 0.95:
                fields.append(("paymentRef", ref))
        n = self.note()
        if n is not None:
            fields.append(("note", n))
        if r.random() < 0.05:
            fields.append(("device", r.choice(['""', '"d1"', "null"])))
        return eid, kind, fields

    def write(self, fields):
        self.lines.append("{" + ",".join('"%s":%s' % kv for kv in fields) + "}")

    def build(self):
        r = self.r
        i = 0
        while len(self.lines) < self.n:
            eid, kind, fields = self.entry(i)
            i += 1
            self.write(fields)
            if kind == "charge":
                try:
                    amt = int(json.loads(dict(fields)["amount"]))
                    self.charges.append((eid, json.loads(dict(fields)["feature"]), amt))
                except (ValueError, TypeError, KeyError):
                    pass
            k = r.random()
            if k < 0.04:
                # A duplicate, written differently: keys reversed, the amount as a string or a
                # number, an empty note for none.
                dup = list(reversed(fields))
                d = dict(dup)
                if d.get("amount", "").lstrip("-").isdigit():
                    dup = [(a, '"%s"' % b if a == "amount" else b) for a, b in dup]
                if "note" not in d and r.random() < 0.5:
                    dup.append(("note", '""'))
                self.write(dup)
            elif k < 0.045 and self.conflicts:
                # A conflict: the same id, another amount.
                d = [(a, ('"-%d"' % r.randint(401, 500)) if a == "amount" else b) for a, b in fields]
                self.write(d)
        return "\n".join(self.lines) + "\n"


def raw_csv(path):
    """The export as CSV rows of the schema, as a loader must write them (docs/sql.md):
    `quantity` as the object's text as written (sql_equality's loader re-serialises it with
    its numbers as strings)."""
    out = path + ".raw.csv"
    eq.write_schema_csv(path, out, raw_quantity=True)
    return out


class Postgres(eq.Postgres):
    def load(self, table, path):
        self.psql(["-c", "DROP TABLE IF EXISTS %s" % table])
        self.psql([], stdin=eq.schema("postgres", table))
        self.psql(["-c", "\\copy %s FROM '%s' WITH (FORMAT csv)" % (table, raw_csv(path))])


def classify(problem):
    return problem.split(":")[0].split(".")[-1]


def run_case(engine, seed, entries, work, disagreements, window):
    text = Gen(seed, entries).build()
    path = os.path.join(work, "case-%d.jsonl" % seed)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    opts = OPTS + window
    m = eq.margin(["pnl", path, "--format", "json"] + opts)
    report = json.loads(m.stdout)
    src = eq.source_args(engine, path)
    query = eq.margin(["pnl", "--sql", engine.name] + src + opts).stdout
    scale, exact = eq.header_scale(query)
    conflicts = report["input"]["rejectedByClass"].get("conflicting-duplicate", 0)
    stopped = None
    try:
        rows = engine.run(query)
    except Exception as e:  # the query stopped, by design or not
        stopped = str(e).splitlines()[0][:200]
        rows = None
    audit = engine.run(eq.margin(["pnl", "--sql-audit", engine.name] + src + opts).stdout)
    by = Counter(r[1] for r in audit)
    problems = []
    if stopped is not None:
        if not (conflicts or by.get("sql-quantity-scale") or by.get("sql-refund-tie") or by.get("unknown-dimension")):
            problems.append("stop: the query stopped, margin has no conflict: %s" % stopped)
    elif conflicts:
        problems.append("conflict: margin has %d conflicting copies, the query did not stop" % conflicts)
    else:
        # Without a window every row is checked, so `rejected` is margin's count of lines
        # rejected for what they are (revokes without a paymentRef among them), less its
        # refunds of a charge of another feature (`bad-value` too, but for what another line
        # says: the audit's rows of them, whose count per class is compared below).
        other = sum(1 for r in audit if r[1] == "bad-value" and r[2] is not None and str(r[2]).startswith("the refund is for"))
        rejected = eq.line_rejections(report, other)
        problems += eq.compare(engine.name, "diff", rows, report, scale, exact, rejected)
    # The audit: margin's rejections by class. A line margin rejects for what it is (the
    # classes of LINE) is rejected by the audit too; with two faults in two fields, margin
    # names the first in the line's key order and the audit the first in a fixed order, so
    # for those the totals must agree and the labels may differ ("label" below, reported,
    # not a failure: docs/sql.md).
    classes = dict(report["input"]["rejectedByClass"])
    classes.setdefault("conflicting-duplicate", 0)
    labels = []
    line_margin = sum(v for k, v in classes.items() if k in LINE)
    line_audit = sum(v for k, v in by.items() if k in LINE)
    for cls, count in classes.items():
        if cls == "conflicting-duplicate":
            got = len({r[0] for r in audit if r[1] == cls})
            if (got > 0) != (count > 0):
                problems.append("audit-conflict: audit %d ids, margin %d copies" % (got, count))
            continue
        if by.get(cls, 0) != count:
            (labels if cls in LINE and line_margin == line_audit else problems).append(
                "audit-%s: audit %d, margin %d" % (cls, by.get(cls, 0), count))
    for cls, count in by.items():
        if cls not in report["input"]["rejectedByClass"] and cls not in (
                "unknown-feature", "price-mismatch", "metered-without-quantity", "refund-exceeds-charge",
                "conflicting-duplicate", "sql-quantity-scale", "sql-refund-tie", "unknown-dimension"):
            (labels if cls in LINE and line_margin == line_audit else problems).append(
                "audit-%s: audit %d, margin none" % (cls, count))
    for p in labels:
        disagreements["label (a line with two faults)"].append((seed, p))
    ca = report.get("chargeAudit")
    if ca and not conflicts and stopped is None:
        metered = sum(int(f["missingQuantity"]) for f in ca["features"] if f["costIncomplete"])
        if by.get("metered-without-quantity", 0) != metered:
            problems.append("audit-missing-quantity: audit %d, margin %d" % (by.get("metered-without-quantity", 0), metered))
        mism = int(ca["mismatches"]) + int(ca["unchecked"])
        if by.get("price-mismatch", 0) + by.get("unknown-dimension", 0) != mism:
            problems.append("audit-price-mismatch: audit %d (+%d unknown-dimension), margin %d mismatches + unchecked"
                            % (by.get("price-mismatch", 0), by.get("unknown-dimension", 0), mism))
    for p in problems:
        disagreements[classify(p)].append((seed, p))
    return len(text.splitlines()), stopped is not None, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--entries", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engines", default="duckdb")
    ap.add_argument("--window", action="store_true", help="also with --since/--until (the window's pruning)")
    ap.add_argument("--residual", action="store_true", help="also the quantities DuckDB's reader cannot tell apart (docs/sql.md)")
    a = ap.parse_args()
    global RESIDUAL
    RESIDUAL = a.residual
    work = tempfile.mkdtemp(prefix="sql-differential-")
    engines = []
    for name in a.engines.split(","):
        engines.append({"duckdb": eq.DuckDB, "postgres": Postgres, "clickhouse": eq.ClickHouse}[name](work))
    total = 0
    started = time.time()
    failed = 0
    for engine in engines:
        disagreements = {}
        from collections import defaultdict
        disagreements = defaultdict(list)
        lines = 0
        stops = 0
        for k in range(a.cases):
            seed = a.seed + k
            window = ["--since", "2026-03-01T00:00:00+14:00", "--until", "2026-10-01T00:00:00-12:00"] if (a.window and k % 2) else []
            n, stopped, problems = run_case(engine, seed, a.entries, work, disagreements, window)
            lines += n
            stops += stopped
            print("%s %s seed %d: %d lines%s%s" % ("ok  " if not problems else "FAIL", engine.name, seed, n,
                                                  ", the query stopped (as margin fails)" if stopped else "",
                                                  ", window" if window else ""), flush=True)
            for p in problems[:8]:
                print("     " + p)
        total += lines
        print("== %s: %d cases, %d generated lines, %d stopped, disagreements by class: %s" % (
            engine.name, a.cases, lines, stops,
            ", ".join("%s %d" % (c, len(v)) for c, v in sorted(disagreements.items())) or "none"), flush=True)
        failed += sum(len(v) for c, v in disagreements.items() if not c.startswith("label"))
        if hasattr(engine, "close"):
            engine.close()
    print("== %d lines in %.1f s" % (total, time.time() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
