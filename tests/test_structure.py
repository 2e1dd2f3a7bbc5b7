"""The house plan: layers that point one way, a light `import bayeseval`, count once / fit once.

The import graph is read from the package's own source (``ast``: every ``import`` and
``from ... import``, module level or inside functions), so a lazy import that runs upwards is
caught as well as a top-level one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bayeseval as be

PKG = Path(be.__file__).resolve().parent

# Layers from the bottom up; a module may import from its own layer or any layer below it.
LAYERS = [
    ("base", ["bayeseval.validate", "bayeseval._text", "bayeseval._protocol", "bayeseval.intervals",
              "bayeseval._argtypes", "bayeseval._json"]),
    ("counts", ["bayeseval.counts", "bayeseval.scores"]),
    ("metrics", ["bayeseval.metrics", "bayeseval.targets", "bayeseval.aisbench", "bayeseval.scorio"]),
    ("priors", ["bayeseval.priors"]),
    ("posterior", ["bayeseval.posterior"]),
    ("results", ["bayeseval.results"]),
    ("comparison", ["bayeseval.comparison", "bayeseval.pairwise", "bayeseval.classification", "bayeseval.rubric",
                    "bayeseval.sequential"]),
    ("mcmc", ["bayeseval.mcmc"]),
    ("io", ["bayeseval.io"]),
    ("report", ["bayeseval.report"]),
    ("runner", ["bayeseval.runner"]),
    ("shells", ["bayeseval.cli", "bayeseval.service"]),
]
CORE = {"base", "counts", "metrics", "priors", "posterior", "results", "comparison"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module: str) -> int | None:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + "."):
                best = i
    return best


def import_graph() -> dict[str, set[str]]:
    """module -> the bayeseval modules it imports (resolved to the deepest existing module)."""
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_pkg = path.name == "__init__.py"
        here = name.split(".") if is_pkg else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    root = here[: len(here) - (node.level - 1)]
                    base = ".".join(root + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t.startswith("bayeseval") and t != name and t != "bayeseval":
                    deps.add(t)
        graph[name] = deps
    return graph


def test_every_module_has_a_layer():
    graph = import_graph()
    assert len(graph) > 40
    unplaced = [m for m in graph if m != "bayeseval" and _layer(m) is None]
    assert not unplaced, f"modules without a layer: {unplaced}"


def test_no_module_imports_from_a_layer_above():
    graph = import_graph()
    upward = [(m, d) for m, deps in graph.items() if m != "bayeseval" for d in deps
              if _layer(d) is not None and _layer(m) is not None and _layer(d) > _layer(m)]
    assert not upward, f"imports that run up a layer: {upward}"


def test_the_core_never_imports_report_cli_or_service():
    graph = import_graph()
    core = [m for m in graph if m != "bayeseval" and LAYERS[_layer(m)][0] in CORE]
    bad = [(m, d) for m in core for d in graph[m]
           if d.startswith(("bayeseval.report", "bayeseval.cli", "bayeseval.service", "bayeseval.io"))]
    assert not bad


def test_no_import_cycle_between_modules():
    graph = import_graph()
    # Tarjan's strongly connected components; a package's __init__ re-exporting its children is not a cycle
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def edges(m):
        return [d for d in graph[m] if not (graph.get(d) is not None and m.startswith(d + "."))]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_import_bayeseval_loads_no_report_plots_or_mcmc():
    code = ("import sys, bayeseval; heavy = [m for m in ('bayeseval.report', 'bayeseval.report.tables', "
            "'bayeseval.report.plots', 'matplotlib', 'pymc', 'arviz', 'bayeseval.service', 'fastapi') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_no_module_is_shadowed_by_a_function():
    import importlib

    for name in ("compare", "plan", "estimate", "evaluate", "compare_all", "load"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"bayeseval.{name}")
    assert callable(be.compare) and callable(be.plan) and callable(be.load)
    assert be.__all__[:7] == ["estimate", "evaluate", "compare", "compare_all", "plan", "load", "to_counts"]
    from bayeseval import scorio

    assert set(scorio.__all__) <= set(be.__all__) and be.pass_at_k_ci is scorio.pass_at_k_ci


# ----------------------------------------------------------------------------- count once, fit once
@pytest.fixture
def spies(monkeypatch):
    """Count calls of to_counts (every module that imported it) and of the population fits (0/1: Beta or
    mixture, counted together as ``fit_beta``; categorical: Dirichlet)."""
    import bayeseval.counts as counts_mod
    import bayeseval.priors as priors

    calls = {"to_counts": 0, "fit_beta": 0, "fit_dirichlet": 0}
    real_counts = counts_mod.to_counts

    def counting(R, *a, **k):
        if not isinstance(R, counts_mod.Counts):  # a Counts passes through: only real counting is counted
            calls["to_counts"] += 1
        return real_counts(R, *a, **k)

    import bayeseval.io.outcomeset  # noqa: F401 - loaded, so that its to_counts is spied on too

    for name, mod in list(sys.modules.items()):  # every bayeseval module that imported to_counts
        if name.startswith("bayeseval") and mod is not None and getattr(mod, "to_counts", None) is real_counts:
            monkeypatch.setattr(mod, "to_counts", counting)
    real_beta, real_dir = priors.HierarchicalBeta.fit, priors.HierarchicalDirichlet.fit

    def fit_beta(*a, **k):
        calls["fit_beta"] += 1
        return real_beta(*a, **k)

    def fit_dir(*a, **k):
        calls["fit_dirichlet"] += 1
        return real_dir(*a, **k)

    real_mix = priors.BetaMixture.fit  # the default pool of 0/1 outcomes: counted with the Beta fits

    def fit_mix(*a, **k):
        calls["fit_beta"] += 1
        return real_mix(*a, **k)

    monkeypatch.setattr(priors.HierarchicalBeta, "fit", staticmethod(fit_beta))
    monkeypatch.setattr(priors.BetaMixture, "fit", staticmethod(fit_mix))
    monkeypatch.setattr(priors.HierarchicalDirichlet, "fit", staticmethod(fit_dir))
    return calls


def _binary(seed, M=60, N=4, shift=0.0):
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(1, 1, M) + shift, 0, 1)
    return (rng.random((M, N)) < p[:, None]).astype(int)


def test_evaluate_counts_each_model_once_and_fits_once(spies):
    data = {"a": _binary(1), "b": _binary(2)}
    ev = be.evaluate(data, ["avg", "pass@2", "pass^2", "maj@3"])
    assert len(ev) == 8
    assert spies["to_counts"] == 2  # one per model, not one per (model, metric)
    assert spies["fit_beta"] == 2  # one pool fit per model, shared by its four metrics


def test_evaluate_of_an_outcome_set_counts_each_run_once(spies):
    from bayeseval.io import OutcomeSet

    s = OutcomeSet.from_arrays({"a": _binary(3), "b": _binary(4)}, dataset="d")
    spies.update(to_counts=0)  # building the set checks each matrix; what follows is the evaluation
    ev = be.evaluate(s, ["avg", "pass@2"])
    ev2 = be.evaluate(s, ["pass^2"])
    assert len(ev) == 4 and len(ev2) == 2
    assert spies["to_counts"] == 2 and spies["fit_beta"] == 2  # Run.counts() is cached across calls


def test_graded_outcomes_fit_the_pooled_dirichlet_once(spies):
    rng = np.random.default_rng(5)
    R = rng.integers(0, 3, (40, 3))
    ev = be.evaluate({"g": R}, ["avg", ("avg", {"interval": "normal"})], w=[0, 0.5, 1])
    assert len(ev) == 2 and spies["to_counts"] == 1 and spies["fit_dirichlet"] == 1


def test_compare_counts_each_side_once(spies):
    be.compare(_binary(6), _binary(7, shift=0.1), seed=1, resamples=200)
    assert spies["to_counts"] == 2 and spies["fit_beta"] == 2


@pytest.mark.slow
def test_compare_all_counts_and_fits_each_model_once(spies):
    K = 6
    data = {f"m{j}": _binary(10 + j, shift=0.02 * j) for j in range(K)}
    rk = be.compare_all(data, seed=1, resamples=200)
    assert spies["to_counts"] == K and spies["fit_beta"] == K
    assert [(p["a"], p["b"]) for p in rk.pairs] == list(zip(rk.models, rk.models[1:]))  # adjacent by default
    spies.update(to_counts=0, fit_beta=0)
    rk_all = be.compare_all(data, seed=1, resamples=200, pairs="all")
    assert spies["to_counts"] == K and spies["fit_beta"] == K and len(rk_all.pairs) == K * (K - 1) // 2


def test_plan_counts_each_pilot_once(spies):
    be.plan(_binary(8), _binary(9))
    assert spies["to_counts"] == 2


def test_cli_report_counts_and_fits_once_per_run_whatever_the_metrics(spies, capsys):
    from bayeseval.cli import main
    from conftest import GAME24

    calls = []
    for metrics in ("avg", "avg,pass@10,pass^10,maj@10,pass@100"):
        spies.update(to_counts=0, fit_beta=0)
        assert main(["report", str(GAME24), "--metrics", metrics, "--quiet"]) == 0
        calls.append((spies["to_counts"], spies["fit_beta"]))
    capsys.readouterr()
    assert calls[0] == calls[1]  # five metrics count and fit exactly as often as one
    assert calls[1][1] == 2  # one hierarchical fit per run (two models)


def test_service_metrics_counts_and_fits_once_per_model(spies):
    pytest.importorskip("fastapi")
    from bayeseval.service import schemas, tasks

    A, Bm = _binary(30).tolist(), _binary(31).tolist()
    req = schemas.MetricsRequest(models={"a": {"matrix": A}, "b": {"matrix": Bm}}, metrics=["avg", "pass@2", "pass^2"])
    out = tasks.metrics(req)
    assert len(out["estimates"]) == 6
    assert spies["to_counts"] == 2 and spies["fit_beta"] == 2
