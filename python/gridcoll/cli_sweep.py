"""python -m gridcoll sweep SPEC --db FILE [--csv FILE] [-j N] [--scheduler ADDR]: runs a spec's
points into a database (resuming) and optionally exports CSV; no report."""
from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from . import _core, spec as specs, store, sweep


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gridcoll sweep")
    ap.add_argument("spec")
    ap.add_argument("--db", required=True, help="SQLite results database (created, or resumed)")
    ap.add_argument("--csv", help="export every point of the spec to this CSV file")
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--scheduler")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    if a.jobs < 0:
        ap.error(f"--jobs must be 0 (one per core) or more (got {a.jobs})")
    if a.scheduler is not None and sweep.scheduler_problem(a.scheduler):
        ap.error(f"--scheduler: {sweep.scheduler_problem(a.scheduler)}")
    for option, path in (("--db", a.db), ("--csv", a.csv)):  # before any point runs
        if path and (Path(path).is_dir() or not Path(path).resolve().parent.is_dir()):
            ap.error(f"{option} {path}: not a file in an existing folder")
    try:
        spec = specs.load(a.spec)
    except _core.Error as e:
        print(f"gridcoll sweep: error: {e}", file=sys.stderr)
        return 2
    try:
        r = sweep.run(spec, a.db, jobs=a.jobs or None, scheduler=a.scheduler, progress=not a.no_progress)
    except sqlite3.DatabaseError as e:
        print(f"gridcoll sweep: error: --db {a.db}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"\ngridcoll sweep: interrupted; finished points are in {a.db} — rerun to resume", file=sys.stderr)
        return 143 if isinstance(e, sweep.Terminated) else 130
    print(f"{r.ok} done, {r.skipped} already done, {r.failed} failed, {r.wall_s:.1f} s")
    if a.csv:
        store.export_csv(store.results(a.db, {p.key for p in spec.points}), a.csv)
    return 1 if r.failed else 0
