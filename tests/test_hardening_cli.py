"""The command line on bad input: exit code 2 and one line on stderr that names the option or file.

Each row of ``CASES``: (kind, argv, a regex the one-line error must match).
"""

from __future__ import annotations

import pytest

from bayeseval.cli import main
from conftest import GAME24

G = str(GAME24)

CASES = [
    ("resamples above the cap", ["rank", G, "--resamples", "1000000000000"], r"resamples = .* cap"),
    ("baseline resamples above the cap", ["report", G, "--baseline", "gpt-4 IO", "--resamples", "1000000000000"],
     r"resamples = .* cap"),
    ("k above the cap", ["report", G, "--metrics", "pass@1000000000"], r"\bk = .* cap"),
    ("plan --delta in points", ["plan", G, "--delta", "5"], r"delta.*0\.05"),
    ("plan --delta zero", ["plan", G, "--delta", "0"], r"delta"),
    ("unknown metric", ["report", G, "--metrics", "pass@@3"], r"metric"),
    ("level outside (0, 1)", ["report", G, "--level", "1.5"], r"level"),
    ("unknown baseline model", ["report", G, "--baseline", "gpt-5"], r"baseline"),
    ("missing input file", ["report", "no/such/file.json"], r"no/such/file\.json"),
    ("output folder missing", ["report", G, "-o", "no/such/dir/out.md"], r"no/such/dir"),
    ("unknown image type", ["report", G, "--plot", "forest.xyz"], r"image type"),
    ("unknown model in compare", ["compare", "--data", G, "gpt-4 IO", "gpt-9"], r"gpt-9"),
    ("rank of one model", ["rank", G, "--models", "gpt-4 IO"], r"at least two models"),
    ("unknown --pairs", ["rank", G, "--pairs", "some"], r"pairs"),
]


@pytest.mark.parametrize("kind, argv, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_exits_2_with_one_line(kind, argv, pattern, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert err, "no message"
    line = err[-1]
    assert "Traceback" not in "\n".join(err)
    import re

    assert re.search(pattern, "\n".join(err[-2:])), (kind, err)
    assert len(line) < 600
