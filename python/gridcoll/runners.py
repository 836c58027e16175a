"""Runners: a task (the points one backend call covers) through its backend, each point stored
as soon as its row arrives. Closed form, event simulator, SMPI and the emulated testbed go
through gridcoll._core.run_batch; kind "python" calls a user's function per point."""
from __future__ import annotations

import importlib
import os
import time

from . import _core, store
from .paths import bin_dir
from .spec import Point


def task_label(points: list[Point]) -> str:
    p = points[0]
    return f"{p.backend.name} {p.collective} {p.method} on {p.platform.rsplit('/', 1)[-1]}"


def _run_python(points: list[Point], emit, on_error) -> None:
    settings = points[0].backend.settings_dict()
    module, _, name = settings.pop("function").partition(":")
    fn = getattr(importlib.import_module(module), name)
    for p in points:
        try:
            out = fn(p, settings)
        except Exception as e:  # this point fails; the next ones still run
            on_error(p, f"{type(e).__name__}: {e}")
            continue
        row = out if isinstance(out, dict) else {"time_s": float(out)}
        row.setdefault("bytes", p.bytes)
        row.setdefault("method", p.method)
        row.setdefault("verified", "model")
        emit(row)


def run_points(points: list[Point], on_row, on_error) -> None:
    """Runs one task's points: on_row(point, row, wall_s) per result, on_error(point, message) for
    every point the backend did not deliver (an Error, a verification failure, a missing row)."""
    by_size = {p.bytes: p for p in points}  # a task is one method: its rows differ in size only ('auto'
    delivered = set()                         # reports the method it chose)

    def point_failed(p: Point, message: str) -> None:
        delivered.add(p.bytes)
        on_error(p, message)

    last = [time.perf_counter()]

    def emit(row: dict) -> None:
        now = time.perf_counter()
        p = by_size.get(int(row["bytes"]))
        if p is None or p.bytes in delivered:
            return
        delivered.add(p.bytes)
        if row.get("verified") == "FAILED":
            on_error(p, "the result was wrong (verification FAILED)")
        else:
            on_row(p, row, now - last[0])
        last[0] = now

    p0 = points[0]
    error = ""
    try:
        if p0.backend.kind == "python":
            _run_python(points, emit, point_failed)
        else:
            settings = p0.backend.settings_dict()
            settings.setdefault("bin_dir", bin_dir())
            if p0.backend.kind == "emulated":  # a sweep's one-off testbeds are not checked each time
                settings.setdefault("check", False)
            if p0.backend.kind == "emulated" and os.geteuid() == 0:  # the testbed runs mpirun as root
                os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
                os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            _core.run_batch(p0.backend.kind, p0.platform, p0.collective, [p0.method], [str(p.bytes) for p in points],
                            root=p0.root, reps=p0.reps, warmup=p0.warmup, type=p0.type, op=p0.op,
                            placement=p0.placement, ranks=p0.ranks, counts=p0.counts, timing=p0.timing,
                            settings=settings, sink=emit)
    except Exception as e:  # a failing point is recorded, the sweep goes on
        error = f"{type(e).__name__}: {e}" if not isinstance(e, _core.Error) else str(e)
    for p in points:
        if p.bytes not in delivered:
            on_error(p, error or "the backend returned no result for this point")


def run_task(points: list[Point], db_path: str, run_id: int) -> tuple[int, int]:
    """Runs a task and stores every point at once (the worker's side of a sweep). Returns
    (points ok, points failed)."""
    db = store.connect(db_path)
    counts = [0, 0]

    def ok(p, row, wall):
        store.record(db, run_id, p, "ok", row, wall_s=wall)
        counts[0] += 1

    def failed(p, message):
        store.record(db, run_id, p, "failed", error=message)
        counts[1] += 1

    try:
        run_points(points, ok, failed)
    finally:
        db.close()
    return counts[0], counts[1]
