"""pytest for the Python package: imports gridcoll from the build tree (GRIDCOLL_BUILD, default
../../build) and provides small specs."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("GRIDCOLL_BUILD", ROOT / "build"))
sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(Path(__file__).parent))  # helper backends (kind "python") for the sweep tests

import gridcoll  # noqa: E402


@pytest.fixture
def gc():
    return gridcoll


@pytest.fixture
def das2():
    return str(ROOT / "platforms" / "shipped" / "das-4x2.toml")


def small_spec(tmp_path: Path, backends=("closed", "event"), extra: str = "", sizes='["64K", "1M"]') -> Path:
    spec = tmp_path / "small.toml"
    spec.write_text(f"""name = "small"
{extra}
[[experiment]]
platforms = ["das-4x2"]
collectives = ["bcast"]
algorithms = ["binomial", "pipeline:seg=64K", "multitree"]
sizes = {sizes}
backends = {list(backends)!r}
""".replace("'", '"'))
    return spec
