"""Sweeps that survive. The spec's points not yet done in the database are grouped into tasks
(one backend call each) and run in parallel — on local processes by default, on a Dask
distributed cluster when given a scheduler address — with a progress bar and ETA. Workers store
each point the moment it finishes, so Ctrl-C, kill -9 or a crashing point lose nothing
finished, and the next run skips what is done. Emulated points measure real time: they run
one task at a time in this process, after the others."""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from . import provenance, runners, store
from .spec import Point, Spec

# Long tasks first: the pool then ends with short ones and its workers finish together.
_COST = {"emulated": 0, "smpi": 1, "python": 2, "event": 3, "closed": 4}


@dataclass
class SweepResult:
    run_id: int
    total: int      # points in the spec (runnable)
    skipped: int    # already done before this run
    ok: int         # done by this run
    failed: int     # failed in this run (stored with their errors)
    wall_s: float
    interrupted: bool = False


def make_tasks(points: list[Point]) -> list[list[Point]]:
    groups: OrderedDict[tuple, list[Point]] = OrderedDict()
    for p in points:
        groups.setdefault(p.task_key, []).append(p)
    return sorted(groups.values(), key=lambda t: _COST.get(t[0].backend.kind, 5))


class Terminated(KeyboardInterrupt):
    """A sweep stopped by SIGTERM: it stops as on Ctrl-C (workers and their simulators or mpirun
    ended, what finished stored)."""


def _stop_on_sigterm():
    """While a sweep runs in the main thread, SIGTERM raises Terminated. Returns the handler it
    replaced (None when not in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def on_term(signum, frame):
        raise Terminated()
    return signal.signal(signal.SIGTERM, on_term)


def _worker_init(parent: int) -> None:
    # The parent handles Ctrl-C (and then terminates the workers); a worker whose parent dies
    # (kill -9) gets SIGTERM, which also stops the simulator it runs.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    # PR_SET_PDEATHSIG is not delivered when the parent died before it was set (a worker still
    # starting up) nor always otherwise (it follows the thread that spawned us); a watcher ends
    # this worker once its parent — `parent`, as the parent saw itself — is gone.

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="gridcoll-parent-watch").start()


class _Progress:
    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled and total:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="pt", desc="points", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int, label: str = "") -> None:
        if self.bar is not None:
            if label:
                self.bar.set_postfix_str(label[-50:], refresh=False)
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _terminate(executor: cf.ProcessPoolExecutor) -> None:
    procs = list(getattr(executor, "_processes", {}).values())
    for _ in range(20):  # a worker inside a simulator passes the first SIGTERM on to it, then ends
        alive = [p for p in procs if p.is_alive()]
        if not alive:
            break
        for p in alive:
            p.terminate()
        for p in alive:
            p.join(0.5)
    for p in procs:
        if p.is_alive():
            p.kill()
    executor.shutdown(wait=False, cancel_futures=True)


def _run_local(tasks, db_path, run_id, jobs, progress, counts) -> None:
    ctx = multiprocessing.get_context("spawn")
    suspects = []
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)) as ex:
        futures = {ex.submit(runners.run_task, t, db_path, run_id): t for t in tasks}
        try:
            for f in cf.as_completed(futures):
                t = futures[f]
                try:
                    ok, bad = f.result()
                except cf.process.BrokenProcessPool:
                    suspects.append(t)  # a worker died: find which task killed it, alone
                    continue
                counts[0] += ok
                counts[1] += bad
                progress.update(len(t), runners.task_label(t))
        except KeyboardInterrupt:
            _terminate(ex)
            raise
    for t in suspects:
        ok, bad = _run_alone(t, db_path, run_id, ctx)
        counts[0] += ok
        counts[1] += bad
        progress.update(len(t), runners.task_label(t))


def _done(db_path) -> set[str]:
    db = store.connect(db_path)
    try:
        return store.done_keys(db)
    finally:
        db.close()


def _run_alone(task, db_path, run_id, ctx) -> tuple[int, int]:
    """A task whose worker died, again in a fresh worker of its own: when it dies again, the first
    point not stored yet is the one that crashed it (points run in order); it is recorded as
    failed and the rest of the task goes on. Returns (ok, failed) of the task's points."""
    keys = {p.key for p in task}
    done_before = len(keys & _done(db_path))
    failed: set[str] = set()
    while True:
        done = _done(db_path)
        rest = [p for p in task if p.key not in done and p.key not in failed]
        if not rest:
            break
        with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)) as ex:
            try:
                _, bad = ex.submit(runners.run_task, rest, db_path, run_id).result()
                failed |= {p.key for p in rest} - _done(db_path) if bad else set()
                break
            except cf.process.BrokenProcessPool:
                first = next(p for p in rest if p.key not in _done(db_path))
                db = store.connect(db_path)
                store.record(db, run_id, first, "failed", error="the worker process crashed while running this point")
                db.close()
                failed.add(first.key)
    return len(keys & _done(db_path)) - done_before, len(failed)


