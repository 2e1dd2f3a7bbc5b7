"""Found by an adversarial review: labels written as 1 in one column and 1.0 in the other were four classes on
the command line (accuracy 0 instead of 6/7); labels that share no class between the two sides are warned;
options that the library would refuse by its own argument name are checked where they are typed; replays are
capped like resamples; three questions or fewer report an sd that some law with that mean can have."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.classification import classification
from bayeseval.rubric import rubric
from bayeseval.cli import main
from bayeseval.sequential import Sequential, replay

GAME24 = str(Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_game24.json")


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_classify_reads_numeric_labels_as_numbers(tmp_path, capsys):
    f = tmp_path / "pandas_wrote_floats.csv"  # true as integers, pred as floats (a column that once held a NaN)
    f.write_text("true,pred\n1,1.0\n0,0.0\n1,1.0\n1,0.0\n0,0.0\n1,1.0\n0,0.0\n")
    code, out, _ = _cli(capsys, "classify", f, "--format", "json")
    assert code == 0
    (res,) = json.loads(out)["models"].values()
    assert res["labels"] == ["0", "1"] and res["confusion"] == [[3, 0], [1, 3]]
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(6 / 7)
    library = classification([1, 0, 1, 1, 0, 1, 0], [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    assert library.metrics["accuracy"]["value"] == pytest.approx(6 / 7)
    g = tmp_path / "text.csv"  # text labels stay text
    g.write_text("true,pred\nyes,yes\nno,yes\n")
    code, out, _ = _cli(capsys, "classify", g, "--format", "json")
    assert code == 0 and next(iter(json.loads(out)["models"].values()))["labels"] == ["no", "yes"]


def test_labels_with_no_class_in_common_are_warned():
    r = classification([True, False, True], [1, 0, 1])
    assert r.metrics["accuracy"]["value"] == 0.0
    assert r.warnings[0] == ("no predicted label is one of the true labels (true: 'False', 'True'; predicted: '0', "
                             "'1'), so every prediction counts as wrong: if they name the same classes written "
                             "differently (1 and 1.0, True and 1, 'yes' and 'Yes'), write them alike")
    assert not any("no predicted label" in w for w in classification([1, 0, 1], [0, 1, 0]).warnings)
    named = classification(["a", "a"], ["b", "b"], labels=["a", "b"])  # classes named: the user said what they are
    assert not any("no predicted label" in w for w in named.warnings)


@pytest.mark.parametrize("argv, option, expected", [
    (["report", GAME24, "--seed", "-1"], "--seed", "an integer >= 0"),
    (["compare", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--resamples", "1"],
     "--resamples", "an integer >= 100"),
    (["replay", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--replays", "0"], "--replays",
     "an integer >= 1"),
    (["report", GAME24, "--format", "csv", "--digits", "-1"], "--digits", "an integer >= 0"),
])
def test_options_are_checked_where_they_are_typed(capsys, argv, option, expected):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and f"argument {option}: expected {expected}" in capsys.readouterr().err


def test_replays_are_capped():
    A = np.ones((10, 2), dtype=int)
    with pytest.raises(ValueError, match=r"^replays = 10,001 is above the cap of 10,000 \(raise it with "
                                         r"bayeseval.set_limits\(replays=...\)\)"):
        replay(A, A, replays=10_001)
    with pytest.raises(ValueError, match=r"^null_replays = 20,000 is above the cap of 10,000"):
        replay(A, A, replays=10, null_replays=20_000)


@pytest.mark.parametrize("R", [[[1, 0, 1, 1]], [[1, 0, 1, 1], [0, 0, 1, np.nan], [1, 1, 1, 1]]])
def test_three_questions_or_fewer_report_a_possible_sd(R):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = be.estimate(np.array(R, dtype=float), "avg", missing=np.nan)
    assert e.sd == pytest.approx(math.sqrt(e.mean * (1 - e.mean)), abs=1e-12)  # Bhatia-Davis: the largest
    assert e.sd < 0.5  # half the range, as before, is more than any law with this mean has


def test_a_level_is_shown_with_its_digits(capsys):
    code, out, _ = _cli(capsys, "report", GAME24, "--level", "0.999999", "--metrics", "avg")
    assert code == 0 and "99.9999%" in out and "100%" not in out
    e = be.estimate(np.ones((20, 2)), "avg", level=0.975)
    assert "97.5% exact+binomial interval" in repr(e)  # every question at the end: Clopper-Pearson's far end


def test_compare_refuses_a_rope_that_covers_every_difference(capsys):
    A, B = np.ones((20, 2), dtype=int), np.zeros((20, 2), dtype=int)
    with pytest.raises(ValueError, match=r"^rope: the equivalence region \(-1e\+308, 1e\+308\) covers the whole range "
                                         r"\[-1, 1\] of the difference"):
        be.compare(A, B, rope=1e308)
    assert be.compare(A, B, rope=0.5).verdict == "A is better (outside the ROPE)"
    code, _, err = _cli(capsys, "compare", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO",
                        "--rope", "1")
    assert code == 2 and "error: --rope: the equivalence region (-1.0, 1.0) covers the whole range [-1, 1]" in err


def test_a_ragged_confusion_matrix_is_named():
    with pytest.raises(ValueError, match=r"^confusion_matrix must be a square table of counts: its rows have "
                                         r"different lengths$"):
        classification(confusion_matrix=[[5, 0, 1], [0, 5]], labels=[0, 1])


def test_rubric_without_rating_columns_names_the_option(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text("doc,system,judge\n1,a,x\n")
    with pytest.raises(ValueError, match=r"^dimensions: no rating columns found; name the columns that hold ratings "
                                         r"with dimensions$"):
        rubric(pd.read_csv(f), item="doc", system="system", judge="judge")
    code, _, err = _cli(capsys, "rubric", f, "--item", "doc", "--system", "system", "--judge", "judge")
    assert code == 2 and err.strip().endswith("--dimensions: no rating columns found; name the columns that hold "
                                              "ratings with --dimensions")


def test_a_dimension_named_like_an_id_column_keeps_the_ids():
    """A rating dimension called "item" (long table, dimension names in a column) overwrote the item ids in the
    library's frame: wrong intervals and a judge agreement of 1.  The same ratings under another name agree."""
    rows = [{"item": i, "system": s, "judge": j, "rating": (i + k) % 5 + 1}
            for i in range(6) for k, j in enumerate(["j1", "j2", "j3"]) for s in ("x", "y")]
    t = pd.DataFrame(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named = {d: rubric(t.assign(dimension=d), dimension="dimension", rating="rating", scale=(1, 5), seed=1)
                 for d in ("quality", "item", "judge", "system")}
    ref = named["quality"]
    for d in ("item", "judge", "system"):
        r = named[d]
        for s in ("x", "y"):
            assert (r.estimates[s, d].lo, r.estimates[s, d].hi) == (ref.estimates[s, "quality"].lo,
                                                                    ref.estimates[s, "quality"].hi), d
        assert r.agreement[d].alpha == pytest.approx(ref.agreement["quality"].alpha) and r.agreement[d].coders == 3


def test_a_rope_is_refused_only_when_it_covers_every_difference(capsys):
    A, B = np.ones((20, 2), dtype=int), np.zeros((20, 2), dtype=int)
    for rope in ((-0.5, 1.6), (0.0, 2.0)):  # part of the range, holding 0: usable, one-sided
        assert be.compare(A, B, rope=rope).rope is not None
    with pytest.raises(ValueError, match=r"rope: a region of practical equivalence holds no difference"):
        be.compare(A, B, rope=(5.0, 10.0))  # none of it: every difference read as "B is better" (A won all 20)
    with pytest.raises(ValueError, match=r"covers the whole range"):
        be.compare(A, B, rope=(-1.0, 1.0))
    with pytest.raises(ValueError, match=r"^until: the equivalence region \(0.0, 1.0\) covers the whole range"):
        Sequential(until="equivalent within 0.5", null=0.5)


def test_levels_and_error_rates_print_exactly():
    from bayeseval._text import pct

    assert pct(0.99999999999) == "99.999999999%" and pct(0.999999999, complement=True) == "0.0000001%"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = be.estimate(np.ones((20, 4), dtype=int), "pass@8", level=0.9999999)
    assert "99.99999% exact" in repr(e) and not any("100%" in w for w in e.warnings)


def test_a_long_rubric_table_names_its_dimensions_not_private_columns(tmp_path, capsys):
    f = tmp_path / "long.csv"
    f.write_text("doc,sys,who,aspect,score\n" + "".join(f"{i},{s},{j},fluency,{(i + k) % 5 + 1}\n"
                                                         for i in range(4) for s in "ab" for k, j in enumerate("xyz")))
    code, _, err = _cli(capsys, "rubric", f, "--item", "doc", "--system", "sys", "--judge", "who", "--dimension-col",
                        "aspect", "--rating-col", "score", "--dimensions", "nope")
    assert code == 2 and err.strip().endswith("--dimensions: no dimension 'nope' in column 'aspect'; it holds "
                                              "['fluency']"), err
    assert "\\x00" not in err and "\x00" not in err


def test_a_reported_value_that_is_not_a_number_is_left_out_with_a_warning():
    """An AISBench results file with "avg@3": NaN was taken as reported and printed as nan."""
    from bayeseval.io._vendor import numeric_items

    with pytest.warns(UserWarning, match=r"^r\.json: avg@3: the reported value nan is not a number; bayeseval reads "
                                         r"the per-question details$"):
        got = numeric_items({"avg@3": float("nan"), "accuracy": 75, "pass@3": float("inf"), "details": []},
                            skip=("details",), where="r.json")
    assert got == {"accuracy": 75.0}
