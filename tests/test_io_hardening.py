"""Hardening the loaders: a damaged or ambiguous input file fails with one clear line, never a wrong number.

Audit issue "Hardening", the loader part:

1. a CSV cut inside its last row was read as a missing trial;
2. a score of -1 in a 0/1 column became a category weighted -1 (avg 0.50 -> 0.39);
3. a NUL byte in a model name made a phantom model;
4. an lm-eval samples file without metric fields used an arbitrary numeric field;
5. a JSONL line holding a list, a JSON object where records were expected, a CSV
   without a question column and a results path that is a folder gave raw
   Python / pandas messages (or a silent wide-table reading);
6. a (model, question, trial) written twice is an error naming both rows.

``BAD`` is a table of bad inputs, written to ``tmp_path`` and read with
:func:`bayeseval.io.load`: each must raise the listed exception with a one-line
message naming the file and the record (``line 7``, ``record 3``, ``row 3``,
``details[1]``, ``samples[2]``, ...) and the column or field.  A handful also
go through ``bayeseval report FILE``: exit code 2 and one line on stderr.
The last tests check that valid files still load exactly as before.
"""

from __future__ import annotations

import json
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.cli import main
from bayeseval.io import load, read_long, read_outcomes, read_wide, write_outcomes

DATA = Path(__file__).parent / "data"
INSPECT_LOG = DATA / "inspect" / "2024-09-02T14-03-11+00-00_gsm8k_Fq4gLhQv7iR5cz8d9WYJxM.json"
AIS_N3 = DATA / "aisbench" / "aisbench_SIMULATED_results_demo_gsm8k_n3_dump_eval_details.json"
AIS_PRED = DATA / "aisbench" / "aisbench_SIMULATED_predictions_demo_gsm8k_n3.jsonl"
LM_SAMPLES = DATA / "lm_eval" / "basic" / "EleutherAI__pythia-160m" / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl"
OC_RESULTS = DATA / "opencompass" / "opencompass_SIMULATED_results_demo_gsm8k_n3.json"
OUTCOMES = "bayeseval-outcomes/1"


# ----------------------------------------------------------------------------- builders
def write(tmp: Path, name: str, content: str | bytes) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        with path.open("w", encoding="utf-8", newline="") as fh:  # exactly these bytes: no newline translation
            fh.write(content)
    return path


def jsonl(rows: list) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def parquet(tmp: Path, name: str, frame: pd.DataFrame) -> Path:
    path = tmp / name
    frame.to_parquet(path)
    return path


def outcome_file(tmp: Path, name: str, models: dict, **top) -> Path:
    return write(tmp, name, json.dumps({"format": OUTCOMES, "dataset": "d", **top, "models": models}))


def lm_eval_folder(tmp: Path, records: list, results: dict | None = None, raw: str | None = None) -> Path:
    """``<tmp>/out/<model>/samples_t_<date>.jsonl`` (and ``results_<date>.json``); returns the output folder."""
    date = "2024-06-01T00-00-00.000000"
    model_dir = tmp / "out" / "org__model"
    write(model_dir, f"samples_t_{date}.jsonl", raw if raw is not None else jsonl(records))
    if results is not None:
        write(model_dir, f"results_{date}.json", json.dumps(results))
    return tmp / "out"


def lm_record(doc_id: int, **fields) -> dict:
    return {"doc_id": doc_id, "doc": {"q": f"question {doc_id}"}, "target": "1", "arguments": {}, "resps": [["1"]],
            "filtered_resps": ["1"], **fields}


def inspect_log(tmp: Path, change: Callable[[dict], None]) -> Path:
    log = json.loads(INSPECT_LOG.read_text())
    change(log)
    return write(tmp, "logs/2024-09-02T14-03-11+00-00_gsm8k_x.json", json.dumps(log))


def aisbench_work(tmp: Path, change: Callable[[dict], None] | None = None, predictions: str | None = None) -> Path:
    work = tmp / "20260326_151326"
    doc = json.loads(AIS_N3.read_text())
    if change:
        change(doc)
    write(work / "results" / "m", "demo_gsm8k.json", json.dumps(doc))
    write(work / "predictions" / "m", "demo_gsm8k.jsonl", predictions if predictions is not None
          else AIS_PRED.read_text())
    return work


