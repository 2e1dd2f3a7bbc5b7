"""The first run tells the story; missing extras are named before any work; rank is compact; the service's
``/docs`` works offline and ``/v1/rank`` takes as many models as the CLI.

* ``bayeseval demo`` ends with CoT against IO per metric (P(CoT > IO), the verdict), and no value that only
  rounds to 0 or 100 is printed as ``0.0`` / ``100.0`` (there, or in ``report``'s terminal / Markdown tables);
* with an extra's module hidden (``sys.modules[name] = None`` in a subprocess), the command fails at once: exit 2,
  one line on stderr naming ``pip install 'bayeseval[EXTRA]'``, nothing on stdout;
* ``bayeseval rank``: one line per model (the adjacent pair's test on it), ``--top K``, ``--pairs all``, ``--plot``;
* the service: ``/docs`` references only its own server's URLs, each of which answers 200 (no ``/redoc``)
  (also with an API key configured), and ``/v1/rank`` ranks 19 models exactly as the library does.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bayeseval as B
from bayeseval import cli
from bayeseval.report.tables import fmt_near

ROOT = Path(__file__).resolve().parents[1]
GAME24 = ROOT / "examples" / "data" / "tot_game24.json"


def run_cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def models(n: int, M: int = 60, N: int = 4, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    return {f"model-{j:02d}": (rng.random((M, N)) < np.clip(p + 0.012 * j - 0.1, 0, 1)[:, None]).astype(int)
            for j in range(n)}


def write_long(path: Path, data: dict) -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "question", "trial", "score"])
        for name, R in data.items():
            for q, row in enumerate(R):
                for t, x in enumerate(row):
                    w.writerow([name, q, t, int(x)])
    return path


# ----------------------------------------------------------------------------- numbers near 0 and 100
@pytest.mark.parametrize("digits", [1, 2, 3])
def test_values_rounding_to_a_bound_never_print_as_the_bound(digits):
    xs = np.concatenate([[0.0, 1.0], np.geomspace(1e-15, 0.2, 300), 1 - np.geomspace(1e-15, 0.2, 300)])
    for x in xs:
        s = fmt_near(float(x), digits, 100.0, top=100.0)
        bound = f"{0:.{digits}f}", f"{100:.{digits}f}"
        if s in bound:
            assert x in (0.0, 1.0), (x, s)  # only an exact 0 or 1 prints as 0.0 / 100.0
        elif s.startswith(("<", ">")):
            assert (x < 1e-6 and s.startswith("<")) or (x > 1 - 1e-6 and s.startswith(">"))
        else:
            v = float(s)
            assert v == pytest.approx(100 * x, rel=0.05, abs=0.5 * 10.0 ** -digits)
            near = min(100 * x, 100 - 100 * x)
            if 10.0 ** -(digits + 3) <= near < 0.5 * 10.0 ** -digits:  # two significant digits of the distance
                assert min(v, 100 - v) == pytest.approx(near, rel=0.06)
            elif near < 0.5 * 10.0 ** -digits:  # at digits + 4 decimals: the last one, rounded
                assert min(v, 100 - v) == pytest.approx(near, abs=0.5 * 10.0 ** -(digits + 4))
    assert fmt_near(0.4489, 1, 100.0, top=100.0) == "44.9"  # other values: unchanged


def test_report_tables_show_digits_for_tiny_rates():
    code, out, _ = run_cli("report", str(GAME24), "--metrics", "pass^10", "--scope", "benchmark", "--quiet")
    assert code == 0
    cot = next(line for line in out.splitlines() if line.startswith("gpt-4 CoT"))
    assert "0.00092" in cot and " 0.0 [" not in cot  # CoT's pass^10 = 9.16e-6: not "0.0"
    code, md, _ = run_cli("report", str(GAME24), "--metrics", "pass^10", "--scope", "benchmark", "--format",
                          "markdown", "--quiet")
    assert "| gpt-4 CoT | 0.00092 [" in md
    code, tex, _ = run_cli("report", str(GAME24), "--metrics", "pass^10", "--scope", "benchmark", "--format",
                           "latex", "--quiet")
    assert code == 0 and "gpt-4 CoT & 0.00092 [" in tex  # the paper table too: a rate near 0 is not "0.0"


# ----------------------------------------------------------------------------- demo
def test_demo_ends_with_the_comparison_and_no_false_zeros():
    code, out, err = run_cli("demo")
    assert code == 0
    # the few-questions warnings are said once, on stdout beside the table (stderr had six 600-character lines:
    # each twice, the comparison's exact interval repeating the table's)
    assert "rests on about" not in err
    assert "Few tasks (or none) carry gpt-4 IO pass^10, gpt-4 CoT pass^10, gpt-4 CoT maj@10 away from 0 or 1" in out
    story = out[out.index("gpt-4 CoT against gpt-4 IO"):]
    assert "P(gpt-4 CoT > gpt-4 IO)" in story
    data = B.io.read_outcomes(GAME24)
    for metric in cli.DEMO_METRICS:
        c = B.compare(data.counts("gpt-4 CoT"), data.counts("gpt-4 IO"), metric=metric, names=("gpt-4 CoT", "gpt-4 IO"))
        row = next(line for line in story.splitlines() if line.split()[:1] == [metric])
        assert f"{100 * c.delta.mean:+.1f}" in row and c.verdict in row
        assert cli._prob(c.p_a_better) in row
    assert "In short: gpt-4 CoT is better on pass@100;" in story  # the published ToT finding, with its caveats
    assert "gpt-4 IO is better on avg" in story
    table = out[:out.index("gpt-4 CoT against")]
    cot = next(line for line in table.splitlines() if line.startswith("gpt-4 CoT  pass^10"))
    assert "0.00092" in cot
    _, rows = cli._demo_rows(GAME24, 0.95)
    for _, _, value, _, pop, bench in rows:  # a printed 0.0 / 100.0 is exact
        for x in (value, pop.lo, pop.hi, bench.lo, bench.hi):
            if cli._pct(x) in ("0.0", "100.0"):
                assert x in (0.0, 1.0)
    code, js, _ = run_cli("demo", "--format", "json")
    doc = json.loads(js)
    assert [c["metric"] for c in doc["comparisons"]] == list(cli.DEMO_METRICS)
    assert {(c["a"], c["b"]) for c in doc["comparisons"]} == {("gpt-4 CoT", "gpt-4 IO")}


# ----------------------------------------------------------------------------- missing extras
HIDE = ("import sys\nfor m in sys.argv[1].split(','):\n    sys.modules[m] = None\n"
        "from bayeseval.cli import main\nsys.exit(main(sys.argv[2:]))")


@pytest.mark.parametrize("hidden, argv, extra", [
    ("matplotlib", ["report", str(GAME24), "--plot", "{tmp}/f.png"], "plots"),
    ("matplotlib", ["rank", str(GAME24), "--plot", "{tmp}/r.png"], "plots"),
    ("matplotlib", ["compare", "--data", str(GAME24), "gpt-4 CoT", "gpt-4 IO", "--plot", "{tmp}/d.png"], "plots"),
    ("fastapi,uvicorn", ["serve", "--port", "1"], "service"),
    ("duckdb", ["report", str(GAME24), "--engine", "duckdb"], "scale"),
])
def test_missing_extra_is_named_before_any_work(tmp_path, hidden, argv, extra):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    r = subprocess.run([sys.executable, "-c", HIDE, hidden, *argv], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""  # nothing loaded, estimated or printed first
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayeseval: error: ")
    assert f"pip install 'bayeseval[{extra}]'" in lines[0] and hidden.split(",")[0] in lines[0]
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------- rank, compact
def test_rank_is_one_line_per_model_with_top_and_all_pairs(tmp_path):
    path = write_long(tmp_path / "m19.csv", models(19))
    code, out, _ = run_cli("rank", str(path), "--quiet", "--resamples", "500")
    assert code == 0
    lines = out.strip().splitlines()
    table = lines[lines.index(next(x for x in lines if x.startswith("rank "))):]
    assert len(table) == 2 + 19 and len(lines) < 26  # header, rule, 19 models (not 171 pair rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rk = B.compare_all(models(19), resamples=500)
    for i, (line, m) in enumerate(zip(table[2:], rk.models)):
        cells = line.split()
        assert cells[:3] == [str(i + 1), m, f"{rk.scores[m].value:.4f}"]
        if i < 18:
            pair = rk.pairs[i]
            assert (pair["a"], pair["b"]) == (m, rk.models[i + 1])
            assert cells[-3:] == [f"{pair['delta']:+.4f}", cli._prob(pair["p_a_better"]), f"{pair['p_holm']:.3f}"
                                  if pair["p_holm"] >= 0.001 else "<0.001"]
        else:
            assert cells[-3:] == ["-", "-", "-"]
    code, out, _ = run_cli("rank", str(path), "--quiet", "--resamples", "500", "--top", "5", "--plot",
                           str(tmp_path / "rank.png"))
    assert code == 0 and "the top 5 of 19 models" in out
    assert len([x for x in out.splitlines() if re.match(r"\s*\d+\s+model-", x)]) == 5
    assert (tmp_path / "rank.png").read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run_cli("rank", str(path), "--quiet", "--resamples", "200", "--pairs", "all", "--top", "4")
    assert code == 0
    assert len([x for x in out.splitlines() if re.match(r"model-\d+\s+model-", x)]) == 6  # 4 choose 2
    with pytest.raises(SystemExit) as exc:  # argparse: "argument --top: expected an integer >= 1, got '0'"
        run_cli("rank", str(path), "--top", "0")
    assert exc.value.code == 2


# ----------------------------------------------------------------------------- service
@pytest.fixture(scope="module")
def service(live_service):
    httpx = pytest.importorskip("httpx")
    with httpx.Client(base_url=live_service, timeout=120) as c:
        yield c


def local_urls(html: str) -> list[str]:
    """Every URL a docs page loads: src= / href= attributes, spec-url=, and Swagger UI's ``url:``."""
    found = re.findall(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']""", html)
    found += re.findall(r"""\burl:\s*['"]([^'"]+)['"]""", html)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("page", ["/docs"])
def test_docs_pages_need_no_internet(service, page):
    assert service.get("/redoc").status_code == 404  # ReDoc's script would fetch its logo from a CDN: not served
    r = service.get(page)
    assert r.status_code == 200
    html = r.text
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", html, re.I), "the page loads something from another host"
    urls = local_urls(html)
    assert any(u.endswith(".js") for u in urls) and "/openapi.json" in urls
    for u in urls:
        assert u.startswith("/")
        got = service.get(u)
        assert got.status_code == 200, u
        assert len(got.content) > 1000 or u.endswith(".png")


def test_docs_assets_open_with_an_api_key():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from bayeseval.service.app import create_app
    from bayeseval.service.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's TestClient deprecation note
        client = TestClient(create_app(Settings(workers=0, api_key="secret")))
    html = client.get("/docs").text
    for u in local_urls(html):
        assert client.get(u).status_code == 200, u
    assert client.get("/v1/catalog").status_code == 401  # the API itself stays locked
    assert client.get("/docs/static/../v1/catalog").status_code in (401, 404)


@pytest.mark.slow
def test_rank_endpoint_takes_19_models_like_the_cli(service):
    data = models(19, M=40)
    body = {"models": {k: {"matrix": v.tolist()} for k, v in data.items()}, "seed": 3, "resamples": 500,
            "draws": 1000}
    r = service.post("/v1/rank", json=body)
    assert r.status_code == 200, r.text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib = B.compare_all(data, seed=3, resamples=500, draws=1000)
    got = r.json()
    assert [m["model"] for m in got["models"]] == lib.models
    assert [m["p_best"] for m in got["models"]] == [lib.p_best[m] for m in lib.models]
    assert [(p["a"], p["b"], p["p_holm"]) for p in got["pairs"]] == [(p["a"], p["b"], p["p_holm"]) for p in lib.pairs]
    from bayeseval.service.schemas import LIMITS

    too_many = {"models": {f"m{i}": {"matrix": [[1, 0]]} for i in range(LIMITS["rank_models"] + 1)}}
    r = service.post("/v1/rank", json=too_many)
    assert r.status_code == 422 and r.json()["error"]["field"] == "models"


def test_review_of_issue_19_scores_html_headline_and_top_pairs(tmp_path):
    """Defects a review found: --html on scores crashed; the comparison headline printed 0.0000 for 9e-6;
    rank --top 1 --pairs all printed an empty pair table; p-values and P columns had three formats."""
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(m, q, t, float(rng.random())) for m in ("a", "b") for q in range(20) for t in range(3)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_csv(path, index=False)
    code, _, err = run_cli("report", str(path), "--scores", "--html", str(tmp_path / "s.html"), "--quiet")
    assert code == 0 and (tmp_path / "s.html").read_text().startswith("<!DOCTYPE html>"), err
    code, out, err = run_cli("report", str(path), "--scores", "--plot-pass-k", str(tmp_path / "p.png"), "--quiet")
    assert code == 2 and err.count("\n") == 1 and "needs 0/1 outcomes" in err
    code, out, _ = run_cli("compare", "--data", str(GAME24), "gpt-4 CoT", "gpt-4 IO", "--metric", "pass^10",
                           "--resamples", "200", "--quiet")
    assert code == 0 and "gpt-4 CoT 0.0000092 vs gpt-4 IO 0.0116" in out
    code, out, _ = run_cli("rank", str(GAME24), "--top", "1", "--pairs", "all", "--resamples", "200", "--quiet")
    assert code == 0 and "No tested pair has both models among the 1 shown" in out
    from bayeseval._text import fmt_prob
    from bayeseval.report.plots import _p

    assert fmt_prob(0.0, drawn=True) == "<0.001" and _p(0.0) == "<0.01" and _p(0.5) == "0.50"


def test_the_demo_data_ships_inside_the_package():
    """After `pip install .` (no clone) the demo said 'demo data not found at .../site-packages/examples/...': its
    data are package data now, and examples/data/tot_game24.json is the same file in a clone."""
    root = Path(B.__file__).resolve().parent
    assert cli.DEMO_FILE.resolve().parent == root / "data" and cli.DEMO_FILE.exists()
    assert (root.parent / "examples" / "data" / "tot_game24.json").resolve() == cli.DEMO_FILE.resolve()
    assert (root / "data" / "LICENSE-tree-of-thought-llm.txt").read_text(encoding="utf-8") == \
        (root.parent / "examples" / "data" / "LICENSE-tree-of-thought-llm.txt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_wheel_holds_the_demo_data(tmp_path):
    import subprocess
    import zipfile

    root = Path(B.__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(tmp_path), str(root)], check=True, capture_output=True)
    names = zipfile.ZipFile(next(tmp_path.glob("bayeseval-*.whl"))).namelist()
    assert {"bayeseval/data/tot_game24.json", "bayeseval/data/LICENSE-tree-of-thought-llm.txt"} <= set(names)


def test_demo_data_other_files_get_their_metrics_or_a_command_that_reads_them(capsys):
    """--data on the other bundled outcome files: two failed with errors naming options demo lacks ('pass
    dataset=', '--R', '--w'), and tau-bench's 4 trials got pass@100 and Game of 24's text."""
    data = Path(__file__).parents[1] / "examples" / "data"
    assert cli.main(["demo", "--data", str(data / "cruxeval.json")]) == 2
    err = capsys.readouterr().err
    assert "holds 2 datasets (CRUXEval-I, CRUXEval-O)" in err and "--datasets NAME" in err
    assert cli.main(["demo", "--data", str(data / "tot_text.json")]) == 2
    assert "graded or scored outcomes" in capsys.readouterr().err
    assert cli.main(["demo", "--data", str(data / "tau_bench_airline.json"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["metric"] for r in doc["rows"]] == ["avg", "pass@4", "pass^4", "maj@4"]
    pass4 = next(r for r in doc["rows"] if r["metric"] == "pass^4")
    assert pass4["value"] == pytest.approx(0.2) and pass4["published"] == pytest.approx(0.2)
    assert cli.main(["demo", "--data", str(data / "tau_bench_airline.json")]) == 0
    out = capsys.readouterr().out
    assert "For pass@4 with 4 samples per task" in out and "pass@100" not in out
