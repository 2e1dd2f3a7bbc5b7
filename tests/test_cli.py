"""The ``bayeseval`` command: subcommands, formats, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.sequential import SequentialCompare
from bayeseval.cli import main
from bayeseval.io import read_outcomes

ROOT = Path(__file__).resolve().parent.parent
GAME24 = str(ROOT / "examples" / "data" / "tot_game24.json")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def long_csv(tmp_path):
    """Two models on 60 shared questions, B clearly better; a long CSV with custom column names."""
    rng = np.random.default_rng(5)
    p = rng.beta(2, 2, 60)
    rows = []
    for name, shift in (("base", 0.0), ("new", 0.25)):
        R = rng.random((60, 4)) < np.clip(p + shift, 0, 1)[:, None]
        rows += [{"system": name, "task": f"t{i}", "trial": j, "ok": int(R[i, j])} for i in range(60) for j in range(4)]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


COLS = ("--model-col", "system", "--question-col", "task", "--score-col", "ok")


def test_report_json_equals_the_library(capsys):
    code, out, _ = run(capsys, "report", GAME24, "--metrics", "avg,pass@10", "--format", "json", "--quiet")
    assert code == 0
    records = json.loads(out)
    ev = be.evaluate(read_outcomes(GAME24), ["avg", "pass@10"])
    got = {(r["model"], r["metric"]): (r["value"], r["lo"], r["hi"]) for r in records}
    for e in ev:
        assert got[(e.model, e.metric)] == pytest.approx((e.value, e.lo, e.hi), abs=1e-12)


@pytest.mark.parametrize("fmt, needle", [("terminal", "gpt-4 IO"), ("markdown", "| gpt-4 IO"),
                                          ("latex", "\\toprule"), ("csv", "gpt-4 CoT"), ("aisbench", "gpt-4 IO")])
def test_report_formats_write_files(capsys, tmp_path, fmt, needle):
    out_file = tmp_path / f"table.{fmt}"
    code, out, err = run(capsys, "report", GAME24, "--metrics", "avg,pass@100", "--format", fmt, "-o", str(out_file),
                         "--quiet")
    assert code == 0 and out == "" and f"wrote {out_file}" in err
    text = out_file.read_text()
    assert needle in text and ("7.3" in text if fmt != "csv" else "0.0734" in text)  # IO's pass@1 = 7.34 %


def test_report_long_table_with_plots(capsys, tmp_path, long_csv):
    forest, curve = tmp_path / "forest.png", tmp_path / "passk.png"
    code, out, _ = run(capsys, "report", long_csv, *COLS, "--metrics", "avg,pass@2", "--plot", str(forest),
                       "--plot-pass-k", str(curve), "--quiet")
    assert code == 0 and "new" in out and "base" in out
    assert forest.stat().st_size > 1000 and curve.stat().st_size > 1000


def test_report_interval_bootstrap_t_equals_the_library_and_says_what_it_is(capsys, tmp_path, long_csv):
    """``report --interval bootstrap-t``: the table's intervals are the library's studentized bootstrap, the note
    calls them confidence intervals; the pass@k plot refuses it (exit 2), the HTML page's curves say they are the
    posterior's; benchmark scope is one line and exit 2."""
    code, out, _ = run(capsys, "report", long_csv, *COLS, "--metrics", "avg,pass@2", "--interval", "bootstrap-t",
                       "--format", "json", "--quiet")
    assert code == 0
    got = {(r["model"], r["metric"]): (r["lo"], r["hi"], r["interval"]) for r in json.loads(out)}
    table = pd.read_csv(long_csv)
    for name in ("base", "new"):
        R = table[table.system == name].pivot(index="task", columns="trial", values="ok").to_numpy()
        for metric in ("avg", "pass@2"):
            e = be.estimate(R, metric, interval="bootstrap-t")
            assert got[(name, metric)] == (pytest.approx(e.lo, abs=1e-12), pytest.approx(e.hi, abs=1e-12), "bootstrap-t")
    code, out, _ = run(capsys, "report", long_csv, *COLS, "--interval", "bootstrap-t", "--format", "markdown", "--quiet")
    assert code == 0 and "95% studentized-bootstrap confidence interval" in out
    code, out, err = run(capsys, "report", long_csv, *COLS, "--metrics", "avg,pass@8", "--interval", "bootstrap-t",
                         "--format", "markdown")  # 4 trials: pass@8 keeps the posterior interval, row by row
    assert code == 0 and "Equal-tailed posterior interval where bootstrap-t does not apply: base pass@8, new pass@8." in out
    assert "base: pass@8: the bootstrap-t interval does not apply here" in err
    code, _, err = run(capsys, "report", long_csv, *COLS, "--interval", "bootstrap-t", "--plot-pass-k",
                       str(tmp_path / "c.png"), "--quiet")
    assert code == 2 and "--plot-pass-k draws posterior intervals" in err and err.count("\n") == 1
    code, _, err = run(capsys, "report", long_csv, *COLS, "--interval", "bootstrap-t", "--scope", "benchmark", "--quiet")
    assert code == 2 and "answers --scope population" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "report", long_csv, *COLS, "--interval", "exact+bootstrap-t", "--format", "json", "--quiet")
    R = table[table.system == "new"].pivot(index="task", columns="trial", values="ok").to_numpy()
    e = be.estimate(R, "avg", interval="exact+bootstrap-t")
    row = next(r for r in json.loads(out) if r["model"] == "new")
    assert code == 0 and (row["lo"], row["hi"]) == (pytest.approx(e.lo, abs=1e-12), pytest.approx(e.hi, abs=1e-12))
    page = tmp_path / "r.html"
    code, _, _ = run(capsys, "report", long_csv, *COLS, "--interval", "bootstrap-t", "--html", str(page), "--quiet")
    text = page.read_text()
    assert code == 0 and "the pass@k curves: equal-tailed posterior intervals" in text
    assert "the ranking: equal-tailed posterior intervals" in text


