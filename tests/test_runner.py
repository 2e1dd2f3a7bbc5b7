"""``bayeseval run`` (bayeseval.runner) against a real, misbehaving HTTP server on loopback.

Every test talks HTTP to tests/openai_testserver.py (no mock of httpx): faults are injected per
request and the run folder on disk is checked sample by sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("httpx")

import bayeseval as be  # noqa: E402
from bayeseval.io import read_aisbench, read_outcomes  # noqa: E402
from bayeseval.runner import load_dataset, make_scorer, run  # noqa: E402
from bayeseval.runner.command import add_parser, main as runner_main  # noqa: E402
from bayeseval.runner.outputs import aisbench_numbers  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from openai_testserver import OpenAITestServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FAST = {"timeout": 0.5, "connect_timeout": 0.5, "backoff": 0.005, "max_backoff": 0.05}


def write_dataset(path: Path, N: int = 10, *, id_key: str = "id") -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(N):
            a, b = 10 + 3 * i, 200 + 17 * i
            rec = {"prompt": f"Question {i}: Tom has {a} apples and buys {b} more. How many? ({a} + {b})",
                   "answer": f"{a + b:,}"}
            if id_key:
                rec[id_key] = f"q{i}"
            fh.write(json.dumps(rec) + "\n")
    return path


def disk_pairs(folder: Path) -> list[tuple[str, int]]:
    return [(r["question"], r["sample"]) for r in map(json.loads, (folder / "samples.jsonl").read_text().splitlines())]


def assert_exact_pairs(folder: Path, N: int, n: int) -> None:
    pairs = disk_pairs(folder)
    assert len(pairs) == len(set(pairs)), "a sample is on disk twice"
    assert set(pairs) == {(f"q{i}", j) for i in range(N) for j in range(n)}


def check_scores_match_texts(folder: Path, dataset: Path) -> None:
    """Each stored score is what the numeric scorer gives the stored text (real values, not placeholders)."""
    gold = {r["id"]: r["answer"] for r in map(json.loads, dataset.read_text().splitlines())}
    sc = make_scorer("numeric")
    for r in map(json.loads, (folder / "samples.jsonl").read_text().splitlines()):
        if r["error"] is None:
            assert r["score"] == sc(r["text"], gold[r["question"]])


# ----------------------------------------------------------------------------- scorers
def test_numeric_scorer_on_gsm8k_and_aime_texts():
    sc = make_scorer("numeric")
    gsm = ("Natalia sold 48 clips in April and half as many, 48 / 2 = 24, in May.\n"
           "Altogether she sold 48 + 24 = 72 clips... wait, the order was 1,162 more: 72 + 1,162 = 1,234.\n#### 1,234")
    assert sc(gsm, "1234") == 1.0 and sc(gsm, "1,234") == 1.0 and sc(gsm, 1234) == 1.0 and sc(gsm, "72") == 0.0
    aime = r"The remainder is $\boxed{042}$; checking, 2 + 40 = 42 and 1000 - 958 = 42."
    assert sc(aime, "42") == 1.0 and sc(aime, 42) == 1.0 and sc(aime, "958") == 0.0
    assert sc(r"so $\boxed{\frac{1}{2}}$ was wrong; final \boxed{7}", "7") == 1.0
    assert sc("I cannot solve this.", "5") == 0.0
    assert sc("The total cost is $1,000.50.", "1000.5") == 1.0
    gold_solution = "She makes 9 * 2 = 18 dollars.\n#### 18"          # a GSM8K solution as the gold answer
    assert sc("#### 18", gold_solution) == 1.0


def test_regex_exact_and_user_function_scorers(tmp_path):
    mcq = make_scorer(r"regex:answer is \(?([A-D])\)?")
    text = "Option A looks tempting, but the answer is (B). On reflection the answer is (C)."
    assert mcq(text, "C") == 1.0 and mcq(text, "c") == 1.0 and mcq(text, "B") == 0.0
    assert mcq("no letter here", "A") == 0.0
    num = make_scorer(r"regex:Final: (\S+)")
    assert num("Final: 042", "42") == 1.0 and num("Final: 1,000", 1000) == 1.0 and num("Final: 41", "42") == 0.0
    whole = make_scorer(r"regex:\d+")                        # no group: the last whole match
    assert whole("first 3 then 17", "17") == 1.0
    ex = make_scorer("exact")
    assert ex("The Eiffel Tower.", "eiffel tower") == 1.0 and ex("Paris, at the Eiffel Tower", "eiffel tower") == 0.0
    assert ex("42", 42) == 1.0 and ex("Lyon", ["Paris", "lyon"]) == 1.0
    f = tmp_path / "myscore.py"
    f.write_text("def partial(text, gold):\n    return 0.5 if str(gold) in text else False\n"
                 "def bad(text, gold):\n    return 'yes'\n")
    user = make_scorer(f"{f}:partial")
    assert user("it is 42", 42) == 0.5 and user("it is 41", 42) == 0.0
    with pytest.raises(TypeError, match="bool or a number in"):
        make_scorer(f"{f}:bad")("x", 1)
    mod = make_scorer("bayeseval.metrics.scorers:numeric_match")   # module:function
    assert mod("#### 1,234", "1234") == 1.0
    for spec, msg in ((f"{f}:missing", "no function 'missing'"), ("nosuch/file.py:f", "no such file"),
                      ("regex:(", "not a valid regular expression"), ("no_such_module_xyz:f", "cannot import")):
        with pytest.raises(ValueError, match=msg):
            make_scorer(spec)


# ----------------------------------------------------------------------------- dataset checks
@pytest.mark.parametrize("lines, message", [
    (['{"id": 1, "prompt": "1 + 1", "answer": 2}', '{"id": 2, "prompt": "2 + 2", "answer": 4'],
     "line 2: not valid JSON"),
    (['{"id": 1, "prompt": "1 + 1", "answer": 2}', '', '{"id": 3, "answer": 4}'], "line 3: no prompt"),
    (['{"id": 1, "prompt": "1 + 1"}'], "line 1: no answer"),
    (['{"id": "a", "prompt": "1 + 1", "answer": 2}', '{"id": "a", "prompt": "2 + 2", "answer": 4}'],
     "line 2: duplicate question id 'a' \\(also on line 1\\)"),
    (['[1, 2]'], "line 1: expected a JSON object"),
    (['{"id": 1, "messages": [{"content": "hi"}], "answer": 2}'], "line 1: messages\\[0\\]"),
    (['{"id": 1, "prompt": "1 + 1", "answer": "two"}'], "line 1: answer 'two' holds no number"),
])
def test_bad_dataset_lines_are_named_before_any_request(tmp_path, lines, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with OpenAITestServer() as srv:
        with pytest.raises(ValueError, match=f"bad.jsonl: {message}"):
            run(path, base_url=srv.base_url, scorer="numeric", out=tmp_path / "out", **FAST)
        assert srv.stats["requests"] == 0
    assert not (tmp_path / "out").exists()


def test_dataset_fields_ids_and_messages(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"question": "What is 2 + 3?", "gold": 5}\n'
                    '{"question": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "4 + 4?"}], '
                    '"gold": "8"}\n')
    ds = load_dataset(path, prompt_field="question", answer_field="gold")
    assert [q.id for q in ds.questions] == [1, 2]            # line numbers
    assert ds.questions[0].messages == [{"role": "user", "content": "What is 2 + 3?"}]
    assert ds.questions[1].messages[0]["role"] == "system"
    assert len(load_dataset(path, prompt_field="question", answer_field="gold", limit=1).questions) == 1


# ----------------------------------------------------------------------------- failures
@pytest.mark.parametrize("stream", [False, True])
def test_every_failure_kind_is_survived_with_no_lost_or_duplicated_sample(tmp_path, stream):
    data = write_dataset(tmp_path / "d.jsonl", N=10)
    kinds = ["500", "429", "503", "hang", "bad_json", "kill", "empty", "deep", "kill", "bad_json"]
    faults = {2 * i + 1: k for i, k in enumerate(kinds)}     # every other request, the first 20
    with OpenAITestServer(faults=faults, hang=2.0, retry_after=0) as srv:
        t0 = time.monotonic()
        res = run(data, base_url=srv.base_url, n=4, n_per_request=2, stream=stream, scorer="numeric",
                  out=tmp_path / "out", concurrency=4, retries=6, **FAST)
        took = time.monotonic() - t0
        stats = dict(srv.stats)
    assert took < 10                                           # the hangs cost one timeout each, not a stall
    assert all(stats[f"fault:{k}"] == kinds.count(k) for k in set(kinds))
    assert stats["requests"] == 10 * 2 + len(kinds)            # each fault cost exactly one extra request
    assert res.failures == 0 and res.matrix.shape == (10, 4)
    assert_exact_pairs(tmp_path / "out", 10, 4)
    check_scores_match_texts(tmp_path / "out", data)
    recs = [json.loads(x) for x in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert sum(r["attempts"] - 1 for r in recs) == 2 * len(kinds)   # two samples per faulted request
    assert 0 < np.nanmean(res.matrix) < 1


def test_out_of_retries_is_recorded_as_failed_and_reported(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=6)
    bad_prompt = json.loads(data.read_text().splitlines()[3])["prompt"]

    def faults(number, body):
        return "500" if body["messages"][-1]["content"] == bad_prompt else None

    with OpenAITestServer(faults=faults) as srv:
        res = run(data, base_url=srv.base_url, n=3, scorer="numeric", out=tmp_path / "out", retries=2, **FAST)
        assert srv.stats["fault:500"] == 3                     # one request for q3's 3 samples, 1 + 2 retries
        assert res.failures == 3 and np.isnan(res.matrix[3]).all() and not np.isnan(np.delete(res.matrix, 3, 0)).any()
        recs = [json.loads(x) for x in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
        failed = [r for r in recs if r["error"]]
        assert {(r["question"], r["sample"]) for r in failed} == {("q3", 0), ("q3", 1), ("q3", 2)}
        assert all("HTTP 500" in r["error"] and "gave up after 3 attempts" in r["error"] and r["score"] is None
                   for r in failed)
        assert "3 of 18 samples FAILED" in res.summary and "missing trials" in res.summary
        assert "FAILED" in res.files["summary_md"].read_text()
        out = read_outcomes(tmp_path / "out" / "outcomes.json")  # questions in the run's (random) order
        q3 = list(out.run("test-model").ids).index("q3")
        assert np.isnan(out.matrix("test-model")[q3]).all()       # "." in the file: missing, not wrong
        # AISBench's own numbers count the failures as wrong
        ais = read_aisbench(tmp_path / "out")
        assert any("fewer than n=3 successful prediction lines" in w for w in ais.warnings)
        assert np.array_equal(ais.matrix(res.abbr), np.nan_to_num(res.matrix, nan=0.0))
        # the folder itself is read from outcomes.json, failures missing (it was read as the AISBench work dir:
        # 50.6% where the run's own summary said 63.3%, in a review's run with 32 of 160 failed)
        folder = be.load(tmp_path / "out")
        assert np.array_equal(folder.matrix("test-model"), out.matrix("test-model"), equal_nan=True)
        kept = res.matrix[~np.isnan(res.matrix).all(axis=1)]  # q3: every sample failed, so no observed trial
        assert be.estimate(folder.counts("test-model")).mean == pytest.approx(be.estimate(kept).mean)
        # a resume with --retry-failed asks again for exactly the failed samples
        srv.faults, before = {}, srv.stats["choices"]
        res2 = run(data, base_url=srv.base_url, n=3, scorer="numeric", out=tmp_path / "out", retries=2,
                   retry_failed=True, **FAST)
        assert srv.stats["choices"] - before == 3
    assert res2.failures == 0 and res2.requested == 3 and res2.resumed == 15


def test_a_bad_request_is_not_retried(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=2)
    with OpenAITestServer(faults={1: "400"}) as srv:
        res = run(data, base_url=srv.base_url, n=2, scorer="numeric", out=tmp_path / "out", concurrency=1, **FAST)
        assert srv.stats["requests"] == 2
    assert res.failures == 2
    assert_exact_pairs(tmp_path / "out", 2, 2)


@pytest.mark.slow
def test_retry_after_is_honoured(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=1)
    with OpenAITestServer(faults={1: "429"}, retry_after=1) as srv:
        t0 = time.monotonic()
        res = run(data, base_url=srv.base_url, n=1, scorer="numeric", out=tmp_path / "out", **FAST)
        took = time.monotonic() - t0
        assert srv.stats["requests"] == 2
    assert res.failures == 0 and 1.0 <= took < 5          # the backoff alone would have waited ~5 ms


def test_a_stream_with_unicode_line_separators_in_its_json_is_read_whole(tmp_path):
    """vLLM and llama.cpp send U+2028, U+2029 and U+0085 unescaped inside JSON strings (valid JSON); httpx's line
    reader split the SSE lines there, so the chunk read as malformed, was retried and the sample ended as a failure,
    depending on what the model wrote. Streamed and not, the same answers now score the same."""
    from openai_testserver import default_answer

    data = write_dataset(tmp_path / "d.jsonl", N=6)

    def answer(prompt, k):
        return default_answer(prompt, k).replace(" ", "\u2028", 1) + "\u2029\u0085"

    got = {}
    for stream in (False, True):
        with OpenAITestServer(answer_fn=answer, raw_unicode=True) as srv:
            got[stream] = run(data, base_url=srv.base_url, n=3, stream=stream, scorer="numeric", retries=0,
                              out=tmp_path / f"out{stream}", **FAST)
    assert got[True].failures == got[False].failures == 0
    np.testing.assert_array_equal(got[True].matrix, got[False].matrix)
    lines = (tmp_path / "outTrue" / "samples.jsonl").read_text(encoding="utf-8").split("\n")[:-1]  # not splitlines
    recs = [json.loads(x) for x in lines]
    assert len(recs) == 18 and all(r["attempts"] == 1 and "\u2029\u0085" in r["text"] for r in recs)


def test_an_answer_with_a_lone_surrogate_is_recorded(tmp_path):
    """An answer holding a lone surrogate ("\\ud83d": a stream cut inside an emoji) made the write to samples.jsonl
    fail with UnicodeEncodeError: the run stopped, named nothing, and every resume failed the same way. It is now
    written escaped (lossless) and scored."""
    from openai_testserver import default_answer

    data = write_dataset(tmp_path / "d.jsonl", N=3)
    with OpenAITestServer(answer_fn=lambda p, k: default_answer(p, k) + " \ud83d") as srv:
        res = run(data, base_url=srv.base_url, n=2, stream=False, scorer="numeric", retries=0, out=tmp_path / "out",
                  **FAST)
    assert res.failures == 0 and res.matrix.shape == (3, 2)
    recs = [json.loads(x) for x in (tmp_path / "out" / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(recs) == 6 and all(r["text"].endswith(" \ud83d") for r in recs)


@pytest.mark.parametrize("stream", [False, True])
def test_a_server_trickling_bytes_is_cut_off_by_the_request_deadline(tmp_path, stream):
    # keep-alive comments (streaming) or one body byte (not) every 0.3 s: no read ever waits 1 s
    data = write_dataset(tmp_path / "d.jsonl", N=2)
    with OpenAITestServer(faults=lambda number, body: "trickle", trickle=0.3, trickle_for=6) as srv:
        t0 = time.monotonic()
        res = run(data, base_url=srv.base_url, n=2, stream=stream, scorer="numeric", out=tmp_path / "out",
                  concurrency=2, timeout=1, request_timeout=0.7, retries=0)
        took = time.monotonic() - t0
        assert srv.stats["fault:trickle"] == 2 and srv.stats["trickled"] >= 2   # it did trickle
    assert took < 3                                    # one deadline, not the server's 6 s of trickling
    assert res.failures == 4 and np.isnan(res.matrix).all()
    recs = [json.loads(x) for x in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and all("within 0.7s (--request-timeout)" in r["error"] and r["attempts"] == 1
                                  for r in recs)
    settings = json.loads((tmp_path / "out" / "run.json").read_text())["settings"]
    assert settings["request_timeout"] == 0.7


def test_a_request_deadline_is_retried_and_defaults_to_three_timeouts(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=1)
    with OpenAITestServer(faults={1: "trickle"}, trickle=0.1, trickle_for=6) as srv:
        t0 = time.monotonic()
        res = run(data, base_url=srv.base_url, n=1, stream=True, scorer="numeric", out=tmp_path / "out",
                  timeout=0.25, connect_timeout=0.5, retries=1, backoff=0.005)   # deadline 3 x 0.25 s
        took = time.monotonic() - t0
        assert srv.stats["requests"] == 2
    assert 0.75 <= took < 2.5
    assert res.failures == 0
    rec = json.loads((tmp_path / "out" / "samples.jsonl").read_text())
    assert rec["attempts"] == 2 and rec["error"] is None
    assert json.loads((tmp_path / "out" / "run.json").read_text())["settings"]["request_timeout"] == 0.75


def test_a_trickling_models_route_stops_the_run_in_bounded_time(tmp_path, capsys):
    data = write_dataset(tmp_path / "d.jsonl", N=1)     # GET /models: a body byte every 0.05 s, for 6 s
    with OpenAITestServer(models_fault="trickle", trickle=0.05, trickle_for=6) as srv:
        t0 = time.monotonic()
        # a loaded machine may not send the first byte within the 0.15 s connect-and-first-byte limit: either limit
        # stops the run in bounded time, which is what this test is about
        with pytest.raises(ValueError, match=r"/v1/models: no (complete answer within 0\.45s|answer within 0\.15s)"):
            run(data, base_url=srv.base_url, scorer="numeric", out=tmp_path / "out", timeout=0.15, retries=0)
        code = runner_main([str(data), "--base-url", srv.base_url, "--out", str(tmp_path / "out"), "--quiet",
                            "--timeout", "5", "--request-timeout", "0.3"])
        took = time.monotonic() - t0
        assert srv.stats["requests"] == 0
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and re.search(r"/v1/models: no (complete )?answer within 0\.3s", err)
    assert took < 3


def test_fewer_choices_than_n_are_asked_for_again(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=3)
    with OpenAITestServer(max_choices=2) as srv:
        res = run(data, base_url=srv.base_url, n=5, scorer="numeric", out=tmp_path / "out", concurrency=1, **FAST)
        asked = [s["n"] for s in srv.seen]
    assert asked == [5, 3, 1] * 3                               # 2 + 2 + 1 choices per question
    assert res.matrix.shape == (3, 5) and res.failures == 0
    assert_exact_pairs(tmp_path / "out", 3, 5)


def test_api_key_is_sent_as_bearer_from_the_named_variable(tmp_path, monkeypatch):
    data = write_dataset(tmp_path / "d.jsonl", N=1)
    monkeypatch.setenv("MY_TEST_KEY", "sekret")
    with OpenAITestServer(api_key="sekret") as srv:
        run(data, base_url=srv.base_url, scorer="numeric", out=tmp_path / "a", api_key_env="MY_TEST_KEY", **FAST)
        assert srv.seen[0]["authorization"] == "Bearer sekret"
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        with pytest.raises(ValueError, match="HTTP 401 unauthorized"):
            run(data, base_url=srv.base_url, scorer="numeric", out=tmp_path / "b", **FAST)
    with pytest.raises(ValueError, match="--api-key-env NOT_SET_ANYWHERE: that environment variable is not set"):
        run(data, scorer="numeric", out=tmp_path / "c", api_key_env="NOT_SET_ANYWHERE", **FAST)


def test_unreachable_endpoint_is_one_line_naming_the_url(tmp_path, capsys):
    import socket

    data = write_dataset(tmp_path / "d.jsonl", N=2)
    with socket.socket() as s:           # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=f"{url}/models: cannot connect"):
        run(data, base_url=url, scorer="numeric", out=tmp_path / "out", **FAST)
    code = runner_main([str(data), "--base-url", url, "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert time.monotonic() - t0 < 5
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"bayeseval: error: {url}/models: cannot connect")


def test_model_is_checked_and_defaults_to_the_only_served_one(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=1)
    with OpenAITestServer(model="org/Model-7B") as srv:
        with pytest.raises(ValueError, match="--model other: not served at .* \\(it serves org/Model-7B\\)"):
            run(data, base_url=srv.base_url, model="other", scorer="numeric", out=tmp_path / "out", **FAST)
        res = run(data, base_url=srv.base_url, scorer="numeric", out=tmp_path / "out", **FAST)
        assert srv.seen[0]["model"] == "org/Model-7B"
    assert res.model == "org/Model-7B" and res.abbr == "org_Model-7B"
    assert (tmp_path / "out" / "results" / "org_Model-7B" / "d.json").is_file()


def test_a_server_without_a_models_route_needs_model(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=2)
    with OpenAITestServer(list_models=False) as srv:
        with pytest.raises(ValueError, match="--model: required \\(the server at .* does not list its models\\)"):
            run(data, base_url=srv.base_url, scorer="numeric", out=tmp_path / "out", **FAST)
        res = run(data, base_url=srv.base_url, model="test-model", scorer="numeric", out=tmp_path / "out", **FAST)
    assert res.matrix.shape == (2, 1)


def test_httpx_missing_names_the_extra(monkeypatch, tmp_path):
    from bayeseval.runner import client

    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(ImportError, match=r"pip install 'bayeseval\[run\]'"):
        client.require_httpx()
    with pytest.raises(ImportError, match=r"bayeseval\[run\]"):
        run(tmp_path / "never-read.jsonl", out=tmp_path / "out")


# ----------------------------------------------------------------------------- scorer errors
def test_a_scorer_that_raises_names_the_question_and_sample(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=8)
    bad = json.loads(data.read_text().splitlines()[5])         # q5 cannot be scored
    f = tmp_path / "picky.py"
    f.write_text("def score(text, gold):\n"
                 f"    if gold == {bad['answer']!r}:\n"
                 "        raise ZeroDivisionError('cannot score this one')\n"
                 "    return str(gold).replace(',', '') in text.replace(',', '')\n")
    with OpenAITestServer() as srv:
        with pytest.raises(ValueError, match=rf"question id '{bad['id']}' \(dataset line \d+\), sample 0: "
                                             "ZeroDivisionError: cannot score this one"):
            run(data, base_url=srv.base_url, n=2, scorer=f"{f}:score", out=tmp_path / "out", concurrency=1, **FAST)
    lines = (tmp_path / "out" / "samples.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines]                      # every line complete and valid
    order = list(range(8))
    random.Random(0).shuffle(order)
    before = order[: order.index(int(bad["id"][1:]))]
    assert [(r["question"], r["sample"]) for r in recs] == [(f"q{i}", j) for i in before for j in range(2)]


# ----------------------------------------------------------------------------- outputs
def test_report_folder_is_read_back_by_bayesevals_aisbench_reader(tmp_path):
    data = write_dataset(tmp_path / "gsm_mini.jsonl", N=12)
    with OpenAITestServer() as srv:
        res = run(data, base_url=srv.base_url, n=4, n_per_request=4, scorer="numeric", out=tmp_path / "out", **FAST)
    out = tmp_path / "out"
    assert res.ids == [f"q{i}" for i in range(12)] and res.failures == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # no regrouping, no grouping doubt
        ais = read_aisbench(out)
    run_ = ais.run(res.abbr)
    assert run_.meta["grouping"] == "aisbench" and list(run_.ids) == list(range(12))
    assert np.array_equal(run_.matrix, res.matrix)
    expected = aisbench_numbers(res.matrix)
    assert set(expected) == {"accuracy (4 runs average)", "avg@4", "pass@4", "cons@4"}
    for k, v in expected.items():
        assert run_.reported[k] == pytest.approx(v) and run_.meta["recomputed"][k] == pytest.approx(v)
        assert run_.meta["summary"][k] == pytest.approx(v, abs=0.005)   # the summary CSV, 2 decimals
    # the same through bayeseval.load(format="aisbench"); the folder itself is read from the run's own outcome file,
    # which lists the questions in the order the run drew them
    assert np.array_equal(be.load(out, format="aisbench").matrix(res.abbr), res.matrix)
    s = be.load(out / "outcomes.json")
    assert np.array_equal(be.load(out).matrix("test-model"), s.matrix("test-model"))
    assert sorted(res.order) == list(range(12)) and res.order != list(range(12))
    assert list(s.run("test-model").ids) == [res.ids[i] for i in res.order]
    assert np.array_equal(s.matrix("test-model"), res.matrix[res.order])
    # a run folder with no outcome file yet was read as its AISBench work dir without a word
    (out / "outcomes.json").unlink()
    with pytest.raises(ValueError, match=r"a bayeseval run folder with no outcome file .* run the same bayeseval run "
                                         r"command .* format='aisbench' \(CLI --input-format aisbench\)"):
        be.load(out)
    assert np.array_equal(be.load(out, format="aisbench").matrix(res.abbr), res.matrix)
    # the summary: AISBench numbers with bayeseval's interval beside them
    csv_text = res.files["summary_csv"].read_text().splitlines()
    assert csv_text[0] == ("dataset,version,metric,mode,test-model,test-model posterior mean,test-model 95% lo,"
                           "test-model 95% hi")
    ev = be.evaluate({"m": res.matrix}, ["avg", "pass@4"])
    row = csv_text[1].split(",")
    assert row[2] == "accuracy (4 runs average)" and float(row[4]) == pytest.approx(expected[row[2]], abs=0.005)
    assert float(row[5]) == pytest.approx(100 * ev[0].mean, abs=0.005)
    assert float(row[6]) == pytest.approx(100 * ev[0].lo, abs=0.005) and float(row[7]) == pytest.approx(
        100 * ev[0].hi, abs=0.005)
    assert "All 48 samples answered" in res.files["summary_md"].read_text()
    assert res.files["config"].read_text().startswith("# written by bayeseval run")
    preds = [json.loads(x) for x in res.files["predictions"].read_text().splitlines()]
    assert len(preds) == 48 and all(p["success"] for p in preds)
    # details are question-major: every group's references are its own question's gold
    details = json.loads(res.files["results"].read_text())["details"]
    golds = [json.loads(x)["answer"] for x in data.read_text().splitlines()]
    assert [d["answer"] for d in details] == [[g] * 4 for g in golds]
    assert [d["example_abbr"] for d in details] == [f"gsm_mini_{i}" for i in range(12)]


def test_one_sample_per_question_writes_aisbench_n1_layout(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=5)
    with OpenAITestServer() as srv:
        res = run(data, base_url=srv.base_url, n=1, scorer="numeric", out=tmp_path / "out", stream=True, **FAST)
    results = json.loads(res.files["results"].read_text())
    assert set(results) == {"accuracy", "details"} and set(results["details"]) == {str(i) for i in range(5)}
    assert np.array_equal(read_aisbench(tmp_path / "out").matrix(res.abbr), res.matrix)


def test_partial_credit_scorer_writes_a_score_table(tmp_path):
    data = write_dataset(tmp_path / "d.jsonl", N=4)
    f = tmp_path / "soft.py"
    f.write_text("def soft(text, gold):\n    return 0.25 if '####' in text else 1.0\n")
    with OpenAITestServer() as srv:
        res = run(data, base_url=srv.base_url, n=3, scorer=f"{f}:soft", out=tmp_path / "out", **FAST)
    assert res.files["outcomes"].name == "outcomes.csv"
    s = be.load(res.files["outcomes"]).as_scores((0, 1))
    assert np.allclose(s.matrix("test-model"), res.matrix)
    assert set(np.unique(res.matrix)) <= {0.25, 1.0}
    assert "accuracy (3 runs average)" in res.summary and "pass@3" in res.summary


# ----------------------------------------------------------------------------- resume
@pytest.mark.slow
def test_resume_after_the_process_is_killed_finishes_exactly_the_missing_samples(tmp_path):
    N, n = 12, 3
    data = write_dataset(tmp_path / "d.jsonl", N=N)
    out = tmp_path / "out"
    with OpenAITestServer(delay=0.03) as srv:
        cmd = [sys.executable, "-m", "bayeseval.runner", str(data), "--base-url", srv.base_url, "--n", str(n),
               "--n-per-request", "1", "--scorer", "numeric", "--out", str(out), "--concurrency", "2", "--quiet",
               "--timeout", "5"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        samples = out / "samples.jsonl"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if samples.exists() and samples.read_text().count("\n") >= 10:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        before = samples.read_bytes()
        done_before = before.count(b"\n")
        assert 10 <= done_before < N * n, "the run finished before it could be killed"
        with samples.open("ab") as fh:                          # a sample cut off mid-write
            fh.write(b'{"question": "q99", "index": 3, "sample": 0, "text": "half a li')
        time.sleep(0.3)                                         # the dead client's requests in flight drain
        choices_before = srv.stats["choices"]
        res = run(data, base_url=srv.base_url, n=n, n_per_request=1, scorer="numeric", out=out, concurrency=2,
                  **FAST)
        asked_again = srv.stats["choices"] - choices_before
    assert res.resumed == done_before and res.requested == N * n - done_before
    assert asked_again == N * n - done_before                   # not one sample asked twice
    assert_exact_pairs(out, N, n)
    assert samples.read_bytes().startswith(before)              # the earlier lines untouched
    check_scores_match_texts(out, data)
    assert res.matrix.shape == (N, n) and res.failures == 0


def test_resume_of_a_cancelled_run_and_a_changed_config(tmp_path):
    import asyncio

    from bayeseval.runner import arun

    N, n = 8, 2
    data = write_dataset(tmp_path / "d.jsonl", N=N)
    out = tmp_path / "out"
    with OpenAITestServer(delay=0.02) as srv:
        async def cancel_midway():
            task = asyncio.ensure_future(arun(data, base_url=srv.base_url, n=n, n_per_request=1, scorer="numeric",
                                              out=out, concurrency=2, **FAST))
            while not (out / "samples.jsonl").exists() or (out / "samples.jsonl").read_text().count("\n") < 5:
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(cancel_midway())
        done = len(disk_pairs(out))
        assert 5 <= done < N * n
        with pytest.raises(ValueError, match="cannot resume: n differs \\(stored 2, now 3\\)"):
            run(data, base_url=srv.base_url, n=3, scorer="numeric", out=out, **FAST)
        with pytest.raises(ValueError, match="cannot resume: scorer differs"):
            run(data, base_url=srv.base_url, n=n, scorer="exact", out=out, **FAST)
        with pytest.raises(ValueError, match="cannot resume: model_abbr differs"):  # would leave the old files
            run(data, base_url=srv.base_url, n=n, scorer="numeric", out=out, model_abbr="other", **FAST)
        with pytest.raises(ValueError, match="cannot resume: dataset_name differs"):
            run(data, base_url=srv.base_url, n=n, scorer="numeric", out=out, dataset_name="other", **FAST)
        res = run(data, base_url=srv.base_url, n=n, scorer="numeric", out=out, **FAST)
        assert res.resumed == done and res.requested == N * n - done
        assert_exact_pairs(out, N, n)
        data.write_text(data.read_text() + json.dumps({"id": "new", "prompt": "1 + 1", "answer": 2}) + "\n")
        with pytest.raises(ValueError, match="cannot resume: dataset_sha256 differs"):
            run(data, base_url=srv.base_url, n=n, scorer="numeric", out=out, **FAST)


# ----------------------------------------------------------------------------- one run per folder
def test_a_folder_in_use_is_refused_at_once_and_the_lock_is_held_for_the_whole_run(tmp_path, capsys):
    from bayeseval.runner.store import FolderInUse, RunLock

    data = write_dataset(tmp_path / "d.jsonl", N=3)
    out = tmp_path / "out"
    first = RunLock(out).acquire()                 # flock: a second open lock conflicts, even in one process
    with pytest.raises(FolderInUse, match=rf"is in use by another bayeseval run \(pid {os.getpid()}\)"):
        RunLock(out).acquire()
    with OpenAITestServer() as srv:
        with pytest.raises(ValueError, match=rf"^{out} is in use by another bayeseval run \(pid {os.getpid()}\)"):
            run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, **FAST)
        code = runner_main([str(data), "--base-url", srv.base_url, "--n", "2", "--scorer", "numeric",
                            "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and f"is in use by another bayeseval run (pid {os.getpid()})" in err
        assert srv.stats["requests"] == 0 and not (out / "samples.jsonl").exists()
        first.release()
        seen = []

        def stop(matrix):                          # during the run, the folder is locked
            try:
                RunLock(out).acquire().release()
                seen.append("free")
            except FolderInUse:
                seen.append("locked")
            return False, ""

        res = run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, stop=stop, **FAST)
    assert seen and set(seen) == {"locked"} and res.failures == 0   # (a call may cover several questions)
    RunLock(out).acquire().release()               # and released after it
    assert_exact_pairs(out, 3, 2)


@pytest.mark.slow
def test_two_processes_on_one_folder_the_second_fails_and_nothing_is_duplicated(tmp_path):
    N, n = 6, 2
    data = write_dataset(tmp_path / "d.jsonl", N=N)
    out = tmp_path / "out"
    import threading

    from openai_testserver import default_answer

    gate = threading.Event()                          # the first run's answers wait until the second has tried

    def answer(prompt, k):
        gate.wait(30)
        return default_answer(prompt, k)

    with OpenAITestServer(answer_fn=answer) as srv:
        cmd = [sys.executable, "-m", "bayeseval.runner", str(data), "--base-url", srv.base_url, "--n", str(n),
               "--n-per-request", "1", "--scorer", "numeric", "--out", str(out), "--concurrency", "1", "--quiet"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (out / "samples.jsonl").exists():
                time.sleep(0.01)
            second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
            gate.set()
            assert first.wait(timeout=60) == 0, first.stderr.read().decode()
        finally:
            gate.set()
            if first.poll() is None:
                first.kill()
                first.wait()
            first.stderr.close()
        assert second.returncode == 2
        assert second.stderr.strip() == (f"bayeseval: error: {out} is in use by another bayeseval run (pid "
                                         f"{first.pid}); wait for it to finish, or use another --out folder")
        assert_exact_pairs(out, N, n)
        before = srv.stats["requests"]               # and the folder resumes cleanly: nothing left to ask
        res = run(data, base_url=srv.base_url, n=n, scorer="numeric", out=out, **FAST)
        assert srv.stats["requests"] == before and srv.stats["requests"] == N * n
    assert res.resumed == N * n and res.failures == 0


def test_an_identical_duplicate_record_is_tolerated_and_a_conflicting_one_is_not(tmp_path):
    from bayeseval.runner.store import SampleStore

    rec = {"question": "q1", "index": 1, "sample": 0, "text": "#### 5", "score": 1.0, "error": None,
           "finish_reason": "stop", "attempts": 1, "latency": 0.5, "finished": "2026-03-26T15:13:26.123+00:00"}
    other = {**rec, "sample": 1, "text": "#### 6", "score": 0.0}
    copy = {**rec, "attempts": 2, "latency": 0.7, "finished": "2026-03-26T15:13:27.000+00:00"}   # same answer
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (rec, other, copy, copy)))
    store = SampleStore(tmp_path)
    records = store.load(2)
    assert set(records) == {("q1", 0), ("q1", 1)} and records[("q1", 0)] == rec   # the first copy kept
    assert store.duplicates == 2
    path.write_text("".join(json.dumps(r) + "\n" for r in (rec, other, {**rec, "text": "#### 7", "score": 0.0})))
    with pytest.raises(ValueError, match=r"samples.jsonl: line 3: question 'q1' sample 0 is recorded twice, with "
                                         "different content"):
        SampleStore(tmp_path).load(2)
    # end to end: a run folder whose samples file holds a repeated line resumes with nothing asked again
    data = write_dataset(tmp_path / "d.jsonl", N=3)
    out = tmp_path / "out"
    with OpenAITestServer() as srv:
        run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, **FAST)
        lines = (out / "samples.jsonl").read_text().splitlines(keepends=True)
        (out / "samples.jsonl").write_text("".join(lines + lines[1:3]))
        before = srv.stats["requests"]
        res = run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, **FAST)
        assert srv.stats["requests"] == before
    assert res.resumed == 6 and res.matrix.shape == (3, 2)


# ----------------------------------------------------------------------------- stopping hook
def test_the_stop_hook_stops_early_in_seeded_random_order(tmp_path):
    N, n = 20, 2
    data = write_dataset(tmp_path / "d.jsonl", N=N)
    seen_shapes = []

    def stop(matrix):
        seen_shapes.append(matrix.shape)
        return len(matrix) >= 5, f"enough: {len(matrix)} questions"

    with OpenAITestServer() as srv:
        res = run(data, base_url=srv.base_url, n=n, scorer="numeric", out=tmp_path / "out", concurrency=1, seed=7,
                  stop=stop, **FAST)
        assert srv.stats["choices"] == 5 * n
    assert seen_shapes == [(k, n) for k in range(1, 6)]
    assert res.stopped and res.stop_reason == "enough: 5 questions" and res.matrix.shape == (5, n)
    order = list(range(N))
    random.Random(7).shuffle(order)
    assert set(res.ids) == {f"q{i}" for i in order[:5]}
    assert "Stopped early after 5 of 20 questions: enough: 5 questions" in res.summary
    json_doc = json.loads((tmp_path / "out" / "run.json").read_text())
    assert json_doc["last"]["stop_reason"] == "enough: 5 questions"
    assert res.ids == sorted(res.ids, key=lambda i: int(i[1:]))   # outputs in dataset order
    assert np.array_equal(read_aisbench(tmp_path / "out").matrix(res.abbr), res.matrix)


def test_stop_lets_the_questions_in_flight_finish(tmp_path):
    N, n = 30, 3
    data = write_dataset(tmp_path / "d.jsonl", N=N)
    with OpenAITestServer(delay=0.01) as srv:
        res = run(data, base_url=srv.base_url, n=n, n_per_request=1, scorer="numeric", out=tmp_path / "out",
                  concurrency=4, stop=lambda m: (len(m) >= 2, "two"), **FAST)
    assert res.stopped and 2 <= len(res.ids) <= 2 + 4
    assert not np.isnan(res.matrix).any() and res.matrix.shape[1] == n   # every started question complete
    pairs = disk_pairs(tmp_path / "out")
    assert len(pairs) == len(set(pairs)) == len(res.ids) * n


# ----------------------------------------------------------------------------- the command
def test_the_run_subcommand_parses_and_runs(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="bayeseval")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    p = add_parser(sub, parents=[common])
    help_text = p.format_help()
    assert "examples:" in help_text and "--n-per-request" in help_text and "--no-stream" in help_text
    assert "http://127.0.0.1:8000/v1" in help_text
    data = write_dataset(tmp_path / "d.jsonl", N=3)
    with OpenAITestServer() as srv:
        args = parser.parse_args(["run", str(data), "--base-url", srv.base_url, "--n", "2", "--scorer", "numeric",
                                  "--out", str(tmp_path / "out"), "--stream", "--timeout", "2", "--quiet"])
        assert args.func(args) == 0
        assert all(s["stream"] for s in srv.seen)
        out, err = capsys.readouterr()
        assert "avg@2" in out and "posterior mean" in out
        assert "6 samples finished now, 0 read back" in err
        before = srv.stats["requests"]                         # again: everything is on disk, nothing asked
        args = parser.parse_args(["run", str(data), "--base-url", srv.base_url, "--n", "2", "--scorer", "numeric",
                                  "--out", str(tmp_path / "out"), "--quiet"])
        assert args.func(args) == 0 and srv.stats["requests"] == before
    assert "0 samples finished now, 6 read back" in capsys.readouterr().err


def test_the_stop_hook_sees_questions_in_the_drawn_order_not_the_order_they_finish():
    from bayeseval.runner.engine import _Session

    seen = []
    session = _Session(ds=None, order=[2, 0, 1], n=1, scorer=None, store=None,
                       stop=lambda m: (seen.append(m[:, 0].tolist()) or False, ""), progress=None)
    session.finished(0, np.array([0.0]))   # finished first, but drawn second: waits for question 2
    assert session.rows.size == 0 and seen == []
    session.finished(2, np.array([2.0]))
    assert seen == [[2.0, 0.0]]
    session.finished(1, np.array([1.0]))
    assert seen == [[2.0, 0.0], [2.0, 0.0, 1.0]]


def test_run_until_a_rule_from_the_bayeseval_command(tmp_path, capsys):
    from bayeseval.cli import main

    data = write_dataset(tmp_path / "d.jsonl", N=40)
    with OpenAITestServer() as srv:
        code = main(["run", str(data), "--base-url", srv.base_url, "--n", "4", "--scorer", "numeric",
                     "--out", str(tmp_path / "out"), "--until", "width 0.9 or 30 questions", "--concurrency", "1",
                     "--timeout", "2", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "Stopped early after" in out and "narrower than 0.9" in out
    res = json.loads((tmp_path / "out" / "run.json").read_text())
    assert "narrower than 0.9" in res["last"]["stop_reason"]
    assert main(["run", str(data), "--base-url", "http://127.0.0.1:9/v1", "--until", "sometime"]) == 2
    assert "cannot read 'sometime'" in capsys.readouterr().err


def test_run_names_its_options_for_null_and_until(tmp_path, capsys):
    """--until decided without --null used the library's names (until=, null=); --null without --until was ignored."""
    from bayeseval.cli import main

    data = write_dataset(tmp_path / "d.jsonl", N=5)
    base = ["run", str(data), "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "out")]
    assert main(base + ["--until", "decided"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--until 'decided' for one model needs --null (the value to decide against)" in err
    assert "null=" not in err and len(err.splitlines()) == 1
    assert main(base + ["--null", "0.5"]) == 2
    assert "--null is the value --until 'decided'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    from bayeseval.runner.command import main as runner_main  # python -m bayeseval.runner: the same line
    from bayeseval.sequential import Sequential

    assert runner_main(base[1:] + ["--until", "decided or width 0.1 or width 0.05"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("bayeseval: error: --until: 'width 0.05' repeats a condition already given in 'decided or width 0.1 "
                   "or width 0.05'; give each of 'decided', 'equivalent within', 'width', 'questions' and 'samples' "
                   "once")
    with pytest.raises(ValueError, match=r"^until: 'width 0.05' repeats"):  # the library names its argument
        Sequential(until="width 0.1 or width 0.05")


@pytest.mark.parametrize("flag, value", [("--dataset-name", "../../../../mydata"), ("--model-abbr", "../x"),
                                         ("--model-abbr", "org/model"), ("--dataset-name", "..")])
def test_names_that_would_write_outside_the_run_folder_are_refused(tmp_path, capsys, flag, value):
    """--dataset-name ../../mydata replaced the user's dataset file with the predictions; org/model failed after
    every request with a raw errno.  Both are one file name inside the run folder."""
    from bayeseval.cli import main

    data = write_dataset(tmp_path / "mydata.jsonl", N=3)
    before = data.read_bytes()
    code = main(["run", str(data), "--base-url", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "runs" / "a"),
                 flag, value])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == (f"bayeseval: error: {flag} must be one file name of letters, digits, '.', '_' and "
                                 f"'-' (it names files inside the run folder), got {value!r}")
    assert data.read_bytes() == before and not (tmp_path / "runs").exists()


def test_a_line_separator_inside_a_string_is_part_of_the_line(tmp_path):
    """json.dumps(..., ensure_ascii=False) writes U+2028 and U+0085 raw inside strings; they are not line breaks
    in JSON Lines (only \\n is), so the line is one record."""
    from bayeseval.runner.dataset import load_dataset

    path = tmp_path / "lsep.jsonl"
    path.write_text(json.dumps({"id": "a", "prompt": "one\u2028two\u0085three", "answer": "x"}, ensure_ascii=False)
                    + "\r\n" + json.dumps({"id": "b", "prompt": "p", "answer": "y"}) + "\n", encoding="utf-8")
    ds = load_dataset(path)
    assert [q.id for q in ds.questions] == ["a", "b"] and [q.line for q in ds.questions] == [1, 2]
    assert ds.questions[0].messages[-1]["content"] == "one\u2028two\u0085three"


def test_a_folder_names_the_model_by_its_abbr_and_keeps_one_outcome_file(tmp_path):
    """From a review: read from outcomes.json, a folder named its run by --model (two checkpoints served under one
    name, told apart by --model-abbr, became two runs of one model); a resumed run whose outcomes changed kind left
    the other outcome file behind, and the folder read the stale one."""
    data = write_dataset(tmp_path / "d.jsonl", N=6)
    with OpenAITestServer() as srv:
        run(data, base_url=srv.base_url, n=2, scorer="numeric", out=tmp_path / "a", **FAST)
        run(data, base_url=srv.base_url, n=2, scorer="numeric", out=tmp_path / "b", model_abbr="ckpt-2", **FAST)
        assert be.load(tmp_path / "a").models == ["test-model"] and be.load(tmp_path / "b").models == ["ckpt-2"]
        (tmp_path / "a" / "outcomes.csv").write_text("dataset,model,question,trial,score\nd,test-model,q0,0,0.5\n")
        with pytest.raises(ValueError, match=r"holds both outcomes.json and outcomes.csv"):
            be.load(tmp_path / "a")
        run(data, base_url=srv.base_url, n=2, scorer="numeric", out=tmp_path / "a", **FAST)  # resumed: rewrites
    assert not (tmp_path / "a" / "outcomes.csv").exists() and be.load(tmp_path / "a").run("test-model").M == 6


def test_an_interrupted_session_leaves_no_stale_outcome_file(tmp_path, monkeypatch):
    """outcomes.json is written when a session ends: a finished run of 2 questions, resumed for 8 and killed, kept the
    2-question file beside 8 questions of samples, and report / load read it as the whole run without a word. A
    session that has samples to ask for now removes the old file first; the next session writes it whole."""
    from collections import deque

    import bayeseval.runner.engine as engine

    data = write_dataset(tmp_path / "d.jsonl", N=8)
    out = tmp_path / "out"
    with OpenAITestServer() as srv:
        run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, limit=2, **FAST)
        assert be.load(out).matrix("test-model").shape == (2, 2)
        real = engine._execute

        async def interrupted(session, client, jobs, concurrency):
            await real(session, client, deque([jobs.popleft()]), concurrency)  # one more question, then stop
            raise KeyboardInterrupt

        async def refused(session, client, jobs, concurrency):
            raise KeyboardInterrupt  # before any new sample: the old file still describes every sample

        monkeypatch.setattr(engine, "_execute", refused)
        with pytest.raises(KeyboardInterrupt):
            run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, limit=8, **FAST)
        assert be.load(out).matrix("test-model").shape == (2, 2)
        monkeypatch.setattr(engine, "_execute", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, limit=8, **FAST)
        assert not (out / "outcomes.json").exists()
        with pytest.raises(ValueError, match="an interrupted session leaves none"):
            be.load(out)
        monkeypatch.setattr(engine, "_execute", real)
        res = run(data, base_url=srv.base_url, n=2, scorer="numeric", out=out, limit=8, **FAST)
    assert res.resumed == 6 and be.load(out).matrix("test-model").shape == (8, 2)


def test_numbers_beyond_a_float_are_not_equal_as_infinities():
    """999...9 and 888...8 (400 digits) both read as inf and scored equal; the AISBench results got a bare Infinity."""
    from bayeseval.runner.scoring import make_scorer

    numeric, regex = make_scorer("numeric"), make_scorer(r"regex:answer is (\S+)")
    assert numeric("The answer is " + "9" * 400, "42") == 0.0 and numeric("#### 42", "42") == 1.0
    assert regex("answer is " + "9" * 400, "8" * 400) == 0.0 and regex("answer is " + "9" * 400, "9" * 400) == 1.0
    assert numeric.extract("so " + "9" * 400) is None
    with pytest.raises(ValueError, match=r"holds no number \(--scorer numeric needs one, within a float's range"):
        numeric.check_gold("8" * 400, "line 1")
