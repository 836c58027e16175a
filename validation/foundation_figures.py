#!/usr/bin/env python3
"""Prints the figures of the foundation issue, each measured side by side in one run.

1. Executor overhead on Open MPI, 4 ranks on this machine: gridcoll's binomial broadcast vs
   Open MPI's own binomial (coll_tuned forced: use_dynamic_rules=1, bcast_algorithm=6), with
   the same segment size on both sides: none, and 64 KiB. Both run in the same mpirun, in
   alternating order over several rounds; the figure is the median over rounds of
   (gridcoll median time / Open MPI median time).
   Targets: <= 1.5x for 8 B..4 KiB, <= 1.15x for 64 KiB..4 MiB.
   Note: gridcoll's tree engine serves a node's children one after another (largest subtree
   first, as MPICH, SimGrid's binomial_tree and the PLogP formulas of paper 002 do); Open MPI
   posts all children's sends at once. Unsegmented, on two shared-memory cores, two receivers
   copying at once beat one after the other, which shows at 4 MiB; segmented, both overlap.
2. SMPI accuracy: gridcoll's binomial broadcast vs SimGrid's built-in binomial_tree on the
   default two-cluster platform, 64 ranks, block and interleaved placement.
   Target: simulated times within 5 %.
3. SMPI determinism: the same simulation twice (the second with a busy process competing for
   the CPU) must print identical times.
4. SMPI scale: 1024 ranks (16 per host), 4 MiB, SMPI_SHARED_MALLOC: wall time of the
   simulation with gridcoll's binomial vs with the built-in binomial_tree (alternating runs,
   median of each). Target: <= 2x.

Usage: /usr/bin/python3 validation/foundation_figures.py [--build build] [--rounds 3] [--quick]
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORM = os.path.join(ROOT, "platforms/xml/two-clusters.xml")
HOSTS = {
    "block": os.path.join(ROOT, "platforms/xml/two-clusters.hosts"),
    "interleaved": os.path.join(ROOT, "platforms/xml/two-clusters-interleaved.hosts"),
    "x16": os.path.join(ROOT, "platforms/xml/two-clusters-x16.hosts"),
}
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
OMPI_BINOMIAL = ["--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_bcast_algorithm", "6",
                 "--mca", "coll_tuned_bcast_algorithm_segmentsize", "0"]


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return p.stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def human(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def verdict(ok):
    return "PASS" if ok else "MISS"


def executor_overhead(build, rounds, quick, segment):
    print(f"== 1. Executor overhead, Open MPI, 4 ranks on this machine, segment size {human(segment) if segment else 'none'}")
    small = [8, 64, 512, 4096]
    large = [65536, 262144, 1 << 20, 4 << 20]
    bench = os.path.join(build, "bin/gridcoll-bench")
    ratios = {n: [] for n in small + large}
    min_ratios = {n: [] for n in small + large}
    for r in range(rounds):
        order = "binomial,native" if r % 2 == 0 else "native,binomial"
        plan = ((small, 40 if quick else 200), (large, 10 if quick else 40))
        for sizes, reps in plan[1:] if segment else plan:
            seg = segment if sizes is large else 0
            mca = OMPI_BINOMIAL[:-1] + [str(seg)]
            out = run(["mpirun", "--oversubscribe", "-np", "4", *mca, bench, "-c", "bcast", "-a", order,
                       "-b", ",".join(map(str, sizes)), "--segment", str(seg), "--reps", str(reps), "--warmup", "3"],
                      env=MPI_ENV)
            t = {(x["algorithm"], int(x["bytes"])): (float(x["time_s"]), float(x["min_s"])) for x in rows(out)}
            for n in sizes:
                ratios[n].append(t[("binomial", n)][0] / t[("native", n)][0])
                min_ratios[n].append(t[("binomial", n)][1] / t[("native", n)][1])
        print(f"   round {r + 1}/{rounds} done", flush=True)
    print("   ratio of median times (verdict) and of minimum times, each the median over rounds")
    print(f"   {'bytes':>9} {'median ratio':>13} {'min ratio':>10} {'target':>7}  verdict   (per-round median ratios)")
    ok_all = True
    for n in (small if not segment else []) + large:
        med = statistics.median(ratios[n])
        target = 1.5 if n in small else 1.15
        ok = med <= target
        ok_all &= ok
        per = " ".join(f"{x:.2f}" for x in ratios[n])
        mn = statistics.median(min_ratios[n])
        print(f"   {human(n):>9} {med:>12.3f}x {mn:>9.3f}x {target:>6.2f}x  {verdict(ok)}      ({per})")
    return ok_all


def simulate(build, hosts, ranks, algorithm, sizes, extra=()):
    cmd = [os.path.join(build, "bin/gridcoll"), "simulate", "-p", PLATFORM, "-H", hosts, "-n", str(ranks), "-c", "bcast",
           "-a", algorithm, "-b", ",".join(map(str, sizes)), *extra]
    return cmd


def smpi_accuracy(build):
    print("== 2. SMPI: gridcoll binomial vs SimGrid binomial_tree, 64 ranks, default two-cluster platform")
    sizes = [8, 65536, 1 << 20, 4 << 20]
    ok_all = True
    print(f"   {'placement':>11} {'bytes':>9} {'gridcoll [s]':>13} {'SimGrid [s]':>12} {'difference':>10}  verdict")
    for placement in ("block", "interleaved"):
        out = run(simulate(build, HOSTS[placement], 64, "binomial,native", sizes,
                           ["--reps", "2", "--smpi-algorithm", "binomial_tree"]))
        t = {(x["algorithm"], int(x["bytes"])): float(x["time_s"]) for x in rows(out)}
        for n in sizes:
            g, s = t[("binomial", n)], t[("native", n)]
            diff = abs(g - s) / s
            ok = diff <= 0.05
            ok_all &= ok
            print(f"   {placement:>11} {human(n):>9} {g:>13.6f} {s:>12.6f} {100 * diff:>9.2f}%  {verdict(ok)}")
    return ok_all


def smpi_determinism(build):
    print("== 3. SMPI determinism: same command twice, the second beside a busy process")
    cmd = simulate(build, HOSTS["interleaved"], 33, "binomial,pipeline,kary", [8, 1 << 20], ["-s", "8K", "--reps", "2"])
    first = run(cmd)
    hog = subprocess.Popen([sys.executable, "-c", "import time\nend=time.time()+60\nwhile time.time()<end: pass"])
    try:
        second = run(cmd)
    finally:
        hog.kill()
        hog.wait()
    same = first == second
    print(f"   {len(rows(first))} rows, identical output: {'yes' if same else 'NO'}  {verdict(same)}")
    return same


def smpi_scale(build, quick):
    print("== 4. SMPI scale: 1024 ranks (16 per host), 4 MiB, SMPI_SHARED_MALLOC; simulation wall time")
    walls = {"gridcoll binomial": [], "SimGrid binomial_tree": []}
    sim = {}
    common = ["--root", "0", "--reps", "1", "--warmup", "0", "--shared-malloc"]
    variants = {
        "gridcoll binomial": simulate(build, HOSTS["x16"], 1024, "binomial", [4 << 20], common),
        "SimGrid binomial_tree": simulate(build, HOSTS["x16"], 1024, "native", [4 << 20],
                                          common + ["--smpi-algorithm", "binomial_tree"]),
    }
    for _ in range(1 if quick else 3):
        for name, cmd in variants.items():
            t0 = time.monotonic()
            out = run(cmd)
            walls[name].append(time.monotonic() - t0)
            sim[name] = float(rows(out)[0]["time_s"])
    g = statistics.median(walls["gridcoll binomial"])
    s = statistics.median(walls["SimGrid binomial_tree"])
    ok = g / s <= 2.0
    for name in walls:
        print(f"   {name:<22} wall {statistics.median(walls[name]):6.2f} s   simulated {sim[name]:.6f} s")
    print(f"   wall-time ratio gridcoll/built-in: {g / s:.2f}x (target <= 2x)  {verdict(ok)}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="CMake build directory")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds for the Open MPI comparison")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier figures)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--only", choices=["openmpi", "smpi"], help="run only the Open MPI (1) or the SMPI (2-4) figures")
    a = ap.parse_args()
    print(f"gridcoll foundation figures — {time.strftime('%Y-%m-%d %H:%M')} on {os.uname().nodename}, "
          f"{os.cpu_count()} cores (shared machine: read ratios, not absolute times)\n")
    results = []
    if a.only != "smpi":
        results += [executor_overhead(a.build, a.rounds, a.quick, 0), executor_overhead(a.build, a.rounds, a.quick, 65536)]
    if a.only != "openmpi":
        results += [smpi_accuracy(a.build), smpi_determinism(a.build), smpi_scale(a.build, a.quick)]
    print(f"\nall targets met: {'yes' if all(results) else 'no'}")
    return 1 if a.strict and not all(results) else 0


if __name__ == "__main__":
    sys.exit(main())
