"""The pandas table readers without per-row Python work give what a row-by-row reading gives.

Long tables are checked against a reader written here with plain Python loops (one dict per run, cells parsed
one at a time), the numpy shape scan of CSV files against the csv-module scan it stands in for, and the
messages against the ones the row-by-row readers gave (recorded from them).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from bayeseval.io import outcomes, tables
from bayeseval.io._vendor import code_scores
from bayeseval.io.tables import from_long, read_long, read_model_columns

_MISSING = {"", "nan", "na", "null", "none"}


def _cell(v):
    """One score cell read by hand: text stripped and lower-cased, true/false, the missing words, else float()."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return math.nan
    if isinstance(v, str):
        t = v.strip().lower()
        return 1.0 if t == "true" else 0.0 if t == "false" else math.nan if t in _MISSING else float(t)
    return float(v)


def _by_hand_keys(rows: list[dict]) -> list[tuple[str, str]]:
    return [(str(r.get("dataset", "dataset")).strip(), str(r["model"]).strip()) for r in rows]


def _by_hand(rows: list[dict], use_trial: bool):
    """Runs of a long table, one row at a time: {(dataset, model): (ids, matrix)}."""
    runs: dict = {}
    for r, key in zip(rows, _by_hand_keys(rows)):
        ids, cells, count = runs.setdefault(key, ([], {}, {}))
        q = r["question"].strip() if isinstance(r["question"], str) else r["question"]
        if q not in ids:
            ids.append(q)
        t = int(r["trial"]) if use_trial else count.get(q, 0)
        count[q] = count.get(q, 0) + 1
        cells[q, t] = _cell(r["score"])
    out = {}
    for key, (ids, cells, _) in runs.items():
        trials = sorted({t for _, t in cells})
        matrix = np.full((len(ids), len(trials)), np.nan)
        for (q, t), v in cells.items():
            matrix[ids.index(q), trials.index(t)] = v
        out[key] = (ids, matrix)
    return out


def _random_table(rng: random.Random):
    n_models, n_q, n_t = rng.choice([1, 2, 3]), rng.choice([1, 3, 7]), rng.choice([1, 2, 4])
    kind = rng.choice(["binary", "grades", "partial", "text", "bools"])
    pools = {"binary": [0, 1, 1, None], "grades": [0, 1, 2, 3, None], "partial": [0.0, 0.25, 0.5, 1.0],
             "text": ["1", "0", " TRUE", "false ", "", "NA", "none", "0.5"], "bools": [True, False, None]}
    ids = rng.choice([[f"q{i}" for i in range(n_q)], [f" q{i}" if i % 2 else f"q{i}" for i in range(n_q)],
                      list(range(100, 100 + n_q)), [f"{i:03d}" for i in range(n_q)]])
    rows = []
    for m in range(n_models):
        for q in rng.sample(ids, len(ids)):
            for t in rng.sample(range(n_t), rng.randint(1, n_t)):
                rows.append({"model": f"m{m}", "question": q, "trial": t, "score": rng.choice(pools[kind])})
    rng.shuffle(rows)
    if rng.random() < 0.3:
        for r in rows:
            r["dataset"] = rng.choice(["d1", "d2"])
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_long_tables_read_as_row_by_row(seed):
    rng = random.Random(seed)
    rows = _random_table(rng)
    use_trial = rng.random() < 0.7
    df = pd.DataFrame(rows)
    if not use_trial:
        df = df.drop(columns="trial")
    if rng.random() < 0.3:  # categorical labels read as the values they stand for
        df["question"] = df["question"].astype("category")
    want = _by_hand(rows, use_trial)
    try:
        coding = {key: code_scores(matrix) for key, (_, matrix) in want.items()}
        assert not any(np.isnan(m).all() for _, m in want.values())
    except (ValueError, AssertionError):  # every score of a run missing, or one value that is not 0/1
        with pytest.raises(ValueError, match="has no scores|every score is"):
            from_long(df)
        return
    got = from_long(df)
    texts = pd.DataFrame(_by_hand_keys(rows), columns=["dataset", "model"])
    order = list(texts.groupby(["dataset", "model"], sort=False).indices)  # the order runs came in before
    assert [(r.dataset, r.model) for r in got] == order and sorted(order) == sorted(want)
    for run in got:
        ids, _ = want[run.dataset, run.model]
        assert list(run.ids) == ids
        coded, weights, scale = coding[run.dataset, run.model]
        np.testing.assert_array_equal(run.matrix, coded)
        assert (run.weights is None) == (weights is None) and run.scale == scale
        if weights is not None:
            np.testing.assert_array_equal(run.weights, weights)


