"""Findings of a first-time user's review (real data, the command line and the library), each with the case that
showed it."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import bayeseval as be


pytestmark = pytest.mark.filterwarnings("ignore")


def test_an_undecided_rope_verdict_says_why():
    """With rope= the headline read "undecided." with no reason, where the same call without it named a winner."""
    data = be.load("examples/data/tot_game24.json")
    c = be.compare(data["gpt-4 CoT"], data["gpt-4 IO"], metric="pass@1", rope=0.01, seed=1)
    r = c.rope
    assert max(r["below"], r["inside"], r["above"]) < 0.95 and c.decision is None
    assert c.verdict == (f"undecided: no part of the ROPE split holds 95% of the posterior (below -0.01: "
                         f"{r['below']:.3f}, inside: {r['inside']:.3f}, above +0.01: {r['above']:.3f})")
    assert c.summary().startswith(c.verdict + ". pass@1: ")
    # 8 questions won, 2 lost of 60: the posterior puts 0.975 above the ROPE, the sign-flip mid-p is 0.065
    A, B = np.zeros((60, 1), int), np.zeros((60, 1), int)
    A[:8], B[8:10] = 1, 1
    c = be.compare(A, B, rope=0.001)
    assert c.rope["above"] >= 0.95 and c.permutation["mid_p"] == pytest.approx(0.0654296875)
    assert c.verdict.startswith("undecided: the paired sign-flip test does not confirm the side beyond the ROPE "
                                "(below -0.001: ")


def test_every_question_at_the_end_takes_clopper_pearsons_far_end():
    """0 of 100 correct gave [0, 2.3%] in population scope, below Clopper-Pearson's 3.6% (a pool with 2.5% of
    always-solved questions shows none of them in 8% of samples): the far end now comes from Clopper-Pearson's
    bound on the summed scores, as where few questions carry the estimate (the betting bound's 4.04% before)."""
    zero = be.estimate(np.zeros((100, 1), int), "avg", seed=0)
    assert zero.interval == "exact+binomial" and zero.lo == 0.0
    assert zero.hi == pytest.approx(1 - 0.025 ** (1 / 100), rel=1e-12)  # 3.62%: P(every score 0) <= (1 - mean)^M
    assert be.estimate(np.zeros((100, 1), int), "avg", seed=0, interval="exact").hi < 0.025  # the posterior's own
    betting = be.estimate(np.zeros((100, 1), int), "avg", seed=0, interval="exact+betting")
    assert betting.interval == "exact+betting" and 0.04 < betting.hi < 0.045  # about log(40) / (0.9 M)
    full = be.estimate(np.ones((1000, 4), int), "pass^4", seed=0)
    assert full.interval == "exact+binomial" and full.hi == 1.0 and full.lo == pytest.approx(0.025 ** 0.001, rel=1e-12)
    assert be.estimate(np.ones((1000, 4), int), "pass^4", scope="benchmark").interval == "exact"  # population only


def test_one_trial_intervals_cover_near_the_ends_by_enumeration():
    """N = 1, M = 100, every question at p (the bounding case of the benchmark scope): coverage summed over the
    binomial's outcomes, p on a fine grid.  Before, the benchmark interval drew the sampling error at each pbar
    (Wald-like: 82% at p = 0.017) and the population interval's far end at 0 of 100 was 2.3% (90.8% at 0.025);
    Beta(1 + S, 1 + F) for the benchmark truth dipped to 78.9% (p = 0.0024, its lower end at S = 1 above p)."""
    from scipy import stats

    M, xs = 100, np.arange(41)
    ends = {}
    for x in xs:
        R = np.zeros((M, 1), int)
        R[:x] = 1
        ends[x] = [(e.lo, e.hi) for e in (be.estimate(R, "avg", scope=s, seed=0, draws=20_000)
                                          for s in ("benchmark", "population"))]
    ps = np.concatenate([np.linspace(0.0005, 0.05, 100), np.linspace(0.05, 0.2, 31)[1:]])
    pm = stats.binom.pmf(xs[None, :], M, ps[:, None])
    for s, floor in ((0, 0.915), (1, 0.915)):
        inside = np.array([[ends[x][s][0] <= p <= ends[x][s][1] for x in xs] for p in ps])
        cover = (pm * inside).sum(axis=1)
        assert cover.min() >= floor, (s, float(cover.min()), float(ps[cover.argmin()]))
        assert cover.mean() >= 0.95, (s, float(cover.mean()))


def test_a_long_table_of_one_model_is_read_with_model_name(tmp_path, capsys):
    """tau-bench's per-model file has no model column, and the command line had no way to read it: the error named
    --model-col, which needs a column; --model-name names the one model."""
    import json

    from bayeseval.cli import main

    rows = [{"task_id": q, "trial": t, "reward": float((q + t) % 3 != 0)} for q in range(6) for t in range(2)]
    path = tmp_path / "gpt-4o-airline.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    cols = ["--question-col", "task_id", "--score-col", "reward"]
    assert main(["report", str(path), *cols]) == 2
    assert "a table of one model: model=None, CLI --model-name NAME" in capsys.readouterr().err
    assert main(["report", str(path), *cols, "--model-name", "gpt-4o", "--metrics", "avg", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = out[0] if isinstance(out, list) else out["estimates"][0]
    assert row["model"] == "gpt-4o" and row["value"] == pytest.approx(sum(r["reward"] for r in rows) / 12)
    assert main(["report", str(path), *cols, "--model-name", "x", "--model-col", "task_id"]) == 2
    assert "--model-name names the one model of a table without a model column" in capsys.readouterr().err


def test_classify_names_the_option_of_an_empty_label_column(tmp_path, capsys):
    """A judge that left two predictions unlabelled gave "y_pred is missing a label at position 67": the library's
    argument, not the command's option, and no hint."""
    from bayeseval.cli import main

    path = tmp_path / "judged.csv"
    path.write_text("qid,human,gpt4\n1,1,1\n2,0,\n3,1,0\n4,0,0\n")
    assert main(["classify", str(path), "--true", "human", "--pred", "gpt4"]) == 2
    assert ("column 'gpt4' (--pred) is empty in 1 row(s) (data rows 1, from 0); give every row its label, or leave "
            "those rows out") in capsys.readouterr().err


def test_a_designed_subset_gets_advice_beyond_resampling():
    """Ten models on 3,610 questions and one on a 301-question subset: the error told the user to sample the
    missing questions again, as if they had failed."""
    import pandas as pd

    a = pd.DataFrame(np.ones((5, 2), int), index=list("abcde"))
    b = pd.DataFrame(np.ones((3, 2), int), index=list("abc"))
    with pytest.raises(ValueError, match=r"missing in B: d, e; missing in A: none; .* a model run on a subset by "
                                         r"design is compared on that subset only \(keep those questions of the "
                                         r"other\), or left out \(CLI --models\)"):
        be.compare(a, b)


def test_a_plan_names_its_models_and_its_metric(capsys):
    """plan printed "paired difference: ..." with neither the metric (avg) nor which model is subtracted."""
    from bayeseval.cli import main

    assert main(["plan", "examples/data/tot_game24.json", "--delta", "0.03", "--quiet"]) == 0
    first, second = capsys.readouterr().out.splitlines()[:2]
    assert first == "plan for gpt-4 IO - gpt-4 CoT"
    assert second.startswith("Pilot: M = 100 questions, N = 100 trials; paired difference of avg (mean score per "
                             "trial): between-question variance 0.026,")


def test_baseline_says_which_metric_it_compares(capsys):
    """report --metrics avg,pass@100 --baseline showed one Δ column (avg) and said nothing of pass@100."""
    from bayeseval.cli import main

    assert main(["report", "examples/data/tot_game24.json", "--metrics", "avg,pass@100", "--baseline", "gpt-4 IO"]) == 0
    assert ("note: --baseline compares the first of --metrics (avg); put another first to compare it"
            in capsys.readouterr().err)


def test_a_constant_payoff_is_not_at_the_end_of_a_range():
    """A payoff vector [0.5, 0.5] has no range: the at-the-end rule sent it to the betting interval, which refused
    a zero-width range."""
    e = be.estimate(np.zeros((50, 1), int), [0.5, 0.5])
    assert (e.value, e.lo, e.hi, e.interval) == (0.5, 0.5, 0.5, "exact")


def test_a_constant_payoff_is_named_not_reported_silently():
    """All-zero category weights gave avg = 0 with interval [0, 0] and no word: every answer is worth the same."""
    R = np.array([[0, 1, 2], [2, 2, 1], [0, 0, 0]])
    with pytest.warns(be.ModelCheckWarning, match="every outcome is worth 0 under this metric"):
        e = be.estimate(R, "avg", w=[0, 0, 0])
    assert (e.value, e.lo, e.hi) == (0.0, 0.0, 0.0) and "check w=" in e.warnings[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = be.estimate(R, "avg", w=[0, 0.5, 1])
    assert not any("every outcome is worth" in w for w in plain.warnings)


def test_model_name_reads_a_csv_once_and_still_refuses_a_model_column(tmp_path, capsys, monkeypatch):
    """--model-name read a table twice (once to look for a model column); a CSV's header now answers that."""
    from bayeseval import cli

    calls = []
    real = cli.load
    monkeypatch.setattr(cli, "load", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    plain = tmp_path / "one.csv"
    plain.write_text("question,score\n" + "".join(f"q{i},{i % 2}\n" for i in range(6)))
    assert cli.main(["report", str(plain), "--model-name", "m", "--metrics", "avg", "--format", "json"]) == 0
    assert len(calls) == 1 and json.loads(capsys.readouterr().out)
    both = tmp_path / "two.csv"
    both.write_text("Model,question,score\n" + "".join(f"{'ab'[i % 2]},q{i // 2},{i % 3 % 2}\n" for i in range(8)))
    assert cli.main(["report", str(both), "--model-name", "m"]) == 2
    assert "has a model column 'model'" in capsys.readouterr().err


def test_the_lm_eval_repeats_message_names_the_cli_option(capsys):
    """The command line said 'pass single_trial=True', a Python keyword, with no word of --single-trial."""
    from pathlib import Path

    from bayeseval.cli import main

    folder = Path(__file__).parent / "data" / "lm_eval" / "self_consistency"
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "(CLI: --single-trial)" in err and len(err.strip().splitlines()) == 1
    assert main(["report", str(folder), "--single-trial", "--metrics", "avg", "--quiet"]) == 0


@pytest.mark.parametrize("method", ["exact+binomial", "exact+betting"])
def test_a_constant_payoff_asked_for_an_interval_over_questions_keeps_its_point(method):
    """interval='exact+binomial' on a constant payoff failed with 'bounds must be two finite numbers' (an argument
    the user never passed) and stopped a whole evaluate table."""
    R = np.array([[0, 1], [1, 1], [0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = be.estimate(R, [0.5, 0.5, 0.5], interval=method)
        ev = be.evaluate({"a": R}, [[0.5, 0.5, 0.5], "avg"], interval=method)
    assert (e.lo, e.hi, e.interval) == (0.5, 0.5, "exact") and "every outcome is worth 0.5" in e.warnings[0]
    assert len(list(ev)) == 2
