#!/usr/bin/python3
"""Three-way comparison (emulator issue): broadcasts measured on the emulated testbed beside the
SimGrid SMPI simulation and the PLogP event model of the same platform and placement.

Default: das-4x2 (4 clusters x 2 hosts, 10 ms / 1 MB/s full-mesh WAN), 8 ranks (one per host,
block placement), root 0; 64 KiB, 1 MiB and 4 MiB; Open MPI's own MPI_Bcast (`native`; under
SMPI, SimGrid's imitation of Open MPI's decision: smpi/coll-selector:ompi) and gridcoll's
binomial (unsegmented), pipeline and segmented k-ary (k = 4) broadcasts, 64 KiB segments.

It brings the testbed up (with its fidelity check), runs gridcoll-bench across it, runs the
same bench under SMPI and the event model, removes the testbed, and prints one table with the
relative differences (emulated / simulated - 1). With --busy-poll it also measures binomial
with Open MPI busy-polling (mpi_yield_when_idle 0) beside the default (yield when idle), to
show whether polling ranks starve the delay lines on this machine.

Run as root from the repository: /usr/bin/python3 validation/emulation_three_way.py
"""
import argparse
import csv
import io
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__)) + "/.."

# (label, algorithm for gridcoll-bench, segment, fanout)
ALGORITHMS = [
    ("native (Open MPI)", "native", "0", "2"),
    ("binomial", "binomial", "0", "2"),
    ("pipeline 64K", "pipeline", "64K", "2"),
    ("4-ary 64K", "kary", "64K", "4"),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"emulation_three_way.py: {what} failed (exit {p.returncode}): {' '.join(cmd)}")
    return p.stdout


def times(text):
    """bytes -> time_s from a gridcoll-bench / simulate CSV."""
    out = {}
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("verified") in ("no",):
            sys.exit("emulation_three_way.py: a run gave a wrong result")
        out[int(row["bytes"])] = float(row["time_s"])
    return out


def parse_size(s):
    mult = {"K": 1024, "M": 1024 ** 2}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def print_table(a, sizes, emulated, simulated, model):
    """The side-by-side table, and the median and largest differences."""
    print()
    print(f"Broadcast from rank 0 on {os.path.basename(a.platform)}: emulated testbed (median of {a.reps}"
          f"{', TCP eager limit ' + a.eager_limit + ' B' if a.eager_limit else ''}), "
          "SimGrid SMPI (CM02, same placement), PLogP event model; diff = emulated / other - 1")
    print(f"{'algorithm':<22}{'bytes':>9}{'emulated s':>12}{'SMPI s':>10}{'diff':>9}{'model s':>10}{'diff':>9}")
    diffs = []
    for label in emulated:
        for m in sizes:
            e, s = emulated[label].get(m), simulated[label].get(m)
            mo = model.get(label, {}).get(m)
            d1 = e / s - 1 if e and s else None
            d2 = e / mo - 1 if e and mo else None
            if d1 is not None and "busy" not in label:
                diffs.append(abs(d1))
            print(f"{label:<22}{m:>9}{e:>12.4f}{s:>10.4f}{d1 * 100:>+8.1f}%" +
                  (f"{mo:>10.4f}{d2 * 100:>+8.1f}%" if mo else f"{'-':>10}{'-':>9}"))
    if diffs:
        diffs.sort()
        print(f"emulated vs SMPI: median |diff| {diffs[len(diffs) // 2] * 100:.1f} %, max {diffs[-1] * 100:.1f} %")
    if a.busy_poll and "binomial, busy-poll" in emulated:
        for m in sizes:
            y, b = emulated["binomial"][m], emulated["binomial, busy-poll"][m]
            print(f"busy-poll / yield, binomial {m} B: {b / y:.3f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms/shipped/das-4x2.toml"))
    ap.add_argument("--bytes", default="64K,1M,4M")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--busy-poll", action="store_true", help="also measure binomial with busy-polling ranks")
    ap.add_argument("--eager-limit", default="",
                    help="Open MPI TCP eager limit in bytes for the emulated runs (default: Open MPI's, 64 KiB; "
                         "above it every message waits one round trip for the receiver's answer, which SMPI's "
                         "CM02 model does not charge)")
    ap.add_argument("--only", default="", help="comma-separated algorithms to run (native,binomial,pipeline,kary)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build/bin"))
    a = ap.parse_args()
    g = os.path.join(a.build, "gridcoll")
    bench = os.path.join(a.build, "gridcoll-bench")
    for f in (g, bench):
        if not os.access(f, os.X_OK):
            sys.exit(f"emulation_three_way.py: {f} not found: build first (scripts/build.sh)")
    if os.geteuid() != 0:
        sys.exit("emulation_three_way.py: needs root (network namespaces)")
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if a.eager_limit:
        os.environ.update(OMPI_MCA_btl_tcp_eager_limit=a.eager_limit, OMPI_MCA_btl_tcp_rndv_eager_limit=a.eager_limit)
    sizes = [parse_size(s) for s in a.bytes.split(",")]
    name = f"threeway-{os.getpid()}"
    common = ["--collective", "bcast", "--bytes", a.bytes, "--root", "0"]

    log(f"bringing up {a.platform} as testbed {name} (fidelity check included)")
    up = subprocess.run([g, "emulate", "up", a.platform, "--name", name], capture_output=True, text=True)
    print(up.stdout, end="")
    if up.returncode != 0:
        sys.stderr.write(up.stderr)
        subprocess.run([g, "emulate", "down", name], capture_output=True)
        sys.exit("emulation_three_way.py: the testbed did not come up with a passing fidelity check")
    emulated, simulated, model = {}, {}, {}
    try:
        only = set(filter(None, a.only.split(",")))
        runs = [(label, alg, seg, k, []) for label, alg, seg, k in ALGORITHMS if not only or alg in only]
        if a.busy_poll:
            runs.append(("binomial, busy-poll", "binomial", "0", "2", ["--no-yield"]))
        for i, (label, alg, seg, k, extra) in enumerate(runs):
            log(f"[{i + 1}/{len(runs)}] {label}: emulated")
            out = run([g, "emulate", "run", name] + extra + ["--", bench] + common +
                      ["--algorithm", alg, "--segment", seg, "--fanout", k, "--reps", str(a.reps), "--warmup", "1"],
                      f"{label} on the testbed")
            emulated[label] = times(out)
            log(f"[{i + 1}/{len(runs)}] {label}: SMPI")
            sim = [g, "simulate", "--platform", a.platform] + common + [
                "--algorithm", alg, "--segment", seg, "--fanout", k, "--reps", "1", "--warmup", "0"]
            if alg == "native":
                sim += ["--cfg", "smpi/coll-selector:ompi"]
            simulated[label] = times(run(sim, f"{label} under SMPI"))
            if alg != "native":
                model[label] = times(run(sim + ["--backend", "event"], f"{label} in the event model"))
    finally:
        subprocess.run([g, "emulate", "down", name], capture_output=True)

    print_table(a, sizes, emulated, simulated, model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
