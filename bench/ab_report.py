#!/usr/bin/env python3
"""Turns the rounds of `scripts/bench --ab` into one table: for every scenario metric, the
median of the base's rounds and of the head's, head / base, and each side's spread (min–max).
Writes ab.md and ab.json into --out and prints the table."""
import argparse
import json
import os
import statistics

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--base", nargs="*", default=[], help="measurements.jsonl of each base round")
parser.add_argument("--head", nargs="*", default=[], help="measurements.jsonl of each head round")
parser.add_argument("--title", default="")
args = parser.parse_args()

# Which way is better, by unit; units not named here (cores, counts) have no direction.
HIGHER_IS_BETTER = {"events/s", "pages/s", "deliveries/s", "req/s", "alerts/s", "tx/s", "pings/s"}
LOWER_IS_BETTER = {"ms", "s", "KiB", "MiB", "µs", "us", "ns"}


def rounds(files):
    """{(scenario, metric, subject): (unit, [one value per round])}. A round with several runs
    (none under --quick) counts with the median of its runs."""
    found = {}
    for path in files:
        if not os.path.exists(path):
            continue
        per_round = {}
        for line in open(path):
            if not line.strip():
                continue
            m = json.loads(line)
            key = (m["scenario"], m["metric"], m["subject"])
            unit, values = per_round.setdefault(key, (m["unit"], []))
            if m["value"] is not None:
                values.append(m["value"])
        for key, (unit, values) in per_round.items():
            if values:
                found.setdefault(key, (unit, []))[1].append(statistics.median(values))
    return found


def fmt(v):
    if v is None:
        return "—"
    if v != int(v) and abs(v) < 100:
        return f"{v:,.2f}" if abs(v) < 10 else f"{v:,.1f}"
    return f"{v:,.0f}"


def ratio_text(r):
    return "—" if r is None else f"{r:.3f}"


def spread(values):
    return f"{fmt(min(values))}–{fmt(max(values))}" if values else "—"


def beyond(unit, base_values, head_median):
    """'worse' or 'better' when head's median lies outside every base round, in the
    direction the unit says is worse or better; '' inside the spread or without a direction."""
    if not base_values or head_median is None:
        return ""
    lo, hi = min(base_values), max(base_values)
    if unit in HIGHER_IS_BETTER:
        return "worse" if head_median < lo else "better" if head_median > hi else ""
    if unit in LOWER_IS_BETTER:
        return "worse" if head_median > hi else "better" if head_median < lo else ""
    return ""


base, head = rounds(args.base), rounds(args.head)
rows = []
for key in list(base) + [k for k in head if k not in base]:  # in the order the bench ran them
    scenario, metric, subject = key
    unit = (base.get(key) or head.get(key))[0]
    b = base.get(key, (unit, []))[1]
    h = head.get(key, (unit, []))[1]
    bm = statistics.median(b) if b else None
    hm = statistics.median(h) if h else None
    ratio = hm / bm if bm not in (None, 0) and hm is not None else None
    rows.append({
        "scenario": scenario, "metric": metric if subject == "belay" else f"{metric} ({subject})",
        "unit": unit, "baseMedian": bm, "headMedian": hm, "ratio": ratio,
        "base": b, "head": h, "beyondBaseSpread": beyond(unit, b, hm),
    })

header = ("| scenario | metric | unit | base median | head median | head / base "
          "| base min–max | head min–max | beyond base's spread |\n"
          "|---|---|---|---|---|---|---|---|---|\n")
lines = [f"| {r['scenario']} | {r['metric']} | {r['unit']} | {fmt(r['baseMedian'])} | "
         f"{fmt(r['headMedian'])} | {ratio_text(r['ratio'])} | "
         f"{spread(r['base'])} | {spread(r['head'])} | {r['beyondBaseSpread']} |" for r in rows]
md = (args.title + "\n\n" if args.title else "") + header + "\n".join(lines) + "\n"
os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "ab.md"), "w") as f:
    f.write(md)
with open(os.path.join(args.out, "ab.json"), "w") as f:
    json.dump({"title": args.title, "baseRounds": args.base, "headRounds": args.head,
               "rows": rows}, f, indent=1)
print(md, end="")