def folder(tmp: Path, name: str) -> Path:
    path = tmp / name
    path.mkdir(parents=True)
    return path


def set_in(path: list, value) -> Callable[[dict], None]:
    """A change function setting ``doc[path[0]][path[1]]... = value``."""
    def change(doc):
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value
    return change


def aisbench_results_folder(tmp: Path) -> Path:
    """An AISBench work dir whose results/<model>/<dataset>.json is a folder (was IsADirectoryError)."""
    work = tmp / "20260326_151326"
    (work / "results" / "m" / "demo_gsm8k.json").mkdir(parents=True)
    (work / "predictions" / "m").mkdir(parents=True)
    return work


# ----------------------------------------------------------------------------- the table
@dataclass
class Bad:
    id: str
    build: Callable[[Path], Path]
    needles: tuple            # substrings the message must hold besides the file's name
    exc: type = ValueError
    options: dict = field(default_factory=dict)   # keyword arguments of load()
    name: str | None = None   # how the message names the file (default: the path's name)


LONG = "model,question,trial,score\n"

BAD = [
    # --- 1. truncated files
    Bad("csv-truncated-last-row",
        lambda t: write(t, "runs.csv", LONG + "m,q1,0,1\nm,q1,1,0\nm,q2,0,1\nm,q2,1"),
        ("line 5", "it has 3 of the header's 4 cells", "truncated", "allow_truncated=True")),
    Bad("csv-truncated-after-last-comma",
        lambda t: write(t, "runs.csv", LONG + "m,q1,0,1\nm,q1,1,0\nm,q2,0,1\nm,q2,1,"),
        ("line 5", "last cell ('score') is empty", "does not end with a newline", "allow_truncated=True")),
    Bad("csv-truncated-inside-quotes",
        lambda t: write(t, "runs.csv", 'model,question,score\nm,q1,1\nm,q2,"1'),
        ("line 3", "ends inside a quoted cell", "truncated")),
    Bad("tsv-truncated-last-row",
        lambda t: write(t, "runs.tsv", "model\tquestion\tscore\nm\tq1\t1\nm\tq2"),
        ("line 3", "it has 2 of the header's 3 cells", "truncated")),
    Bad("jsonl-truncated-last-line",
        lambda t: write(t, "runs.jsonl", '{"model": "m", "question": "q1", "score": 1}\n{"model": "m", "quest'),
        ("line 2", "not valid JSON", "truncated", "allow_truncated=True")),
    Bad("wide-truncated-last-row",
        lambda t: write(t, "gpt.csv", "id,t0,t1\nx,1,0\ny,1"),
        ("line 3", "truncated")),
    # --- rows of the wrong shape (pandas pads short rows, and takes an extra cell as an index, silently)
    Bad("csv-short-row-inside",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1\nm,q2,1\n"),
        ("line 2", "has 2 cells, the header has 3")),
    Bad("csv-extra-cell",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1,7\nm,q2,1,7\n"),
        ("line 2", "has 4 cells, the header has 3")),
    Bad("csv-header-names-a-column-twice",
        lambda t: write(t, "runs.csv", "model,question,score,score\nm,q1,1,0\n"),
        ("line 1", "column 'score' 2 times")),
    # --- 2. out-of-range scores
    Bad("csv-score-minus-one",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1\nm,q1,0\nm,q2,-1\nm,q2,1\n"),
        ("line 4", "column 'score'", "a score of -1 is below 0", "leave the cell empty")),
    Bad("tsv-negative-partial-credit",
        lambda t: write(t, "runs.tsv", "system\ttask\treward\na\tq1\t0.5\na\tq2\t-0.25\n"),
        ("line 3", "column 'reward'", "below 0"),
        options={"columns": {"model": "system", "question": "task", "score": "reward"}}),
    Bad("json-negative-score",
        lambda t: write(t, "runs.json", json.dumps([{"model": "m", "question": "q1", "score": 1},
                                                    {"model": "m", "question": "q2", "score": -2}])),
        ("record 1", "column 'score'", "below 0")),
    Bad("wide-negative-cell",
        lambda t: write(t, "gpt.csv", "id,t0,t1\nx,-1,0\ny,1,1\n"),
        ("line 2", "column 't0'", "below 0")),
    Bad("outcomes-category-2-without-weights",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": ["a", "b"], "outcomes": ["01", "21"]}}),
        ("models['m'].outcomes[1]", "category 2 is out of range", "without 'weights'")),
    Bad("outcomes-category-above-the-weights",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": ["a"], "outcomes": ["03"], "weights": [0, 0.5, 1]}}),
        ("models['m'].outcomes[0]", "category 3 is out of range", "3 entries")),
    Bad("lm-eval-negative-metric",
        lambda t: lm_eval_folder(t, [lm_record(0, filter="none", metrics=["exact_match"], exact_match=1.0),
                                     lm_record(1, filter="none", metrics=["exact_match"], exact_match=-1.0)]),
        ("line 2", "exact_match", "below 0"), name="samples_t_2024-06-01T00-00-00.000000.jsonl"),
    Bad("inspect-negative-score",
        lambda t: inspect_log(t, set_in(["samples", 0, "scores", "match", "value"], -1)),
        ("samples[0]", "scores['match'].value", "below 0"), name="2024-09-02T14-03-11+00-00_gsm8k_x.json"),
    # --- 3. control characters in labels
    Bad("csv-nul-in-model",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1\nm\x00,q1,0\n"),
        ("line 3", "column 'model'", "control character '\\x00'")),
    Bad("csv-escape-in-dataset",
        lambda t: write(t, "runs.csv", "dataset,model,question,score\nd,m,q1,1\n\x1b[31md,m,q1,0\n"),
        ("line 3", "column 'dataset'", "control character '\\x1b'")),
    Bad("csv-newline-in-question",
        lambda t: write(t, "runs.csv", 'model,question,score\nm,"q\n1",1\nm,q2,0\n'),
        ("line 2", "column 'question'", "control character '\\n'")),
    Bad("jsonl-nul-in-model",
        lambda t: write(t, "runs.jsonl", '{"model": "m\\u0000", "question": "q1", "score": 1}\n'),
        ("line 1", "column 'model'", "control character")),
    Bad("parquet-control-character-in-question",
        lambda t: parquet(t, "runs.parquet", pd.DataFrame({"model": ["m", "m"], "question": ["q1", "q\x072"],
                                                           "score": [1, 0]})),
        ("row 1", "column 'question'", "control character '\\x07'")),
    Bad("wide-control-character-in-id",
        lambda t: write(t, "gpt.csv", "id,t0\nx\x7f,1\ny,0\n"),
        ("line 2", "column 'id'", "control character '\\x7f'"), options={"format": "wide"}),
    Bad("outcomes-control-character-in-question-id",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": ["a", "b\u0000"], "outcomes": ["1", "0"]}}),
        ("models['m'].questions[1]", "control character")),
    Bad("inspect-nul-in-model",
        lambda t: inspect_log(t, set_in(["eval", "model"], "openai/gpt-4o\u0000")),
        ("eval.model", "control character"), name="2024-09-02T14-03-11+00-00_gsm8k_x.json"),
    Bad("inspect-newline-in-sample-id",
        lambda t: inspect_log(t, set_in(["samples", 1, "id"], "2\n")),
        ("samples[1]", "id", "control character '\\n'"), name="2024-09-02T14-03-11+00-00_gsm8k_x.json"),
    Bad("lm-eval-control-character-in-model-name",
        lambda t: lm_eval_folder(t, [lm_record(0, filter="none", metrics=["acc"], acc=1.0)],
                                 results={"results": {"t": {}}, "model_name": "org/model\x1b"}),
        ("model_name", "control character"), name="results_2024-06-01T00-00-00.000000.json"),
    # --- 4. a guessed lm-eval metric
    Bad("lm-eval-guessed-metric",
        lambda t: lm_eval_folder(t, [lm_record(0, length=812, score=1), lm_record(1, length=640, score=0)]),
        ("line 1", "no 'metrics' list", "candidate fields: ['length', 'score']", "metric=", "--lm-eval-metric"),
        name="samples_t_2024-06-01T00-00-00.000000.jsonl"),
    # --- 5. unclear errors
    Bad("jsonl-line-is-a-list",
        lambda t: write(t, "runs.jsonl", '{"model": "m", "question": "q1", "score": 1}\n[1, 2]\n'),
        ("line 2", "expected an object (one record per line", "[1, 2] (list)")),
    Bad("jsonl-invalid-line-inside",
        lambda t: write(t, "runs.jsonl", '{"model": "m", "question": "q1", "score": 1,}\n'
                                         '{"model": "m", "question": "q2", "score": 0}\n'),
        ("line 1", "not valid JSON")),
    Bad("jsonl-record-lacks-the-score",
        lambda t: write(t, "runs.jsonl", jsonl([{"model": "m", "question": "q1", "score": 1},
                                                {"model": "m", "question": "q2"}])),
        ("line 2", "no 'score' field")),
    Bad("jsonl-key-written-twice",
        lambda t: write(t, "runs.jsonl", '{"model": "m", "question": "q1", "score": 1, "score": 0}\n'),
        ("line 1", "key 'score' appears twice")),
    Bad("jsonl-score-is-an-object",
        lambda t: write(t, "runs.jsonl", jsonl([{"model": "m", "question": "q1", "score": {"value": 1}}])),
        ("line 1", "column 'score' must be a number")),
    Bad("jsonl-without-question-column",
        lambda t: write(t, "runs.jsonl", jsonl([{"model": "m", "task_id": "q1", "score": 1}])),
        ("no question column 'question'", "columns are ['model', 'task_id', 'score']", "--question-col")),
    Bad("json-object-instead-of-records",
        lambda t: write(t, "runs.json", json.dumps({"model": "m", "question": "q1", "score": 1})),
        ("expected a JSON list of records", "got an object with keys ['model', 'question', 'score']")),
    Bad("json-outcome-file-without-format",
        lambda t: write(t, "runs.json", json.dumps({"models": {"m": {"questions": ["a"], "outcomes": ["1"]}}})),
        ("expected a JSON list of records", "\"format\": \"bayeseval-outcomes/1\"")),
    Bad("json-record-not-an-object",
        lambda t: write(t, "runs.json", json.dumps([{"model": "m", "question": "q1", "score": 1}, "m,q2,0"])),
        ("record 1", "expected an object", "'m,q2,0' (str)")),
    Bad("json-syntax-error",
        lambda t: write(t, "runs.json", '[{"model": "m", "question": "q1", "score": 1},\n {"model": "m" "q2"}]'),
        ("not valid JSON (line 2",)),
    Bad("csv-without-question-column",
        lambda t: write(t, "runs.csv", "model,task,score\nm,q1,1\nm,q2,0\n"),
        ("looks like a long table", "no question column 'question'", "columns are ['model', 'task', 'score']",
         "--question-col", "format='wide'")),
    Bad("csv-custom-names-without-the-question-flag",
        lambda t: write(t, "runs.csv", "system,task,ok\na,q1,1\na,q2,0\n"),
        ("no question column 'question'", "--question-col"), options={"columns": {"model": "system", "score": "ok"}}),
    Bad("csv-long-table-read-as-wide",
        lambda t: write(t, "runs.csv", "system,task,ok\na,q1,1\na,q2,0\n"),
        ("line 3", "column 'system'", "repeats line 2", "read as a wide table", "--question-col")),
    Bad("csv-path-is-a-folder", lambda t: folder(t, "runs.csv"), ("is a folder",), options={"format": "long"}),
    Bad("outcomes-path-is-a-folder", lambda t: folder(t, "o.json"), ("is a folder",), options={"format": "outcomes"}),
    Bad("aisbench-results-path-is-a-folder", aisbench_results_folder,
        ("results/m/demo_gsm8k.json", "is a folder, expected a JSON file"), name="demo_gsm8k.json"),
    Bad("lm-eval-samples-path-is-a-folder",
        lambda t: (folder(t, "out/org__model/samples_t_2024-06-01T00-00-00.000000.jsonl"), t / "out")[1],
        ("is a folder",), name="samples_t_2024-06-01T00-00-00.000000.jsonl"),
    # --- 6. a trial written twice
    Bad("csv-same-model-question-trial-twice",
        lambda t: write(t, "runs.csv", LONG + "m,q1,0,1\nm,q2,0,1\nm,q1,0,0\n"),
        ("lines 2 and 4", "same question 'q1' and trial")),
    Bad("json-same-model-question-trial-twice",
        lambda t: write(t, "runs.json", json.dumps([{"model": "m", "question": 7, "trial": 0, "score": 1},
                                                    {"model": "n", "question": 7, "trial": 0, "score": 1},
                                                    {"model": "m", "question": 7, "trial": 0, "score": 0}])),
        ("records 0 and 2", "same question 7 and trial", "model 'm'")),
    Bad("wide-question-id-twice",
        lambda t: write(t, "gpt.csv", "id,t0,t1\nx,1,0\nx,1,1\n"),
        ("line 3", "question id 'x' repeats line 2")),
    # --- other broken fields
    Bad("csv-score-not-a-number",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1\nm,q2,yes\n"),
        ("line 3", "column 'score' must be a number or true/false, got 'yes'")),
    Bad("csv-trial-not-an-integer",
        lambda t: write(t, "runs.csv", LONG + "m,q1,1.5,1\n"),
        ("line 2", "column 'trial' must be a non-negative integer")),
    Bad("csv-empty-model-cell",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1\n ,q2,0\n"),
        ("line 3", "column 'model' (model) is empty")),
    Bad("csv-infinite-score",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,inf\n"),
        ("line 2", "column 'score' is infinite")),
    Bad("csv-not-utf8",
        lambda t: write(t, "runs.csv", "model,question,score\nm,q1,1\nm,caf\xe9,0\n".encode("latin-1")),
        ("line 3", "not UTF-8 text")),
    Bad("csv-empty-file", lambda t: write(t, "runs.csv", ""), ("the file is empty",), options={"format": "long"}),
    Bad("csv-missing-file", lambda t: t / "nope.csv", ("no such file",), exc=FileNotFoundError),
    Bad("parquet-score-strings",
        lambda t: parquet(t, "runs.parquet", pd.DataFrame({"model": ["m", "m"], "question": ["q1", "q2"],
                                                           "score": ["1", "pass"]})),
        ("row 1", "column 'score' must be a number", "'pass'")),
    Bad("parquet-not-parquet",
        lambda t: write(t, "runs.parquet", "model,question,score\nm,q1,1\n"),
        ("not a valid parquet table",)),
    Bad("wide-cell-not-a-number",
        lambda t: write(t, "gpt.csv", "id,t0,t1\nx,1,0\ny,1,maybe\n"),
        ("line 3", "column 't1' must be a number or true/false, got 'maybe'")),
    Bad("outcomes-bad-digit",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": ["a", "b"], "outcomes": ["10", "1x"]}}),
        ("models['m'].outcomes[1]", "outcomes must be a string of digits")),
    Bad("outcomes-question-id-not-a-label",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": [{"id": 1}], "outcomes": ["1"]}}),
        ("models['m'].questions[0]", "a question id must be a string or a number")),
    Bad("outcomes-model-field-null",
        lambda t: outcome_file(t, "o.json", {"m": {"model": None, "questions": ["a"], "outcomes": ["1"]}}),
        ("models['m'].model", "must be a non-empty string, got None")),
    Bad("outcomes-model-key-twice",
        lambda t: write(t, "o.json", '{"format": "bayeseval-outcomes/1", "models": {'
                                     '"m": {"questions": ["a"], "outcomes": ["1"]}, '
                                     '"m": {"questions": ["a"], "outcomes": ["0"]}}}'),
        ("key 'm' appears twice",)),
    Bad("outcomes-duplicate-question-id",
        lambda t: outcome_file(t, "o.json", {"m": {"questions": ["a", "b", "a"], "outcomes": ["1", "0", "1"]}}),
        ("models['m'].questions[2]", "repeats questions[0]")),
    Bad("outcomes-not-utf8",
        lambda t: write(t, "o.json", b'{"format": "bayeseval-outcomes/1", "models": {"m\xff": {}}}'),
        ("not UTF-8 text",)),
    Bad("lm-eval-line-is-a-list",
        lambda t: lm_eval_folder(t, [], raw=jsonl([lm_record(0, filter="none", metrics=["acc"], acc=1.0), [1]])),
        ("line 2", "expected an object"), name="samples_t_2024-06-01T00-00-00.000000.jsonl"),
    Bad("inspect-score-value-not-a-score",
        lambda t: inspect_log(t, set_in(["samples", 2, "scores", "match", "value"], "maybe")),
        ("samples[2]", "scores['match'].value", "'maybe'"), name="2024-09-02T14-03-11+00-00_gsm8k_x.json"),
    Bad("aisbench-correct-not-a-boolean",
        lambda t: aisbench_work(t, set_in(["details", 1, "correct"], ["yes", True, True])),
        ("results/m/demo_gsm8k.json", "details[1].correct", "expected a boolean"), name="demo_gsm8k.json"),
    Bad("aisbench-prediction-id-not-an-index",
        lambda t: aisbench_work(t, predictions=AIS_PRED.read_text().replace('"id": 3', '"id": "x3"', 1)),
        ("predictions/m/demo_gsm8k.jsonl", "line 1: id", "'x3'"), name="demo_gsm8k.jsonl"),
    Bad("opencompass-correct-list-with-null",
        lambda t: write(t, "demo.json", json.dumps({**json.loads(OC_RESULTS.read_text()),
                                                    "details": [{"example_abbr": "d_0", "correct": [True, None]}]})),
        ("details[0].correct", "expected a boolean"), options={"format": "opencompass"}),
]