def test_a_csv_of_thousands_of_rows_reads_as_row_by_row(tmp_path):
    rng = np.random.default_rng(3)
    m, q, t = np.meshgrid(np.arange(3), np.arange(400), np.arange(5), indexing="ij")
    score = rng.choice(np.array(["0", "1", "", "true", "False"], dtype=object), size=m.size)
    df = pd.DataFrame({"model": [f"m{i}" for i in m.ravel()], "question": [f"q{i}" for i in q.ravel()],
                       "trial": t.ravel(), "score": score})
    df = df.sample(frac=1.0, random_state=1)
    df.to_csv(tmp_path / "t.csv", index=False)
    got = read_long(tmp_path / "t.csv")
    want = _by_hand(df.to_dict("records"), True)
    for run in got:
        ids, matrix = want[run.dataset, run.model]
        assert list(run.ids) == ids
        np.testing.assert_array_equal(run.matrix, matrix)


@pytest.mark.parametrize("column, values, message", [
    ("question", ["q1", " ", "q2"], "table: row 1: column 'question' (question id) is empty"),
    ("question", ["q1", "q2", None], "table: row 2: column 'question' (question id) is empty"),
    ("question", ["q1", "q2", "q\x1b3"], "table: row 2: column 'question' (question id) 'q\\x1b3' contains the "
     "control character '\\x1b' at position 1; names and ids must be printable text"),
    ("model", ["a", "b\x07", "a"], "table: row 1: column 'model' (model) 'b\\x07' contains the control character "
     "'\\x07' at position 1"),
    ("question", ["q1", True, "q2"], "table: row 1: column 'question' (question id) is bool True; a question id "
     "must be text or a number"),
    ("question", [1, "q2", "1"], "table (dataset 'dataset', model 'a'): rows 0 and 2: column 'question' holds 1 "
     "and '1', two values that read as one question id; write each id one way"),
    ("score", ["1", "0", "yes"], "table: row 2: column 'score' must be a number or true/false, got 'yes'"),
    ("score", ["1", "0", "-1"], "table: row 2: column 'score': a score of -1 is below 0"),
    ("score", ["1", "inf", "0"], "table: row 1: column 'score' is infinite"),
])
def test_messages_name_the_first_bad_row_as_before(column, values, message):
    d = {"model": ["a", "a", "a"], "question": ["q1", "q2", "q3"], "score": [1, 0, 1], column: values}
    with pytest.raises(ValueError) as exc:
        from_long(pd.DataFrame(d))
    assert str(exc.value).startswith(message)


def test_repeated_question_and_trial_and_bad_trials_name_their_rows():
    d = {"model": ["a"] * 3, "question": ["q1", "q2", " q1"], "trial": [0, 0, 0], "score": [1, 0, 1]}
    with pytest.raises(ValueError, match=r"^table \(dataset 'dataset', model 'a'\): rows 0 and 2 are the same "
                                         r"question 'q1' and trial; each trial must appear once$"):
        from_long(pd.DataFrame(d))
    d["trial"] = [0, 1.5, 0]
    with pytest.raises(ValueError, match=r"^table: row 1: column 'trial' must be a non-negative integer trial "
                                         r"index, got 1.5$"):
        from_long(pd.DataFrame(d))