def _run_dask(tasks, db_path, run_id, scheduler, progress, counts) -> None:
    from distributed import Client, as_completed
    with Client(scheduler) as client:
        futures = [client.submit(runners.run_task, t, db_path, run_id, pure=False) for t in tasks]
        by_key = {f.key: t for f, t in zip(futures, tasks)}
        try:
            for f in as_completed(futures):
                t = by_key[f.key]
                try:
                    ok, bad = f.result()
                except Exception as e:  # a worker lost: its points are failed, the sweep goes on
                    db = store.connect(db_path)
                    done = store.done_keys(db)
                    ok, bad = 0, 0
                    for p in t:
                        if p.key not in done:
                            store.record(db, run_id, p, "failed", error=f"dask: {type(e).__name__}: {e}")
                            bad += 1
                    db.close()
                counts[0] += ok
                counts[1] += bad
                progress.update(len(t), runners.task_label(t))
        except KeyboardInterrupt:
            client.cancel(futures)
            raise


def scheduler_problem(address: str) -> str:
    """What is wrong with a Dask scheduler address ('' if nothing): a host and a port, with or
    without a protocol (tcp://host:8786, host:8786)."""
    if re.fullmatch(r"((tcp|tls|ucx)://)?[^\s:/]+:\d+", address):
        return ""
    return f"expected an address like tcp://host:8786, got {address!r}"


def run(spec: Spec, db_path: str, jobs: int | None = None, scheduler: str | None = None, progress: bool = True,
        command: str | None = None) -> SweepResult:
    """Runs what is not done yet of `spec`, storing into `db_path`. jobs: local worker processes
    (default: one per core; 1 runs in this process); scheduler: a Dask scheduler address
    ("tcp://host:8786") instead. Ctrl-C stops the workers and raises KeyboardInterrupt (SIGTERM: Terminated, a KeyboardInterrupt); what
    finished is stored."""
    start = time.perf_counter()
    db = store.connect(db_path)
    run_id = store.start_run(db, spec.path, spec.text, {**provenance.collect(command), **provenance.testbeds(spec.points)})
    done = store.done_keys(db)
    db.close()
    todo = [p for p in spec.points if p.key not in done]
    tasks = make_tasks(todo)
    serial = [t for t in tasks if t[0].backend.kind == "emulated"]
    parallel = [t for t in tasks if t[0].backend.kind != "emulated"]
    counts = [0, 0]
    bar = _Progress(len(todo), progress)
    jobs = jobs or os.cpu_count() or 1
    before = _stop_on_sigterm()
    try:
        if scheduler:
            _run_dask(parallel, db_path, run_id, scheduler, bar, counts)
        elif jobs > 1 and len(parallel) > 1:
            _run_local(parallel, db_path, run_id, jobs, bar, counts)
        else:
            serial = parallel + serial
        for t in serial:
            ok, bad = runners.run_task(t, db_path, run_id)
            counts[0] += ok
            counts[1] += bad
            bar.update(len(t), runners.task_label(t))
    finally:
        bar.close()
        if before is not None:
            signal.signal(signal.SIGTERM, before)
    # What this run stored (workers may have finished points their pool never reported).
    ok, failed = store.run_counts(db_path, run_id, {p.key for p in todo})
    return SweepResult(run_id, len(spec.points), len(spec.points) - len(todo), ok, failed, time.perf_counter() - start)
