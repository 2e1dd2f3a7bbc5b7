"""examples/tour.ipynb runs in a real Jupyter kernel, and its numbers are the library's."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "tour.ipynb"


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("arviz")
    pytest.importorskip("pymc")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    return nb


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def test_the_notebook_is_stored_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert all(not c.outputs and c.execution_count is None for c in nb.cells if c.cell_type == "code")


def test_the_notebook_runs_and_its_numbers_are_the_librarys(executed):
    import bayeseval as be

    outs = _outputs(executed)
    assert not [o for o in outs if o.output_type == "error"]
    key = json.loads([o.text for o in outs if o.output_type == "stream" and o.text.startswith("{")][-1])

    data = be.load(ROOT / "examples" / "data" / "tot_game24.json")
    est = be.evaluate(data, ["avg", "pass@10", "pass@100"])["gpt-4 CoT", "pass@100"]
    assert key["cot_pass100"] == pytest.approx([est.value, est.lo, est.hi], abs=1e-12)
    assert [round(x, 3) for x in key["cot_pass100"]] == [0.49, 0.394, 0.599]
    c = be.compare(data["gpt-4 CoT"], data["gpt-4 IO"], metric="pass@100", names=("CoT", "IO"))
    assert key["delta"] == pytest.approx([c.delta.mean, c.delta.lo, c.delta.hi], abs=1e-12)
    assert key["p_cot_better"] == pytest.approx(c.p_a_better, abs=1e-12) and key["p_cot_better"] > 0.99

    # ArviZ: one summary row per metric and model; the posterior mean of the exported draws is the estimate's
    assert key["summary_rows"] == [f"{m}[{model}]" for m in ("avg", "pass@10", "pass@100")
                                   for model in ("gpt-4 IO", "gpt-4 CoT")]
    assert key["summary_mean_cot_pass100"] == pytest.approx(est.mean, abs=0.005)
    assert any("text/html" in o.get("data", {}) and "pass@100[gpt-4 CoT]" in o["data"]["text/html"] for o in outs)
    assert any("image/png" in o.get("data", {}) for o in outs)  # az.plot_posterior drew

    # the published tau-bench pass^1..4 and the NUTS cross-check of the closed forms
    assert [round(x, 3) for x in key["pass_hat"]] == [0.42, 0.273, 0.22, 0.2]
    assert key["crosscheck_passed"] is True
    text = "".join(o.text for o in outs if o.output_type == "stream")
    assert "pass^2" in text and "R-hat" in text and "CoT is better" in text and "IO is better" in text
