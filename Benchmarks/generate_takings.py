#!/usr/bin/env python3
"""Generate a synthetic credit-ledger export as JSON Lines for `margin pnl` benchmarks.

Every line is one ledger entry in the normative format of SPEC.md (about 190 bytes):
grants, charges of several features with quantities, refunds of earlier charges (a
declined charge given back), top-ups with a payment reference and the money recorded.
Entries come from many devices, each writing times in its own UTC offset, and each
keeps a correct balance chain (`balanceAfter`). About 1% of lines repeat an earlier
entry with the keys in another order and the amount spelled as a string: the same
entry, which a correct reader counts once.

Two shapes (`--shape`):

- `plain` (the default): the lines above, in time order, in one file.
- `rich`: UUID ids (and `refundOf`), a device and `balanceAfter` on every entry, a note on
  every grant and top-up and on one charge in five, with JSON escapes (`\"`, `\\`, `\n`,
  `\t`, `\u00e9`, a surrogate pair) and raw non-ASCII UTF-8 (é, 日本語, emoji); quantities
  on fewer charges; entries out of order (shuffled in runs of 4,096) and spread over
  every `--out` file at random, and the 1% repeats written to another file than the
  entry they repeat.
- `ledger`: one file in time order, as an app's server exports its ledger (about 196 bytes
  a line): UUID ids, a device and a note on every entry, `paymentRef` on every top-up,
  quantities on metered charges, no `balanceAfter` and no repeats; about 3% of charges are
  refunded, each refund written minutes to days after its charge (log-uniform from one
  minute to four days, so the charge it names is usually far back in the file); about 0.1%
  of notes hold JSON escapes or raw non-ASCII UTF-8, the rest are short ASCII.

Usage: generate_takings.py --entries N --out FILE [FILE...] [--shape plain|rich|ledger] [--seed S]
                           [--now RFC3339] [--days D]
Amounts are micro-credits (one millionth of a pound), as in seed 000. The output depends
only on the arguments (a seeded generator): the same command writes the same bytes.
"""

import argparse
import heapq
import random
import sys
import time

FEATURES = [
    # key, weight, (dimension, low, high) or None, price rule
    ("transcript", 30, ("second", 5, 900)),
    ("debrief", 15, None),
    ("cleanPassage", 10, ("passage", 1, 12)),
    ("saveToVault", 12, ("file", 1, 4)),
    ("readNote", 14, None),
    ("send", 6, None),
    ("llm", 8, ("inputTokens", 100, 8000)),
    ("pushVault", 5, ("object", 1, 30)),
]
OFFSETS = ["Z", "+08:00", "-05:00", "+05:30", "+01:00", "-08:00", "+09:45"]
OFFSET_MINUTES = {"Z": 0, "+08:00": 480, "-05:00": -300, "+05:30": 330, "+01:00": 60, "-08:00": -480, "+09:45": 585}
REASONS = ["notUsable", "notNeeded", "test", "other"]


