#!/usr/bin/env python3
"""The coverage of the storefront data file, as docs/storefronts.md states it.

Usage: scripts/storefront_coverage.py [RateCards/storefronts.json]

Prints storefronts, currencies, tax entries, entries with a source (and how many of those
are rates inferred from Apple's App Store Connect price points of 2023-04-07), placeholders
(and how many of those still name a source). The dated changes since 2023 come from the tool:
margin storefronts osg --changes --format json. ApplePointsAgreementTests.coverage pins the
same counts.
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "RateCards/storefronts.json"
with open(path) as f:
    data = json.load(f)
stores = data["territories"]
taxes = [t for s in stores for t in s["taxes"]]
sourced = [t for t in taxes if t.get("source")]
inferred = [t for t in sourced
            if t["source"].startswith("inferred from App Store Connect price points of 2023-04-07")]
placeholders = [t for t in taxes if t.get("placeholder")]
print(f"storefronts {len(stores)}, currencies {len({s['currency'] for s in stores})}, "
      f"tax entries {len(taxes)}, with a source {len(sourced)} "
      f"({len(inferred)} inferred from Apple's price points of 2023-04-07), "
      f"placeholders {len(placeholders)} "
      f"({sum(1 for t in placeholders if t.get('source'))} with a source)")
