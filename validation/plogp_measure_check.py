#!/usr/bin/env python3
"""Checks gridcoll-plogp-smpi against the platform it measures: on SMPI the network is exactly
the platform description, so the measured PLogP latency L and gap g(m) of every level must be
the route's latency and m / bandwidth.

What it runs (commands of the gridcoll CLI and smpirun):
  gridcoll platform xml   PLATFORM.toml -o WORK/platform.xml
  gridcoll platform hosts PLATFORM.toml -o WORK/platform.hosts
  gridcoll platform ranks PLATFORM.toml -o WORK/platform.ranks
  smpirun -platform WORK/platform.xml -hostfile WORK/platform.hosts -np P
          --cfg=smpi/simulate-computation:no --cfg=network/model:CM02 --log=root.thres:warning
          gridcoll-plogp-smpi --rank-map WORK/platform.ranks -o WORK/params.toml --raw WORK/raw.csv
and reads WORK/params.toml (tomllib) and WORK/raw.csv (which ranks represented each level).

Expected values, from the rank map's per-level links (`link <level> <latency> <bandwidth>`, the
member-to-member latency and bandwidth of each level's network): two ranks whose deepest shared
level is l (above the node level) talk over level l's network and, on each side, every deeper
network up to their node's, so
    L_platform = sum of latency(k) for k = l .. depth - 2  (the node level, depth - 1, excluded)
    g_platform(m) = m / min of bandwidth(k) over the same levels
(for das-4x32's WAN: 10 ms + 2 x 10 us, 1 MB/s). The node level (ranks sharing memory) is its
own link. Gateways and backbones are not in this sum: use platforms without them (das-4x32 has
none). SMPI adds a 16-byte envelope to every message (smpi_request.cpp), so a measured g(m) is
(m + 16) / bandwidth: negligible at the sizes checked.

Verdict: L within TOL and g(m) within TOL for every m >= MIN_BYTES, at every measured level.
Exit status 0 if all match, 1 on a miss, 2 if a command fails.

Usage: /usr/bin/python3 validation/plogp_measure_check.py [--build build] [--gridcoll PATH]
           [--plogp PATH] [--platform platforms/shipped/das-4x32.toml] [--bytes 1,1K,64K,1M] [--reps 3]
           [--tolerance 0.05] [--min-bytes 65536] [--work DIR]
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SMPI_ENVELOPE = 16  # bytes SMPI adds to every message (smpi_request.cpp: "MPI enveloppe size")


def run(cmd):
    """Runs a command; on failure prints it with its output and exits with status 2."""
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout)
        print(f"plogp_measure_check: command failed with status {p.returncode}", file=sys.stderr)
        sys.exit(2)
    return p.stdout


def parse_rank_map(path):
    """Level names, per-level (latency, bandwidth) links and the number of ranks of a rank map."""
    levels, links, ranks = [], {}, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "levels":
                levels = w[1:]
            elif w[0] == "link":
                links[int(w[1])] = (float(w[2]), float(w[3]))
            elif w[0] == "rank":
                ranks += 1
    return levels, links, ranks


def expected(level, levels, links):
    """(latency, bandwidth) of the route between two ranks whose deepest shared level is `level`."""
    depth = len(levels)
    used = [level] if level == depth - 1 else list(range(level, depth - 1))
    if any(k not in links for k in used):
        return None
    return sum(links[k][0] for k in used), min(links[k][1] for k in used)


def fmt_time(s):
    a = abs(s)
    if a < 1e-3:
        return f"{s * 1e6:.3f} us"
    if a < 1:
        return f"{s * 1e3:.4f} ms"
    return f"{s:.5f} s"


def compare(a, ps, pairs, levels, links) -> int:
    """The measured values beside the platform's, level by level; 0 when every checked one is within
    the tolerance."""
    misses, checked = [], 0
    tol = a.tolerance
    print(f"\nplatform {os.path.basename(a.platform)}: measured (gridcoll-plogp-smpi) vs platform (rank map links); "
          f"checked: L and g(m) for m >= {a.min_bytes} within {tol * 100:g} %")
    print(f"{'level':<8} {'ranks':<9} {'quantity':<14} {'measured':>16} {'platform':>16} {'error':>9}  "
          f"{'verdict':<14}error vs (m+16)/B")
    for i, lv in enumerate(ps.get("level", [])):
        name = lv["name"]
        if "plogp" not in lv:
            print(f"{name:<8} {'-':<9} not measured (no two ranks share exactly this level)")
            continue
        exp = expected(i, levels, links)
        pair = pairs.get(i)
        ptxt = f"{pair[0]}->{pair[1]}" if pair else "?"
        if exp is None:
            print(f"{name:<8} {ptxt:<9} no link parameters in the rank map: not checked")
            continue
        lat, bw = exp
        p = lv["plogp"]

        def row(quantity, meas, want, check, note=""):
            nonlocal checked
            err = (meas - want) / want if want else float("inf")
            if check:
                checked += 1
                ok = abs(err) <= tol
                if not ok:
                    misses.append(f"{name} {quantity}: measured {fmt_time(meas)}, platform {fmt_time(want)} ({err:+.2%})")
                verdict = "ok" if ok else "MISS"
            else:
                verdict = "(not checked)"
            print(f"{name:<8} {ptxt:<9} {quantity:<14} {fmt_time(meas):>16} {fmt_time(want):>16} {err:>+9.3%}  {verdict:<14}{note}")

        row("L", p["L"], lat, True)
        g = p["g"] if isinstance(p["g"], list) else [[0, p["g"]]]
        for m, v in g:
            if m == 0:
                continue
            with_env = (m + SMPI_ENVELOPE) / bw
            row(f"g({int(m)})", v, m / bw, m >= a.min_bytes, f"{(v - with_env) / with_env:+.3%}")

    if checked == 0:
        print("\nFAIL: nothing was checked (no measured level with link parameters, or no size >= --min-bytes)")
        return 1
    if misses:
        print(f"\nFAIL: {len(misses)} of {checked} values off by more than {tol * 100:g} %:")
        for m in misses:
            print("  " + m)
        return 1
    print(f"\nPASS: all {checked} checked values within {tol * 100:g} % of the platform")
    return 0



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (bin/gridcoll, bin/gridcoll-plogp-smpi)")
    ap.add_argument("--gridcoll", default="", help="the gridcoll CLI (default: BUILD/bin/gridcoll)")
    ap.add_argument("--plogp", default="", help="gridcoll-plogp-smpi (default: BUILD/bin/gridcoll-plogp-smpi)")
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms", "shipped", "das-4x32.toml"))
    ap.add_argument("--bytes", default="", help="message sizes passed to gridcoll-plogp-smpi (default: its own)")
    ap.add_argument("--reps", type=int, default=0, help="repetitions (default: the program's)")
    ap.add_argument("--tolerance", type=float, default=0.05, help="relative tolerance (default 0.05)")
    ap.add_argument("--min-bytes", type=int, default=65536, help="g(m) is checked for m >= this (default 65536)")
    ap.add_argument("--work", default="", help="directory for the generated files (default: a temporary one)")
    a = ap.parse_args()

    gridcoll = a.gridcoll or os.path.join(a.build, "bin", "gridcoll")
    plogp = a.plogp or os.path.join(a.build, "bin", "gridcoll-plogp-smpi")
    smpirun = shutil.which("smpirun")
    for path, what in ((gridcoll, "gridcoll"), (plogp, "gridcoll-plogp-smpi"), (smpirun, "smpirun")):
        if not path or not os.path.exists(path):
            print(f"plogp_measure_check: {what} not found ({path})", file=sys.stderr)
            return 2

    work = a.work or tempfile.mkdtemp(prefix="plogp-check-")
    os.makedirs(work, exist_ok=True)
    xml, hosts, ranks = (os.path.join(work, "platform." + x) for x in ("xml", "hosts", "ranks"))
    params, raw = os.path.join(work, "params.toml"), os.path.join(work, "raw.csv")
    run([gridcoll, "platform", "xml", a.platform, "-o", xml])
    run([gridcoll, "platform", "hosts", a.platform, "-o", hosts])
    run([gridcoll, "platform", "ranks", a.platform, "-o", ranks])
    levels, links, nranks = parse_rank_map(ranks)

    cmd = [smpirun, "-platform", xml, "-hostfile", hosts, "-np", str(nranks), "--cfg=smpi/simulate-computation:no",
           "--cfg=network/model:CM02", "--log=root.thres:warning", plogp, "--rank-map", ranks, "-o", params, "--raw", raw]
    if a.bytes:
        cmd += ["--bytes", a.bytes]
    if a.reps > 0:
        cmd += ["--reps", str(a.reps)]
    out = run(cmd)
    print("\n".join(line for line in out.splitlines() if line.startswith("# level") or line.startswith("# warning")))

    with open(params, "rb") as f:
        ps = tomllib.load(f)
    pairs = {}
    with open(raw, newline="") as f:
        for row in csv.DictReader(f):
            pairs[int(row["level"])] = (int(row["sender"]), int(row["receiver"]))

    return compare(a, ps, pairs, levels, links)

if __name__ == "__main__":
    sys.exit(main())
