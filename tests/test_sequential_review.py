"""Findings of a review of the sequential tools, `bayeseval run --until` and `plan`, each with a test that fails on the
code before its mend."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("httpx")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bayeseval import cli  # noqa: E402
from bayeseval.runner.engine import drawn_order  # noqa: E402
from openai_testserver import OpenAITestServer, answer_of  # noqa: E402


def _cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def _dataset(path: Path, m: int) -> Path:
    with path.open("w") as fh:
        for i in range(m):
            fh.write(json.dumps({"id": f"q{i}", "prompt": f"Q{i}: what is {i} + 1000?", "answer": str(i + 1000)}) + "\n")
    return path


def test_monitor_takes_a_run_folders_questions_in_the_order_the_run_drew_them(tmp_path):
    """The run folder's work dir lists the questions in the dataset's order; monitor took that order, so a dataset
    sorted with A right on its first half and B on its second (mean difference exactly 0) gave 'A is better' after
    8 questions.  The run's own order is random: outcomes.json lists the questions in it, and a run folder given to
    monitor (or any command) is read from that file."""
    m = 200
    ds = _dataset(tmp_path / "sorted.jsonl", m)
    first = lambda p: int(re.search(r"Q(\d+):", p).group(1)) < m // 2  # noqa: E731
    answers = {"A": lambda p, k: f"#### {answer_of(p) + (0 if first(p) else 1)}",
               "B": lambda p, k: f"#### {answer_of(p) + (1 if first(p) else 0)}"}
    for name, fn in answers.items():
        with OpenAITestServer(model=name, answer_fn=fn) as srv:
            rc, _, _ = _cli(["run", str(ds), "--base-url", srv.base_url, "--out", str(tmp_path / name), "--quiet",
                             "--scorer", "numeric", "--n", "1"])
            assert rc == 0
    order = drawn_order(m, 0)
    doc = json.loads((tmp_path / "A" / "outcomes.json").read_text())
    assert doc["models"]["A"]["questions"] == [f"q{i}" for i in order]  # the run's order, not the dataset's
    data = ["--data", str(tmp_path / "A"), "--data", str(tmp_path / "B"), "A", "B"]  # the run folders through --data
    for argv in ([str(tmp_path / "A"), str(tmp_path / "B")], data,
                 [str(tmp_path / "A" / "outcomes.json"), str(tmp_path / "B" / "outcomes.json")]):
        rc, out, _ = _cli(["monitor", *argv, "--until", "decided"])
        assert rc == 0
        assert "continue: no rule (decided) holds after 200 questions" in out, out
        assert "estimate                    +0.0000" in out
    assert "the random order bayeseval run drew for A" in _cli(["monitor", str(tmp_path / "A"), str(tmp_path / "B")])[1]


def test_run_until_a_budget_stops_near_it_when_an_early_question_is_slow(tmp_path):
    """One early request failing once (retried after a 2 s backoff) let the other workers start question after
    question while the rule waited for it: '--until 20 questions' sampled 279 of 300.  A new question now starts
    at most 2 x concurrency places beyond those the rule has seen."""
    ds = _dataset(tmp_path / "d.jsonl", 300)
    with OpenAITestServer(faults={3: "500"}) as srv:
        rc, _, _ = _cli(["run", str(ds), "--base-url", srv.base_url, "--out", str(tmp_path / "r"), "--quiet",
                         "--scorer", "numeric", "--n", "1", "--until", "20 questions", "--backoff", "2",
                         "--max-backoff", "2", "--concurrency", "8"])
    assert rc == 0
    done = sum(1 for _ in (tmp_path / "r" / "samples.jsonl").open())
    assert 20 <= done <= 20 + 2 * 8 + 8, done  # the window past the rule's questions, plus those in flight


def test_the_stop_hook_gets_one_growing_read_only_matrix():
    """The hook's matrix was restacked from every row at each question (quadratic over a run); it is now a view of
    one buffer grown by doubling, read-only, with the rows in the drawn order."""
    from bayeseval.runner.engine import _Session

    seen = []
    s = _Session(ds=None, order=[2, 0, 1, 3], n=2, scorer=None, store=None,
                 stop=lambda m: (seen.append(m) or False, ""), progress=None)
    for index in (0, 2, 1, 3):
        s.finished(index, np.array([index, index + 0.5]))
    assert [m.shape[0] for m in seen] == [2, 3, 4]  # 0 alone waits for 2, the first in the drawn order
    assert seen[-1].tolist() == [[2, 2.5], [0, 0.5], [1, 1.5], [3, 3.5]]
    assert not seen[-1].flags.writeable
    assert np.shares_memory(seen[1], seen[2])


def test_plan_refuses_a_power_at_or_below_alpha_and_its_summary_shows_the_interval_widths():
    """--power 0.01 printed negative detectable effects (z = z_0.975 + z_0.01 < 0) with exit 0; the summary said
    'interval widths at 95%' but showed none (the text was the same at --level 0.5 and 0.99)."""
    import bayeseval as be

    R = np.random.default_rng(0).integers(0, 2, (40, 4))
    for power in (0.01, 0.05):
        with pytest.raises(ValueError, match=r"power must exceed alpha \(0.05\).*got " + str(power)):
            be.plan(R, power=power)
    p = be.plan(R, level=0.9)
    text = p.summary()
    assert "expected width of the 90% interval (population scope)" in text
    row = next(line for line in text.split("expected width")[1].splitlines() if line.startswith("100 "))
    assert row.split()[1:4] == [f"{p.interval_width(100, n):.4f}" for n in (1, 2, 4)]
    assert be.plan(R, level=0.99).summary() != be.plan(R, level=0.5).summary().replace("50%", "99%")
    rc, out, err = _cli(["plan", "examples/data/tot_game24.json", "--power", "0.01"])
    assert rc == 2 and err.strip().splitlines() == [
        "bayeseval: error: --power must exceed --alpha (0.05): a test at that level already rejects that often when "
        "the models are equal, so a power at or below it plans nothing; got 0.01"]


def test_a_null_that_is_not_a_number_names_the_option(tmp_path):
    from bayeseval.sequential import Sequential

    with pytest.raises(ValueError, match="null must be a finite number, got nan"):
        Sequential(0.0, 1.0, until="decided", null=float("nan"))
    ds = _dataset(tmp_path / "d.jsonl", 2)
    rc, _, err = _cli(["run", str(ds), "--until", "decided", "--null", "nan", "--base-url", "http://127.0.0.1:9/v1",
                       "--out", str(tmp_path / "r")])
    assert rc == 2 and err.strip() == "bayeseval: error: --null must be a finite number, got nan"


def test_a_run_whose_every_sample_failed_exits_1(tmp_path):
    """600 of 600 samples failing (HTTP 400) exited 0 like a finished run; a script could not tell."""
    ds = _dataset(tmp_path / "d.jsonl", 5)
    with OpenAITestServer(faults=lambda number, body: "400") as srv:
        rc, _, err = _cli(["run", str(ds), "--base-url", srv.base_url, "--out", str(tmp_path / "r"), "--quiet",
                           "--scorer", "numeric", "--n", "2", "--retries", "0"])
    assert rc == 1 and "bayeseval: error: every sample failed (10; the errors are in" in err
    with OpenAITestServer(faults={1: "400"}) as srv:  # one request failing: a warning, exit 0
        rc, _, err = _cli(["run", str(ds), "--base-url", srv.base_url, "--out", str(tmp_path / "s"), "--quiet",
                           "--scorer", "numeric", "--n", "2", "--retries", "0"])
    assert rc == 0 and "bayeseval: warning: 2 samples failed" in err


def test_cli_and_library_messages_a_docs_review_found(tmp_path):
    """--rope -0.1 / nan named the library's 'rope'; a column flag on an outcome file was ignored (exit 0);
    plot-coverage -o cov.xyz ended in matplotlib's message; evaluate(metric=) and compare_all(labels=) failed with
    messages about something else."""
    import bayeseval as be

    game = "examples/data/tot_game24.json"
    for rope, said in (("-0.1", "--rope must lie in [0, inf), got -0.1"), ("nan", "--rope must be a finite number")):
        rc, _, err = _cli(["compare", "--data", game, "gpt-4 CoT", "gpt-4 IO", "--rope", rope])
        assert rc == 2 and err.strip().startswith("bayeseval: error: " + said), err
    rc, _, err = _cli(["report", game, "--dataset-col", "bnech"])
    assert rc == 2 and "column names (dataset='bnech') apply to tables" in err and "read as outcomes" in err
    rc, _, err = _cli(["plot-coverage", "benchmarks/results_coverage.md", "-o", str(tmp_path / "cov.xyz")])
    assert rc == 2 and "cov.xyz: unknown image type" in err
    R = np.ones((4, 2), int)
    with pytest.raises(TypeError, match="evaluate takes metrics= .*not metric="):
        be.evaluate({"a": R}, metric="avg")
    with pytest.raises(TypeError, match="compare_all names the models by the keys of models"):
        be.compare_all({"a": R, "b": R}, labels=["a", "b"])
    with pytest.raises(ValueError, match=r"^rope must lie in \[0, inf\), got -0.1$"):
        be.compare(R, R, rope=-0.1)


def test_a_monitor_with_no_questions_has_no_estimate_and_text_is_not_a_score():
    """Sequential().update([]) reported estimate NaN (invalid JSON in to_dict); ['1', '0'] was read as 1.0, 0.0."""
    from bayeseval.sequential import Sequential, SequentialCompare

    st = Sequential().update([])
    assert st.estimate is None and json.loads(json.dumps(st.to_dict()))["estimate"] is None
    assert "estimate                 -" in st.summary()
    for bad in (["1", "0"], np.array(["1", "0"]), [1, "0"]):
        with pytest.raises(TypeError, match="scores must be numbers"):
            Sequential().update(bad)
    assert Sequential().update([True, False]).estimate == 0.5
    with pytest.raises(ValueError, match="names must be two different model names"):
        SequentialCompare(names=("x", "x"))


def test_monitor_reads_01_outcomes_beside_partial_credit_scores(tmp_path):
    """monitor refused a 0/1 run beside a partial-credit run in [0, 1] ('different kinds of outcomes'), which
    compare accepts; 0/1 outcomes are scores in [0, 1]."""
    import pandas as pd

    rng = np.random.default_rng(0)
    for name, draw in (("A", lambda: int(rng.random() < 0.6)), ("P", lambda: float(rng.choice([0, 0.5, 1])))):
        pd.DataFrame([{"model": name, "question": f"q{i}", "trial": j, "score": draw()} for i in range(40)
                      for j in range(2)]).to_csv(tmp_path / f"{name}.csv", index=False)
    rc, out, err = _cli(["monitor", str(tmp_path / "A.csv"), str(tmp_path / "P.csv")])
    assert rc == 0, err
    assert "Sequential difference: A - P" in out and "questions                   40" in out