def test_the_table_is_big_and_distinct():
    assert len(BAD) >= 25 and len({b.id for b in BAD}) == len(BAD)


@pytest.mark.parametrize("case", BAD, ids=[b.id for b in BAD])
def test_bad_input_raises_naming_the_file_and_the_record(tmp_path, case):
    path = case.build(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. AISBench's grouping notes: beside the point here
        with pytest.raises(Exception) as info:
            load(path, **case.options)
    exc = info.value
    msg = str(exc)
    assert type(exc) is case.exc or (case.exc is ValueError and type(exc).__name__ == "ValueError"), repr(exc)
    if case.exc is ValueError:
        assert not isinstance(exc, TypeError)
    assert (case.name or path.name) in msg, msg
    for needle in case.needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    assert "\n" not in msg and "\x00" not in msg, "the message must be one printable line"


CLI_CASES = ["csv-truncated-last-row", "csv-score-minus-one", "csv-nul-in-model", "lm-eval-guessed-metric",
             "jsonl-line-is-a-list", "json-object-instead-of-records", "csv-without-question-column",
             "aisbench-results-path-is-a-folder", "csv-same-model-question-trial-twice"]


@pytest.mark.parametrize("case_id", CLI_CASES)
def test_cli_report_exits_2_with_one_line(tmp_path, capsys, case_id):
    case = next(b for b in BAD if b.id == case_id)
    assert not case.options
    path = case.build(tmp_path)
    code = main(["report", str(path), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("bayeseval: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert (case.name or path.name) in err and all(needle in err for needle in case.needles), err


# ----------------------------------------------------------------------------- the defects, one by one
def test_truncated_csv_opt_in_drops_the_row_with_a_warning(tmp_path):
    whole = write(tmp_path, "whole.csv", LONG + "m,q1,0,1\nm,q1,1,0\nm,q2,0,1\n")
    cut = write(tmp_path, "cut.csv", LONG + "m,q1,0,1\nm,q1,1,0\nm,q2,0,1\nm,q2,1")
    with pytest.warns(UserWarning, match=r"cut.csv: line 5: dropped an incomplete last row"):
        s = read_long(cut, allow_truncated=True)
    assert s.warnings and "line 5" in s.warnings[0]
    np.testing.assert_array_equal(s.matrix("m"), load(whole).matrix("m"))
    with pytest.warns(UserWarning, match="dropped an incomplete last row"):
        t = load(cut, allow_truncated=True)
    np.testing.assert_array_equal(t.matrix("m"), [[1, 0], [1, np.nan]])
    jl = write(tmp_path, "cut.jsonl", '{"model": "m", "question": "q1", "score": 1}\n{"model": "m", "qu')
    with pytest.warns(UserWarning, match=r"cut.jsonl: line 2: dropped"):
        assert load(jl, allow_truncated=True).matrix("m").tolist() == [[1.0]]


def test_a_complete_last_row_without_a_final_newline_is_fine(tmp_path):
    s = load(write(tmp_path, "runs.csv", "model,question,score\nm,q1,1\nm,q2,0"))
    assert s.matrix("m").tolist() == [[1.0], [0.0]]
    t = load(write(tmp_path, "gaps.csv", "model,question,score\nm,q1,1\nm,q2,\n"))  # a missing trial, then newline
    np.testing.assert_array_equal(t.matrix("m"), [[1.0], [np.nan]])


def test_minus_one_no_longer_moves_the_average(tmp_path):
    """The audit's example: avg 0.50 read as 0.39 when one 0/1 score was -1; now refused, and the same file
    with the missing trial left empty gives the average of the observed trials."""
    bad = write(tmp_path, "bad.csv", "model,question,score\nm,q1,1\nm,q1,0\nm,q2,-1\nm,q2,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: line 4: column 'score': a score of -1 is below 0"):
        load(bad)
    good = load(write(tmp_path, "good.csv", "model,question,score\nm,q1,1\nm,q1,0\nm,q2,\nm,q2,1\n"))
    assert good.weights("m") is None
    assert be.evaluate(good, ["avg"], scope="benchmark")[0].value == pytest.approx((0.5 + 1.0) / 2)


def test_no_phantom_model_from_a_nul_byte(tmp_path):
    with pytest.raises(ValueError, match=r"line 3: column 'model' \(model\) 'm\\x00'"):
        load(write(tmp_path, "runs.csv", "model,question,score\nm,q1,1\nm\x00,q1,0\n"))


def test_lm_eval_metric_is_named_not_guessed(tmp_path):
    out = lm_eval_folder(tmp_path, [lm_record(0, length=812, score=1), lm_record(1, length=640, score=0)])
    with pytest.raises(ValueError, match=r"candidate fields: \['length', 'score'\]"):
        load(out)
    run = load(out, metric="score").run("org__model")
    assert run.matrix.ravel().tolist() == [1.0, 0.0] and run.meta["metric"] == "score"
    # a usual metric name is not a guess, with or without the 'metrics' list
    old = lm_eval_folder(tmp_path / "old", [lm_record(0, length=3, acc=1.0), lm_record(1, length=5, acc=0.0)])
    assert load(old).run("org__model").meta["metric"] == "acc"
    code = main(["report", str(out), "--lm-eval-metric", "score", "--metrics", "avg", "--format", "json", "--quiet"])
    assert code == 0


def test_duplicate_trials_name_both_lines(tmp_path):
    path = write(tmp_path, "runs.csv", LONG + "m,q1,0,1\nm,q2,0,1\nm,q1,0,0\n")
    with pytest.raises(ValueError, match=r"runs.csv \(dataset 'dataset', model 'm'\): lines 2 and 4 are the same "
                                         r"question 'q1' and trial"):
        load(path)
    # without a trial column repeated rows are the question's trials, in row order (not an error)
    s = load(write(tmp_path, "trials.csv", "model,question,score\nm,q1,1\nm,q1,0\n"))
    assert s.matrix("m").tolist() == [[1.0, 0.0]]


def test_errors_in_data_frames_still_name_0_based_rows():
    with pytest.raises(ValueError, match=r"frame: row 1: column 'score': a score of -1 is below 0"):
        be.io.from_long(pd.DataFrame({"model": "m", "question": ["a", "b"], "score": [1, -1]}), where="frame")
    with pytest.raises(ValueError, match=r"frame: row 0: column 'model' \(model\) 'a\\tb' contains the control"):
        be.io.from_long(pd.DataFrame({"model": ["a\tb"], "question": ["q"], "score": [1]}), where="frame")


# ----------------------------------------------------------------------------- valid files load as before
TRUTH = {"a": [[1, 0, 1], [0, 0, 1]], "b": [[1, 1, 1], [0, 1, 0]]}


def _frame() -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "question": q, "trial": j, "score": v}
                         for m, R in TRUTH.items() for q, row in zip(("q1", "q2"), R) for j, v in enumerate(row)])


def _check(s):
    assert s.models == ["a", "b"]
    for m, R in TRUTH.items():
        assert s.run(m).ids == ("q1", "q2") and s.weights(m) is None
        np.testing.assert_array_equal(s.matrix(m), R)


@pytest.mark.parametrize("kind", ["csv", "csv-crlf-bom-quoted-blank-lines-no-final-newline", "tsv", "jsonl",
                                  "jsonl-blank-lines", "json", "parquet"])
def test_valid_long_tables_load_exactly_as_before(tmp_path, kind):
    df = _frame()
    if kind == "csv":
        path = tmp_path / "runs.csv"
        df.to_csv(path, index=False)
    elif kind.startswith("csv-"):
        lines = ['"model","question","trial","score"'] + [f'"{r.model}",{r.question},{r.trial},{r.score}'
                                                          for r in df.itertuples()]
        lines.insert(3, "")
        path = write(tmp_path, "runs.csv", "\ufeff" + "\r\n".join(lines))
    elif kind == "tsv":
        path = tmp_path / "runs.tsv"
        df.to_csv(path, index=False, sep="\t")
    elif kind == "jsonl":
        path = tmp_path / "runs.jsonl"
        df.to_json(path, orient="records", lines=True)
    elif kind == "jsonl-blank-lines":
        path = write(tmp_path, "runs.jsonl", "\n" + jsonl(df.to_dict("records")).replace("}\n", "}\n\n", 3))
    elif kind == "json":
        path = tmp_path / "runs.json"
        df.to_json(path, orient="records")
    else:
        path = tmp_path / "runs.parquet"
        df.to_parquet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _check(load(path, engine="pandas") if kind == "parquet" else load(path))
        _check(read_long(path))
        if kind == "parquet":  # the default counts Parquet in DuckDB: the same per-question counts
            counted, rows = load(path), read_long(path)
            for m in rows.models:
                a, b = counted.counts(m), rows.counts(m)
                pos = pd.Index([str(i) for i in a.ids]).get_indexer([str(i) for i in b.ids])
                np.testing.assert_array_equal(a.table[pos], b.table)


def test_valid_special_cells_load_as_before(tmp_path):
    text = ("model,question,score,note\n"
            "\"gpt, large\",007,true,\"a, b\"\n"
            "\"gpt, large\",007,FALSE,\n"
            "\"gpt, large\",1e3,NA,x\n"
            "NA,007,1,\n")
    s = load(write(tmp_path, "runs.csv", text))
    assert s.models == ["gpt, large", "NA"]
    assert s.run("gpt, large").ids == ("007", "1e3")
    np.testing.assert_array_equal(s.matrix("gpt, large"), [[1, 0], [np.nan, np.nan]])
    graded = load(write(tmp_path, "graded.csv", "model,question,score\nm,q1,3\nm,q1,10\nm,q2,0\n"))
    np.testing.assert_array_equal(graded.weights("m"), np.arange(11))
    partial = load(write(tmp_path, "partial.jsonl", jsonl([{"model": "m", "question": 1, "score": 0.25},
                                                          {"model": "m", "question": 2, "score": 1.0}])))
    np.testing.assert_array_equal(partial.weights("m"), [0.25, 1.0])


def test_valid_wide_and_outcome_files_load_as_before(tmp_path):
    wide = write(tmp_path, "gpt.csv", "id,t0,t1,t2\nx,1,0,\ny,1,1,1\nz,false,true,true")
    s = load(wide)
    assert s.models == ["gpt"] and s.run("gpt").ids == ("x", "y", "z")
    np.testing.assert_array_equal(s.matrix("gpt"), [[1, 0, np.nan], [1, 1, 1], [0, 1, 1]])
    np.testing.assert_array_equal(read_wide(wide).matrix("gpt"), s.matrix("gpt"))
    one = load(write(tmp_path, "one.csv", "id,score\nx,1\ny,0\n"))   # a one-trial wide table, as before
    assert one.matrix("one").tolist() == [[1.0], [0.0]]
    graded = be.io.OutcomeSet([be.io.Run("d", "m", ["a", 2.5], [[3, np.nan], [0, 1]], weights=[0, 1, 2, 3])])
    path = tmp_path / "o.json"
    write_outcomes(path, graded)
    back = read_outcomes(path)
    np.testing.assert_array_equal(back.matrix("m"), graded.matrix("m"))
    assert back.run("m").ids == ("a", 2.5)


def test_valid_tool_outputs_load_as_before(tmp_path):
    lm = load(LM_SAMPLES).run("EleutherAI/pythia-160m")
    assert lm.matrix.ravel().tolist() == [1, 0, 0, 1] and lm.meta["metric"] == "exact_match"
    ins = load(INSPECT_LOG).run("openai/gpt-4o-mini")
    np.testing.assert_array_equal(ins.matrix, [[1, 1, 1], [0, 1, 0], [1, 0, np.nan], [0, 0, 0]])
    work = aisbench_work(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ais = load(work).run("m")
    assert ais.matrix.tolist() == [[1, 1, 0], [0, 1, 1], [0, 1, 1], [1, 1, 1]]
    shutil.rmtree(work)
