#!/usr/bin/env python3
"""PLogP predictions against SimGrid SMPI on the das platforms (paper 000's DAS): the schedule
event simulator and the closed forms next to the SMPI time of the same broadcast, per cell the
relative difference, and the share of cells within the tolerance (10 %).

Broadcasts: binomial, pipeline, binary, splitted-binary and kary (fan-out 4: paper 000's
single-layer segmented d-ary tree), root 0, of 64 KiB, 256 KiB, 1 MiB, 4 MiB and 16 MiB.
kary is shown, not graded: it posts a segment to all of a node's children at once (Open MPI's
tree engine, algorithms/bcast/bcast_kary.cpp), which PLogP's one port cannot express. On the
mesh WAN the sends cross separate links side by side (event+links models that); on a LAN they
share the sender's link and arrive together.

Scopes (graded):
  lan    one cluster: 32 ranks on the 32 nodes of das-4x32's cluster c0 (placement file),
         LAN parameters (20 us, 50 MB/s), segments of 64 KiB.
  wan4   across the WAN: one rank per cluster of das-4x32 (c0-0 .. c3-0), WAN parameters
         (10 ms, 1 MB/s; a full mesh: each cluster pair has its own link), segments of 256 KiB.
  wan8   the same on das-8x16's 8 clusters.
Extra sections (shown, not graded):
  wan4-64k   wan4 with 64 KiB segments: SimGrid's rendezvous adds a latency per message.
  mixed      das-4x32 with its block placement, 128 ranks: trees with many edges over one
             cluster pair's 1 MB/s link, which SimGrid shares and PLogP does not model; the
             event simulator with and without --shared-links wan (one link per cluster pair).

How each number is obtained (all with the gridcoll CLI of the build directory):
  smpi       gridcoll simulate --backend smpi (SimGrid CM02: latency + size / bandwidth with
             max-min sharing), --root 0, one repetition (simulated time is deterministic), with
             --cfg smpi/send-is-detached-thresh:0: every message uses SimGrid's rendezvous path,
             whose send completes when the data has arrived, so a node's chain of sends goes one
             message at a time as PLogP's port does. (SimGrid's default sends messages under
             64 KiB detached: a chain of them is not paced at all and all its messages share the
             links at once; --smpi-protocol default keeps that.) The bench's acknowledgement
             barrier and completion reports are part of each SMPI time; the script subtracts the
             time the same harness measures for a 0-byte broadcast (nothing but the harness:
             one WAN or LAN latency), which it prints.
  event      gridcoll simulate --backend event: the same schedules replayed under PLogP with
             parameters derived from the description's links (L = latency, os = or = 1 us,
             g(m) = 1 us + m / bandwidth; per level: WAN between clusters, LAN inside one).
  paper      gridcoll predict --model plogp --level lan|wan: paper 002 Table 2 / paper 000
             as published (binary and kary assume full trees, splitted-binary has no exchange).
  corrected  gridcoll predict --variant corrected: the same model on the trees' real shapes,
             with splitted-binary's final exchange (algorithms/model/plogp_bcast_corrected.cpp).
Relative difference = (prediction - SMPI) / SMPI, SMPI net of the harness.

Exit status: 0; 1 with --check when a graded cell of a graded predictor (--grade, default event
and corrected) is off by more than --tolerance; 2 on bad arguments or a failing command.

Usage: /usr/bin/python3 validation/plogp_vs_smpi.py [--build build] [--scopes lan,wan4,wan8]
           [--extras wan4-64k,mixed] [--sizes 64K,...] [--mixed-sizes 64K,1M] [--tolerance 0.10]
           [--check] [--grade event,corrected] [--plot FILE.png] [--work DIR]
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHIPPED = os.path.join(ROOT, "platforms", "shipped")
ALGORITHMS = ["binomial", "pipeline", "binary", "splitted-binary", "kary"]
FANOUT = 4
PREDICTORS = ["event", "event+sync", "paper", "corrected"]
# Shown, not graded (the module docstring says why).
UNGRADED = {"kary"}


class Scope:
    def __init__(self, key, title, platform, hosts, ranks, level, segment, graded, links=False):
        self.key, self.title, self.platform, self.hosts = key, title, platform, hosts
        self.ranks, self.level, self.segment, self.graded, self.links = ranks, level, segment, graded, links


def scopes():
    das4, das8 = os.path.join(SHIPPED, "das-4x32.toml"), os.path.join(SHIPPED, "das-8x16.toml")
    return {
        "lan": Scope("lan", "one cluster: 32 ranks of das-4x32 cluster c0, LAN parameters, 64 KiB segments",
                     das4, [f"c0-{i}" for i in range(32)], 32, "lan", "64K", True),
        "wan4": Scope("wan4", "across the WAN: one rank in each of das-4x32's 4 clusters, WAN parameters, 256 KiB segments",
                      das4, [f"c{i}-0" for i in range(4)], 4, "wan", "256K", True, True),
        "wan8": Scope("wan8", "across the WAN: one rank in each of das-8x16's 8 clusters, WAN parameters, 256 KiB segments",
                      das8, [f"c{i}-0" for i in range(8)], 8, "wan", "256K", True, True),
        "wan4-64k": Scope("wan4-64k", "EXTRA (not graded): wan4 with 64 KiB segments — SimGrid's rendezvous pays the "
                          "10 ms latency again for every message of a chain", das4, [f"c{i}-0" for i in range(4)], 4, "wan",
                          "64K", False),
        "mixed": Scope("mixed", "EXTRA (not graded): das-4x32 block placement, 128 ranks, 64 KiB segments — many tree "
                       "edges share one cluster pair's 1 MB/s link in SimGrid; PLogP has no link contention "
                       "(event+links: gridcoll simulate --shared-links wan)", das4, None, 128, None, "64K", False, True),
    }


def die(msg):
    print(f"plogp_vs_smpi: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(i?B)?\s*", text, re.IGNORECASE)
    if not m:
        die(f"bad size '{text}' (expected e.g. 64K, 1M, 65536)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def human(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.4f} s"


def placed_platform(src, hosts, out):
    """Writes `src` with its [placement] replaced by a file placement on `hosts`."""
    with open(src) as f:
        text = f.read()
    block = re.search(r"^\[placement\]\n(?:[^\[\n][^\n]*\n|\n)*?(?=^\[|\Z)", text, re.MULTILINE)
    if not block:
        die(f"{src}: no [placement] table to replace")
    listed = ", ".join(f'"{h}"' for h in hosts)
    new = f'[placement]\npolicy = "file"\nhosts = [{listed}]\n\n'
    with open(out, "w") as f:
        f.write(text[:block.start()] + new + text[block.end():])
    return out


def run_rows(cmd, label, expect):
    """Runs a gridcoll command printing CSV; reports progress per row on stderr; returns rows."""
    t0 = time.monotonic()
    print(f"[{label}] {' '.join(cmd)}", file=sys.stderr, flush=True)
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        die(f"cannot run {cmd[0]}: {e}")
    lines, n, header = [], 0, None
    for line in p.stdout:
        lines.append(line)
        f = line.rstrip("\n").split(",")
        if f and f[0] == "backend":
            header = f
        elif header and len(f) == len(header):
            n += 1
            row = dict(zip(header, f))
            size = int(row["bytes"])
            print(f"[{label}] {n}/{expect} {row['method']} {human(size) if size else '0 B'}"
                  f"  ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
    err = p.stderr.read()
    if p.wait() != 0:
        sys.stderr.write(err[-3000:])
        die(f"[{label}] command failed with status {p.returncode}: {' '.join(cmd)}")
    return list(csv.DictReader(io.StringIO("".join(lines))))


def times(rows):
    return {(r["algorithm"], int(r["bytes"])): float(r["time_s"]) for r in rows}


def measure(gridcoll, sc, platform, sizes, protocol):
    """{predictor: {(alg, bytes): seconds}} and the harness time per algorithm."""
    b = ",".join(str(s) for s in sizes)
    common = ["-a", ",".join(ALGORITHMS), "-s", sc.segment, "-k", str(FANOUT), "--root", "0", "-r", "1", "--warmup", "0"]
    n = len(ALGORITHMS) * len(sizes)
    cfg = ["--cfg", "smpi/send-is-detached-thresh:0"] if protocol == "rendezvous" else []
    smpi = times(run_rows([gridcoll, "simulate", "-p", platform, "--backend", "smpi", "-b", "0," + b] + common + cfg,
                          f"{sc.key} smpi", n + len(ALGORITHMS)))
    out = {"smpi": smpi}
    out["event"] = times(run_rows([gridcoll, "simulate", "-p", platform, "--backend", "event", "-b", b] + common,
                                  f"{sc.key} event", n))
    # The event simulator with synchronous sends: a send completes when its message arrives, as
    # under SimGrid's rendezvous protocol (only meaningful against that protocol).
    if protocol == "rendezvous":
        out["event+sync"] = times(run_rows([gridcoll, "simulate", "-p", platform, "--backend", "event", "-b", b,
                                            "--sync-sends"] + common, f"{sc.key} event+sync", n))
    if sc.links:  # (with synchronous sends too under the rendezvous protocol, as event+sync)
        sync = ["--sync-sends"] if protocol == "rendezvous" else []
        out["event+links"] = times(run_rows([gridcoll, "simulate", "-p", platform, "--backend", "event", "-b", b,
                                             "--shared-links", "wan"] + sync + common, f"{sc.key} event+links", n))
    if sc.level:
        for variant in ("paper", "corrected"):
            out[variant] = times(run_rows([gridcoll, "predict", "--model", "plogp", "-p", platform, "--level", sc.level,
                                           "-a", ",".join(ALGORITHMS), "-n", str(sc.ranks), "-b", b, "-s", sc.segment,
                                           "-k", str(FANOUT), "--variant", variant], f"{sc.key} {variant}", n))
    harness = {a: smpi[(a, 0)] for a in ALGORITHMS}
    return out, harness


def check_arguments(a):
    """The checked arguments: gridcoll, the scopes, the graded predictors, the sizes, a work folder."""

    gridcoll = a.gridcoll or os.path.join(a.build, "bin", "gridcoll")
    if not os.access(gridcoll, os.X_OK):
        die(f"gridcoll not found or not executable: {gridcoll} (build first, or pass --build / --gridcoll)")
    all_scopes = scopes()
    chosen = [s for s in a.scopes.split(",") if s]
    extras = [s for s in a.extras.split(",") if s]
    for k in chosen + extras:
        if k not in all_scopes:
            die(f"unknown scope '{k}' (valid: {', '.join(all_scopes)})")
    for k in chosen:
        if not all_scopes[k].graded:
            die(f"'{k}' is an extra section: pass it with --extras")
    grade = [g for g in a.grade.split(",") if g]
    for g in grade:
        if g not in PREDICTORS:
            die(f"unknown predictor '{g}' in --grade (valid: {', '.join(PREDICTORS)})")
    if not (0 < a.tolerance < 10):
        die(f"--tolerance must be a fraction such as 0.10, got {a.tolerance}")
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    mixed_sizes = [parse_size(s) for s in a.mixed_sizes.split(",") if s]
    if not sizes or any(s <= 0 for s in sizes + mixed_sizes):
        die("message sizes must be positive")
    work = a.work or tempfile.mkdtemp(prefix="plogp-vs-smpi-")
    os.makedirs(work, exist_ok=True)
    return gridcoll, all_scopes, chosen, extras, grade, sizes, mixed_sizes, work



def measure_all(a, gridcoll, all_scopes, keys, sizes, mixed_sizes, work):
    """Every scope measured under SMPI and predicted; (graded results, sections to print)."""
    results = []  # (scope, alg, bytes, smpi_net, {predictor: value})
    sections = []
    for key in keys:
        sc = all_scopes[key]
        platform = sc.platform if sc.hosts is None else placed_platform(sc.platform, sc.hosts, os.path.join(work, key + ".toml"))
        sz = mixed_sizes if key == "mixed" else sizes
        data, harness = measure(gridcoll, sc, platform, sz, a.smpi_protocol)
        preds = [p for p in ("event", "event+sync", "event+links", "paper", "corrected") if p in data]
        rows = []
        for alg in ALGORITHMS:
            for m in sz:
                net = data["smpi"][(alg, m)] - harness[alg]
                vals = {p: data[p].get((alg, m)) for p in preds}
                rows.append((alg, m, data["smpi"][(alg, m)], net, vals))
                if sc.graded and alg not in UNGRADED:
                    results.append((key, alg, m, net, vals))
        sections.append((sc, preds, rows, harness))
    return results, sections


def print_sections(a, sections, took_s):
    """One table per scope: SMPI net of the harness beside every predictor."""
    tol = a.tolerance
    print(f"PLogP predictions vs SimGrid SMPI, broadcasts from root 0 (kary: fan-out {FANOUT}); SMPI protocol: "
          f"{'rendezvous for every message' if a.smpi_protocol == 'rendezvous' else 'SimGrid default'}; "
          f"tolerance {tol:.0%}; run took {took_s:.0f} s")
    print("smpi = SimGrid time net of the harness (an empty broadcast measured the same way); "
          "err = (prediction - smpi) / smpi; * = off by more than the tolerance")
    for sc, preds, rows, harness in sections:
        print(f"\n== {sc.key}: {sc.title}")
        h = sorted(set(harness.values()))
        print(f"   harness (0-byte broadcast under SMPI): {', '.join(fmt_time(x) for x in h)}")
        head = f"{'algorithm':<16} {'bytes':>8} {'smpi':>12}"
        for p in preds:
            head += f" {p:>12} {'err':>8}"
        print(head)
        for alg, m, raw, net, vals in rows:
            line = f"{alg:<16} {human(m):>8} {fmt_time(net):>12}"
            for p in preds:
                v = vals[p]
                if v is None:
                    line += f" {'-':>12} {'':>8}"
                    continue
                err = (v - net) / net
                line += f" {fmt_time(v):>12} {err:>+7.1%}{'*' if abs(err) > tol else ' '}"
            print(line)


def summary(results, chosen, grade, tol):
    """Cells within the tolerance per predictor and scope; returns the misses."""
    # Summary over the graded scopes.
    print(f"\n== summary: cells within {tol:.0%} of SMPI (graded scopes: {', '.join(chosen)}; "
          f"not graded: {', '.join(sorted(UNGRADED))}, which posts to all children at once)")
    misses = []
    for p in PREDICTORS:
        per = []
        total_in = total = 0
        for key in chosen:
            cells = [(alg, m, net, v[p]) for (k, alg, m, net, v) in results if k == key and v.get(p) is not None]
            ok = [c for c in cells if abs((c[3] - c[2]) / c[2]) <= tol]
            per.append(f"{key} {len(ok)}/{len(cells)}")
            total_in += len(ok)
            total += len(cells)
            for alg, m, net, v in cells:
                if abs((v - net) / net) > tol:
                    misses.append((p, key, alg, m, (v - net) / net))
        share = total_in / total if total else 0.0
        print(f"   {p:<10} {total_in}/{total} ({share:.0%})   " + ", ".join(per) + ("   [graded]" if p in grade else ""))
    if misses:
        print("   off by more than the tolerance:")
        for p, key, alg, m, err in misses:
            print(f"     {p:<10} {key:<5} {alg:<16} {human(m):>8} {err:+.1%}")
    return misses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (bin/gridcoll)")
    ap.add_argument("--gridcoll", default="", help="the gridcoll CLI (default: BUILD/bin/gridcoll)")
    ap.add_argument("--scopes", default="lan,wan4,wan8", help="graded scopes: lan, wan4, wan8 (default: all)")
    ap.add_argument("--extras", default="wan4-64k,mixed", help="extra sections: wan4-64k, mixed ('' for none)")
    ap.add_argument("--sizes", default="64K,256K,1M,4M,16M", help="message sizes of the graded scopes")
    ap.add_argument("--mixed-sizes", default="64K,1M", help="message sizes of the mixed section (128 ranks: slow)")
    ap.add_argument("--tolerance", type=float, default=0.10, help="relative tolerance (default 0.10)")
    ap.add_argument("--grade", default="event,corrected", help="predictors --check grades (event, paper, corrected)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a graded cell is off by more than the tolerance")
    ap.add_argument("--smpi-protocol", default="rendezvous", choices=["rendezvous", "default"],
                    help="rendezvous: every message (smpi/send-is-detached-thresh:0); default: SimGrid's 64 KiB switch")
    ap.add_argument("--plot", default="", help="also draw the relative differences into this PNG (needs matplotlib)")
    ap.add_argument("--work", default="", help="directory for the generated platform files (default: temporary)")
    a = ap.parse_args()
    gridcoll, all_scopes, chosen, extras, grade, sizes, mixed_sizes, work = check_arguments(a)
    tol = a.tolerance
    t_start = time.monotonic()
    results, sections = measure_all(a, gridcoll, all_scopes, chosen + extras, sizes, mixed_sizes, work)
    print_sections(a, sections, time.monotonic() - t_start)
    misses = summary(results, chosen, grade, tol)
    if a.plot:
        draw(a.plot, sections, tol)

    failed = [m for m in misses if m[0] in grade]
    if a.check:
        if failed:
            print(f"\nFAIL: {len(failed)} graded cell(s) ({', '.join(grade)}) off by more than {tol:.0%}")
            return 1
        print(f"\nPASS: every graded cell ({', '.join(grade)}) within {tol:.0%}")
    return 0


def draw(path, sections, tol):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die("--plot needs matplotlib (apt-get install python3-matplotlib)")
    n = len(sections)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 4), squeeze=False)
    styles = {"event": "-o", "event+sync": "-.d", "event+links": "-s", "paper": ":x", "corrected": "--^"}
    for ax, (sc, preds, rows, _) in zip(axes[0], sections):
        for i, alg in enumerate(ALGORITHMS):
            pts = [(m, net, vals) for (a, m, raw, net, vals) in rows if a == alg]
            for p in preds:
                xs = [m for m, net, v in pts if v[p] is not None]
                ys = [100 * (v[p] - net) / net for m, net, v in pts if v[p] is not None]
                ax.plot(xs, ys, styles[p], color=f"C{i}", markersize=4,
                        label=f"{alg} {p}" if (ax is axes[0][0]) != (p == "event+links") else None)
        ax.axhspan(-100 * tol, 100 * tol, color="0.9")
        ax.set_xscale("log", base=2)
        ax.set_title(sc.key, fontsize=9)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("prediction vs SMPI (%)")
        if sc.key == "mixed":
            ax.set_yscale("symlog", linthresh=10)
    fig.legend(loc="lower center", ncol=5, fontsize=6)
    fig.tight_layout(rect=(0, 0.18, 1, 1))
    fig.savefig(path, dpi=120)
    print(f"\nplot: {path}")


if __name__ == "__main__":
    sys.exit(main())
