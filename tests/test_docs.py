"""The examples in the documentation run.

Every ```python block of a page in ``docs/`` runs, in order, in one namespace per page (a later block may
use what an earlier one defined), and every ```bash block whose commands start with ``bayeseval `` runs
each command through ``bayeseval.cli.main`` and must exit 0.  A block that cannot run here (it needs a
server, a model endpoint, a file that is not bundled, or names placeholders) is marked by the comment
``<!-- no-test -->`` on the line right before its opening fence; docs/development.md states the convention.

The working directory is a temporary folder holding links to the repository's ``examples/``,
``benchmarks/`` and ``papers/``, so ``examples/data/...`` paths resolve as from the repository root while
the files an example writes (``forest.png``, ``table.tex``) land in the temporary folder.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import signal
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NO_TEST = "<!-- no-test -->"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
# pages whose examples take more than a few seconds
SLOW = {"mcmc.md", "sequential.md"}  # MCMC sampling; 200 replays
LIMIT = 240  # seconds per page: a command waiting for a server fails instead of hanging


def blocks(text: str) -> list[tuple[int, str, str, bool]]:
    """(line number, language, code, runnable) of every fenced block, in page order."""
    out = []
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2), before != NO_TEST))
    return out


def commands(code: str) -> list[str]:
    """The ``bayeseval`` commands of a bash block (backslash continuations joined, comments dropped)."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        if not line.lstrip().startswith("bayeseval "):  # curl, pip, cd, ...: not run (JSON bodies span lines)
            continue
        for part in line.split(";"):
            words = shlex.split(part, comments=True)
            if words:
                out.append(words)
    return out


def pages() -> list[Path]:
    """The docs pages and the README (whose tour runs too)."""
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _param(page: Path):
    marks = [pytest.mark.slow] if page.name in SLOW else []
    return pytest.param(page, id=page.name, marks=marks)


