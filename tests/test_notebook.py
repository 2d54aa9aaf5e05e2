"""examples/stacking.ipynb runs from top to bottom (so it cannot rot) and answers its question."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "stacking.ipynb"


def test_stacking_notebook_executes(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert len(nb.cells) == 5
    # In a scratch folder; the kernel's inline backend turns the chart into a PNG output.
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no chart"
    answer = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert any(w in answer for w in ("longer", "shorter", "practically the same", "Not decided")), answer
