"""Loaders for evaluation tools' output: AISBench, OpenCompass, lm-evaluation-harness, inspect_ai.

Fixtures live in tests/data/<tool>/ (see the README there): the AISBench and
OpenCompass files were produced by running those tools' own evaluator code on a
4-question demo_gsm8k; the lm-eval and inspect files are hand-built in the
tools' logged shapes.  Tests never read outside the repository.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from bayeseval import aisbench as ais
from bayeseval.io.aisbench import (AISBenchGroupingWarning, parse_aisbench_results, read_aisbench,
                                   read_aisbench_results)
from bayeseval.io.detect import detect
from bayeseval.io.inspect_ai import parse_inspect_log, read_inspect
from bayeseval.io.lm_eval import read_lm_eval
from bayeseval.io.opencompass import read_opencompass, read_opencompass_results
from bayeseval.metrics.reference import g_pass_at_k_tau, mg_pass_at_k

DATA = Path(__file__).parent / "data"
AIS = DATA / "aisbench"
OC = DATA / "opencompass"
LM = DATA / "lm_eval"
INSPECT_LOG = DATA / "inspect" / "2024-09-02T14-03-11+00-00_gsm8k_Fq4gLhQv7iR5cz8d9WYJxM.json"
MODEL = "vllm-api-general-chat"
AIS_N3 = AIS / "aisbench_SIMULATED_results_demo_gsm8k_n3_dump_eval_details.json"
AIS_N1 = AIS / "aisbench_SIMULATED_results_demo_gsm8k_n1_dump_eval_details.json"
OC_RESULTS = OC / "opencompass_SIMULATED_results_demo_gsm8k_n3.json"
OC_PREDS = OC / "opencompass_SIMULATED_predictions_demo_gsm8k_n3.json"

# The true outcomes of the demo run (question x replica), read off the OpenCompass predictions by hand:
# q0 answers 18, 18, 7 (gold 18); q1 3, 5, 5 (gold 5); q2 1, 2, 2 (gold 2); q3 9, 9, 9 (gold 9).
TRUE = [[1, 1, 0], [0, 1, 1], [0, 1, 1], [1, 1, 1]]
# AISBench 3.1's groups of the same 12 outcomes (consecutive triples of the replica-major order).
AISBENCH_GROUPS = [[1, 0, 0], [1, 1, 1], [1, 1, 0], [1, 1, 1]]


def work_dir(tmp_path: Path, n: int = 3, predictions: bool = True, summary: bool = True) -> Path:
    """An AISBench work dir laid out as AISBench writes it, from the loose fixture files."""
    work = tmp_path / "20260326_151326"
    (work / "results" / MODEL).mkdir(parents=True)
    shutil.copy(AIS / f"aisbench_SIMULATED_results_demo_gsm8k_n{n}_dump_eval_details.json",
                work / "results" / MODEL / "demo_gsm8k.json")
    if predictions:
        (work / "predictions" / MODEL).mkdir(parents=True)
        shutil.copy(AIS / f"aisbench_SIMULATED_predictions_demo_gsm8k_n{n}.jsonl",
                    work / "predictions" / MODEL / "demo_gsm8k.jsonl")
    if summary and n == 3:
        (work / "summary").mkdir()
        shutil.copy(AIS / "CONSTRUCTED_summary_demo_gsm8k_n3.csv", work / "summary" / "summary_20260326_151326.csv")
    return work


def digest(folder: Path) -> dict:
    return {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ============================================================================= AISBench
def test_aisbench_n3_regrouped_by_gold_cons_75_becomes_100(tmp_path):
    work = work_dir(tmp_path)
    before = digest(work)
    with pytest.warns(AISBenchGroupingWarning) as caught:
        s = read_aisbench(work)
    assert digest(work) == before                      # nothing the user supplied is modified
    run = s.run(MODEL, "demo_gsm8k")
    assert run.ids == (0, 1, 2, 3)
    assert run.matrix.tolist() == TRUE
    # what AISBench printed, in its units (percent)
    assert run.reported == {"accuracy (3 runs average)": 75.0, "avg@3": 75.0, "pass@3": 100.0, "cons@3": 75.0}
    rec = run.meta["recomputed"]
    assert rec["cons@3"] == 100.0 and run.reported["cons@3"] == 75.0       # the bug, repaired
    assert rec["pass@3"] == 100.0
    assert rec["avg@3"] == 75.0 == run.reported["avg@3"]                    # avg@n survives the bug
    assert rec["accuracy (3 runs average)"] == 75.0
    assert ais.cons_at_k(run.matrix, 3) == 1.0 and ais.avg_at_n(run.matrix) == 0.75
    assert run.meta["grouping"] == "regrouped" and "gold" in run.meta["grouping_evidence"]
    # the warning names the file and shows reported beside corrected; the set carries the same text
    msg = str(caught[0].message)
    assert msg.startswith("results/vllm-api-general-chat/demo_gsm8k.json: ")
    assert "cons@3: AISBench reported 75.00, corrected 100.00" in msg
    assert "pass@3: AISBench reported 100.00, corrected 100.00" in msg
    assert s.warnings == [msg]
    # provenance from the summary CSV and the files read
    assert run.meta["version"] == "a1b2c3" and run.meta["mode"] == "gen"
    assert run.meta["summary"]["cons@3"] == 75.0
    assert run.meta["files"] == ["results/vllm-api-general-chat/demo_gsm8k.json",
                                 "predictions/vllm-api-general-chat/demo_gsm8k.jsonl",
                                 "summary/summary_20260326_151326.csv"]


def test_aisbench_loose_results_file_regrouped_from_reference_heterogeneity():
    with pytest.warns(AISBenchGroupingWarning, match="cons@3: AISBench reported 75.00, corrected 100.00"):
        s = read_aisbench_results(AIS_N3, model=MODEL, dataset="demo_gsm8k")
    run = s.run(MODEL)
    assert run.matrix.tolist() == TRUE
    assert "mix different references" in run.meta["grouping_evidence"]
    assert run.meta["recomputed"]["cons@3"] == 100.0


def test_aisbench_explicit_predictions_path_and_read_aisbench_on_a_file():
    with pytest.warns(AISBenchGroupingWarning):
        s = read_aisbench_results(AIS_N3, predictions=AIS / "aisbench_SIMULATED_predictions_demo_gsm8k_n3.jsonl")
    assert s.matrix("model").tolist() == TRUE
    assert "gold" in s.run("model").meta["grouping_evidence"]
    with pytest.warns(AISBenchGroupingWarning):
        assert read_aisbench(AIS_N3).matrix("model").tolist() == TRUE


def test_aisbench_regroup_false_reproduces_aisbench_numbers(tmp_path):
    work = work_dir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = read_aisbench(work, regroup=False)
    run = s.run(MODEL)
    assert run.matrix.tolist() == AISBENCH_GROUPS
    assert run.meta["recomputed"]["cons@3"] == 75.0 == run.reported["cons@3"]
    assert run.meta["grouping"] == "aisbench" and s.warnings == []
    assert any("overrides the evidence" in n for n in run.meta["notes"])


def test_aisbench_regroup_true_forces(tmp_path):
    results = json.loads(AIS_N3.read_text())
    with pytest.warns(AISBenchGroupingWarning, match="regroup=True"):
        s = parse_aisbench_results(results, regroup=True, where="r.json")
    assert s.matrix("model").tolist() == TRUE


def test_aisbench_indistinguishable_grouping_is_kept_with_a_note():
    # every reference identical: both groupings look alike, so AISBench's is kept and a warning says so
    results = {"accuracy (2 runs average)": 50.0, "avg@2": 50.0, "pass@2": 100.0, "cons@2": 0.0,
               "details": [{"example_abbr": "d_0", "answer": ["5", "5"], "correct": [True, False]},
                           {"example_abbr": "d_1", "answer": ["5", "5"], "correct": [False, True]}]}
    preds = [{"id": 0, "gold": "5"}, {"id": 0, "gold": "5"}, {"id": 1, "gold": "5"}, {"id": 1, "gold": "5"}]
    original = copy.deepcopy(results)
    with pytest.warns(UserWarning, match="replica grouping not checked") as caught:
        s = parse_aisbench_results(results, predictions=preds)
    assert not any(isinstance(w.message, AISBenchGroupingWarning) for w in caught)  # nothing was regrouped
    assert results == original                                   # input not modified
    run = s.run("model")
    assert run.matrix.tolist() == [[1, 0], [0, 1]]
    assert run.meta["grouping"] == "aisbench"
    assert any("not checked" in n and "single reference" in n for n in run.meta["notes"])
    assert len(s.warnings) == 1 and "pass@k and cons@k may be wrong" in s.warnings[0]


def test_aisbench_n1_accuracy_50(tmp_path):
    work = work_dir(tmp_path, n=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = read_aisbench(work)
    run = s.run(MODEL)
    assert run.ids == (0, 1, 2, 3)
    assert run.matrix.tolist() == [[1], [0], [0], [1]]
    assert run.reported == {"accuracy": 50.0}
    assert run.meta["recomputed"] == {"accuracy": 50.0}
    assert run.meta["n"] == 1 and run.meta["type"] == "GEN"


def test_aisbench_regrouped_equals_opencompass_grouping(tmp_path):
    """AISBench's regrouped matrix = OpenCompass's details = OpenCompass's predictions (the same runs)."""
    with pytest.warns(AISBenchGroupingWarning):
        regrouped = read_aisbench(work_dir(tmp_path)).matrix(MODEL)
    oc = read_opencompass_results(OC_RESULTS, predictions=False).matrix("model")
    preds = json.loads(OC_PREDS.read_text())
    N = 4
    by_hand = np.zeros((N, len(preds) // N))
    for key, p in preds.items():
        i = int(key)
        by_hand[i % N, i // N] = p["prediction"].split()[-1] == p["gold"]
    assert regrouped.tolist() == oc.tolist() == by_hand.tolist() == TRUE


def test_aisbench_short_predictions_are_reported(tmp_path):
    work = work_dir(tmp_path)
    path = work / "predictions" / MODEL / "demo_gsm8k.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[1:]))                         # one replica of question 3 failed
    with pytest.warns(AISBenchGroupingWarning):
        s = read_aisbench(work)
    short = [w for w in s.warnings if "fewer than n=3" in w]
    assert short and "id 3: 2" in short[0] and short[0].startswith("predictions/vllm-api-general-chat/demo_gsm8k.jsonl")


def test_aisbench_selection_and_folder_errors(tmp_path):
    work = work_dir(tmp_path)
    with pytest.raises(ValueError, match=r"no model 'gpt'; models: \['vllm-api-general-chat'\]"):
        read_aisbench(work, models=["gpt"])
    with pytest.raises(ValueError, match=r"no dataset 'mmlu'"):
        read_aisbench(work, datasets="mmlu")
    with pytest.raises(ValueError, match=r"holds work dirs \['20260326_151326'\]: pass one of them"):
        read_aisbench(tmp_path)
    with pytest.raises(ValueError, match="regroup must be"):
        read_aisbench(work, regroup="yes")


# ----------------------------------------------------------------------------- malformed AISBench input
def _write(work: Path, rel: str, text: str) -> None:
    (work / rel).write_text(text, encoding="utf-8")


RES = f"results/{MODEL}/demo_gsm8k.json"
PRED = f"predictions/{MODEL}/demo_gsm8k.jsonl"


def test_aisbench_bad_correct_names_file_record_field(tmp_path):
    work = work_dir(tmp_path)
    data = json.loads((work / RES).read_text())
    data["details"][3]["correct"] = "yes"
    _write(work, RES, json.dumps(data))
    with pytest.raises(ValueError) as exc:
        read_aisbench(work)
    assert str(exc.value) == (f"{RES}: details[3].correct: expected a boolean or a list of booleans, "
                              "got 'yes' (str)")


def test_aisbench_malformed_files(tmp_path):
    work = work_dir(tmp_path)
    good = (work / RES).read_text()
    _write(work, RES, good[:-20])
    with pytest.raises(ValueError, match=rf"^{RES}: not valid JSON \(line \d+, column \d+"):
        read_aisbench(work)
    data = json.loads(good)
    del data["details"]
    _write(work, RES, json.dumps(data))
    with pytest.raises(ValueError, match=rf"^{RES}: details: missing; .*--dump-eval-details"):
        read_aisbench(work)
    data = json.loads(good)
    data["details"][1]["correct"] = [True, False]
    _write(work, RES, json.dumps(data))
    with pytest.raises(ValueError, match=rf"^{RES}: details\[1\]: has 2 replicas, details\[0\] has 3"):
        read_aisbench(work)
    data = json.loads(good)
    del data["details"][2]["correct"]
    _write(work, RES, json.dumps(data))
    with pytest.raises(ValueError, match=rf"^{RES}: details\[2\]: no correctness field"):
        read_aisbench(work)
    _write(work, RES, good)
    lines = (work / PRED).read_text().splitlines()
    _write(work, PRED, "\n".join(lines[:2] + ["{not json"] + lines[3:]) + "\n")
    with pytest.raises(ValueError, match=rf"^{PRED}: line 3: not valid JSON"):
        read_aisbench(work)
    rec = json.loads(lines[1])
    del rec["id"]
    _write(work, PRED, "\n".join([lines[0], json.dumps(rec)] + lines[2:]) + "\n")
    with pytest.raises(ValueError, match=rf"^{PRED}: line 2: id: missing"):
        read_aisbench(work)
    rec["id"] = "three"
    _write(work, PRED, "\n".join([lines[0], json.dumps(rec)] + lines[2:]) + "\n")
    with pytest.raises(ValueError, match=rf"^{PRED}: line 2: id: expected a question index \(integer\), got 'three'"):
        read_aisbench(work)


def test_aisbench_bad_summary_csv(tmp_path):
    work = work_dir(tmp_path)
    _write(work, "summary/summary_20260326_151326.csv", "dataset,version,metric,vllm-api-general-chat\n")
    with pytest.raises(ValueError, match=r"^summary/summary_20260326_151326.csv: line 1: header lacks the 'mode'"):
        read_aisbench(work)


# ============================================================================= OpenCompass
def test_opencompass_gpass_recomputed_equals_reported():
    s = read_opencompass(OC_RESULTS)
    run = s.run("model")
    assert run.matrix.tolist() == TRUE and run.ids == (0, 1, 2, 3)
    M = run.matrix
    taus = (0.0, 0.25, 0.5, 0.75, 1.0)
    for tau in taus:
        key = f"G-Pass@3_{tau}"
        assert 100 * g_pass_at_k_tau(M, 3, tau) == pytest.approx(run.reported[key], abs=1e-12)
        assert run.meta["recomputed"][key] == pytest.approx(run.reported[key], abs=1e-12)
        assert run.reported[f"demo/{key}"] == run.reported[key]
    assert 100 * mg_pass_at_k(M, 3) == pytest.approx(run.reported["mG-Pass@3"], abs=1e-12)   # 16.67
    assert run.reported["mG-Pass@3"] == pytest.approx(100 / 6, abs=1e-12)
    assert [run.reported[f"G-Pass@3_{t}"] for t in taus] == [100.0, 100.0, 100.0, 25.0, 25.0]
    assert run.meta["recomputed"]["accuracy (3 runs average)"] == 75.0 == run.reported["accuracy (3 runs average)"]


def test_opencompass_folder_checks_predictions(tmp_path):
    work = tmp_path / "20250101_000000"
    for sub, src in (("results", OC_RESULTS), ("predictions", OC_PREDS)):
        (work / sub / "internlm2-chat-7b").mkdir(parents=True)
        shutil.copy(src, work / sub / "internlm2-chat-7b" / "demo_gsm8k.json")
    before = digest(work)
    s = read_opencompass(work)
    assert digest(work) == before
    run = s.run("internlm2-chat-7b", "demo_gsm8k")
    assert run.matrix.tolist() == TRUE
    assert run.meta["files"] == ["results/internlm2-chat-7b/demo_gsm8k.json",
                                 "predictions/internlm2-chat-7b/demo_gsm8k.json"]
    assert run.meta["notes"] == ["predictions' gold matches the details' references for all 12 replicas"]
    preds = json.loads(OC_PREDS.read_text())
    del preds["11"]
    (work / "predictions" / "internlm2-chat-7b" / "demo_gsm8k.json").write_text(json.dumps(preds))
    with pytest.raises(ValueError, match=r"^predictions/internlm2-chat-7b/demo_gsm8k.json: has 11 entries but "
                                         r"results/internlm2-chat-7b/demo_gsm8k.json holds 4 questions x 3"):
        read_opencompass(work)
    preds["12"] = preds["10"]
    (work / "predictions" / "internlm2-chat-7b" / "demo_gsm8k.json").write_text(json.dumps(preds))
    with pytest.raises(ValueError, match=r"keys must be \"0\"..\"11\"; \"11\" is missing"):
        read_opencompass(work)


def test_opencompass_bad_details(tmp_path):
    data = json.loads(OC_RESULTS.read_text())
    data["details"][0]["correct"] = [True, None, False]
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"demo.json: details\[0\].correct: expected a boolean or a list of "
                                         r"booleans, got \[True, None, False\] \(list\)"):
        read_opencompass(path)


# ============================================================================= lm-evaluation-harness
def test_lm_eval_folder_gsm8k_and_arc():
    s = read_lm_eval(LM / "basic")
    assert s.models == ["EleutherAI/pythia-160m"] and sorted(s.datasets) == ["arc_easy", "gsm8k"]
    gsm = s.run("EleutherAI/pythia-160m", "gsm8k")
    # strict-match is the first filter in the file; docs 0 and 3 end with "#### <answer>"
    assert gsm.ids == (0, 1, 2, 3) and gsm.matrix.ravel().tolist() == [1, 0, 0, 1]
    assert gsm.meta["filter"] == "strict-match" and gsm.meta["filters"] == ["strict-match", "flexible-extract"]
    assert gsm.meta["metric"] == "exact_match" and gsm.meta["repeats"] == 1
    assert gsm.matrix.mean() == gsm.reported["exact_match,strict-match"] == 0.5
    assert gsm.meta["version"] == 3.0 and gsm.meta["n-shot"] == 5
    arc = s.run("EleutherAI/pythia-160m", "arc_easy")
    assert arc.matrix.ravel().tolist() == [1, 0, 1] and arc.meta["metric"] == "acc"
    assert arc.matrix.mean() == pytest.approx(arc.reported["acc,none"], abs=1e-15)


def test_lm_eval_choose_filter_metric_task():
    s = read_lm_eval(LM / "basic", filter="flexible-extract", tasks="gsm8k")
    run = s.run("EleutherAI/pythia-160m")
    assert run.matrix.ravel().tolist() == [1, 0, 1, 1]
    assert run.matrix.mean() == run.reported["exact_match,flexible-extract"] == 0.75
    s = read_lm_eval(LM / "basic" / "EleutherAI__pythia-160m", metric="acc_norm", tasks=["arc_easy"])
    run = s.run("EleutherAI/pythia-160m")
    assert run.matrix.ravel().tolist() == [1, 0, 0]
    assert run.matrix.mean() == pytest.approx(run.reported["acc_norm,none"], abs=1e-15)
    with pytest.raises(ValueError, match=r"filter 'maj@8' not found; filters: \['strict-match', 'flexible-extract'\]"):
        read_lm_eval(LM / "basic", filter="maj@8", tasks="gsm8k")
    with pytest.raises(ValueError, match=r"line 1: f1: missing; metric fields here: \['exact_match'\]"):
        read_lm_eval(LM / "basic", metric="f1", tasks="gsm8k")
    with pytest.raises(ValueError, match=r"no task 'mmlu'; tasks: \['arc_easy', 'gsm8k'\]"):
        read_lm_eval(LM / "basic", tasks="mmlu")
    with pytest.raises(ValueError, match=r"no model 'gpt2'"):
        read_lm_eval(LM / "basic", models="gpt2")


def test_lm_eval_results_file_and_samples_file_entry_points():
    folder = LM / "basic" / "EleutherAI__pythia-160m"
    via_results = read_lm_eval(folder / "results_2024-05-01T10-00-00.123456.json")
    assert sorted(via_results.datasets) == ["arc_easy", "gsm8k"]
    one = read_lm_eval(folder / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl")
    run = one.run("EleutherAI/pythia-160m")
    assert run.matrix.ravel().tolist() == [1, 0, 0, 1]
    assert run.meta["files"] == ["samples_gsm8k_2024-05-01T10-00-00.123456.jsonl",
                                 "results_2024-05-01T10-00-00.123456.json"]


def test_lm_eval_repeats_without_per_repeat_outcomes_raise():
    with pytest.raises(ValueError) as exc:
        read_lm_eval(LM / "self_consistency")
    msg = str(exc.value)
    assert msg.startswith("EleutherAI__pythia-160m/samples_gsm8k_cot_self_consistency_2024-05-02T09-30-00.654321"
                          ".jsonl: line 1: exact_match: ")
    assert "repeats=4" in msg and "cannot be recovered" in msg and "single_trial=True" in msg
    s = read_lm_eval(LM / "self_consistency", single_trial=True, filter="maj@4")
    run = s.run("EleutherAI/pythia-160m")
    assert run.matrix.shape == (3, 1) and run.matrix.ravel().tolist() == [1, 1, 1]
    assert run.matrix.mean() == run.reported["exact_match,maj@4"] == 1.0
    assert "repeats=4" in run.meta["notes"][0]
    first = read_lm_eval(LM / "self_consistency", single_trial=True).run("EleutherAI/pythia-160m")
    assert first.meta["filter"] == "score-first" and first.matrix.ravel().tolist() == [1, 0, 1]


def _gsm8k_lines() -> list[dict]:
    path = LM / "basic" / "EleutherAI__pythia-160m" / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_lm_eval_per_repeat_lists_are_trials(tmp_path):
    recs = [r for r in _gsm8k_lines() if r["filter"] == "strict-match"]
    for r, outs in zip(recs, ([1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 1, 1])):
        r["resps"] = [[r["resps"][0][0]] * 3]
        r["exact_match"] = outs
    path = tmp_path / "samples_gsm8k_2024-06-01T00-00-00.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = read_lm_eval(path).run(tmp_path.name)
    assert run.matrix.tolist() == [[1, 1, 0], [0, 0, 0], [1, 0, 1], [1, 1, 1]]
    recs[2]["exact_match"] = [1, 0]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(ValueError, match=r"line 3: exact_match: a list of 2 values, but the task has repeats=3"):
        read_lm_eval(path)


def test_lm_eval_runs_as_trials(tmp_path):
    model_dir = tmp_path / "EleutherAI__pythia-160m"
    model_dir.mkdir()
    recs = _gsm8k_lines()
    (model_dir / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in recs))
    second = [dict(r, exact_match=1.0 - r["exact_match"]) for r in recs if r["doc_id"] != 2]
    (model_dir / "samples_gsm8k_2024-05-03T10-00-00.000000.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in second))
    latest = read_lm_eval(tmp_path).run("EleutherAI__pythia-160m")
    assert latest.ids == (0, 1, 3) and latest.matrix.ravel().tolist() == [0, 1, 0]
    both = read_lm_eval(tmp_path, runs="trials").run("EleutherAI__pythia-160m")
    assert both.ids == (0, 1, 2, 3)
    np.testing.assert_array_equal(both.matrix, [[1, 0], [0, 1], [0, np.nan], [1, 0]])
    assert len(both.meta["files"]) == 2


def test_lm_eval_malformed_records(tmp_path):
    recs = _gsm8k_lines()
    path = tmp_path / "samples_gsm8k_2024-06-01T00-00-00.jsonl"

    def write(rows):
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))

    bad = copy.deepcopy(recs)
    bad[1]["doc_id"] = "x"
    write(bad)
    with pytest.raises(ValueError, match=rf"^{path.name}: line 2: doc_id: expected an integer, got 'x' \(str\)"):
        read_lm_eval(path)
    bad = copy.deepcopy(recs)
    bad[2]["exact_match"] = "yes"
    write(bad)
    with pytest.raises(ValueError, match=rf"^{path.name}: line 3: exact_match: expected a number, a boolean or a list"):
        read_lm_eval(path)
    write([recs[0], "{broken", recs[2]])
    with pytest.raises(ValueError, match=rf"^{path.name}: line 2: not valid JSON"):
        read_lm_eval(path)
    old = [{k: v for k, v in r.items() if k not in ("filter", "metrics")} for r in recs]   # lm-eval < 0.4.3
    write(old)
    with pytest.raises(ValueError, match=r"line 5: doc_id: 0 already on line 1 \(records carry no 'filter' field"):
        read_lm_eval(path)
    with pytest.raises(ValueError, match="runs must be"):
        read_lm_eval(path, runs="all")


# ============================================================================= inspect_ai
INSPECT_MATCH = [[1, 1, 1], [0, 1, 0], [1, 0, np.nan], [0, 0, 0]]


def test_inspect_json_log_epochs_are_trials():
    s = read_inspect(INSPECT_LOG)
    run = s.run("openai/gpt-4o-mini", "gsm8k")
    assert run.ids == (1, 2, 3, 4)
    np.testing.assert_array_equal(run.matrix, INSPECT_MATCH)           # sample 3 epoch 3 errored: missing
    assert run.weights is None and run.meta["scorer"] == "match"
    assert run.meta["scorers"] == ["match", "model_graded_fact"]
    assert run.meta["missing"] == 1 and run.meta["errors"] == 1 and run.meta["epochs"] == 3
    # inspect's accuracy with the mean epoch reducer = mean over samples of the per-sample mean
    assert np.mean(np.nanmean(run.matrix, axis=1)) == pytest.approx(run.reported["match/accuracy"], abs=1e-15)
    assert run.reported["match/accuracy"] == pytest.approx(11 / 24, abs=1e-15)


def test_inspect_partial_credit_becomes_weighted_categories():
    run = read_inspect(INSPECT_LOG, scorer="model_graded_fact").run("openai/gpt-4o-mini")
    assert run.weights.tolist() == [0.0, 0.5, 1.0]
    np.testing.assert_array_equal(run.matrix, [[2, 2, 1], [0, 2, 1], [2, 0, np.nan], [0, 1, 0]])
    values = np.where(np.isnan(run.matrix), np.nan, run.weights[np.nan_to_num(run.matrix).astype(int)])
    assert np.mean(np.nanmean(values, axis=1)) == pytest.approx(run.reported["model_graded_fact/accuracy"], abs=1e-15)
    with pytest.raises(ValueError, match=r"scorer 'f1' not found; scorers: \['match', 'model_graded_fact'\]"):
        read_inspect(INSPECT_LOG, scorer="f1")


def _eval_zip(path: Path, log: dict, summaries: bool = True, samples: bool = True, header: bool = True) -> Path:
    """An .eval log laid out as inspect's EvalRecorder writes it."""
    head = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("_journal/start.json", json.dumps({"version": log["version"], "eval": log["eval"],
                                                      "plan": log["plan"]}))
        if samples:
            for s in log["samples"]:
                z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        if summaries:
            z.writestr("summaries.json", json.dumps([{k: s[k] for k in ("id", "epoch", "input", "target", "scores")
                                                      if k in s} for s in log["samples"]]))
        if header:
            z.writestr("header.json", json.dumps(head))
    return path


def test_inspect_eval_zip_matches_json(tmp_path):
    log = json.loads(INSPECT_LOG.read_text())
    for kw in ({}, {"summaries": False}):
        path = _eval_zip(tmp_path / "log.eval", log, **kw)
        run = read_inspect(path).run("openai/gpt-4o-mini")
        np.testing.assert_array_equal(run.matrix, INSPECT_MATCH)
        assert run.reported["match/accuracy"] == pytest.approx(11 / 24, abs=1e-15)
        path.unlink()
    path = _eval_zip(tmp_path / "running.eval", log, summaries=False, header=False)
    s = read_inspect(path)
    assert s.warnings and "status 'started'" in s.warnings[0]
    np.testing.assert_array_equal(s.matrix("openai/gpt-4o-mini"), INSPECT_MATCH)


def test_inspect_folder_and_duplicates(tmp_path):
    log = json.loads(INSPECT_LOG.read_text())
    shutil.copy(INSPECT_LOG, tmp_path / INSPECT_LOG.name)
    (tmp_path / "logs.json").write_text(json.dumps({INSPECT_LOG.name: {"status": "success", "eval": log["eval"]}}))
    assert read_inspect(tmp_path).models == ["openai/gpt-4o-mini"]
    _eval_zip(tmp_path / "again.eval", log)
    with pytest.raises(ValueError, match=r"task 'gsm8k', model 'openai/gpt-4o-mini' already read from again.eval"):
        read_inspect(tmp_path)


def test_inspect_malformed(tmp_path):
    log = json.loads(INSPECT_LOG.read_text())
    bad = copy.deepcopy(log)
    bad["samples"][5]["epoch"] = 0
    with pytest.raises(ValueError, match=r"^log.json: samples\[5\]: epoch: expected an integer >= 1, got 0 \(int\)"):
        parse_inspect_log(bad, where="log.json")
    bad = copy.deepcopy(log)
    bad["samples"][0]["scores"]["match"]["value"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"bad.json: samples\[0\]: scores\['match'\].value: expected C/I/P/N"):
        read_inspect(path)
    bad = copy.deepcopy(log)
    for s in bad["samples"]:
        if "scores" in s:
            s["scores"]["match"]["value"] = {"correct": 1, "format": 0}
    with pytest.raises(ValueError, match=r"samples\[0\]: scores\['match'\].value: a dict of values "
                                         r"\['correct', 'format'\]; pass value_key="):
        parse_inspect_log(bad)
    run = parse_inspect_log(bad, value_key="correct").run("openai/gpt-4o-mini")
    assert np.nansum(run.matrix) == 11
    bad = copy.deepcopy(log)
    del bad["samples"]
    with pytest.raises(ValueError, match=r"samples: missing \(was the eval run with --no-log-samples\?\)"):
        parse_inspect_log(bad)
    (tmp_path / "x.eval").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"x.eval: not a readable .eval \(zip\) log"):
        read_inspect(tmp_path / "x.eval")
    original = copy.deepcopy(log)
    parse_inspect_log(log)
    assert log == original                                      # input not modified