def test_the_rows_of_a_csv_file_are_its_lines(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("model,question,score\n\na,q1,1\n   \na,q2,maybe\n")
    with pytest.raises(ValueError, match=r"t.csv: line 5: column 'score' must be a number or true/false, got "
                                         r"'maybe'"):
        read_long(p)


_CELLS = ["q1", "m", "0", "1", "", " ", "a b", "x\xa0", "é", "\u2003", "1.5", "\t", "q1 "]
_ODD = ['"q,1"', '"a\nb"', "\x00", "\r", "\xa0", "\u2003", "\ufeff", '"', "\x0c", "\x1c"]


def _random_csv(rng: random.Random) -> tuple[bytes, str]:
    sep, ncol = rng.choice([",", "\t"]), rng.choice([1, 2, 3, 4])
    lines = [sep.join(["question", "model", "score", "trial"][:ncol])]
    for _ in range(rng.choice([0, 1, 2, 5, 12])):
        r = rng.random()
        if r < 0.1:  # blank: nothing, or white space only
            lines.append(rng.choice(["", " ", "\t", "\xa0", "\u2003 ", "\x0c", "  \x1c"]))
            continue
        cells = [rng.choice(_CELLS) for _ in range(ncol if r < 0.85 else rng.choice([ncol - 1, ncol + 1, 1]))]
        if cells and rng.random() < 0.08:
            cells[rng.randrange(len(cells))] = rng.choice(_ODD)
        lines.append(sep.join(cells))
    if rng.random() < 0.2:
        lines.insert(0, rng.choice(["", "  "]))
    nl = rng.choice(["\n", "\r\n", "\r"]) if rng.random() < 0.4 else "\n"
    data = (nl.join(lines) + (nl if rng.random() < 0.7 else "")).encode("utf-8")
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.05:
        data = data.replace(b"1", b"\xff", 1)
    return data, sep


@pytest.mark.parametrize("block", [1 << 25, 7, 64])
def test_the_numpy_scan_of_a_csv_file_agrees_with_the_csv_module(tmp_path, monkeypatch, block):
    monkeypatch.setattr(tables, "_BLOCK", block)
    rng = random.Random(block)
    fast = 0
    for k in range(300):
        data, sep = _random_csv(rng)
        p = tmp_path / f"t{k}.csv"
        p.write_bytes(data)
        shape = tables._scan_plain(p, sep)
        if shape is None:  # quotes, a lone CR, a NUL, not UTF-8: the csv module reads it
            continue
        fast += 1
        header, starts, bad, last = shape
        want = tables._scan_rows(p, sep, "t")
        assert (header, list(starts), bad, last) == (want[0], want[1], want[2], want[3]), data
    assert fast > 150


def test_a_file_the_numpy_scan_leaves_to_the_csv_module_keeps_its_messages(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b'model,question,score\na,"q1\nq2",1\na,q3\n')
    assert tables._scan_plain(p, ",") is None
    with pytest.raises(ValueError, match=r"line 4: has 2 cells, the header has 3"):
        read_long(p)
    p.write_bytes(b"model,question,score\na,q1,1\na,q\xff2,1\n")
    with pytest.raises(ValueError, match=r"line 3: not UTF-8 text"):
        read_long(p)


def test_score_cells_are_read_once_per_distinct_text_as_cell_by_cell():
    rng = np.random.default_rng(5)
    texts = np.array(["1", "0", " 1 ", "TRUE", "false", "", "NA", "null", "None", "nan", "0.25", "1e0", "x", "-2",
                      "inf"], dtype=object)
    for _ in range(30):
        cells = rng.choice(texts, size=50)
        cells[rng.random(50) < 0.1] = None
        x, bad = tables._numbers(cells)
        for v, got, b in zip(cells, x, bad):
            try:
                want = _cell(v)
            except ValueError:
                assert b, v
                continue
            assert not b and (got == want or (math.isnan(got) and math.isnan(want))), v
    mixed = np.array([1, "0", True, None, 2.5, " TRUE"], dtype=object)  # cell by cell, as before
    x, bad = tables._numbers(mixed)
    np.testing.assert_array_equal(x, [1, 0, 1, np.nan, 2.5, 1])
    assert not bad.any()


@pytest.mark.parametrize("seed", range(10))
def test_models_in_columns_fill_the_matrix_as_row_by_row(tmp_path, seed):
    rng = random.Random(seed)
    n_q, n_r = rng.randint(1, 6), rng.randint(1, 4)
    pairs = [(f"q{i}", r) for i in range(n_q) for r in rng.sample(range(n_r), rng.randint(1, n_r))]
    rng.shuffle(pairs)
    cells = {(q, r, m): rng.choice(["0", "1", ""]) for q, r in pairs for m in ("gpt", "claude")}
    lines = ["question,trial,gpt,claude"] + [f"{q},{r},{cells[q, r, 'gpt']},{cells[q, r, 'claude']}"
                                             for q, r in pairs]
    p = tmp_path / "runs.csv"
    p.write_text("\n".join(lines) + "\n")
    try:
        got = read_model_columns(p, question="question", run="trial")
    except ValueError as exc:  # a model column of empty cells
        assert "has no scores" in str(exc)
        assert any(all(cells[q, r, m] == "" for q, r in pairs) for m in ("gpt", "claude"))
        return
    order = list(dict.fromkeys(q for q, _ in pairs))
    runs = sorted({r for _, r in pairs})
    for run in got:
        matrix = np.full((len(order), len(runs)), np.nan)
        for q, r in pairs:
            matrix[order.index(q), runs.index(r)] = _cell(cells[q, r, run.model])
        keep = ~np.isnan(matrix).all(axis=1)
        assert list(run.ids) == [q for q, k in zip(order, keep) if k]
        np.testing.assert_array_equal(run.matrix, matrix[keep])


def test_digit_rows_of_an_outcome_file_read_at_once_as_row_by_row():
    rng = random.Random(2)
    for _ in range(50):
        rows = ["".join(rng.choice("0123.") for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 20))]
        want = np.full((len(rows), max(map(len, rows))), np.nan)
        for i, r in enumerate(rows):
            want[i, :len(r)] = outcomes._row(r, "t")
        np.testing.assert_array_equal(outcomes._matrix(rows, "t"), want)
    for bad, i in ((["01", "", "1"], 1), (["01", "1x"], 1), (["\u0663"], 0), (["01", [1, -1]], 1)):
        with pytest.raises(ValueError, match=rf"^t.outcomes\[{i}\]: outcomes must be a string of digits"):
            outcomes._matrix(bad, "t")
