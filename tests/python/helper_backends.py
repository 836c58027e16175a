"""Backends of kind "python" for the sweep tests: one that fails a point, one that crashes its
worker process, one that blocks on a gate file (to interrupt a sweep at a known place)."""
import os
import time
from pathlib import Path


def fake_time(point, settings):
    """A made-up model: 1 us per byte."""
    return point.bytes * 1e-6


def fail_at(point, settings):
    if point.bytes == settings["bytes"]:
        raise RuntimeError(f"no model for {point.bytes} bytes")
    return fake_time(point, settings)


def crash_at(point, settings):
    if point.bytes == settings["bytes"]:
        os._exit(3)  # the worker process dies
    return fake_time(point, settings)


def block_at(point, settings):
    """Records this process's pid, then waits while the gate file is missing (the test kills
    the sweep meanwhile; a rerun creates the gate)."""
    if point.bytes == settings["bytes"]:
        with open(settings["pidfile"], "a") as f:  # every worker that gets here
            f.write(f"{os.getpid()}\n")
        while not Path(settings["gate"]).exists():
            time.sleep(0.05)
    return fake_time(point, settings)
