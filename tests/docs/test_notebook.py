"""examples/stacking.ipynb runs from top to bottom (so it cannot rot) and answers its question."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a Jupyter kernel runs the whole notebook

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "stacking.ipynb"


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def test_stacking_notebook_tells_its_story_and_answers_its_question(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds[0] == "markdown" and kinds.count("markdown") >= 4, kinds
    question = nb.cells[0].source.splitlines()[0]
    assert question.startswith("# ") and question.endswith("?"), question
    # In a scratch folder, as a reader would run it.
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # the comparison shows itself as a table; the paired difference as a chart
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("Comparison: classic vs stacking" in h and "95% CI" in h for h in html)
    plot_cell = next(c for c in nb.cells if c.cell_type == "code" and ".plot()" in c.source)
    assert any("image/png" in o.get("data", {}) for o in plot_cell.outputs), "no chart"
    texts = " ".join(_text(c) for c in nb.cells if c.cell_type == "code")
    assert "an unpaired comparison would need" in texts and "times the games" in texts
    assert "saved" not in texts
    # the answer answers the question asked: which way stacking moves round length
    answer = _text(nb.cells[-1])
    assert "Stacking" in answer and "round" in answer, answer
    assert any(w in answer for w in ("rounds longer", "rounds shorter", "practically the same",
                                     "Not decided")), answer
    assert "longer or shorter" in question and "rounds" in question
