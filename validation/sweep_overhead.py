#!/usr/bin/env python3
"""The sweep runner's overhead (issue: validation harness): the same points run by the sweep
runner (gridcoll.sweep.run, one worker, SQLite store, provenance) and "by hand" (one
gridcoll.run_batch call per task in a plain loop, rows kept in a list), in alternating rounds
of one process; the figure is the ratio of the median wall times (target < 1.05).

Usage: PYTHONPATH=build/python /usr/bin/python3 validation/sweep_overhead.py [--rounds 3] [SPEC]
Default spec: das-4x32 broadcasts (binomial, 64 KiB pipeline, multi-tree) at 64 KiB and 1 MiB on
the event simulator and SMPI, the validate spec's backend settings. Prints the per-round times,
then the FIGURE line. Exit status 0, or 2 for a bad spec.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gridcoll import _core, spec as specs, sweep
from gridcoll.paths import bin_dir

DEFAULT = """
name = "sweep-overhead"
[backend.smpi]
cfg = ["smpi/send-is-detached-thresh:0"]
[backend.event]
model = "plogp"
sync_sends = true
shared_links = "wan"
[[experiment]]
platforms = ["das-4x32"]
collectives = ["bcast"]
algorithms = ["binomial", "pipeline:seg=64K", "multitree:k=1:seg=64K"]
sizes = ["64K", "1M"]
backends = ["event", "smpi"]
root = 0
"""


def by_hand(spec) -> float:
    rows = []
    start = time.perf_counter()
    for task in sweep.make_tasks(spec.points):
        p = task[0]
        settings = p.backend.settings_dict()
        settings.setdefault("bin_dir", bin_dir())
        _core.run_batch(p.backend.kind, p.platform, p.collective, [p.method], [str(q.bytes) for q in task],
                        root=p.root, reps=p.reps, warmup=p.warmup, type=p.type, op=p.op, placement=p.placement,
                        ranks=p.ranks, settings=settings, sink=rows.append)
    wall = time.perf_counter() - start
    if len(rows) != len(spec.points):
        sys.exit(f"sweep_overhead: by hand gave {len(rows)} rows for {len(spec.points)} points")
    return wall


def by_sweep(spec) -> float:
    with tempfile.TemporaryDirectory() as d:
        r = sweep.run(spec, os.path.join(d, "r.sqlite"), jobs=1, progress=False)
        if r.ok != len(spec.points):
            sys.exit(f"sweep_overhead: the sweep finished {r.ok} of {len(spec.points)} points")
        return r.wall_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec", nargs="?")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    try:
        spec = specs.load(a.spec) if a.spec else specs.parse(DEFAULT, "<default>", base=Path.cwd())
    except _core.Error as e:
        print(f"sweep_overhead: {e}", file=sys.stderr)
        return 2
    print(f"{len(spec.points)} points in {len(sweep.make_tasks(spec.points))} tasks")
    hand, swept = [], []
    for r in range(a.rounds):
        hand.append(by_hand(spec))
        swept.append(by_sweep(spec))
        print(f"round {r}: by hand {hand[-1]:.2f} s, sweep runner {swept[-1]:.2f} s, ratio {swept[-1] / hand[-1]:.3f}",
              flush=True)
    h, s = statistics.median(hand), statistics.median(swept)
    print(f"FIGURE sweep runner / by hand = {s / h:.3f} (median {s:.2f} s / {h:.2f} s over {a.rounds} rounds; target < 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