# ============================================================================= detect
def test_detect(tmp_path):
    assert detect(work_dir(tmp_path)) == "aisbench"
    assert detect(tmp_path) == "aisbench"                       # a folder of work dirs: the newest decides
    assert detect(AIS_N3) == "aisbench" and detect(AIS_N1) == "aisbench"
    assert detect(OC_RESULTS) == "opencompass"
    oc = tmp_path / "oc"
    (oc / "results" / "m").mkdir(parents=True)
    shutil.copy(OC_RESULTS, oc / "results" / "m" / "demo.json")
    assert detect(oc) == "opencompass"
    assert detect(LM / "basic") == "lm-eval" and detect(LM / "basic" / "EleutherAI__pythia-160m") == "lm-eval"
    assert detect(LM / "basic" / "EleutherAI__pythia-160m" / "results_2024-05-01T10-00-00.123456.json") == "lm-eval"
    assert detect(INSPECT_LOG) == "inspect" and detect(INSPECT_LOG.parent) == "inspect"
    assert detect(_eval_zip(tmp_path / "a.eval", json.loads(INSPECT_LOG.read_text()))) == "inspect"
    assert detect(OC_PREDS) is None and detect(tmp_path / "missing") is None
    assert detect(AIS / "CONSTRUCTED_summary_demo_gsm8k_n3.csv") is None
    outcomes = tmp_path / "outcomes.json"      # a bayeseval outcome file quoting published accuracies
    outcomes.write_text(json.dumps({"format": "bayeseval-outcomes/1", "published": {"m": {"accuracy": 50.0}},
                                    "models": {"m": {"questions": ["q"], "outcomes": ["1"]}}}))
    assert detect(outcomes) is None


