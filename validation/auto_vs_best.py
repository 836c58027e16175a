#!/usr/bin/env python3
"""'auto' against the best fixed method, per message size (issue 10's "auto vs best fixed").

Reads one gridcoll CSV (simulate / gridcoll-bench) holding, for one collective and shape, rows of
fixed methods (empty `choice`) and rows of the method 'auto' (`choice` auto:rules or
auto:default), all taken in the same run. For every message size it prints the best fixed
method, the best flat one (algorithms not named by --hierarchical), what auto ran and the two
ratios auto / best and auto / best flat, then the worst ratios and whether they stay within
--tolerance (default 5 %). Standard library only; writes nothing.

Usage: auto_vs_best.py RESULTS.csv --hierarchical multilevel,magpie,... [--tolerance 0.05]
Exit status: 0 (a report, not a test), 2 for unreadable input.
"""
import argparse
import csv
import sys


def fmt_time(s):
    return f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--hierarchical", default="", help="comma-separated algorithm names that follow the hierarchy")
    ap.add_argument("--tolerance", type=float, default=0.05)
    a = ap.parse_args()
    hier = {x for x in a.hierarchical.split(",") if x}
    fixed, auto = {}, {}
    try:
        with open(a.csv, newline="") as f:
            for line, row in enumerate(csv.DictReader(f), start=2):
                try:
                    size, t = int(row["bytes"]), float(row["time_s"])
                except (KeyError, ValueError) as e:
                    sys.exit(f"auto_vs_best: {a.csv}:{line}: bad row ({e})")
                if row.get("choice", "").startswith("auto"):
                    auto[size] = (row["method"], t)
                else:
                    fixed.setdefault(size, []).append((t, row["method"], row["algorithm"] in hier))
    except OSError as e:
        sys.exit(f"auto_vs_best: {e}")
    sizes = sorted(set(fixed) & set(auto))
    if not sizes:
        sys.exit(f"auto_vs_best: {a.csv}: no message size has both fixed-method rows and an 'auto' row")
    head = f"{'bytes':>9}  {'best fixed':<40} {'best flat':<30} {'auto ran':<40} {'auto/best':>9} {'auto/flat':>9}"
    print(head)
    worst_best = worst_flat = 0.0
    for size in sizes:
        best = min(fixed[size])
        flats = [x for x in fixed[size] if not x[2]]
        flat = min(flats) if flats else None
        method, t = auto[size]
        r_best = t / best[0]
        r_flat = t / flat[0] if flat else float("nan")
        worst_best = max(worst_best, r_best)
        if flat:
            worst_flat = max(worst_flat, r_flat)
        flat_text = f"{flat[1]} {fmt_time(flat[0])}" if flat else "-"
        print(f"{size:>9}  {best[1] + ' ' + fmt_time(best[0]):<40} {flat_text:<30} {method + ' ' + fmt_time(t):<40} "
              f"{r_best:>9.3f} {r_flat:>9.3f}")
    tol = 1 + a.tolerance
    print(f"worst auto/best fixed: {worst_best:.3f} ({'within' if worst_best <= tol else 'MISSES'} {tol:.2f}); "
          f"worst auto/best flat: {worst_flat:.3f} ({'within' if worst_flat <= tol else 'MISSES'} {tol:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
