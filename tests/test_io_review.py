"""Input reading: what an adversarial review found (session of 2026-11-27), each case as it was reproduced.

1. Columns given for a long table win over the guess of a tool's format (a ``.jsonl`` whose records carry
   ``doc_id`` was read as lm-eval, its model and dataset columns dropped); a JSON list of records is a table.
2. Ids and names with surrounding spaces are one rule on every path (pandas stripped them, DuckDB and Ibis did not).
3. Models-as-columns and wide tables keep ids such as ``NA`` and ``None`` as written; an empty id is an error.
4. ``plan`` pairs files that spell ids as text and as numbers, as ``compare`` does.
5. ``compare_all`` on an OutcomeSet with several datasets: a ValueError naming ``models``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.cli import main


def _write(path, text):
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- 1. columns name a table
def test_jsonl_with_doc_id_and_columns_is_a_long_table(tmp_path):
    rows = [{"model": m, "doc_id": q, "correct": (q + i) % 2, "dataset": "math"}
            for i, m in enumerate(["gpt-4o", "b"]) for q in range(6)]
    f = _write(tmp_path / "gpt_run.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    s = be.load(f, columns={"question": "doc_id", "score": "correct"})
    assert s.models == ["gpt-4o", "b"] and s.datasets == ["math"]
    assert s.counts("gpt-4o").successes("avg").tolist() == [0, 1, 0, 1, 0, 1]
    assert s.counts("b").successes("avg").tolist() == [1, 0, 1, 0, 1, 0]


def test_cli_question_col_on_a_jsonl_with_doc_id(tmp_path, capsys):
    rows = [{"model": m, "doc_id": q, "correct": int(q < 3 + i)} for i, m in enumerate(["a", "b"]) for q in range(8)]
    f = _write(tmp_path / "run.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert main(["report", str(f), "--question-col", "doc_id", "--score-col", "correct", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert '"a"' in text and '"b"' in text


def test_json_list_of_records_with_details_is_a_table_not_aisbench(tmp_path):
    recs = [{"model": "a", "question": q, "score": q % 2, "details": "judge said ok"} for q in range(4)]
    f = _write(tmp_path / "recs.json", json.dumps(recs))
    s = be.load(f)
    assert s.models == ["a"] and s.counts("a").successes("avg").tolist() == [0, 1, 0, 1]


def test_lm_eval_records_still_detected(tmp_path):
    from bayeseval.io.detect import detect

    f = _write(tmp_path / "gsm8k.jsonl", '{"doc_id": 0, "exact_match": 1.0}\n')
    assert detect(f) == "lm-eval"
    g = _write(tmp_path / "table.jsonl", '{"doc_id": 0, "model": "a", "score": 1}\n')
    assert detect(g) is None


# ----------------------------------------------------------------------------- 2. one rule for spaces
def _spaced(tmp_path):
    d = tmp_path / "g"
    d.mkdir()
    _write(d / "p.csv", "model,question,score\na,q1,1\na,q1 ,0\na,q2,1\na , q3,1\n")
    return d


def _summary(s):
    return {m: dict(zip(map(str, s.counts(m).ids), s.counts(m).successes("avg").tolist())) for m in s.models}


def test_spaces_around_ids_read_alike_by_duckdb_and_pandas(tmp_path):
    d = _spaced(tmp_path)
    want = {"a": {"q1": 1, "q2": 1, "q3": 1}}
    pandas_read = be.load(d / "p.csv")
    duck = be.load(str(d / "*.csv"))
    assert _summary(pandas_read) == _summary(duck) == want
    assert pandas_read.counts("a").n.tolist() == [2, 1, 1] and sorted(duck.counts("a").n.tolist()) == [1, 1, 2]
    pd.read_csv(d / "p.csv").to_parquet(tmp_path / "p.parquet")
    assert _summary(be.load(tmp_path / "p.parquet")) == _summary(be.load(tmp_path / "p.parquet", engine="pandas")) \
        == want


def test_blank_id_is_empty_on_the_duckdb_path_with_its_line(tmp_path):
    f = _write(tmp_path / "b.csv", "model,question,score\na,q1,1\na,  ,0\n")
    for engine in ("duckdb", "pandas"):
        with pytest.raises(ValueError, match=r"line 3: column 'question' \(question id\) is empty"):
            be.load(f, engine=engine)


def test_ibis_path_strips_and_refuses_missing_labels():
    ibis = pytest.importorskip("ibis")
    from bayeseval.io.scale import count_table

    s = count_table(ibis.memtable(pd.DataFrame({"model": ["a", "a ", "a"], "question": ["q1", "q1 ", "q2"],
                                                "score": [1, 0, 1]})))
    assert s.models == ["a"] and _summary(s) == {"a": {"q1": 1, "q2": 1}}
    with pytest.raises(ValueError, match=r"column 'question' \(question id\) is empty"):
        count_table(ibis.memtable(pd.DataFrame({"model": ["a", "a"], "question": ["q1", None], "score": [1, 0]})))


def test_wide_table_strips_ids_as_a_long_table_does(tmp_path):
    f = _write(tmp_path / "w.csv", "id,t0,t1\nq1,1,0\nq1 ,0,1\n")
    with pytest.raises(ValueError, match=r"line 3: column 'id': question id 'q1' repeats line 2"):
        be.load(f)
    g = _write(tmp_path / "w3.csv", "id,t0,t1\nq1,1,0\n  ,0,1\n")
    with pytest.raises(ValueError, match=r"line 3: column 'id': question id '' is empty"):
        be.load(g)


# ----------------------------------------------------------------------------- 3. ids as written
def test_model_columns_keep_na_ids_and_refuse_an_empty_one(tmp_path):
    f = _write(tmp_path / "mc3.csv", "question,trial,gpt,claude\nq1,0,1,0\nq1,1,1,1\nN/A,0,0,1\nNA,1,1,1\n")
    with pytest.warns(UserWarning, match="models in columns"):
        s = be.load(f)
    assert list(s.counts("gpt").ids) == ["q1", "N/A", "NA"]
    assert s.counts("claude").successes("avg").tolist() == [1, 1, 1] and s.counts("gpt").n.tolist() == [2, 1, 1]
    g = _write(tmp_path / "mc2.csv", "id,gpt,claude\n1,1,0\n1.1,1,1\n2,0,1\n2.1,1,1\n,1,1\n")
    with pytest.raises(ValueError, match=r"line 6: column 'id': the question id is empty"):
        be.load(g)


def test_wide_table_keeps_none_and_na_ids(tmp_path):
    f = _write(tmp_path / "w.csv", "id,t0,t1\nq1,1,0\nNone,0,1\nNA,,1\n")
    s = be.load(f)
    c = s.counts(s.models[0])
    assert list(c.ids) == ["q1", "None", "NA"] and c.n.tolist() == [2, 2, 1] and c.successes("avg").tolist() == [1, 1, 1]


# ----------------------------------------------------------------------------- 4. plan pairs as compare
def test_plan_pairs_text_and_number_ids_as_compare_does(tmp_path, capsys):
    rng = np.random.default_rng(0)
    a = pd.DataFrame({"model": "a", "question": [str(q) for q in range(40) for _ in range(2)],
                      "score": rng.integers(0, 2, 80)})
    a.to_csv(tmp_path / "a.csv", index=False)
    recs = [{"model": "b", "question": q, "score": int(rng.integers(0, 2))} for q in range(40) for _ in range(2)]
    _write(tmp_path / "b.jsonl", "".join(json.dumps(r) + "\n" for r in recs))
    assert main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.jsonl")]) == 0
    capsys.readouterr()
    assert main(["plan", str(tmp_path / "a.csv"), str(tmp_path / "b.jsonl"), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["paired"] is True and out["M_pilot"] == 40 and out["N_pilot"] == 2


# ----------------------------------------------------------------------------- 5. several datasets
def test_compare_all_on_several_datasets_names_models():
    R = np.random.default_rng(1).integers(0, 2, (10, 3))
    s = be.load(pd.DataFrame({"dataset": ["d1"] * 60 + ["d2"] * 60,
                              "model": (["a"] * 30 + ["b"] * 30) * 2,
                              "question": list(np.repeat(np.arange(10), 3)) * 4,
                              "trial": list(np.tile(np.arange(3), 10)) * 4,
                              "score": np.tile(R.ravel(), 4)}))
    with pytest.raises(ValueError, match=r"models holds several datasets \('d1', 'd2'\).*select\(datasets="):
        be.compare_all(s)
    assert sorted(be.compare_all(s.select(datasets=["d1"])).models) == ["a", "b"]


def test_load_reads_score_range_for_every_input_and_refuses_unknown_keywords():
    """load(..., score_range=) was ignored for inputs that are not tables (an outcome file read as 10 graded
    categories without a word), and a misspelt keyword (score_rnage=) was accepted."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_text.json"
    as_read = be.load(path)
    scored = be.load(path, score_range=(1, 10))
    for run in scored:
        assert run.scale == (1.0, 10.0) and run.weights is None
        assert np.nanmean(run.matrix) == pytest.approx(np.nanmean(as_read.run(run.model).values()))
    with pytest.raises(ValueError, match=r"scores from 1 to 10 are not all in \[0, 5\]; give the range of the scores "
                                         r"with score_range"):
        be.load(path, score_range=(0, 5))
    for bad in ({"score_rnage": (1, 10)}, {"bogus": 1}):
        with pytest.raises(TypeError, match=rf"load\(\) got unknown keyword argument\(s\) \['{next(iter(bad))}'\]; "
                                            r"the readers take \[.*'score_range'"):
            be.load(path, **bad)
