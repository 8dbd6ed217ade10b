#!/usr/bin/env python3
"""Generate a synthetic credit-ledger export as JSON Lines for `margin pnl` benchmarks.

Every line is one ledger entry in the normative format of SPEC.md (about 190 bytes):
grants, charges of several features with quantities, refunds of earlier charges (a
declined charge given back), top-ups with a payment reference and the money recorded.
Entries come from many devices, each writing times in its own UTC offset, and each
keeps a correct balance chain (`balanceAfter`). About 1% of lines repeat an earlier
entry with the keys in another order and the amount spelled as a string: the same
entry, which a correct reader counts once.

Usage: generate_takings.py --entries N --out FILE [--seed S] [--now RFC3339] [--days D]
Amounts are micro-credits (one millionth of a pound), as in seed 000.
"""

import argparse
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
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--devices", type=int, default=20000)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    now = parse_now(args.now)
    start = now - args.days * 86400
    step = (now - start) / max(1, args.entries)

    devices = []
    for _ in range(args.devices):
        devices.append({
            "name": "%08x" % rng.getrandbits(32),
            "offset": rng.choice(OFFSETS),
            "seq": 0,
            "balance": 0,
            "charges": [],  # recent charges that may be refunded: (id, feature, amount)
        })
    feature_keys = [f[0] for f in FEATURES]
    feature_weights = [f[1] for f in FEATURES]
    dims = {f[0]: f[2] for f in FEATURES}
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
                feature = rng.choices(feature_keys, feature_weights)[0]
                dim = dims[feature]
                if dim:
                    q = randint(dim[1], dim[2])
                    amount = price(feature, q)
                    e = {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature, "quantity": {dim[0]: q}}
                else:
                    amount = price(feature, 1)
                    e = {"id": eid, "at": at, "kind": "charge", "amount": -amount, "feature": feature}
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


if __name__ == "__main__":
    sys.exit(main())
