#!/usr/bin/env python3
"""Trims the App Store Connect API responses of 37iOS/AppStoreConnectAPI-Demo (commit
6942f08, saved 2023-04-07) into the fixtures Tests/RateCardTests/Fixtures/storefronts/asc-*.json.

Usage: scripts/asc_points_fixture.py GIT_DIR OUT_DIR

Only members the storefront check reads are dropped: each resource's `links` and each point's
`equalizations` relationship (URLs). The JSON:API shape is kept: data[], included[],
attributes.customerPrice / proceeds / priceTier, relationships.territory, the schedule's dates,
meta.paging and the page's links. Apple's own response for the app's automatic prices names
one price whose point it does not include (HKG, point 10007) and includes one point no price
names (CRI, point 10010); the first is dropped (it has no figures), the second is the CRI
point of the equalizations file, which is kept whole.
"""
import json
import subprocess
import sys

COMMIT = "6942f08"
FILES = {
    "iap_price_points.json": "asc-2023-04-07-iap-price-points-chn.json",
    "app_price_points.json": "asc-2023-04-07-app-price-points-chn.json",
    "app_price_points_equalizations.json": "asc-2023-04-07-app-equalizations.json",
    "iap_appPriceSchedules_automaticPrices.json": "asc-2023-04-07-iap-automatic-prices.json",
    "app_appPriceSchedules_automaticPrices.json": "asc-2023-04-07-app-automatic-prices.json",
    "app_appPriceSchedules_manualPrices.json": "asc-2023-04-07-app-manual-prices.json",
}
POINT_TYPES = {"inAppPurchasePricePoints", "appPricePoints"}


def trim(resource):
    resource = dict(resource)
    resource.pop("links", None)
    if resource["type"] in POINT_TYPES and "relationships" in resource:
        rels = {k: v for k, v in resource["relationships"].items() if k != "equalizations"}
        resource["relationships"] = rels
    return resource


def main(git_dir, out_dir):
    for name, out in FILES.items():
        text = subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"{COMMIT}:AppStoreConnectAPI-v2.3-Response/{name}"],
            check=True, capture_output=True, text=True).stdout
        doc = json.loads(text)
        data = doc["data"] if isinstance(doc["data"], list) else [doc["data"]]
        included = doc.get("included", [])
        point_ids = {r["id"] for r in included if r["type"] in POINT_TYPES}
        named = set()
        kept = []
        for r in data:
            rel = r.get("relationships", {}).get("appPricePoint") or r.get(
                "relationships", {}).get("inAppPurchasePricePoint")
            if rel and rel["data"]["id"] not in point_ids:
                continue  # a price whose point Apple did not include: no figures
            if rel:
                named.add(rel["data"]["id"])
            kept.append(trim(r))
        inc = [trim(r) for r in included
               if r["type"] not in POINT_TYPES or not named or r["id"] in named]
        result = {"data": kept}
        if inc:
            result["included"] = inc
        for key in ("links", "meta"):
            if key in doc:
                result[key] = doc[key]
        with open(f"{out_dir}/{out}", "w") as f:
            json.dump(result, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