def test_compare_exit_codes_follow_the_verdict(capsys, long_csv):
    code, out, err = run(capsys, "compare", "--data", long_csv, "base", "new", *COLS, "--fail-if-worse", "--quiet")
    assert code == 1 and "new is better" in out and "base is credibly worse than new" in err
    code, out, _ = run(capsys, "compare", "--data", long_csv, "new", "base", *COLS, "--fail-if-worse", "--quiet")
    assert code == 0 and "new is better" in out
    code, out, _ = run(capsys, "compare", "--data", long_csv, "base", "new", *COLS, "--quiet")
    assert code == 0  # without --fail-if-worse a finding is not a failure


def test_compare_json_equals_the_library(capsys):
    code, out, _ = run(capsys, "compare", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--metric", "pass@10",
                       "--format", "json", "--quiet")
    assert code == 0
    got = json.loads(out)[0]
    data = read_outcomes(GAME24)
    ref = be.compare(data.counts("gpt-4 CoT"), data.counts("gpt-4 IO"), metric="pass@10", names=("gpt-4 CoT", "gpt-4 IO"))
    assert got["delta"]["mean"] == pytest.approx(ref.delta.mean, abs=1e-12)
    assert got["p_a_better"] == pytest.approx(ref.p_a_better, abs=1e-12)


def test_compare_two_files_with_path_model_syntax(capsys, tmp_path):
    data = read_outcomes(GAME24)
    for m, fname in (("gpt-4 IO", "io.csv"), ("gpt-4 CoT", "cot.csv")):
        pd.DataFrame(data.matrix(m).astype(int), index=data.run(m).ids).to_csv(tmp_path / fname, index_label="task")
    code, out, _ = run(capsys, "compare", str(tmp_path / "io.csv"), str(tmp_path / "cot.csv"), "--quiet")
    assert code == 0 and "io is better" in out
    code, _, err = run(capsys, "compare", GAME24, str(tmp_path / "cot.csv"), "--quiet")
    assert code == 2 and "pick one with" in err
    code, out, _ = run(capsys, "compare", f"{GAME24}::gpt-4 IO", str(tmp_path / "cot.csv"), "--quiet")
    assert code == 0 and "gpt-4 IO is better" in out