def price(feature, qty):
    if feature == "transcript":
        return 30000 * -(-qty // 60)
    if feature == "debrief":
        return 50000
    if feature == "cleanPassage":
        return 10000 * qty
    if feature == "saveToVault":
        return 10000 * qty
    if feature == "llm":
        return 1000 * -(-qty // 1000)
    return 10000


def rfc3339(t, offset):
    """Seconds since the epoch (float) written in local time at `offset`."""
    minutes = OFFSET_MINUTES[offset]
    whole = int(t)
    millis = int((t - whole) * 1000)
    g = time.gmtime(whole + minutes * 60)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s" % (g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec, millis, offset)


def parse_now(text):
    # Only the forms this script writes or takes: YYYY-MM-DDTHH:MM:SSZ
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, required=True)
    ap.add_argument("--out", required=True, nargs="+")
    ap.add_argument("--shape", choices=["plain", "rich", "ledger"], default="plain")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--devices", type=int, default=20000)
    args = ap.parse_args()
    if args.shape == "rich":
        return rich(args)
    if len(args.out) != 1:
        ap.error("the %s shape writes one file" % args.shape)
    args.out = args.out[0]
    return ledger(args) if args.shape == "ledger" else plain(args)


def setup(args, device_name):
    """The generator, the time step and the devices (named by `device_name(rng)`), in the
    order the random numbers are drawn, which fixes the output."""
    rng = random.Random(args.seed)
    now = parse_now(args.now)
    start = now - args.days * 86400
    step = (now - start) / max(1, args.entries)
    devices = []
    for _ in range(args.devices):
        name = device_name(rng)
        # recent charges that may be refunded: (id, feature, amount)
        devices.append({"name": name, "offset": rng.choice(OFFSETS), "seq": 0, "balance": 0, "charges": []})
    return rng, start, step, devices


FEATURE_KEYS = [f[0] for f in FEATURES]
FEATURE_WEIGHTS = [f[1] for f in FEATURES]
DIMENSIONS = {f[0]: f[2] for f in FEATURES}


def charge(rng, eid, at):
    """A charge of a feature drawn by weight, with a quantity where it has a dimension:
    (entry, feature, amount). The plain and ledger shapes' charges (rich draws its own)."""
    feature = rng.choices(FEATURE_KEYS, FEATURE_WEIGHTS)[0]
    dim = DIMENSIONS[feature]
    if dim:
        q = rng.randint(dim[1], dim[2])
        amount = price(feature, q)
        return {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature,
                "quantity": {dim[0]: q}}, feature, amount
    amount = price(feature, 1)
    return {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature}, feature, amount


def plain(args):
    rng, start, step, devices = setup(args, lambda r: "%08x" % r.getrandbits(32))
    recent = []
    out = open(args.out, "w", buffering=1 << 20)
    write = out.write
    t = start
    written = 0
    random_ = rng.random
    randint = rng.randint
    choice = rng.choice
    while written < args.entries:
        t += step * (0.5 + random_())
        if recent and random_() < 0.01:
            # The same entry again, spelled differently.
            e = choice(recent)
            keys = list(e.keys())
            keys.reverse()
            parts = []
            for k in keys:
                v = e[k]
                if k == "amount":
                    parts.append('"amount":"%d"' % v)
                else:
                    parts.append('"%s":%s' % (k, fmt(v)))
            write("{" + ",".join(parts) + "}\n")
            written += 1
            continue
        d = devices[randint(0, len(devices) - 1)]
        d["seq"] += 1
        eid = "%s-%07d" % (d["name"], d["seq"])
        at = rfc3339(t, d["offset"])
        if d["seq"] == 1:
            e = {"id": eid, "at": at, "kind": "grant", "amount": 5000000, "note": "starting credit"}
        else:
            r = random_()
            if r < 0.05 and d["charges"]:
                cid, feature, amount = d["charges"].pop(randint(0, len(d["charges"]) - 1))
                e = {"id": eid, "at": at, "kind": "refund", "amount": amount, "feature": feature, "refundOf": cid,
                     "reason": choice(REASONS)}
            elif r < 0.06 or d["balance"] < 0 and r < 0.3:
                e = {"id": eid, "at": at, "kind": "topup", "amount": 5000000, "paymentRef": "pay-" + eid, "price": "GBP 5.00"}
            else:
                e, feature, amount = charge(rng, eid, at)
                d["charges"].append((eid, feature, amount))
                if len(d["charges"]) > 8:
                    d["charges"].pop(0)
        d["balance"] += e["amount"]
        e["device"] = d["name"]
        e["card"] = "voice@3"
        e["balanceAfter"] = d["balance"]
        write(line(e))
        written += 1
        recent.append(e)
        if len(recent) > 1000:
            recent = recent[500:]
    out.close()
    return 0


def fmt(v):
    if isinstance(v, dict):
        return "{" + ",".join('"%s":%d' % (k, x) for k, x in v.items()) + "}"
    if isinstance(v, int):
        return str(v)
    return '"%s"' % v


def line(e):
    return "{" + ",".join('"%s":%s' % (k, fmt(v)) for k, v in e.items()) + "}\n"


# Notes as they are written inside the JSON string: escapes and raw UTF-8.
NOTES = [
    'caf\\u00e9 \\"latte\\" order',
    'line one\\nline two\\tand a tab',
    'back\\\\slash and \\/ solidus',
    'Stra\u00dfe \u2014 \u65e5\u672c\u8a9e\u306e\u30e1\u30e2 \U0001f389',
    'emoji as escapes \\ud83c\\udf89 and \u00e9t\u00e9',
    'plain ascii note for the support team',
]


def uuid(rng):
    v = rng.getrandbits(128)
    h = "%032x" % v
    return "%s-%s-4%s-%s-%s" % (h[0:8], h[8:12], h[13:16], h[16:20], h[20:32])


def rich(args):
    """The second shape: see the module's docstring."""
    rng, start, step, devices = setup(args, uuid)
    feature_keys, feature_weights, dims = FEATURE_KEYS, FEATURE_WEIGHTS, DIMENSIONS
    files = [open(path, "w", encoding="utf-8", buffering=1 << 20) for path in args.out]
    nfiles = len(files)
    pending = []  # (file, line) waiting to be shuffled and written
    recent = []  # (entry, file)
    random_ = rng.random
    randint = rng.randint
    choice = rng.choice

    def flush():
        rng.shuffle(pending)
        for f, text in pending:
            files[f].write(text)
        pending.clear()

    t = start
    written = 0
    while written < args.entries:
        t += step * (0.5 + random_())
        if recent and random_() < 0.01:
            e, f0 = choice(recent)
            f = (f0 + randint(1, nfiles - 1)) % nfiles if nfiles > 1 else f0
            keys = list(e.keys())
            keys.reverse()
            parts = ['"amount":"%d"' % e[k] if k == "amount" else '"%s":%s' % (k, fmt(e[k])) for k in keys]
            pending.append((f, "{" + ",".join(parts) + "}\n"))
            written += 1
        else:
            d = devices[randint(0, len(devices) - 1)]
            d["seq"] += 1
            eid = uuid(rng)
            at = rfc3339(t, d["offset"])
            if d["seq"] == 1:
                e = {"id": eid, "at": at, "kind": "grant", "amount": 5000000, "note": choice(NOTES)}
            else:
                r = random_()
                if r < 0.05 and d["charges"]:
                    cid, feature, amount = d["charges"].pop(randint(0, len(d["charges"]) - 1))
                    e = {"id": eid, "at": at, "kind": "refund", "amount": amount, "feature": feature, "refundOf": cid,
                         "reason": choice(REASONS)}
                elif r < 0.06 or d["balance"] < 0 and r < 0.3:
                    e = {"id": eid, "at": at, "kind": "topup", "amount": 5000000, "paymentRef": "pay-" + eid[:8],
                         "price": "GBP 5.00", "note": choice(NOTES)}
                else:
                    feature = rng.choices(feature_keys, feature_weights)[0]
                    dim = dims[feature]
                    if dim and random_() < 0.5:
                        q = randint(dim[1], dim[2])
                        amount = price(feature, q)
                        e = {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature, "quantity": {dim[0]: q}}
                    else:
                        amount = price(feature, dim[1] if dim else 1)
                        e = {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature}
                    if random_() < 0.2:
                        e["note"] = choice(NOTES)
                    d["charges"].append((eid, feature, amount))
                    if len(d["charges"]) > 8:
                        d["charges"].pop(0)
            d["balance"] += e["amount"]
            e["device"] = d["name"]
            e["balanceAfter"] = d["balance"]
            f = randint(0, nfiles - 1)
            pending.append((f, line(e)))
            written += 1
            recent.append((e, f))
            if len(recent) > 1000:
                recent = recent[500:]
        if len(pending) >= 4096:
            flush()
    flush()
    for out in files:
        out.close()
    return 0


# The ledger shape's everyday notes: short ASCII, as an app writes them.
LEDGER_NOTES = ["voice memo", "daily debrief", "meeting notes", "quick note", "vault sync", "retry", "batch 2",
                "shared link", "auto", "draft"]


def ledger(args):
    """The third shape: see the module's docstring."""
    rng, start, step, devices = setup(args, lambda r: "%08x" % r.getrandbits(32))
    out = open(args.out, "w", encoding="utf-8", buffering=1 << 20)
    write = out.write
    random_ = rng.random
    randint = rng.randint
    choice = rng.choice
    refunds = []  # heap of (time, order, device index, charge id, feature, amount)
    order = 0

    def note():
        if random_() < 0.001:
            return choice(NOTES[:5])  # escapes or raw UTF-8
        return "%s %d" % (choice(LEDGER_NOTES), randint(1, 999))

    t = start
    written = 0
    while written < args.entries:
        t += step * (0.5 + random_())
        eid = uuid(rng)
        if refunds and refunds[0][0] <= t:
            _, _, k, cid, feature, amount = heapq.heappop(refunds)
            d = devices[k]
            e = {"id": eid, "at": rfc3339(t, d["offset"]), "kind": "refund", "amount": amount, "feature": feature,
                 "refundOf": cid, "reason": choice(REASONS)}
        else:
            k = randint(0, len(devices) - 1)
            d = devices[k]
            d["seq"] += 1
            at = rfc3339(t, d["offset"])
            if d["seq"] == 1:
                e = {"id": eid, "at": at, "kind": "grant", "amount": 5000000}
            elif random_() < 0.03 or d["balance"] < 0 and random_() < 0.3:
                e = {"id": eid, "at": at, "kind": "topup", "amount": 5000000, "paymentRef": "%d" % (2000000000000000 + order),
                     "price": "GBP 5.00"}
            else:
                e, feature, amount = charge(rng, eid, at)
                if random_() < 0.03:
                    delay = 60 * (5760 ** random_())  # one minute to four days, log-uniform
                    heapq.heappush(refunds, (t + delay, order, k, eid, feature, amount))
            d["balance"] += e["amount"]
        order += 1
        e["device"] = d["name"]
        e["note"] = note()
        write(line(e))
        written += 1
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
