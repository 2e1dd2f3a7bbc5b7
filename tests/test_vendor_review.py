"""Tool readers, reports and MCMC: what two adversarial reviews found (session of 2026-11-27), each case as it was
reproduced."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import bayeseval as be
from bayeseval.io.inspect_ai import read_inspect


def _inspect_log(tmp_path, samples, **eval_extra):
    log = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m", **eval_extra}, "samples": samples}
    p = tmp_path / "log.json"
    p.write_text(json.dumps(log))
    return p


# ----------------------------------------------------------------------------- inspect_ai
def test_an_implausible_epoch_is_refused_not_allocated(tmp_path):
    p = _inspect_log(tmp_path, [{"id": 1, "epoch": 10**12, "scores": {"match": {"value": "C"}}}])
    with pytest.raises(ValueError, match=r"log.json: epochs: 1000000000000 epochs for 1 sample id\(s\)"):
        read_inspect(p)
    q = _inspect_log(tmp_path, [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}], config={"epochs": 10**12})
    with pytest.raises(ValueError, match="the outcome matrix would be almost empty"):
        read_inspect(q)
    ok = _inspect_log(tmp_path, [{"id": i, "epoch": e, "scores": {"match": {"value": "C" if e < 3 else "I"}}}
                                 for i in range(3) for e in (1, 2, 3)], config={"epochs": 4})
    run = next(iter(read_inspect(ok)))
    assert run.matrix.shape == (3, 4)  # a fourth configured epoch that was not run: a missing trial


def test_huge_numbers_and_unhashable_ids_name_the_field(tmp_path):
    p = _inspect_log(tmp_path, [{"id": 1, "scores": {"match": {"value": 10**400}}}])
    with pytest.raises(ValueError, match=r"samples\[0\].*expected a finite number"):
        read_inspect(p)
    q = _inspect_log(tmp_path, [{"id": 1, "scores": {"match": {"value": "C"}}}], dataset={"sample_ids": [[1]]})
    with pytest.raises(ValueError, match=r"eval.dataset.sample_ids: expected integers or strings"):
        read_inspect(q)


def test_a_damaged_eval_member_is_a_value_error_naming_the_file(tmp_path):
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}
    summaries = [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}] * 1
    p = tmp_path / "y.eval"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(header))
        z.writestr("summaries.json", json.dumps(summaries) + " " * 400)
    raw = bytearray(p.read_bytes())
    start = raw.find(b"summaries.json") + len("summaries.json")  # the member's data follows its local header name
    raw[start + 5] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"y.eval: summaries.json: "):
        be.load(p)


# ----------------------------------------------------------------------------- AISBench, lm-eval
def test_a_reported_integer_beyond_any_float_is_left_out_with_a_warning(tmp_path):
    from bayeseval.io.aisbench import read_aisbench_results

    p = tmp_path / "gsm8k.json"
    p.write_text('{"accuracy": 1' + "0" * 400 + ', "details": {"0": {"correct": [true]}, "1": {"correct": [false]}}}')
    with pytest.warns(UserWarning, match="accuracy: the reported value"):
        s = read_aisbench_results(p)
    assert next(iter(s)).matrix.tolist() == [[1], [0]]


def _lm_samples(folder, date="2024-05-01T12-34-56.123456"):
    recs = [{"doc_id": i, "filter": "strict-match", "metrics": ["exact_match"], "exact_match": float(i % 2)}
            for i in range(4)]
    (folder / f"samples_gsm8k_{date}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_lm_eval_results_must_be_an_object_keyed_by_task(tmp_path):
    _lm_samples(tmp_path)
    (tmp_path / "results_2024-06-01T00-00-00.000000.json").write_text(json.dumps({"results": 5}))
    with pytest.raises(ValueError, match=r"results: expected an object keyed by task"):
        be.load(tmp_path)
    (tmp_path / "results_2024-06-01T00-00-00.000000.json").write_text(
        json.dumps({"results": "xgsm8ky", "model_name": "evil"}))
    with pytest.raises(ValueError, match=r"results: expected an object keyed by task"):
        be.load(tmp_path)


def test_lm_eval_reported_nan_is_left_out(tmp_path):
    _lm_samples(tmp_path)
    (tmp_path / "results_2024-05-01T12-34-56.123456.json").write_text(
        '{"results": {"gsm8k": {"exact_match,strict-match": 0.5, "exact_match_stderr,strict-match": NaN}}}')
    with pytest.warns(UserWarning, match="exact_match_stderr,strict-match: the reported value nan"):
        s = be.load(tmp_path)
    rep = next(iter(s)).reported
    assert all(np.isfinite(v) for v in rep.values()) and rep["exact_match,strict-match"] == 0.5


# ----------------------------------------------------------------------------- reports
def test_report_ranking_and_baseline_use_the_tables_prior(tmp_path, capsys):
    from bayeseval.cli import main

    data = "examples/data/tot_game24.json"
    assert main(["report", data, "--metrics", "avg", "--prior", "uniform", "--scope", "benchmark", "--baseline",
                 "gpt-4 IO", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    s = be.load(data)
    want = be.compare(s.counts("gpt-4 CoT"), s.counts("gpt-4 IO"), metric="avg", prior="uniform", scope="benchmark")
    assert f"{100 * want.delta.mean:.1f} [{100 * want.delta.lo:.1f}, {100 * want.delta.hi:.1f}]" in out


def test_evaluation_summary_names_the_dataset_when_there_are_several():
    from bayeseval.io import read_outcomes

    text = be.evaluate(read_outcomes("examples/data/tot_crosswords.json"), ["avg"]).summary()
    assert text.splitlines()[0].split()[0] == "dataset"
    assert {line.split()[0] for line in text.splitlines()[2:]} == {"letters", "words", "games"}


def test_markdown_cells_keep_one_row_per_model():
    from bayeseval.report.tables import _md_escape

    assert _md_escape("b|c\nd") == "b\\|c d" and _md_escape("<script>x") == "&lt;script>x"
    assert _md_escape("<0.001") == "<0.001"


def test_allocation_counts_whole_questions():
    from bayeseval.sequential.allocation import design

    rng = np.random.default_rng(2)
    R = (rng.random((50, 4)) < rng.beta(1, 1, 50)[:, None]).astype(int)
    d = design(R, budget=5, question_cost=3)  # 5 trials buy no question costing 3 + 4
    assert d.var_new_questions is None and "buys no new question" in d.advice
    with pytest.raises(ValueError, match=r"budget is a number of trials to spend, at least 1; got 0.4"):
        design(R, budget=0.4, question_cost=3)  # it advised spending 0.4 trials "on more trials"
    big = design(R, budget=400, question_cost=3)
    assert big.var_new_questions is not None and big.var_new_questions < big.var_more_trials


# ----------------------------------------------------------------------------- MCMC
def test_mcmc_checks_metrics_before_sampling_and_labels_its_level():
    pytest.importorskip("pymc")
    from bayeseval import mcmc

    R = np.random.default_rng(0).integers(0, 2, (10, 4))
    with pytest.raises(ValueError, match=r"hierarchical\(\) supports single-payoff metrics, not max@2"):
        mcmc.hierarchical(R, ["max@2"], draws=50, tune=50)  # refused before any model is built or sampled
    with pytest.raises(ValueError, match=r"paired\(\) supports single-payoff metrics"):
        mcmc.paired(R, R, ["geospectrum@4"], draws=50, tune=50)
    fit = mcmc.PairedFit([], {"mean": -0.874, "sd": 0.068, "lo": -0.981, "hi": -0.768, "p_positive": 0.0}, None,
                         "nuts", ("A", "B"), [], 0.9)
    assert "90% [-0.981, -0.768]" in fit.summary() and "95%" not in fit.summary()


def test_html_ranking_marks_a_stand_in_posterior_mean(tmp_path, capsys):
    from bayeseval.cli import main

    out = tmp_path / "k.html"
    assert main(["report", "examples/data/tot_game24.json", "--metrics", "pass@200", "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    ranking = page[page.index("class=ranking"):]
    assert "64.0*" in ranking and "* posterior mean (the finite-sample estimate is undefined there)." in ranking


# ----------------------------------------------------------------------------- counting at scale
def test_weights_must_be_whole_counts_on_every_engine(tmp_path):
    pd = pytest.importorskip("pandas")
    from bayeseval.io.scale import count_table

    def table(n):
        return pd.DataFrame({"model": "a", "question": [0, 0, 1, 1], "value": [0, 1, 0, 1], "n": n})

    for n, match in (([0.5, 0.5, 1.5, 2.5], r"row 0: column 'n' must be a whole number >= 0.*got 0.5"),
                     ([-2, 3, 1, 4], r"row 0: column 'n' must be a whole number >= 0.*got -2"),
                     (["1", "1", "1", "1"], r"weight column 'n' holds VARCHAR")):
        table(n).to_parquet(tmp_path / "w.parquet")
        with pytest.raises(ValueError, match=match):  # were rounded (0.5 + 0.5 -> 1 trial) or negative counts
            count_table(tmp_path / "w.parquet", score="value", weight="n")
    table([1, 2, 3, 4]).to_parquet(tmp_path / "w.parquet")
    assert count_table(tmp_path / "w.parquet", score="value", weight="n").counts("a").table.tolist() == [[1, 2], [3, 4]]
    ibis = pytest.importorskip("ibis")
    with pytest.raises(ValueError, match=r"column 'n' \(weight\) must hold whole numbers >= 0"):
        count_table(ibis.memtable(table([0.5, 0.5, 1.5, 2.5])), score="value", weight="n")


def test_a_null_integer_trial_index_is_refused_by_duckdb_as_by_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    f = tmp_path / "t.parquet"
    pd.DataFrame({"model": "a", "question": 0, "trial": pd.array([None, 1, 2, 3], dtype="Int64"),
                  "score": [1, 1, 0, 0]}).to_parquet(f)
    for engine in ("auto", "pandas"):
        with pytest.raises(ValueError, match=r"row 0: column 'trial' must be a non-negative integer trial index"):
            be.load(f, engine=engine)
