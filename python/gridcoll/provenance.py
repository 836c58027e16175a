"""Provenance stored with every run: git revision, versions, machine, command line."""
from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import time

from .paths import bin_dir, source_dir


def _out(argv: list[str], cwd: str | None = None) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=cwd).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _dpkg_version(package: str) -> str:
    return _out(["dpkg-query", "-W", "-f=${Version}", package])


def collect(command: str | None = None) -> dict:
    src = source_dir()
    rev = _out(["git", "rev-parse", "--short=12", "HEAD"], cwd=src) if src else ""
    dirty = bool(_out(["git", "status", "--porcelain", "--untracked-files=no"], cwd=src)) if rev else False
    import numpy
    import pandas
    from . import __version__
    cpu = ""
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
    except (OSError, AttributeError):
        pass
    return {
        "git_revision": rev + ("-dirty" if dirty else ""),
        "gridcoll_version": __version__,
        "simgrid_version": _dpkg_version("libsimgrid-dev") or _dpkg_version("libsimgrid3.32"),
        "openmpi_version": _dpkg_version("openmpi-bin"),
        "python": sys.version.split()[0],
        "pandas": pandas.__version__,
        "numpy": numpy.__version__,
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, {cpu}".strip(", "),
        "os": _out(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]) or platform.platform(),
        "kernel": platform.release(),
        "user": "root" if os.geteuid() == 0 else str(os.geteuid()),
        "bin_dir": bin_dir(),
        "command": command or " ".join(sys.argv),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def testbeds(points) -> dict:
    """For each emulated backend and platform among `points`: the time dilation its testbed runs
    under and where its hosts ran (the report's environment)."""
    from . import _core
    out = {}
    for p in points:
        if p.backend.kind != "emulated":
            continue
        key = f"testbed: {p.backend.name} on {p.platform.rsplit('/', 1)[-1]}"
        if key not in out:
            try:
                out[key] = _core.testbed_layout(p.platform, p.backend.settings_dict())
            except _core.Error as e:
                out[key] = f"unknown ({e})"
    return out
