"""Helpers shared by the papers notebooks (papers_000_001.ipynb, papers_002_003.ipynb): the
gridcoll package of this build, scratch files, and the small functions every section uses. The
papers are cited by authors, title, venue and section; the bibliography is
algorithms/REFERENCES.md."""
import atexit
import math
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (this file lives in python/notebooks)
sys.path.insert(0, os.environ.get("GRIDCOLL_PYTHONPATH", str(ROOT / "build" / "python")))
import gridcoll as gc  # noqa: E402
import pandas as pd  # noqa: E402

FULL = os.environ.get("GRIDCOLL_FULL") == "1"
WORK = Path(tempfile.mkdtemp(prefix="gridcoll-papers-"))  # scratch files (placements, parameters)
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
MiB = 1 << 20
pd.set_option("display.width", 200)
pd.set_option("display.max_columns", 30)
pd.set_option("display.max_rows", 200)


def rel(ours, published):
    # 100 (ours / published - 1); None where either side is missing
    if ours is None or published is None or (isinstance(ours, float) and math.isnan(ours)):
        return None
    return 100.0 * (ours / published - 1.0)

def method_seg(method):
    # segment size of a method text ('pipeline:seg=1K' -> 1024; none -> 0)
    m = re.search(r":seg=([0-9]+[KMG]?)", method)
    return gc.parse_bytes(m.group(1)) if m else 0

def placed(platform, hosts, name):
    # a copy of a shipped description with a file placement: one rank per listed host
    text = Path(gc.shipped_platform(platform)).read_text()
    block = '[placement]\npolicy = "file"\nhosts = [' + ", ".join(f'"{h}"' for h in hosts) + "]\n\n"
    text, n = re.subn(r"\[placement\]\n(?:.*\n)*?\n", block, text, count=1)
    assert n == 1, platform
    out = WORK / f"{name}.toml"
    out.write_text(text)
    return str(out)

def plogp_block(latency, bandwidth, o=1e-6):
    # PLogP of a link as gridcoll derives it (algorithms/model/README.md): L = latency, os = or = o,
    # g(m) = o + m / bandwidth
    return (f"[level.plogp]\nL = {latency!r}\nos = [[0, {o!r}]]\nor = [[0, {o!r}]]\n"
            f"g = [[0, {o!r}], [1048576, {o + 1048576 / bandwidth!r}]]\n")

def params_with(platform, fill, name):
    # the parameters gridcoll derives from a description's links, plus PLogP for the levels whose
    # zones have no common link (fill: level -> (latency s, bandwidth B/s))
    text = gc.ParamSet.load(platform).to_toml()
    for level, (lat, bw) in fill.items():
        head = f'[[level]]\nname = "{level}"\n'
        assert head in text, level
        text = text.replace(head, head + "\n" + plogp_block(lat, bw))
    out = WORK / f"{name}.params.toml"
    out.write_text(text)
    return str(out)
