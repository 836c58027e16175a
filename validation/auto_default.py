#!/usr/bin/env python3
"""`auto` without rules against the MPI library's own method and the best method, per point.

Reads gridcoll CSVs (simulate / gridcoll-bench) named PLATFORM-COLLECTIVE-TIMING.csv (PLATFORM may
carry -nRANKS: a job on its first RANKS slots), each
holding, for one collective, rows of `native` (possibly not at every size), of fixed methods
(empty `choice`) and of `auto` (`choice` auto:builtin), all from one run. For every (platform, collective, size, timing) it
prints the three times, what auto ran, auto/native, auto/best and the native and auto times in
WAN latencies (--wan-latency, default 10 ms: das's); then the worst ratios against the targets
(auto/native <= 1 + --native-tolerance, auto/best <= 1 + --best-tolerance).
With --markdown, the table is a Markdown table (for a README).

Usage: auto_default.py RESULTS.csv... [--wan-latency S] [--markdown]
Exit status: 0 (a report, not a test), 2 for unreadable input.
"""
import argparse
import csv
import os
import sys


def read(paths):
    points = {}  # (platform, coll, timing, bytes) -> {"native": t, "auto": (method, t), "fixed": [(t, method)]}
    for path in paths:
        platform = os.path.basename(path).rsplit("-", 2)[0]
        try:
            with open(path, newline="") as f:
                for line, row in enumerate(csv.DictReader(f), start=2):
                    try:
                        key = (platform, row["collective"], row.get("timing", "root"), int(row["bytes"]))
                        t = float(row["time_s"])
                    except (KeyError, ValueError) as e:
                        sys.exit(f"auto_default: {path}:{line}: bad row ({e})")
                    p = points.setdefault(key, {"fixed": []})
                    if row.get("choice", "").startswith("auto"):
                        p["auto"] = (row["method"], t)
                    elif row["method"] == "native":
                        p["native"] = t
                        p["fixed"].append((t, "native"))
                    else:
                        p["fixed"].append((t, row["method"]))
        except OSError as e:
            sys.exit(f"auto_default: {e}")
    return points


def size_text(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--wan-latency", type=float, default=0.010)
    ap.add_argument("--native-tolerance", type=float, default=0.02)
    ap.add_argument("--best-tolerance", type=float, default=0.05)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    points = read(a.csv)
    rows = []
    for key in sorted(points):
        p = points[key]
        if "auto" not in p or not p["fixed"]:
            continue
        best = min(p["fixed"])
        ran, t = p["auto"]
        native = p.get("native", float("nan"))
        rows.append((key, native, ran, t, best, t / native, t / best[0]))
    if not rows:
        sys.exit("auto_default: no point has auto and fixed-method rows")
    w = a.wan_latency
    if a.markdown:
        print("| platform | collective | bytes | timing | native (WAN lat.) | auto: method (WAN lat.) | best | auto/native | auto/best |")
        print("|---|---|---:|---|---:|---|---|---:|---:|")
    else:
        print(f"{'platform':<14}{'coll':<10}{'bytes':>6} {'timing':<9}{'native':>10} {'auto ran':<40}{'best':<36}"
              f"{'a/native':>9}{'a/best':>8}{'nat/WAN':>8}{'auto/WAN':>9}")
    for (plat, coll, timing, n), native, ran, t, best, r_nat, r_best in rows:
        if a.markdown:
            print(f"| {plat} | {coll} | {size_text(n)} | {timing} | {native * 1e3:.2f} ms ({native / w:.2f}) | "
                  f"{ran}: {t * 1e3:.2f} ms ({t / w:.2f}) | {best[1]} | {r_nat:.3f} | {r_best:.3f} |")
        else:
            print(f"{plat:<14}{coll:<10}{size_text(n):>6} {timing:<9}{native * 1e3:>8.2f}ms "
                  f"{ran + f' {t * 1e3:.2f}ms':<40}{best[1] + f' {best[0] * 1e3:.2f}ms':<36}"
                  f"{r_nat:>9.3f}{r_best:>8.3f}{native / w:>8.2f}{t / w:>9.2f}")
    with_native = [r for r in rows if r[5] == r[5]] or rows  # not NaN: native ran there
    worst_nat = max(with_native, key=lambda r: r[5])
    worst_best = max(rows, key=lambda r: r[6])
    for label, worst, idx, tol in (("auto/native", worst_nat, 5, a.native_tolerance), ("auto/best", worst_best, 6, a.best_tolerance)):
        (plat, coll, timing, n) = worst[0]
        verdict = "within" if worst[idx] <= 1 + tol else "MISSES"
        print(f"worst {label}: {worst[idx]:.3f} ({plat} {coll} {size_text(n)} {timing}; {verdict} {1 + tol:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
