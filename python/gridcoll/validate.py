"""gridcoll validate [SPEC]: the project's main job. Runs a spec's sweep (resuming what a
previous run of the same output folder finished), then writes results.sqlite, results.csv,
figures.json and one self-contained report.html into the output folder.

Without SPEC, the built-in specs/validate-das.toml: flat and hierarchical broadcasts and
allreduce on das, closed form vs event simulator vs SMPI, plus the emulated testbed when run as
root with network namespaces (otherwise it says how to enable it)."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import _core, provenance, report, spec as specs, store, sweep

DEFAULT_SPEC = Path(__file__).parent / "specs" / "validate-das.toml"

# The figures the report prints against their targets (issue 12).
FIGURES = [
    {"title": "PLogP event simulator vs SMPI on das, messages ≥ 64 KiB", "other": "event", "reference": "smpi",
     "platforms": r"das-(4x32|8x16)$", "min_bytes": 65536, "target": 0.05},
    {"title": "SMPI (calibrated to Open MPI over TCP) vs emulation on das-4x2", "other": "smpi-tcp", "reference": "emulated", "platforms": r"das-4x2$",
     "target": 0.10, "every_algorithm": True, "missing": "not run (emulation needs root)"},
]


def emulation_available() -> str:
    """'' when the emulated testbed can run here, else what to do about it."""
    if "emulated" not in _core.backends():
        return "this build has no emulator (configure with -DGRIDCOLL_WITH_EMULATOR=ON)"
    if os.geteuid() != 0:
        return "emulation needs root and network namespaces: run `sudo build/bin/gridcoll validate` to add it"
    if not shutil.which("ip"):
        return "emulation needs iproute2 (apt-get install iproute2)"
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"emulation needs network namespaces; `ip netns list` failed: {probe.stderr.strip()}"
    return ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gridcoll validate", description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", help=f"experiment spec (TOML); default: the built-in {DEFAULT_SPEC.name}")
    ap.add_argument("-o", "--output", help="output folder (default: ./validate-<spec name>)")
    ap.add_argument("-j", "--jobs", type=int, default=0, help="local worker processes (default: one per core)")
    ap.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786): run the points on that cluster")
    ap.add_argument("--no-emulation", action="store_true", help="leave out the emulated backend's points")
    ap.add_argument("--fresh", action="store_true", help="start over: remove the output folder's database first")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    if a.jobs < 0:
        ap.error(f"--jobs must be positive (got {a.jobs})")
    if a.scheduler is not None and sweep.scheduler_problem(a.scheduler):
        ap.error(f"--scheduler: {sweep.scheduler_problem(a.scheduler)}")

    command = "gridcoll validate " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        spec = specs.load(a.spec) if a.spec else specs.load(DEFAULT_SPEC)
    except _core.Error as e:
        print(f"gridcoll validate: error: {e}", file=sys.stderr)
        return 2
    out = Path(a.output or f"validate-{spec.name}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = "a file of that name exists" if isinstance(e, FileExistsError) else e.strerror
        print(f"gridcoll validate: error: output folder {out}: cannot make it ({why})", file=sys.stderr)
        return 2
    db_path = out / "results.sqlite"
    if a.fresh and db_path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(db_path) + suffix).unlink(missing_ok=True)

    notes = []
    emulated = [p for p in spec.points if p.backend.kind == "emulated"]
    why = "left out (--no-emulation)" if a.no_emulation else emulation_available()
    figures = FIGURES
    if emulated and why:
        spec.points = [p for p in spec.points if p.backend.kind != "emulated"]
        notes.append(f"Emulation: {len(emulated)} points not run — {why}.")
        print(f"gridcoll validate: {notes[-1]}", file=sys.stderr)
        figures = [dict(f, missing="not run: " + why.split(":")[0]) if "missing" in f else f for f in FIGURES]

    print(f"gridcoll validate: {len(spec.points)} points of '{spec.name}' ({spec.path}) into {out}/", file=sys.stderr)
    start = time.perf_counter()
    try:
        result = sweep.run(spec, str(db_path), jobs=a.jobs or None, scheduler=a.scheduler,
                           progress=not a.no_progress, command=command)
    except OSError as e:
        if not a.scheduler:
            raise
        print(f"gridcoll validate: error: the Dask scheduler {a.scheduler}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"\ngridcoll validate: interrupted; finished points are stored in {db_path} — rerun the same "
              f"command to resume", file=sys.stderr)
        return 143 if isinstance(e, sweep.Terminated) else 130
    wall = time.perf_counter() - start
    df = store.results(db_path, {p.key for p in spec.points})
    store.export_csv(df, out / "results.csv")
    (out / "figures.json").write_text(report.figures_json(df, figures))
    here = os.getcwd()
    spec_arg = a.spec or ""
    commands = [f"cd {here}", f"build/bin/gridcoll validate {spec_arg} -o {out}".replace("  ", " "),
                f"# or from Python:  PYTHONPATH=build/python /usr/bin/python3 -m gridcoll validate {spec_arg} -o {out}",
                "# add --fresh to measure everything again; points already stored are otherwise kept"]
    plots = report.write(df, out / "report.html", title=f"gridcoll validate: {spec.name}", figures=figures,
                         skipped=spec.skipped, notes=notes, commands=commands,
                         environment={**provenance.collect(command), **provenance.testbeds(spec.points)}, wall_s=wall)
    print(f"gridcoll validate: {result.ok} points done now, {result.skipped} kept from before, {result.failed} failed; "
          f"{wall:.0f} s", file=sys.stderr)
    print(report.figure_rows(df[df["status"] == "ok"], figures).to_string(index=False))
    print(f"\nreport: {(out / 'report.html').resolve()} ({plots} plots)\nresults: {(out / 'results.csv').resolve()}, "
          f"{db_path.resolve()}")
    return 1 if result.failed else 0
