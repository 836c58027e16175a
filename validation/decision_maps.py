#!/usr/bin/env python3
"""Draws decision maps and penalty maps (paper 002 §6.3, Figures 6 and 7) as PNG.

Input: the CSV files the C++ decision code writes (algorithms/include/gridcoll/model/decision.hpp):

  decision CSV (write_decision_csv), one row per (source, P, m):
    source,collective,ranks,bytes,algorithm,segment,fanout,method,time_s,compared
  penalty CSV (write_penalty_csv), one row per (model, P, m):
    source,collective,ranks,bytes,algorithm,segment,fanout,method,best_method,time_s,best_time_s,
    penalty_pct,status

Output, per collective found:
  PREFIX_decision_<collective>.png  Figure 6 style: one panel per source (measured, hockney, ...);
                                    the colour at (m, P) is the best method for message size m
                                    and communicator size P; one colour family per algorithm,
                                    shades for segment sizes / fan-outs; m on a log scale.
  PREFIX_penalty_<collective>.png   Figure 7 style: one panel per model; the shade at (m, P) is
                                    the measured time of the model's choice over the best
                                    measured time, minus 1, in percent; white below 5 %;
                                    hatched grey where the choice (or the point) was not measured.
It prints the names of the files written and, per model, the share of points at >= 5 % penalty,
the mean and the largest penalty.

Usage: /usr/bin/python3 validation/decision_maps.py DECISION.csv [PENALTY.csv] -o PREFIX
           [--max-penalty PCT] [--title TEXT]
Needs matplotlib and numpy (Debian: python3-matplotlib, python3-numpy; scripts/install-deps.sh).
"""
import argparse
import colorsys
import csv
import math
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import colors as mcolors
    from matplotlib.patches import Patch, Rectangle
    import numpy as np
except ImportError as e:  # pragma: no cover - depends on the machine
    sys.exit(f"decision_maps.py: {e}; install python3-matplotlib and python3-numpy (scripts/install-deps.sh)")

SOURCE_TITLES = {"measured": "Measured", "hockney": "Hockney", "loggp": "LogP/LogGP", "plogp": "PLogP"}
COLLECTIVE_TITLES = {"bcast": "Broadcast", "reduce": "Reduce", "barrier": "Barrier", "alltoall": "Alltoall",
                     "allreduce": "Allreduce", "scatter": "Scatter", "gather": "Gather", "allgather": "Allgather",
                     "scan": "Scan"}
# Base colours of the algorithm families (tab10 without grey, which marks missing data).
BASE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
MISSING = "#d9d9d9"
PENALTY_FLOOR = 5.0  # percent: white below (Figure 7)


def fail(msg):
    sys.exit(f"decision_maps.py: {msg}")


def read_csv(path, needed):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    if not rows:
        fail(f"{path}: no data rows")
    missing = [c for c in needed if c not in rows[0]]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)} (expected {','.join(needed)})")
    for i, r in enumerate(rows, start=2):
        try:
            r["ranks"] = int(r["ranks"])
            r["bytes"] = int(r["bytes"])
            if "segment" in r:
                r["segment"] = int(r["segment"])
            if "fanout" in r:
                r["fanout"] = int(r["fanout"])
            if "penalty_pct" in r:
                r["penalty_pct"] = float(r["penalty_pct"]) if r["penalty_pct"] else None
        except ValueError as e:
            fail(f"{path}:{i}: {e}")
    return rows


def human_bytes(b):
    if b <= 0:
        return "0"
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def edges(values, log):
    """Cell edges around sorted distinct values (geometric midpoints on a log axis)."""
    v = [float(x) for x in values]
    if log:
        v = [x if x > 0 else 0.5 for x in v]  # 0 bytes drawn at 0.5
    if len(v) == 1:
        return [v[0] / 1.5, v[0] * 1.5] if log else [v[0] - 0.5, v[0] + 0.5]
    mids = [math.sqrt(a * b) if log else (a + b) / 2 for a, b in zip(v, v[1:])]
    first = v[0] * v[0] / mids[0] if log else 2 * v[0] - mids[0]
    last = v[-1] * v[-1] / mids[-1] if log else 2 * v[-1] - mids[-1]
    return [first] + mids + [last]


def shade(hex_colour, k, n):
    """Variant k of n of a colour family: from darker to lighter."""
    if n == 1:
        return hex_colour
    r, g, b = mcolors.to_rgb(hex_colour)
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    lo, hi = max(0.18, l - 0.22), min(0.85, l + 0.32)
    return colorsys.hls_to_rgb(h, lo + (hi - lo) * k / (n - 1), s)