@pytest.fixture
def in_sandbox(tmp_path, monkeypatch):
    for name in ("examples", "benchmarks", "papers"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    pytest.importorskip("matplotlib").use("Agg")
    return tmp_path


def test_the_convention_is_documented_and_every_page_is_in_the_nav():
    assert NO_TEST in (DOCS / "development.md").read_text(encoding="utf-8")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in pages()[1:]:
        assert f" {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"


def test_the_docs_have_runnable_examples():
    found = [(lang, code) for p in pages() for _, lang, code, ok in blocks(p.read_text(encoding="utf-8")) if ok]
    n_py = sum(lang == "python" for lang, _ in found)
    n_sh = sum(len([c for c in commands(code) if c[0] == "bayeseval"]) for lang, code in found if lang == "bash")
    assert n_py >= 20 and n_sh >= 15, (n_py, n_sh)


def run_python(namespace: dict, code: str, where: str) -> None:
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")  # examples show model-check warnings on purpose
        try:
            exec(compile(code, where, "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - name the block
            raise AssertionError(f"{where}: {type(e).__name__}: {e}") from e


def run_command(words: list[str], where: str) -> None:
    from bayeseval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("ignore")
        try:
            code = main(words[1:])
        except SystemExit as e:  # argparse (--help, a usage error)
            code = e.code
    assert code in (0, None), f"{where}: {shlex.join(words)} exited {code}: {err.getvalue()[-800:]}"


@pytest.mark.parametrize("page", [_param(p) for p in pages()])
def test_examples_run(page, in_sandbox):
    """Every runnable block of the page, in order: Python in one namespace, then ``bayeseval`` commands."""
    def too_long(*_):
        raise TimeoutError(f"{page.name}: the examples ran for more than {LIMIT} s (a server or endpoint not marked?)")

    namespace: dict = {"__name__": f"docs_{page.stem}"}
    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(LIMIT)
    try:
        _run_page(page, namespace)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _run_page(page: Path, namespace: dict) -> None:
    import matplotlib.pyplot as plt

    for line, lang, code, runnable in blocks(page.read_text(encoding="utf-8")):
        if not runnable:
            continue
        where = f"{page.name}, block at line {line}"
        if lang == "python":
            run_python(namespace, code, where)
            plt.close("all")
        elif lang == "bash":
            for words in commands(code):
                if words[0] == "bayeseval":
                    run_command(words, where)


NUMBER = re.compile(r'"(\w+)": (\[[-\d., e]+\]|-?\d+(?:\.\d+)?(?:e-?\d+)?)')


def _numbers(obj, key=None, out=None) -> list:
    """Every (key, number) of a JSON answer, numbers in lists under their list's key."""
    out = [] if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            _numbers(v, k, out)
    elif isinstance(obj, list):
        for v in obj:
            _numbers(v, key, out)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool) and key is not None:
        out.append((key, float(obj)))
    return out


def _shown(text: str) -> list:
    """(key, value, tolerance) of every number a documented answer shows, to the digits it shows."""
    out = []
    for key, lit in NUMBER.findall(text):
        for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", lit):
            digits = len(x.split("e")[0].split(".")[1]) if "." in x.split("e")[0] else 0
            out.append((key, float(x), 0.5 * 10.0 ** -digits + 1e-12 if "e" not in x else abs(float(x)) * 1e-3))
    return out


def test_the_service_page_shows_the_answers_the_service_gives():
    """Each curl example of docs/service.md with a JSON body and a JSON answer below it: the body is posted to the
    service, and every number the documented answer shows is in the real answer under the same key, to the
    digits shown (the page showed the previous default's intervals for a year of changes)."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    found = blocks((DOCS / "service.md").read_text(encoding="utf-8"))
    checked = 0
    with warnings.catch_warnings(), TestClient(create_app()) as client:
        warnings.simplefilter("ignore")
        for (line, lang, code, _), (_, lang2, answer, _) in zip(found, found[1:]):
            call = re.search(r"curl -s http://127\.0\.0\.1:8321(/v1/\w+) .*?-d '(\{.*?\})'", code, re.S)
            if lang != "bash" or lang2 != "json" or not call:
                continue
            got = _numbers(client.post(call.group(1), json=__import__("json").loads(call.group(2))).json())
            for key, value, tol in _shown(answer):
                assert any(k == key and abs(v - value) <= tol for k, v in got), \
                    f"service.md, line {line}: {call.group(1)} shows {key} {value}; the service gives " \
                    f"{sorted({round(v, 4) for k, v in got if k == key})}"
            checked += 1
    assert checked >= 4


def test_the_model_page_quotes_what_the_library_gives():
    """docs/model.md's numbers on Game of 24: the pool-free bounds warning of gpt-4 CoT's pass@200, and the
    ratio of population to benchmark widths (1.7x for pass@100 to 11x for avg, over the two models)."""
    import bayeseval as be

    page = " ".join((DOCS / "model.md").read_text(encoding="utf-8").split())
    data = be.load(ROOT / "examples" / "data" / "tot_game24.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = be.estimate(data.counts("gpt-4 CoT"), "pass@200")
        bound = next(w for w in est.warnings if w.startswith("without a population model"))
        ests = {(m, model, scope): be.estimate(data.counts(model), m, scope=scope)
                for m in ("avg", "pass@100") for model in data.models for scope in ("population", "benchmark")}
    width = {key: e.hi - e.lo for key, e in ests.items()}
    ratios = {m: [width[m, model, "population"] / width[m, model, "benchmark"] for model in data.models]
              for m in ("avg", "pass@100")}
    assert f"the estimate's interval [{est.lo:.3f}, {est.hi:.3f}]" in page
    assert bound.split(" (docs/model.md")[0] in page
    assert f"is {min(ratios['pass@100']):.1f}x (pass@100) to {max(ratios['avg']):.0f}x (avg) narrower" in page


def test_categorical_coverage_quoted_in_model_md_is_the_results_file():
    """docs/model.md's categorical coverage sentence quotes benchmarks/results_coverage_categorical.md: the exact
    intervals' average over all cells per scope, the worst cells and the independent Dirichlet's range."""
    md = (ROOT / "benchmarks" / "results_coverage_categorical.md").read_text(encoding="utf-8")
    flat = " ".join((ROOT / "docs" / "model.md").read_text(encoding="utf-8").split())
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): [c.strip() for c in line.split("|")[3:7]]
            for line in md.splitlines() if line.startswith(("| hierarchical-dirichlet |", "| dirichlet |"))}
    exact = {k: float(v[2].split("/")[1]) for k, v in rows.items()}
    worst = {k: re.match(r"(\d+) \(M=(\d+), N=(\d+), Dirichlet s=(\d+)\)", v[3]).groups() for k, v in rows.items()
             if k[0] == "hierarchical-dirichlet"}
    b, p = exact[("hierarchical-dirichlet", "benchmark")], exact[("hierarchical-dirichlet", "population")]
    assert f"{b:.1f} % (benchmark) and {p:.1f} % (population) on average for exact intervals" in flat
    wb, wp = worst[("hierarchical-dirichlet", "benchmark")], worst[("hierarchical-dirichlet", "population")]
    assert (f"worst cells {wb[0]} % in the benchmark scope (M = {wb[1]}, N = {wb[2]}, where `s` cannot be learnt; "
            f"Dirichlet s = {wb[3]}) and {wp[0]} % in the population scope (M = {wp[1]}, N = {wp[2]}, Dirichlet "
            f"s = {wp[3]})") in flat
    ind = [exact[("dirichlet", s)] for s in ("benchmark", "population")]
    assert f"the independent Dirichlet covers {round(min(ind))}-{round(max(ind))} %" in flat


def test_ragged_speed_quoted_in_honesty_md_is_the_results_file():
    """docs/honesty.md quotes benchmarks/results_ragged.md (robust avg in benchmark scope, the population range,
    the hierarchical cells); a re-run of the benchmark must carry the page with it."""
    md = (ROOT / "benchmarks" / "results_ragged.md").read_text(encoding="utf-8")
    flat = " ".join((ROOT / "docs" / "honesty.md").read_text(encoding="utf-8").split())
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines() if line.startswith("| 1,000 |")
            or line.startswith("| 3,000 |")]
    avg = {(r[0], r[3]): r for r in rows if r[2] == "avg"}
    b1, b3 = avg[("1,000", "benchmark")], avg[("3,000", "benchmark")]
    p1, p3 = avg[("1,000", "population")], avg[("3,000", "population")]
    assert (f"avg in benchmark scope at {float(b1[4]):.1f} s for 1,000 questions ({b1[1]} states) and "
            f"{float(b3[4]):.1f} s for 3,000 ({b3[1]} states), against {p1[4]}-{p3[4]} s in population scope; the "
            f"hierarchical prior takes {float(b1[5]):.1f} s and {float(b3[5]):.1f} s there") in flat


def test_calibration_numbers_quoted_are_the_results_table():
    """docs/comparisons.md and the results file's reading quote its summary table: the PIT's largest decile gaps,
    the deciles off by more than 2 MC se (stated and matched prior), and the wide spread's largest gap."""
    md = (ROOT / "benchmarks" / "results_calibration_pools.md").read_text(encoding="utf-8")
    flat_md = " ".join(md.split())
    doc = " ".join((ROOT / "docs" / "comparisons.md").read_text(encoding="utf-8").split())
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in md.split("## Stated P(A > B), the same")[1]
            .split("##")[0].splitlines() if line.startswith("| ") and not line.startswith("| pool")]
    assert len(rows) == 16
    beyond = lambda cell: int(cell.split(";")[1].strip(" )"))  # noqa: E731
    pit = [float(r[7]) for r in rows]
    assert f"largest decile gap {min(pit):.1f}-{max(pit):.1f} points" in doc
    assert f"largest decile gap {min(pit):.1f}-{max(pit):.1f} points" in flat_md
    assert (f"({sum(beyond(r[6]) for r in rows)} deciles off by more than 2 MC se over the 16 cells, against "
            f"{sum(beyond(r[5]) for r in rows)} for the stated probability)") in flat_md
    wide = [r for r in rows if r[3] == "1.0" and r[1] == "100"]
    gaps = [float(r[5].split()[0]) for r in wide]
    ses = [float(r[5].split("(")[1].split(";")[0]) for r in wide]
    assert round(max(g / s for g, s in zip(gaps, ses)), 1) <= 1.1  # "within 1.1 MC se"
    assert f"largest gap over the deciles of at least 50 replicates {min(gaps):.1f}-{max(gaps):.1f} points" in flat_md


def _pooled_gaps(path) -> dict:
    """{(M, N, ensemble, "stated" | "shrink=True"): (largest gap in points, Brier)} from a calibration_shrink
    results file's pooled tables (a file may hold several runs)."""
    out, key = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        head = re.match(r"## All pools, M = (\d+), N = (\d+), (.+): (stated|shrink=True) \(", line)
        if head:
            key = (int(head.group(1)), int(head.group(2)), head.group(3), head.group(4))
        found = re.match(r"Largest \|stated - observed\|: ([\d.]+) points; Brier score (\d+\.\d+)", line)
        if found and key:
            out[key] = (float(found.group(1)), float(found.group(2)))
    return out


def test_the_shrink_table_is_the_results_files():
    """docs/comparisons.md's table of compare_all(shrink=True) against the stated P(A > B): every row's gaps and
    Brier scores are the results files' pooled tables, and the counts in the prose hold."""
    doc = (ROOT / "docs" / "comparisons.md").read_text(encoding="utf-8")
    flat = " ".join(doc.split())
    res = {6: _pooled_gaps(ROOT / "benchmarks" / "results_calibration_shrink.md"),
           20: _pooled_gaps(ROOT / "benchmarks" / "results_calibration_shrink_k20.md")}
    names = {"N(0, 0.25^2)": "normal 0.25", "N(0, 1)": "normal 1.0"}
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in doc.split("## Many close models")[1]
            .split("\n## ")[0].splitlines() if re.match(r"\| (6|20) \|", line)]
    assert len(rows) == 7
    for k, size, shifts, stated, pooled, brier in rows:
        M, N = (int(x) for x in size.split(" x "))
        a, b = res[int(k)][(M, N, names[shifts], "stated")], res[int(k)][(M, N, names[shifts], "shrink=True")]
        assert (float(stated), float(pooled)) == (a[0], b[0]), (k, size, shifts)
        assert brier == f"{a[1]:.4f} / {b[1]:.4f}"
    settings = [(k, key[:3]) for k, r in res.items() for key in r if key[3] == "stated"]
    higher = [s for s in settings if res[s[0]][(*s[1], "shrink=True")][1] > res[s[0]][(*s[1], "stated")][1]]
    assert f"in {len(higher)} of the {len(settings)} settings measured" in flat
    assert (6, (30, 1, "normal 0.25")) in set(settings) - set(higher)
