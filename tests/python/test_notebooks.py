"""Every notebook in python/notebooks runs headless (nbclient) without an error, with small
sizes (GRIDCOLL_FULL=1 for the full ones)."""
import os
import tempfile
from pathlib import Path

import pytest

from conftest import BUILD, ROOT

NOTEBOOKS = sorted((ROOT / "python" / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"sweep_tutorial.ipynb", "papers_000_001.ipynb", "papers_002.ipynb",
                                            "papers_003.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient
    os.environ["GRIDCOLL_PYTHONPATH"] = str(BUILD / "python")
    nb = nbformat.read(path, as_version=4)
    # The kernel's scratch (the tutorial's mkdtemp, dask's worker space, MPI's session files)
    # goes to a directory removed afterwards, not /tmp itself.
    before = os.environ.get("TMPDIR")
    with tempfile.TemporaryDirectory(prefix="gridcoll-notebook-") as scratch:
        os.environ["TMPDIR"] = scratch
        try:
            NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
        finally:
            if before is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = before
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any(o.get("output_type") in ("stream", "execute_result", "display_data") for o in outputs)
