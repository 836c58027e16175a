#!/usr/bin/env python3
"""The event simulator against SMPI for the same points: per (method, size) the SMPI time, each
event-simulator variant's time and its relative difference (event / SMPI - 1), then per variant
the share of cells within --tolerance (default 10 %) and the worst cell.

Usage: event_vs_smpi.py SMPI.csv EVENT.csv [EVENT2.csv ...] [--tolerance 0.10]
Each CSV is gridcoll simulate output, one variant per file, named by the file's name without
its directory and extension (e.g. event, sync, sync-links). Rows are matched on (method, ranks,
bytes).
Standard library only; writes nothing. Exit status 0 (a report), 2 for unreadable input.
"""
import argparse
import csv
import os
import sys


def load(path):
    rows = {}
    try:
        with open(path, newline="") as f:
            for line, r in enumerate(csv.DictReader(f), start=2):
                try:
                    rows[(r["method"], int(r["ranks"]), int(r["bytes"]))] = float(r["time_s"])
                except (KeyError, ValueError) as e:
                    sys.exit(f"event_vs_smpi: {path}:{line}: bad row ({e})")
    except OSError as e:
        sys.exit(f"event_vs_smpi: {e}")
    if not rows:
        sys.exit(f"event_vs_smpi: {path}: no rows")
    return os.path.splitext(os.path.basename(path))[0], rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("smpi")
    ap.add_argument("event", nargs="+")
    ap.add_argument("--tolerance", type=float, default=0.10)
    a = ap.parse_args()
    _, smpi = load(a.smpi)
    variants = [load(p) for p in a.event]
    print(f"{'method':<36} {'ranks':>5} {'bytes':>9} {'smpi':>10}" +
          "".join(f" {name:>18} {'diff':>7}" for name, _ in variants))
    stats = {name: [] for name, _ in variants}
    for key in sorted(smpi, key=lambda k: (k[0], k[1], k[2])):
        line = f"{key[0]:<36} {key[1]:>5} {key[2]:>9} {smpi[key]:>10.4f}"
        for name, rows in variants:
            if key not in rows:
                line += f" {'-':>18} {'-':>7}"
                continue
            d = rows[key] / smpi[key] - 1
            stats[name].append((abs(d), key))
            line += f" {rows[key]:>18.4f} {d * 100:>6.1f}%"
        print(line)
    for name, cells in stats.items():
        if not cells:
            continue
        within = sum(1 for d, _ in cells if d <= a.tolerance)
        worst = max(cells)
        print(f"{name}: {within}/{len(cells)} cells within {a.tolerance * 100:.0f} %; worst {worst[0] * 100:.1f} % "
              f"({worst[1][0]}, {worst[1][2]} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
