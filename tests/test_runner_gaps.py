"""Two gaps of the runner and the readers the command line shares with it.

* A JSON document nested too deeply for Python's decoder (``[[[...]]]`` or ``{"a": {"a": ...}}`` 100,000
  deep) ended in a RecursionError that named no file; every reader of a user's JSON now says which file (and
  line or member) and what it should hold: a ValueError from the library, one line and exit code 2 from the
  command line and ``python -m bayeseval.runner``.
* ``--limit N`` read and checked the whole JSON-lines dataset; reading now stops after the N-th question.
  The dataset's sha256 is still that of the whole file, so a run resumes with another ``--limit``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path

import pytest

from bayeseval.cli import main as cli_main
from bayeseval.io import (detect, load, read_aisbench, read_inspect, read_lm_eval, read_long, read_opencompass,
                          read_outcomes)
from bayeseval.runner import dataset as dataset_module
from bayeseval.runner.command import main as runner_main
from bayeseval.runner.dataset import load_dataset
from bayeseval.runner.store import SampleStore, read_run

sys.path.insert(0, str(Path(__file__).resolve().parent))

DEPTH = 100_000
DEEP = {"array": "[" * DEPTH + "]" * DEPTH, "object": '{"a":' * DEPTH + "1" + "}" * DEPTH}
TOO_DEEP = "JSON nested too deeply to read (arrays or objects within one another past Python's recursion limit)"
DATASET = "a JSON object with a prompt ('prompt' or 'messages') and an answer ('answer')"
FAST = {"timeout": 2.0, "connect_timeout": 0.5, "backoff": 0.005, "max_backoff": 0.05}
NOWHERE = "http://127.0.0.1:9/v1"   # the dataset is refused before any request
NOT_JSON = "not valid JSON (column 2: Expecting property name enclosed in double quotes)"   # a line '{not json'


def question(i: int) -> str:
    return json.dumps({"id": f"q{i}", "prompt": f"What is {i} + {i}? ({i} + {i})", "answer": str(2 * i)})


def too_deep(where: str, expected: str) -> str:
    return f"{where}: {TOO_DEEP}; expected {expected}"


# ----------------------------------------------------------------------------- 1. too deeply nested JSON
def _work_dir(tmp: Path, results: str, predictions: str | None = None) -> Path:
    (tmp / "wd" / "results" / "m").mkdir(parents=True)
    (tmp / "wd" / "results" / "m" / "gsm8k.json").write_text(results)
    if predictions is not None:
        (tmp / "wd" / "predictions" / "m").mkdir(parents=True)
        (tmp / "wd" / "predictions" / "m" / "gsm8k.jsonl").write_text(predictions)
    return tmp / "wd"


def _eval_zip(tmp: Path, deep: str) -> Path:
    path = tmp / "log.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", deep)
    return path


# (case id, build(tmp, deep) -> (path read, reader, the place the message names, what it says was expected))
READERS = {
    "aisbench results file": lambda t, d: (
        t / "gsm8k.json", read_aisbench, str(t / "gsm8k.json"),
        "an AISBench results file (a JSON object of metrics and details)"),
    "aisbench work dir": lambda t, d: (
        _work_dir(t, d), read_aisbench, "results/m/gsm8k.json",
        "an AISBench results file (a JSON object of metrics and details)"),
    "aisbench predictions line": lambda t, d: (
        _work_dir(t, '{"accuracy": 50.0, "details": {}}', '{"id": 0, "prediction": "1"}\n' + d + "\n"),
        read_aisbench, "predictions/m/gsm8k.jsonl: line 2", "one prediction object per line"),
    "opencompass results file": lambda t, d: (
        t / "gsm8k.json", read_opencompass, str(t / "gsm8k.json"),
        "an OpenCompass results file (a JSON object of metrics and details)"),
    "lm-eval samples line": lambda t, d: (
        t / "samples_gsm8k_2024-05-01T10-00-00.jsonl", read_lm_eval,
        "samples_gsm8k_2024-05-01T10-00-00.jsonl: line 1", "one lm-eval sample object per line"),
    "lm-eval results file": lambda t, d: (
        t / "results_2024-05-01T10-00-00.json", read_lm_eval, "results_2024-05-01T10-00-00.json",
        "an lm-eval results file (a JSON object with 'results')"),
    "inspect json log": lambda t, d: (
        t / "log.json", read_inspect, str(t / "log.json"),
        "an inspect_ai log (a JSON object with 'eval' and 'samples')"),
    "inspect eval zip": lambda t, d: (
        _eval_zip(t, d), read_inspect, f"{t / 'log.eval'}: header.json", "a JSON member of an inspect_ai .eval log"),
    "outcome file": lambda t, d: (
        t / "outcomes.json", read_outcomes, str(t / "outcomes.json"),
        "a bayeseval-outcomes/1 file (a JSON object with 'format' and 'models')"),
    "long table json": lambda t, d: (
        t / "long.json", read_long, str(t / "long.json"),
        'a JSON list of records [{"model": ..., "question": ..., "score": ...}, ...] (a long table)'),
    "long table jsonl line": lambda t, d: (
        t / "long.jsonl", read_long, f"{t / 'long.jsonl'}: line 2",
        'one record per line, {"model": ..., "question": ..., "score": ...}'),
}
WRITE = {  # what the file holds, for the cases whose build did not write it
    "aisbench results file": lambda d: d, "opencompass results file": lambda d: d,
    "lm-eval samples line": lambda d: d + "\n",
    "lm-eval results file": lambda d: '{"results": ' + d + "}",
    "inspect json log": lambda d: '{"version": 2, "status": "success", "eval": ' + d + "}",
    "outcome file": lambda d: '{"format": "bayeseval-outcomes/1", "models": ' + d + "}",
    "long table json": lambda d: d,
    "long table jsonl line": lambda d: '{"model": "m", "question": "q1", "score": 1}\n' + d + "\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize("case", sorted(READERS))
def test_a_too_deeply_nested_file_is_a_value_error_naming_it(tmp_path, case, shape):
    deep = DEEP[shape]
    path, reader, where, expected = READERS[case](tmp_path, deep)
    if case in WRITE:
        path.write_text(WRITE[case](deep))
        if case == "lm-eval results file":   # the results file beside a samples file is read first
            (tmp_path / "samples_gsm8k_2024-05-01T10-00-00.jsonl").write_text('{"doc_id": 0, "exact_match": 1}\n')
    with pytest.raises(ValueError) as info:
        reader(path)
    assert str(info.value) == too_deep(where, expected)


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_load_and_detect_of_a_deep_json_lines_file(tmp_path, shape):
    """detect() peeks at the first line of a .jsonl file; a deep one is no tool's, and load() reads it as a long
    table, whose reader names the line."""
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP[shape] + "\n")
    assert detect(path) is None
    with pytest.raises(ValueError) as info:
        load(path)
    assert str(info.value) == too_deep(f"{path}: line 1",
                                       'one record per line, {"model": ..., "question": ..., "score": ...}')


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_too_deeply_nested_dataset_line(tmp_path, shape):
    path = tmp_path / "d.jsonl"
    path.write_text(question(1) + "\n" + '{"prompt": "x", "answer": ' + DEEP[shape] + "}\n")
    with pytest.raises(ValueError) as info:
        load_dataset(path)
    assert str(info.value) == too_deep(f"{path}: line 2", DATASET)
    path.write_text(DEEP[shape] + "\n")
    with pytest.raises(ValueError) as info:    # the message names the fields --prompt-field / --answer-field read
        load_dataset(path, prompt_field="question", answer_field="gold")
    assert str(info.value) == too_deep(f"{path}: line 1", "a JSON object with a prompt ('question' or 'messages') "
                                                          "and an answer ('gold')")


def test_a_too_deeply_nested_run_folder(tmp_path):
    (tmp_path / "run.json").write_text(DEEP["object"])
    with pytest.raises(ValueError) as info:
        read_run(tmp_path)
    assert str(info.value) == (f"{tmp_path / 'run.json'}: not a readable run file (JSON nested too deeply); "
                               "use a new --out folder")
    good = json.dumps({"question": "q1", "sample": 0, "text": "2", "score": 1.0, "error": None})
    (tmp_path / "samples.jsonl").write_text(DEEP["array"] + "\n" + good + "\n")
    with pytest.raises(ValueError) as info:
        SampleStore(tmp_path).load(1)
    assert str(info.value) == f"{tmp_path / 'samples.jsonl'}: line 1: not a sample record; the file is damaged"


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_the_command_line_says_one_line_and_exits_2(tmp_path, capsys, shape):
    deep = DEEP[shape]
    results = tmp_path / "gsm8k.json"
    results.write_text('{"details": ' + deep + ', "accuracy": 50.0}')
    expected = "an AISBench results file (a JSON object of metrics and details)"
    assert cli_main(["report", str(results)]) == 2
    assert _one_line(capsys) == "bayeseval: error: " + too_deep(str(results), expected)
    work = _work_dir(tmp_path, '{"accuracy": 50.0, "avg@3": 50.0, "x": ' + deep + "}")
    assert cli_main(["report", str(work)]) == 2
    assert _one_line(capsys) == "bayeseval: error: " + too_deep("results/m/gsm8k.json", expected)
    table = tmp_path / "t.jsonl"
    table.write_text(deep + "\n")
    assert cli_main(["report", str(table)]) == 2
    assert _one_line(capsys) == "bayeseval: error: " + too_deep(
        f"{table}: line 1", 'one record per line, {"model": ..., "question": ..., "score": ...}')


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_the_runner_says_one_line_and_exits_2(tmp_path, capsys, shape):
    data = tmp_path / "d.jsonl"
    data.write_text(question(1) + "\n" + DEEP[shape] + "\n")
    out = tmp_path / "out"
    argv = [str(data), "--base-url", NOWHERE, "--model", "m", "--out", str(out), "--quiet"]
    assert runner_main(argv) == 2
    assert _one_line(capsys) == "bayeseval: error: " + too_deep(f"{data}: line 2", DATASET)
    assert cli_main(["run"] + argv) == 2                       # bayeseval run: the same line
    assert _one_line(capsys) == "bayeseval: error: " + too_deep(f"{data}: line 2", DATASET)
    assert not out.exists()
    data.write_text(question(1) + "\n")
    out.mkdir()
    (out / "run.json").write_text(DEEP[shape])
    assert runner_main(argv) == 2
    assert _one_line(capsys) == (f"bayeseval: error: {out / 'run.json'}: not a readable run file (JSON nested too "
                                 "deeply); use a new --out folder")


# ----------------------------------------------------------------------------- 2. --limit stops reading
def _lines(path: Path, lines: list, end: bytes = b"\n") -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode("utf-8")) + end for x in lines))
    return path


def test_limit_stops_before_bad_records_after_it(tmp_path):
    """A record after the limit is not read: not JSON, not UTF-8, a repeated id -- none of them is an error."""
    path = _lines(tmp_path / "d.jsonl", [question(0), "", question(1), question(2), "{not json", b"\xff\xfe",
                                         question(0)])
    ds = load_dataset(path, limit=3)
    assert [q.id for q in ds.questions] == ["q0", "q1", "q2"] and [q.line for q in ds.questions] == [1, 3, 4]
    assert [q.index for q in ds.questions] == [0, 1, 2]
    assert ds.questions[2].messages == [{"role": "user", "content": "What is 2 + 2? (2 + 2)"}]
    assert ds.questions[2].answer == "4"
    with pytest.raises(ValueError) as info:         # the 4th line that is not blank is read, the bad bytes after it not
        load_dataset(path, limit=4)
    assert str(info.value) == f"{path}: line 5: {NOT_JSON}"
    with pytest.raises(ValueError) as info:         # without a limit the whole file is checked, as before
        load_dataset(path)
    assert str(info.value) == (f"{path}: not UTF-8 text (invalid start byte); the dataset is JSON Lines (one JSON "
                               "object per line): convert a Parquet, zip or other binary file first")


@pytest.mark.parametrize("bad, message", [
    ("{not json", f"line 3: {NOT_JSON}"),
    ('{"prompt": "x"}', "line 3: no answer: the line has no 'answer' field"),
    ('{"id": "q0", "prompt": "x", "answer": 1}', "line 3: duplicate question id 'q0' (also on line 1)"),
    ("[1]", "line 3: expected a JSON object, got list"),
    (b"\xc3(", "not UTF-8 text (invalid continuation byte); the dataset is JSON Lines (one JSON object per line): "
               "convert a Parquet, zip or other binary file first"),
])
def test_limit_keeps_the_errors_within_it(tmp_path, bad, message):
    path = _lines(tmp_path / "d.jsonl", [question(0), question(1), bad, question(3)])
    for limit in (3, 4, None):
        with pytest.raises(ValueError) as info:
            load_dataset(path, limit=limit)
        assert str(info.value) == f"{path}: {message}", limit


def test_limit_decodes_only_the_lines_it_keeps(tmp_path, monkeypatch):
    """The records read: json.loads runs on the first three lines of 1,000, not on all of them."""
    path = _lines(tmp_path / "d.jsonl", [question(i) for i in range(1000)])
    calls = []
    real = json.loads
    monkeypatch.setattr(dataset_module.json, "loads", lambda s, *a, **k: calls.append(s) or real(s, *a, **k))
    ds = load_dataset(path, limit=3)
    assert [q.id for q in ds.questions] == ["q0", "q1", "q2"]
    assert [real(c)["id"] for c in calls] == ["q0", "q1", "q2"]


def test_limit_splits_at_newlines_only(tmp_path):
    """A raw U+2028 / U+0085 inside a string, CRLF line ends and a byte-order mark read as before."""
    first = json.dumps({"id": "a", "prompt": "one\u2028two\u0085three", "answer": "x"}, ensure_ascii=False)
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + first.encode() + b"\r\n\r\n" + question(1).encode() + b"\r\n{bad\r\n")
    ds = load_dataset(path, limit=2)
    assert [q.id for q in ds.questions] == ["a", "q1"] and [q.line for q in ds.questions] == [1, 3]
    assert ds.questions[0].messages[-1]["content"] == "one\u2028two\u0085three"
    last = tmp_path / "e.jsonl"                       # a last line without its newline
    last.write_bytes(question(0).encode() + b"\n" + question(1).encode())
    assert [q.line for q in load_dataset(last, limit=5).questions] == [1, 2]


def test_a_limited_read_keeps_the_whole_files_digest(tmp_path):
    path = _lines(tmp_path / "d.jsonl", [question(i) for i in range(50)] + ["{after the limit"])
    whole = hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_dataset(path, limit=1).sha256 == load_dataset(path, limit=50).sha256 == whole


@pytest.mark.parametrize("limit, message", [(0, "--limit 0: must be at least 1"),
                                            (-2, "--limit -2: must be at least 1"),
                                            (True, "--limit True: expected an integer >= 1"),
                                            (2.5, "--limit 2.5: expected an integer >= 1")])
def test_a_bad_limit_is_refused_before_reading(tmp_path, limit, message):
    with pytest.raises(ValueError) as info:
        load_dataset(tmp_path / "no-such.jsonl", limit=limit)
    assert str(info.value) == message


def test_a_limited_run_resumes_with_another_limit_or_none(tmp_path, capsys):
    """The run folder stores the sha256 of the whole file: --limit 2, then --limit 4, then no limit resume one
    run, and the records after a limit are read once the limit takes them in."""
    pytest.importorskip("httpx")
    from openai_testserver import OpenAITestServer

    data = _lines(tmp_path / "d.jsonl", [question(i) for i in range(6)])
    with data.open("ab") as fh:
        fh.write(b"{broken\n")
    out = tmp_path / "out"
    with OpenAITestServer() as srv:
        argv = [str(data), "--base-url", srv.base_url, "--scorer", "numeric", "--out", str(out), "--quiet",
                "--timeout", "2"]
        assert runner_main(argv + ["--limit", "2"]) == 0
        assert "2 samples finished now, 0 read back" in capsys.readouterr().err
        stored = json.loads((out / "run.json").read_text())
        assert stored["config"]["dataset_sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()
        assert stored["settings"]["limit"] == 2
        assert runner_main(argv + ["--limit", "6"]) == 0
        assert "4 samples finished now, 2 read back" in capsys.readouterr().err
        assert runner_main(argv) == 2                                  # the whole file: its broken line 7
        assert _one_line(capsys) == f"bayeseval: error: {data}: line 7: {NOT_JSON}"
        assert srv.stats["requests"] == 6
    pairs = sorted(json.loads(x)["question"] for x in (out / "samples.jsonl").read_text().splitlines())
    assert pairs == [f"q{i}" for i in range(6)]


def test_a_named_id_field_must_be_there_and_json_arrays_get_a_hint(tmp_path):
    """From a review of docs/run.md: --id-field nope fell back to line numbers silently; a JSON array, an indented
    file or a Parquet file was refused without saying the dataset is JSON Lines."""
    from bayeseval.runner.dataset import load_dataset

    lines = tmp_path / "d.jsonl"
    lines.write_text('{"qid": "a", "prompt": "1+1?", "answer": 2}\n{"qid": "b", "prompt": "2+2?", "answer": 4}\n')
    assert [q.id for q in load_dataset(lines, id_field="qid").questions] == ["a", "b"]
    assert [q.id for q in load_dataset(lines).questions] == [1, 2]  # no 'id' field: line numbers
    with pytest.raises(ValueError, match=r"d.jsonl: line 1: no 'nope' field for the question id \(--id-field\); "
                                         r"the line has 'qid', 'prompt', 'answer'"):
        load_dataset(lines, id_field="nope")
    cases = {"pretty.json": '[\n  {"prompt": "a", "answer": 1}\n]\n', "one.json": '[{"prompt": "a", "answer": 1}]\n'}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=r"the dataset is JSON Lines, one object per line"):
            load_dataset(tmp_path / name)
    (tmp_path / "x.parquet").write_bytes(b"PAR1\x15\x04\x15\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"not UTF-8 text .*the dataset is JSON Lines"):
        load_dataset(tmp_path / "x.parquet")