def test_rank_and_plan(capsys):
    code, out, _ = run(capsys, "rank", GAME24, "--format", "json", "--quiet")
    assert code == 0 and [m["model"] for m in json.loads(out)["models"]] == ["gpt-4 IO", "gpt-4 CoT"]
    code, out, _ = run(capsys, "plan", GAME24, "--delta", "0.03", "--format", "json", "--quiet")
    ref = be.plan(read_outcomes(GAME24).counts("gpt-4 IO"), read_outcomes(GAME24).counts("gpt-4 CoT"), delta=0.03)
    assert code == 0 and json.loads(out) == json.loads(json.dumps(ref.to_dict()))


@pytest.mark.parametrize("argv, message", [
    (["report", "missing.csv"], "missing.csv: no such file or folder"),
    (["report", GAME24, "--metrics", "pass@0"], "k must be an integer >= 1, got 0"),
    (["report", GAME24, "--metrics", "accuracy@5"], "unknown metric 'accuracy@5'"),
    (["compare", "--data", GAME24, "gpt-4 IO", "gpt-5"], "B: no model 'gpt-5'"),
    (["rank", GAME24, "--models", "gpt-4 IO"], "ranking needs at least two models"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv, "--quiet")
    assert code == 2 and out == ""
    assert err.startswith("bayeseval: error: ") and message in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_debug_shows_the_traceback():
    with pytest.raises(FileNotFoundError):
        main(["report", "missing.csv", "--debug"])


def test_argument_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", GAME24, "--level", "1.5"])
    assert exc.value.code == 2 and "expected a number in (0, 1)" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["report", "compare", "rank", "plan", "demo"])
def test_help_shows_examples(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0 and "examples:" in capsys.readouterr().out


@pytest.mark.slow
def test_installed_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "bayeseval.cli", "report", GAME24, "--metrics", "pass@100",
                           "--format", "csv"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "pass@100" in proc.stdout


def test_report_on_an_aisbench_folder_corrects_the_grouping_bug(capsys, tmp_path):
    src = ROOT / "tests" / "data" / "aisbench"
    (tmp_path / "results" / "vllm-api-general-chat").mkdir(parents=True)
    (tmp_path / "predictions" / "vllm-api-general-chat").mkdir(parents=True)
    (tmp_path / "results" / "vllm-api-general-chat" / "demo_gsm8k.json").write_bytes(
        (src / "aisbench_SIMULATED_results_demo_gsm8k_n3_dump_eval_details.json").read_bytes())
    (tmp_path / "predictions" / "vllm-api-general-chat" / "demo_gsm8k.jsonl").write_bytes(
        (src / "aisbench_SIMULATED_predictions_demo_gsm8k_n3.jsonl").read_bytes())
    code, out, err = run(capsys, "report", str(tmp_path), "--metrics", "avg@3,pass@3,cons@3", "--format", "json",
                         "--quiet")
    assert code == 0
    assert "cons@3: AISBench reported 75.00, corrected 100.00" in err
    values = {r["metric"]: r["value"] for r in json.loads(out)}
    assert values == {"avg@n": 0.75, "pass@3": 1.0, "cons@3": 1.0}


def test_plot_coverage_writes_a_png(capsys, tmp_path):
    png = tmp_path / "coverage.png"
    code, _, err = run(capsys, "plot-coverage", str(ROOT / "benchmarks" / "results_coverage.md"), "-o", str(png),
                       "--metric", "pass@k")
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "plot-coverage", "-o", str(png), "--scope", "galaxy")
    assert code == 2 and "--scope: 'galaxy' is not in" in err


def test_aisbench_summary_shows_the_tools_own_numbers_beside_ours(capsys):
    path = ROOT / "tests" / "data" / "opencompass" / "opencompass_SIMULATED_results_demo_gsm8k_n3.json"
    code, out, _ = run(capsys, "report", str(path), "--metrics", "avg,g-pass@3,mg-pass@3", "--tau", "0.75",
                       "--format", "aisbench-csv", "--quiet")
    assert code == 0
    rows = {r["metric"]: r for r in pd.read_csv(__import__("io").StringIO(out)).to_dict("records")}
    # OpenCompass printed accuracy 75, G-Pass@3_0.75 = 25 and mG-Pass@3 = 16.67; our finite-sample values agree
    assert rows["avg"]["model"] == rows["avg"]["model reported"] == 75.0
    assert rows["g-pass@3 (tau=0.75)"]["model"] == rows["g-pass@3 (tau=0.75)"]["model reported"] == 25.0
    assert rows["mg-pass@3"]["model reported"] == pytest.approx(16.67) == rows["mg-pass@3"]["model"]


def test_tau_without_a_g_pass_metric_is_refused(capsys):
    code, _, err = run(capsys, "report", GAME24, "--metrics", "avg,pass@3", "--tau", "0.5")
    assert code == 2 and err.count("\n") == 1
    assert "--tau is the threshold of g-pass@k metrics" in err and "(avg,pass@3)" in err
    code, _, err = run(capsys, "compare", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--tau", "0.5")
    assert code == 2 and "the metric given (avg) has none" in err
    code, out, _ = run(capsys, "report", GAME24, "--metrics", "avg,g-pass@3", "--tau", "0.5", "--format", "csv",
                       "--quiet")
    assert code == 0 and "g-pass@3 (tau=0.5)" in out


def test_unexpected_exceptions_are_still_one_line_and_exit_2(capsys, monkeypatch):
    import bayeseval.cli as cli

    def boom(*a, **k):
        raise RuntimeError("solver exploded")

    monkeypatch.setattr(cli, "load", boom)
    code, out, err = run(capsys, "report", GAME24, "--quiet")
    assert code == 2 and err == "bayeseval: error: RuntimeError: solver exploded (run with --debug for the traceback)\n"


@pytest.mark.parametrize("argv, message", [
    (["compare", "--data", GAME24, "gpt-4 IO", "gpt-4 CoT", "--rope", "abc"], "expected a half-width r or lo,hi"),
])
def test_option_types_are_checked_by_the_parser(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_empty_lists_and_unwritable_outputs_fail_before_any_work(capsys, tmp_path):
    code, _, err = run(capsys, "report", GAME24, "--metrics", ",", "--quiet")
    assert code == 2 and "--metrics: give at least one comma-separated name" in err
    code, out, err = run(capsys, "report", GAME24, "--plot", str(tmp_path / "nope" / "f.png"), "--quiet")
    assert code == 2 and out == "" and "does not exist" in err
    code, out, err = run(capsys, "report", GAME24, "--plot", str(tmp_path / "f.xyz"), "--quiet")
    assert code == 2 and out == "" and "unknown image type" in err


def test_baseline_column_adjusts_over_the_comparisons_with_the_baseline(capsys, long_csv):
    code, out, _ = run(capsys, "report", long_csv, *COLS, "--baseline", "base", "--format", "json", "--quiet")
    assert code == 0
    rec = {r["model"]: r for r in json.loads(out)}
    data = be.io.load(long_csv, columns={"model": "system", "question": "task", "score": "ok"})
    ref = be.compare(data["new"], data["base"], names=("new", "base"))
    assert rec["new"]["delta"] == pytest.approx(ref.delta.mean, abs=1e-12)
    assert rec["new"]["p_adjusted"] == pytest.approx(ref.permutation["p_value"], abs=1e-12)  # one comparison


def test_rank_pairs_int_and_string_ids_across_files(capsys, tmp_path):
    data = read_outcomes(GAME24)
    pd.DataFrame(data.matrix("gpt-4 IO").astype(int), index=data.run("gpt-4 IO").ids).to_csv(
        tmp_path / "io.csv", index_label="task")
    code, out, _ = run(capsys, "rank", str(tmp_path / "io.csv"), f"{GAME24}", "--models", "io,gpt-4 CoT",
                       "--format", "json", "--quiet")
    assert code == 0 and [m["model"] for m in json.loads(out)["models"]] == ["io", "gpt-4 CoT"]


def test_tool_warnings_reach_stderr_not_stdout(capsys, tmp_path):
    src = ROOT / "tests" / "data" / "aisbench" / "aisbench_SIMULATED_results_demo_gsm8k_n3_dump_eval_details.json"
    doc = json.loads(src.read_text())
    for g in doc["details"]:
        g["answer"] = ["5"] * len(g["answer"])  # identical references: the grouping cannot be checked
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "report", str(path), "--input-format", "aisbench", "--format", "json", "--quiet")
    assert code == 0 and json.loads(out) and "replica grouping not checked" in err and err.count("not checked") == 1


def test_serve_is_a_subcommand_with_loopback_defaults():
    from bayeseval.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8321) and args.port != 8000


def test_compare_one_model_across_two_datasets_of_one_file(capsys):
    """CRUXEval input vs output prediction on the same 800 problems (ids shared), as examples/cruxeval.py does."""
    path = str(ROOT / "examples" / "data" / "cruxeval.json")
    code, out, err = run(capsys, "compare", "--data", path, "CRUXEval-I/codellama-7b", "CRUXEval-O/codellama-7b",
                         "--metric", "pass@5", "--format", "json", "--quiet")
    assert code == 0 and "pairing A's dataset 'CRUXEval-I' with B's 'CRUXEval-O'" in err
    res = json.loads(out)[0]
    assert res["M"] == 800 and res["models"] == ["CRUXEval-I/codellama-7b", "CRUXEval-O/codellama-7b"]
    assert res["delta"]["mean"] == pytest.approx(0.047, abs=0.002)  # 44.99 - 40.29 points, shrunk slightly


# --------------------------------------------------------------------------- review: flags that were ignored or destructive
def test_an_output_file_that_is_an_input_a_folder_or_another_output_is_refused(capsys, tmp_path):
    data = tmp_path / "g.json"
    data.write_bytes(Path(GAME24).read_bytes())
    before = data.read_bytes()
    cases = [(("compare", "--data", str(data), "gpt-4 CoT", "gpt-4 IO", "-o", str(data)),
              f"--output {data} is also an input: writing it would replace the data"),
             (("report", str(data), "--html", str(tmp_path / "." / "g.json")), "--html"),
             (("report", str(data), "-o", str(tmp_path)), f"--output {tmp_path}: is a folder; name a file to write"),
             (("report", str(data), "-o", str(tmp_path / "t.txt"), "--html", str(tmp_path / "t.txt")),
              "--html and --output name the same file")]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert data.read_bytes() == before and not (tmp_path / "t.txt").exists()
    other = tmp_path / "g2.json"
    other.write_bytes(before)
    for cmd in (("compare",), ("monitor", "--until", "50 questions")):  # A and B given as FILE::MODEL
        code, _, err = run(capsys, cmd[0], f"{data}::gpt-4 IO", f"{other}::gpt-4 CoT", *cmd[1:], "-o", str(other))
        assert code == 2 and f"--output {other} is also an input" in err
    assert data.read_bytes() == before == other.read_bytes()


def test_a_misspelt_dataset_or_trial_column_is_an_error_not_a_pooled_table(capsys, tmp_path):
    path = tmp_path / "bench.csv"
    path.write_text("bench,model,question,trial,score\neasy,m,q1,0,1\neasy,m,q2,0,0\nhard,m,q1,0,1\nhard,m,q2,0,1\n")
    code, out, _ = run(capsys, "report", str(path), "--dataset-col", "bench", "--format", "json", "--quiet")
    assert code == 0 and sorted({r["dataset"] for r in json.loads(out)}) == ["easy", "hard"]
    for flag, name in (("--dataset-col", "bnech"), ("--trial-col", "tiral")):
        code, _, err = run(capsys, "report", str(path), "--dataset-col", "bench", flag, name)
        role = flag[2:-4]
        assert code == 2 and f"no {role} column {name!r}; columns are ['bench', 'model', 'question', 'trial', " \
                              f"'score'] (pass {role}=None to read without one; CLI: leave out {flag})" in err
    with pytest.raises(ValueError, match="no dataset column 'bnech'"):
        be.load(str(path), columns={"dataset": "bnech"})
    # the default names stay optional: a table without a dataset column reads as one dataset
    assert be.load(str(path), columns={"dataset": "bench"}).datasets == ["easy", "hard"]


def test_load_reads_a_pandas_dataframe_as_a_long_table():
    df = pd.DataFrame({"sys": ["a", "a", "b", "b"], "question": ["q1", "q2", "q1", "q2"], "score": [1, 0, 1, 1]})
    copy = df.copy()
    s = be.load(df, columns={"model": "sys"})
    assert s.models == ["a", "b"] and s.run("a").matrix.ravel().tolist() == [1.0, 0.0]
    assert be.estimate(s.run("b").counts()).value == 1.0
    pd.testing.assert_frame_equal(df, copy)
    with pytest.raises(ValueError, match="a pandas DataFrame is read as a long table"):
        be.load(df, format="wide")
    with pytest.raises(ValueError, match="columns: unknown key 'qustion'"):
        be.load(df, columns={"qustion": "id"})


def test_a_payoff_vector_metric_on_the_command_line(capsys):
    path = str(ROOT / "examples" / "data" / "tau_bench_airline.json")
    code, out, _ = run(capsys, "report", path, "--metrics", "avg,[0,0,1],pass^2", "--format", "json", "--quiet")
    assert code == 0
    rows = {r["metric"]: r for r in json.loads(out)}
    assert rows["custom[0, 0, 1]"]["value"] == pytest.approx(rows["pass^2"]["value"], abs=1e-12)
    assert rows["custom[0, 0, 1]"]["lo"] == pytest.approx(rows["pass^2"]["lo"], abs=1e-12)
    code, _, err = run(capsys, "report", path, "--metrics", "[0,x,1]")
    assert code == 2 and "a payoff vector is numbers in brackets, e.g. '[0,0,1]'" in err


def test_monitor_refuses_two_different_equivalence_regions(capsys):
    base = ("monitor", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--until", "equivalent within 0.02")
    code, _, err = run(capsys, *base, "--rope", "0.05")
    assert code == 2 and "--rope (-0.05, 0.05) and --until's equivalence region (-0.02, 0.02) differ" in err
    assert "(--rope, or 'equivalent within' in --until)" in err
    with pytest.raises(ValueError, match=r"^rope \(-0.05, 0.05\) and until's .* \(rope, or 'equivalent within' in "
                                         r"until\)$"):  # the library names its arguments
        SequentialCompare(until="equivalent within 0.02", rope=0.05)
    code, out, _ = run(capsys, *base, "--rope", "0.02")
    assert code == 0 and "equivalent within 0.02" in out


def test_report_baseline_needs_another_model(capsys):
    path = str(ROOT / "examples" / "data" / "tau_bench_airline.json")
    code, _, err = run(capsys, "report", path, "--baseline", "gpt-4o")
    assert code == 2 and "--baseline compares every other model with 'gpt-4o', but the inputs hold no other model" in err


def test_pairwise_judges_refuses_the_long_log_flags_and_a_repeated_judge(capsys):
    path = str(ROOT / "examples" / "data" / "pandalm_testset_labels.csv")
    base = ("pairwise", path, "--item", "idx", "--model-a", "model_1", "--model-b", "model_2")
    code, _, err = run(capsys, *base, "--judges", "annotator1", "--order", "nope")
    assert code == 2 and "so --order (for a long battle log, one row per label) does not apply" in err
    code, _, err = run(capsys, *base, "--judges", "annotator1,annotator1")
    assert code == 2 and "--judges: a column is named twice in 'annotator1,annotator1'" in err


def test_report_resamples_without_baseline_or_html_is_refused(capsys):
    code, _, err = run(capsys, "report", GAME24, "--resamples", "500")
    assert code == 2 and "--resamples sets the resamples of --baseline's comparisons and --html's ranking" in err
    with pytest.raises(SystemExit) as exc:  # argparse refuses it, naming the option
        main(["report", GAME24, "--baseline", "gpt-4 IO", "--resamples", "-5"])
    assert exc.value.code == 2
    assert "argument --resamples: expected an integer >= 100, got '-5'" in capsys.readouterr().err