# ----------------------------------------------------------------------------- the tool's own numbers, checked
def _mismatches(read, path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = read(str(path))
    return [str(w.message) for w in caught if "per-question details give" in str(w.message)], out


def test_a_reported_number_that_the_details_do_not_give_is_a_warning(tmp_path):
    """Each loader recomputes the tool's headline number from the per-question details it reads; a file whose
    number was edited (or whose details lost a question) loads with a warning that names the file, the metric and
    both values.  The bundled files, unedited, load without one."""
    ais1 = DATA / "aisbench" / "aisbench_SIMULATED_results_demo_gsm8k_n1_dump_eval_details.json"
    oc = DATA / "opencompass" / "opencompass_SIMULATED_results_demo_gsm8k_n3.json"
    insp = next((DATA / "inspect").glob("*.json"))
    cases = []
    d = json.loads(ais1.read_text())
    d["accuracy"] = 99.0
    (tmp_path / "ais.json").write_text(json.dumps(d))
    cases.append((read_aisbench_results, ais1, tmp_path / "ais.json", "accuracy: AISBench reported 99.00 but its "
                   "per-question details give 50.00"))
    d = json.loads(oc.read_text())
    key = next(k for k in d if k.startswith("accuracy"))
    recomputed = d[key]
    d[key] = 5.0
    (tmp_path / "oc.json").write_text(json.dumps(d))
    cases.append((read_opencompass_results, oc, tmp_path / "oc.json",
                  f"{key}: OpenCompass reported 5.00 but its per-question details give {recomputed:.2f}"))
    d = json.loads(insp.read_text())
    d["results"]["scores"][0]["metrics"]["accuracy"]["value"] = 0.99
    (tmp_path / "insp.json").write_text(json.dumps(d))
    cases.append((read_inspect, insp, tmp_path / "insp.json",
                  "match/accuracy: inspect_ai reported 0.9900 but its per-question details give 0.4583"))
    for read, original, edited, message in cases:
        assert _mismatches(read, original)[0] == []
        found, out = _mismatches(read, edited)
        assert len(found) == 1 and message in found[0] and edited.name in found[0]
        assert message in " ".join(out.warnings)
    lm = tmp_path / "lm"
    shutil.copytree(DATA / "lm_eval" / "basic", lm)
    assert _mismatches(read_lm_eval, lm)[0] == []
    samples = next(lm.glob("*/samples_gsm8k_*.jsonl"))
    samples.write_text("\n".join(samples.read_text().splitlines()[1:]) + "\n")
    found, _ = _mismatches(read_lm_eval, lm)
    assert len(found) == 1 and "exact_match,strict-match: lm-eval reported 0.5000 but its per-question details " \
                               "give 0.3333" in found[0]
