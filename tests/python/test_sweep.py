"""Sweeps that survive: resume, failures recorded, crashes contained, kill -9, Ctrl-C and SIGTERM
lose nothing finished and leave no process behind (a point's simulator included), Dask gives the
local results."""
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BUILD, small_spec

PYTHON_BACKEND = '[backend.fake]\nkind = "python"\nfunction = "helper_backends:{fn}"\n{settings}'


def fake_spec(tmp_path, fn, settings="", sizes='["1K", "2K", "4K", "8K", "16K", "32K"]'):
    return small_spec(tmp_path, backends=("fake",), extra=PYTHON_BACKEND.format(fn=fn, settings=settings), sizes=sizes)


def statuses(db):
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT key, status FROM points"))


def test_rerun_skips_what_is_done(gc, tmp_path):
    from gridcoll import spec, store, sweep
    s = spec.load(small_spec(tmp_path))
    db = str(tmp_path / "r.sqlite")
    first = sweep.run(s, db, jobs=2, progress=False)
    assert (first.ok, first.failed, first.skipped) == (len(s.points), 0, 0)
    again = sweep.run(s, db, jobs=2, progress=False)
    assert (again.ok, again.skipped) == (0, len(s.points))
    df = store.results(db, {p.key for p in s.points})
    assert len(df) == len(s.points) and (df["status"] == "ok").all()
    assert df["prov_git_revision"].str.len().min() > 0 and (df["time_s"] > 0).all()


def test_an_auto_point_is_stored_with_what_it_chose(gc, tmp_path):
    from gridcoll import spec, store, sweep
    f = tmp_path / "auto.toml"
    f.write_text('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["allreduce"]\nalgorithms=["auto", "binomial"]\n'
                 'sizes=["8", "1M"]\nbackends=["event"]'.replace("binomial", "ring"))
    s = spec.load(f)
    db = str(tmp_path / "a.sqlite")
    r = sweep.run(s, db, jobs=1, progress=False)
    assert (r.ok, r.failed) == (4, 0)
    df = store.results(db).set_index(["method", "bytes"])
    # the builtin decision: the site leaders at 8 B, the multi-tree allreduce at 1 MiB (das's WAN)
    assert df.loc[("auto", 8), "choice"].endswith("→ leaders")
    assert df.loc[("auto", 1048576), "choice"].split("→ ")[-1].startswith("multitree")
    assert df.loc[("ring", 8), "choice"] in ("", None)


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(gc, tmp_path):
    from gridcoll import spec, store, sweep
    s = spec.load(fake_spec(tmp_path, "fail_at", "bytes = 4096"))
    db = str(tmp_path / "r.sqlite")
    r = sweep.run(s, db, jobs=1, progress=False)
    df = store.results(db)
    bad = df[df["status"] == "failed"]
    assert r.failed == len(bad) == 3  # one size of each of the 3 methods
    assert set(bad["bytes"]) == {4096} and bad["error"].str.contains("no model for 4096 bytes").all()
    assert r.ok == len(s.points) - 3


def test_a_crashing_point_is_contained(gc, tmp_path):
    from gridcoll import spec, store, sweep
    s = spec.load(fake_spec(tmp_path, "crash_at", "bytes = 8192"))
    db = str(tmp_path / "r.sqlite")
    r = sweep.run(s, db, jobs=2, progress=False)
    df = store.results(db)
    crashed = df[df["status"] == "failed"]
    assert set(crashed["bytes"]) == {8192} and crashed["error"].str.contains("crashed").all()
    assert r.ok == (df["status"] == "ok").sum() == len(s.points) - 3


