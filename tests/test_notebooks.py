"""Every notebook in notebooks/ runs top to bottom in a fresh Jupyter kernel (nbclient; on the
CPU in CI), so none of them rots; and each is stored as it was run, outputs included."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

if os.environ.get("CI"):  # CI installs '.[test]': a missing runner is a failure there, not a skip
    import nbclient
    import nbformat
else:
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")


def code_cells(path: Path) -> list:
    return [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]


def test_there_are_notebooks():
    assert any(path.name == "01_quickstart.ipynb" for path in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path / "cache"))  # the kernel inherits it
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core's future default; no warning
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, if one fails
    errors = [output for cell in notebook.cells for output in cell.get("outputs", [])
              if output.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_is_stored_with_the_outputs_of_one_run(path):
    cells = code_cells(path)
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    assert any(cell.outputs for cell in cells)
    assert not [o for cell in cells for o in cell.outputs if o.output_type == "error"]
