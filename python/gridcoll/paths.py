"""Where gridcoll's programs and shipped files are: the build tree that assembled this package
(``_paths.py``, written by CMake), else ``$GRIDCOLL_BIN`` / ``$GRIDCOLL_SOURCE``, else ``PATH``."""
import os
import shutil
from pathlib import Path

try:
    from . import _paths
except ImportError:  # an installed package (pip install .)
    _paths = None


def bin_dir() -> str:
    """The directory holding ``gridcoll``, ``gridcoll-bench-smpi`` and the other programs ('' if unknown)."""
    if os.environ.get("GRIDCOLL_BIN"):
        return os.environ["GRIDCOLL_BIN"]
    if _paths is not None:
        return _paths.BIN_DIR
    found = shutil.which("gridcoll")
    return str(Path(found).parent) if found else ""


def source_dir() -> str:
    """The source tree (shipped platforms, notebooks), or '' when unknown."""
    if os.environ.get("GRIDCOLL_SOURCE"):
        return os.environ["GRIDCOLL_SOURCE"]
    return _paths.SOURCE_DIR if _paths is not None else ""


def shipped_platform(name: str) -> str:
    """The path of a shipped platform description: ``shipped_platform("das-4x32")``."""
    path = Path(source_dir()) / "platforms" / "shipped" / f"{name}.toml"
    if not path.exists():
        from ._core import Error
        shipped = sorted(p.stem for p in path.parent.glob("*.toml")) if path.parent.exists() else []
        raise Error(f"no shipped platform '{name}' (shipped: {', '.join(shipped) or 'none found; set GRIDCOLL_SOURCE'})")
    return str(path)