def _start_sweep(spec_path, db, jobs):
    env = dict(os.environ, PYTHONPATH=f"{BUILD / 'python'}:{Path(__file__).parent}")
    return subprocess.Popen([sys.executable, "-m", "gridcoll", "sweep", str(spec_path), "--db", db, "-j", str(jobs),
                             "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, proc, timeout=60):
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < end, "the sweep never reached the blocking point"
        time.sleep(0.05)


def _gone(pid, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how, jobs", [("kill9", 1), ("kill9", 2), ("ctrl-c", 2)])
def test_interrupted_sweep_loses_nothing_and_resumes(gc, tmp_path, how, jobs):
    from gridcoll import spec, sweep
    pidfile, gate = tmp_path / "pid", tmp_path / "gate"
    spec_path = fake_spec(tmp_path, "block_at", f'bytes = 16384\npidfile = "{pidfile}"\ngate = "{gate}"')
    s = spec.load(spec_path)
    db = str(tmp_path / "r.sqlite")
    proc = _start_sweep(spec_path, db, jobs)
    _wait_for(pidfile, proc)
    before = statuses(db)
    if how == "kill9":
        proc.kill()
        proc.wait()
    else:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
        assert "rerun to resume" in proc.stderr.read()
    workers = [int(x) for x in pidfile.read_text().split()]
    assert workers and all(_gone(w) for w in workers), "a worker outlived the sweep"
    done = statuses(db)
    assert set(before) <= set(done) and all(v == "ok" for v in done.values()) and len(done) >= 1
    gate.write_text("open")
    r = sweep.run(s, db, jobs=jobs, progress=False)
    assert r.skipped == len(done) and r.ok == len(s.points) - len(done) and r.failed == 0


def _child_running(pid: int, name: str, proc, timeout=120) -> int:
    """The pid of a child of `pid` whose command line contains `name`, once one runs."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read()
        for d in Path("/proc").iterdir():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if ppid == pid and name in (d / "cmdline").read_text():
                    return int(d.name)
            except (ValueError, OSError, IndexError):
                continue
        time.sleep(0.05)
    raise AssertionError(f"no {name} ever ran under the sweep")


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_an_in_process_point_stops_the_sweep(gc, tmp_path, sig, status):
    # One job: the SMPI points run in the sweep's own process, their smpirun its child. The
    # signal goes to the sweep's process group (Ctrl-C at a terminal, kill of a job): smpirun,
    # in a group of its own, gets it passed on; then the sweep must stop, not go to its next point.
    spec_path = tmp_path / "slow.toml"
    spec_path.write_text('[[experiment]]\nplatforms = ["das-4x32"]\ncollectives = ["bcast"]\n'
                         'algorithms = ["pipeline:seg=1K", "binomial"]\nsizes = ["4M", "1M"]\nbackends = ["smpi"]\n')
    db = str(tmp_path / "r.sqlite")
    env = dict(os.environ, PYTHONPATH=f"{BUILD / 'python'}:{Path(__file__).parent}")
    proc = subprocess.Popen([sys.executable, "-m", "gridcoll", "sweep", str(spec_path), "--db", db, "-j", "1",
                             "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        smpirun = _child_running(proc.pid, "smpirun", proc)
        os.killpg(proc.pid, sig)
        assert proc.wait(timeout=120) == status, proc.stderr.read()
    finally:  # a sweep that missed the signal must not run on after the test (its smpirun dies with it)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "interrupted" in proc.stderr.read()
    assert _gone(smpirun), "smpirun outlived the interrupted sweep"
    done = statuses(db)
    assert sum(v == "ok" for v in done.values()) < 4, "the sweep went on after the signal"


def test_dask_cluster_gives_the_local_results(gc, tmp_path):
    distributed = pytest.importorskip("distributed")
    from gridcoll import spec, store, sweep
    s = spec.load(small_spec(tmp_path))
    local_db, dask_db = str(tmp_path / "local.sqlite"), str(tmp_path / "dask.sqlite")
    sweep.run(s, local_db, jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None,
                                  local_directory=str(tmp_path / "dask")) as cluster:  # not /tmp/dask-worker-space
        with distributed.Client(cluster) as client:
            workers = len(client.scheduler_info()["workers"])
            r = sweep.run(s, dask_db, scheduler=cluster.scheduler_address, progress=False)
    assert workers == 3 and r.ok == len(s.points) and r.failed == 0
    a = store.results(local_db).set_index("key")["time_s"]
    b = store.results(dask_db).set_index("key")["time_s"]
    assert (a.sort_index() == b.sort_index()).all()


def test_the_command_line_help_and_bad_paths(gc, tmp_path):
    env = dict(os.environ, PYTHONPATH=f"{BUILD / 'python'}")
    run = lambda *a: subprocess.run([sys.executable, "-m", "gridcoll", *a], capture_output=True, text=True, env=env)
    helped = run("--help")
    assert helped.returncode == 0 and "sweep" in helped.stdout
    spec_path = small_spec(tmp_path)
    for args, said in ((["--db", str(tmp_path / "no-dir" / "x.sqlite")], "not a file in an existing folder"),
                       (["--db", str(tmp_path)], "not a file in an existing folder"),
                       (["--db", str(tmp_path / "x.sqlite"), "--scheduler", "garbage"], "expected an address like"),
                       (["--db", str(tmp_path / "x.sqlite"), "-j", "-2"], "--jobs must be 0 (one per core) or more")):
        r = run("sweep", str(spec_path), *args)
        assert r.returncode == 2 and said in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "x.sqlite").exists()  # refused before anything was made