def method_palette(rows):
    """Method label -> colour: one family per algorithm (first-seen order), shades by (segment, fan-out)."""
    algs, variants = [], {}
    for r in rows:
        if r["algorithm"] not in variants:
            algs.append(r["algorithm"])
            variants[r["algorithm"]] = {}
        variants[r["algorithm"]][(r["segment"], r["fanout"])] = r["method"]
    palette, order = {}, []
    for i, a in enumerate(algs):
        base = BASE_COLOURS[i % len(BASE_COLOURS)]
        keys = sorted(variants[a])
        for k, key in enumerate(keys):
            label = variants[a][key]
            palette[label] = shade(base, k, len(keys))
            order.append(label)
    return palette, order


def grid_axes(rows):
    sizes = sorted({r["bytes"] for r in rows})
    ranks = sorted({r["ranks"] for r in rows})
    return sizes, ranks


def style_axes(ax, sizes, ranks, title):
    ax.set_xscale("log", base=2)
    xe = edges(sizes, True)
    ye = edges(ranks, False)
    ax.set_xlim(xe[0], xe[-1])
    ax.set_ylim(ye[0], ye[-1])
    # At most ~8 size labels, at the sampled sizes.
    step = max(1, math.ceil(len(sizes) / 8))
    ticks = sizes[::step]
    ax.set_xticks([t if t > 0 else 0.5 for t in ticks])
    ax.set_xticklabels([human_bytes(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("message size m (bytes)")
    ax.set_ylabel("communicator size P")
    ax.set_title(title)
    ax.set_facecolor(MISSING)


def panel_layout(n):
    cols = n if n <= 3 else (2 if n == 4 else 3)
    rows = math.ceil(n / cols)
    return rows, cols


def sources_in_order(rows):
    seen = []
    for r in rows:
        if r["source"] not in seen:
            seen.append(r["source"])
    return seen


def draw_decision(rows, coll, path, title):
    sizes, ranks = grid_axes(rows)
    palette, order = method_palette(rows)
    index = {label: i for i, label in enumerate(order)}
    cmap = mcolors.ListedColormap([palette[label] for label in order])
    norm = mcolors.BoundaryNorm(np.arange(len(order) + 1) - 0.5, len(order))
    sources = sources_in_order(rows)
    nr, nc = panel_layout(len(sources))
    fig, axes = plt.subplots(nr, nc, figsize=(5.6 * nc, 4.2 * nr + 1.0), squeeze=False)
    xe, ye = edges(sizes, True), edges(ranks, False)
    col_of = {b: i for i, b in enumerate(sizes)}
    row_of = {p: i for i, p in enumerate(ranks)}
    for ax, src in zip(axes.flat, sources):
        z = np.full((len(ranks), len(sizes)), np.nan)
        for r in rows:
            if r["source"] == src:
                z[row_of[r["ranks"]], col_of[r["bytes"]]] = index[r["method"]]
        ax.pcolormesh(xe, ye, np.ma.masked_invalid(z), cmap=cmap, norm=norm, shading="flat")
        style_axes(ax, sizes, ranks, SOURCE_TITLES.get(src, src))
    for ax in list(axes.flat)[len(sources):]:
        ax.set_visible(False)
    used = [label for label in order if any(r["method"] == label for r in rows)]
    handles = [Patch(facecolor=palette[label], edgecolor="none", label=label) for label in used]
    handles.append(Patch(facecolor=MISSING, edgecolor="none", label="no data"))
    fig.legend(handles=handles, loc="lower center", ncol=min(5, len(handles)), frameon=False, fontsize=9)
    fig.suptitle(title or f"{COLLECTIVE_TITLES.get(coll, coll)} decision function: best method at (m, P)")
    legend_rows = math.ceil(len(handles) / min(5, len(handles)))
    fig.tight_layout(rect=(0, (0.3 + 0.22 * legend_rows) / fig.get_figheight(), 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def nice_ceiling(x):
    for v in (10, 25, 50, 100, 200, 300, 500, 1000):
        if x <= v:
            return v
    return math.ceil(x / 1000) * 1000


def draw_penalty(rows, coll, path, title, vmax):
    sizes, ranks = grid_axes(rows)
    sources = sources_in_order(rows)
    values = [r["penalty_pct"] for r in rows if r["penalty_pct"] is not None and math.isfinite(r["penalty_pct"])]
    if vmax is None:
        vmax = nice_ceiling(max(values)) if values else 100
    # Light grey just above the 5 % floor, so that white means "< 5 %" only.
    cmap = mcolors.ListedColormap(plt.get_cmap("Greys")(np.linspace(0.15, 1.0, 256)))
    cmap.set_under("white")
    cmap.set_over("black")
    norm = mcolors.Normalize(vmin=PENALTY_FLOOR, vmax=vmax)
    nr, nc = panel_layout(len(sources))
    fig, axes = plt.subplots(nr, nc, figsize=(5.6 * nc + 0.8, 4.2 * nr + 0.8), squeeze=False)
    xe, ye = edges(sizes, True), edges(ranks, False)
    col_of = {b: i for i, b in enumerate(sizes)}
    row_of = {p: i for i, p in enumerate(ranks)}
    mesh = None
    summary = []
    for ax, src in zip(axes.flat, sources):
        z = np.full((len(ranks), len(sizes)), np.nan)
        unmeasured = []
        pen = []
        for r in rows:
            if r["source"] != src:
                continue
            i, j = row_of[r["ranks"]], col_of[r["bytes"]]
            if r["status"] == "ok" and r["penalty_pct"] is not None:
                p = r["penalty_pct"]
                z[i, j] = p if math.isfinite(p) else vmax * 10
                pen.append(p)
            else:
                unmeasured.append((i, j))
        mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z), cmap=cmap, norm=norm, shading="flat")
        for i, j in unmeasured:
            ax.add_patch(Rectangle((xe[j], ye[i]), xe[j + 1] - xe[j], ye[i + 1] - ye[i], facecolor=MISSING,
                                   edgecolor="#808080", hatch="///", linewidth=0))
        style_axes(ax, sizes, ranks, SOURCE_TITLES.get(src, src))
        ax.set_facecolor("white")
        if pen:
            over = sum(1 for p in pen if p >= PENALTY_FLOOR)
            mean = sum(pen) / len(pen)
            worst = max(pen)
            ax.set_title(f"{SOURCE_TITLES.get(src, src)}: {over}/{len(pen)} points >= {PENALTY_FLOOR:g} %, "
                         f"mean {mean:.1f} %, max {worst:.0f} %", fontsize=10)
            summary.append((src, over, len(pen), mean, worst, len(unmeasured)))
        else:
            summary.append((src, 0, 0, float("nan"), float("nan"), len(unmeasured)))
    for ax in list(axes.flat)[len(sources):]:
        ax.set_visible(False)
    fig.suptitle(title or f"{COLLECTIVE_TITLES.get(coll, coll)}: penalty of the model's decision "
                          f"(measured time of its choice / best measured - 1)")
    any_unmeasured = any(s[5] for s in summary)
    fig.tight_layout(rect=(0, 0.06 if any_unmeasured else 0, 0.92, 0.94))
    cax = fig.add_axes((0.935, 0.15, 0.012, 0.7))
    cb = fig.colorbar(mesh, cax=cax, extend="both")
    cb.set_label(f"% penalty (white < {PENALTY_FLOOR:g} %)")
    if any_unmeasured:
        fig.legend(handles=[Patch(facecolor=MISSING, edgecolor="#808080", hatch="///", label="not measured (the choice or the point)")],
                   loc="lower center", frameon=False, fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("decision", help="decision CSV (write_decision_csv)")
    ap.add_argument("penalty", nargs="?", help="penalty CSV (write_penalty_csv)")
    ap.add_argument("-o", "--output", required=True, help="prefix of the PNG files")
    ap.add_argument("--max-penalty", type=float, help="top of the penalty colour scale in %% (default: from the data)")
    ap.add_argument("--title", help="figure title (default: from the collective)")
    a = ap.parse_args()

    drows = read_csv(a.decision, ["source", "collective", "ranks", "bytes", "algorithm", "segment", "fanout", "method"])
    for coll in sorted({r["collective"] for r in drows}):
        path = f"{a.output}_decision_{coll}.png"
        draw_decision([r for r in drows if r["collective"] == coll], coll, path, a.title)
        print(path)
    if a.penalty:
        prows = read_csv(a.penalty, ["source", "collective", "ranks", "bytes", "method", "penalty_pct", "status"])
        for coll in sorted({r["collective"] for r in prows}):
            path = f"{a.output}_penalty_{coll}.png"
            summary = draw_penalty([r for r in prows if r["collective"] == coll], coll, path, a.title, a.max_penalty)
            print(path)
            for src, over, n, mean, worst, unmeasured in summary:
                print(f"  {coll} {src}: {over}/{n} points >= {PENALTY_FLOOR:g} % penalty, mean {mean:.1f} %, "
                      f"max {worst:.1f} %, {unmeasured} not measured")


if __name__ == "__main__":
    main()
