"""The HTTP service over real HTTP: uvicorn on a free loopback port, httpx as the client.

Every endpoint's numbers equal the library's (same inputs, same seeds, exact float equality after
the JSON round trip), and every class of bad input gets a 4xx with a JSON body naming the field.
"""

from __future__ import annotations

import io
import json
import math
import os
import socket
import stat
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import bayeseval as B  # noqa: E402
from bayeseval.io.aisbench import read_aisbench  # noqa: E402
from bayeseval.service import schemas as S  # noqa: E402
from bayeseval.service.settings import Settings  # noqa: E402
from bayeseval.service.testing import running  # noqa: E402

DATA = Path(__file__).parent / "data" / "service"
WORK = DATA / "aisbench_work" / "20260326_151326"
from conftest import LIVE  # noqa: E402 - the shared live server's settings

MAX_BODY, MAX_CELLS, TIMEOUT, MAX_UNZIPPED = LIVE["max_body"], LIVE["max_cells"], LIVE["timeout"], LIVE["max_unzipped"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def url(live_service):
    return live_service


@pytest.fixture(scope="module")
def client(url):
    with httpx.Client(base_url=url, timeout=120) as c:
        yield c


def jsonable(x):
    """What the library's dict looks like after a JSON round trip (non-finite floats -> null)."""
    def fix(v):
        if isinstance(v, dict):
            return {str(k): fix(u) for k, u in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(u) for u in v]
        if isinstance(v, (float, np.floating)):
            return float(v) if math.isfinite(v) else None
        if isinstance(v, np.integer):
            return int(v)
        return v
    return json.loads(json.dumps(fix(x)))


def error_of(r, status, field=None, type_=None):
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert set(err) == {"type", "field", "message", "details"}
    if field is not None:
        assert err["field"] == field, err
    if type_ is not None:
        assert err["type"] == type_, err
    return err


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    p = rng.beta(2, 2, 120)
    A = (rng.random((120, 6)) < np.clip(p + 0.1, 0, 1)[:, None]).astype(int)
    Bm = (rng.random((120, 6)) < p[:, None]).astype(int)
    C = (rng.random((120, 6)) < np.clip(p - 0.1, 0, 1)[:, None]).astype(int)
    return A, Bm, C


# ----------------------------------------------------------------------------- plumbing
def test_healthz_catalog_openapi_docs(client):
    assert client.get("/healthz").json() == {"status": "ok", "version": B.__version__}
    cat = S.CatalogResponse.model_validate(client.get("/v1/catalog").json()).model_dump()
    names = [m["name"] for m in cat["metrics"]]
    assert set(B.targets.NAMES) <= set(names)
    assert cat["limits"]["max_cells"] == MAX_CELLS and cat["limits"]["api_key_required"] is False
    assert cat["estimate_intervals"] == ["auto", *cat["intervals"], "bootstrap-t", "exact+bootstrap-t",
                                         "exact+binomial", "exact+betting"]
    schema = client.get("/openapi.json").json()
    assert {"/v1/metrics", "/v1/compare", "/v1/monitor", "/v1/rank", "/v1/plan", "/v1/aisbench", "/v1/catalog",
            "/healthz"} <= set(schema["paths"])
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


# ----------------------------------------------------------------------------- numbers equal the library's
def test_metrics_equal_library(client, data):
    A, Bm, _ = data
    metrics = ["avg", "pass@4", "pass^2", "maj@5", {"name": "g-pass@k", "k": 4, "tau": 0.5}, "bayes",
               {"payoff": [0, 0.5, 1]}]
    body = {"models": {"new": {"matrix": A.tolist()}, "base": {"matrix": Bm.tolist()}}, "metrics": metrics,
            "scope": "population", "interval": "hdi", "level": 0.9, "seed": 11}
    r = client.post("/v1/metrics", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    expected = []
    for name, R in (("new", A), ("base", Bm)):
        for m in metrics:
            metric, params = (m, {}) if isinstance(m, str) else (m.get("name", m.get("payoff")),
                                                                   {k: v for k, v in m.items() if k not in ("name", "payoff")})
            expected.append(B.estimate(R, metric, scope="population", interval="hdi", level=0.9, seed=11, model=name,
                                       **params).to_dict())
    assert got["estimates"] == jsonable(expected)
    assert got["warnings"] == []
    S.MetricsResponse.model_validate(got)  # the documented response shape


def test_metrics_bootstrap_t_interval_equals_library_and_refusals_name_the_field(client):
    """``interval: "bootstrap-t"`` on /v1/metrics gives the library's studentized bootstrap (same draws = resamples
    and seed); in benchmark scope it is a 422 naming why, and the HTML report's curves and ranking say that they
    show posterior intervals."""
    rng = np.random.default_rng(3)
    R = (rng.random((30, 16)) < rng.beta(2, 5, 30)[:, None]).astype(int)
    body = {"models": {"m": {"matrix": R.tolist()}}, "metrics": ["pass@8", "avg"], "interval": "bootstrap-t",
            "seed": 5, "draws": 2000}
    r = client.post("/v1/metrics", json=body)
    assert r.status_code == 200, r.text
    got = r.json()["estimates"]
    want = [B.estimate(R, m, interval="bootstrap-t", seed=5, draws=2000, model="m").to_dict() for m in ("pass@8", "avg")]
    assert got == jsonable(want) and got[0]["interval"] == "bootstrap-t"
    hull = client.post("/v1/metrics", json={**body, "interval": "exact+bootstrap-t"}).json()["estimates"]
    assert hull == jsonable([B.estimate(R, m, interval="exact+bootstrap-t", seed=5, draws=2000, model="m").to_dict()
                             for m in ("pass@8", "avg")])
    err = error_of(client.post("/v1/metrics", json={**body, "scope": "benchmark"}), 422, "interval")
    assert "population scope" in err["message"]
    err = error_of(client.post("/v1/metrics", json={**body, "interval": "exact+betting", "scope": "benchmark"}), 422,
                   "interval")
    assert "exact+betting treats the questions as a sample" in err["message"]
    sparse = np.zeros((30, 16), dtype=int)
    sparse[0], sparse[1, :12] = 1, 1
    auto = client.post("/v1/metrics", json={"models": {"s": {"matrix": sparse.tolist()}}, "metrics": ["pass^8"],
                                            "seed": 5, "draws": 2000})
    assert auto.status_code == 200, auto.text
    got = auto.json()["estimates"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = B.estimate(sparse, "pass^8", seed=5, draws=2000, model="s").to_dict()
    assert got == jsonable(want) and got["interval"] == "exact+binomial"
    assert any("this interval holds Clopper-Pearson's interval on the questions' summed scores" in w
               for w in got["warnings"])
    one = client.post("/v1/metrics", json={**body, "metrics": ["pass@8", "pass@32"]})  # k > n: that row falls back
    assert one.status_code == 200, one.text
    p8, p32 = one.json()["estimates"]
    assert (p8["interval"], p32["interval"]) == ("bootstrap-t", "exact")
    assert any("bootstrap-t interval does not apply" in w for w in p32["warnings"])
    error_of(client.post("/v1/compare", json={"a": body["models"]["m"], "b": body["models"]["m"],
                                              "interval": "bootstrap-t"}), 422, "interval")
    page = client.post("/v1/report.html", json={**body, "draws": 400,  # the page's words, not its numbers: few
                                                "models": {"m": body["models"]["m"],  # draws keep it well inside
                                                           "n": {"matrix": (1 - R).tolist()}}})  # the 5 s limit
    assert page.status_code == 200, page.text
    assert "studentized-bootstrap confidence interval" in page.text
    assert "the pass@k curves: equal-tailed posterior intervals" in page.text
    assert "the ranking: equal-tailed posterior intervals" in page.text


def test_metrics_carry_the_model_check(client):
    """Every question solved in exactly 8 of 16 trials: the model check fails; the estimate and the response say so."""
    R = np.zeros((60, 16), int)
    R[:, :8] = 1
    r = client.post("/v1/metrics", json={"models": {"half": {"matrix": R.tolist()}}, "metrics": ["avg", "pass@20"]})
    assert r.status_code == 200, r.text
    got = r.json()
    avg, p20 = got["estimates"]
    assert any("not exchangeable" in w for w in avg["warnings"])
    assert any("extrapolates with the population model" in w for w in p20["warnings"])
    assert any("not exchangeable" in w for w in got["warnings"])
    S.MetricsResponse.model_validate(got)


def test_metrics_missing_ragged_counts_and_weights_equal_library(client):
    rows = [[1, 0, None, 1], [0, 0, 1], [1, 1, 1, 1], [None, 1]]
    arr = np.array([[1, 0, np.nan, 1], [0, 0, 1, np.nan], [1, 1, 1, 1], [np.nan, 1, np.nan, np.nan]])
    table = [[3, 1], [1, 3], [2, 2], [0, 4]]
    graded = [[0, 1, 2], [2, 2, 1], [1, 0, 0]]
    w = [0.0, 0.5, 1.0]
    body = {"models": {"ragged": {"matrix": rows, "ids": ["q1", "q2", "q3", "q4"]},
                       "table": {"counts": table},
                       "graded": {"matrix": graded, "weights": w}},
            "metrics": ["avg"], "scope": "benchmark", "interval": "normal", "prior": "uniform"}
    r = client.post("/v1/metrics", json=body)
    assert r.status_code == 200, r.text
    kw = dict(scope="benchmark", interval="normal", prior="uniform")
    expected = [
        B.estimate(B.to_counts(arr, missing=np.nan), "avg", model="ragged", **kw).to_dict(),
        B.estimate(B.Counts.from_table(table), "avg", model="table", **kw).to_dict(),
        B.estimate(np.array(graded), "avg", w=w, model="graded", **kw).to_dict(),
    ]
    assert r.json()["estimates"] == jsonable(expected)
    assert r.json()["estimates"][0]["N"] == [1, 4]


def test_compare_equals_library(client, data):
    A, Bm, _ = data
    body = {"a": {"matrix": A.tolist()}, "b": {"matrix": Bm.tolist()}, "names": ["new", "base"],
            "metric": "pass@2", "rope": 0.05, "seed": 3, "resamples": 2000, "level": 0.9}
    r = client.post("/v1/compare", json=body)
    assert r.status_code == 200, r.text
    lib = B.compare(A, Bm, metric="pass@2", rope=0.05, seed=3, resamples=2000, level=0.9, names=("new", "base"))
    assert r.json() == {**jsonable(lib.to_dict()), "warnings": []}
    S.CompareResponse.model_validate(r.json())


def test_monitor_equals_the_sequential_library_and_names_bad_rules(client, data):
    """POST /v1/monitor: SequentialCompare over the rows (questions in run order), b put in a's order by id."""
    from bayeseval.sequential import SequentialCompare, question_values

    A, Bm, _ = data
    body = {"a": {"matrix": A.tolist()}, "b": {"matrix": Bm.tolist()}, "names": ["new", "base"],
            "metric": "pass@2", "until": "decided or equivalent within 0.05", "alpha": 0.1}
    r = client.post("/v1/monitor", json=body)
    assert r.status_code == 200, r.text
    xa, _ = question_values(A, "pass@2")
    xb, _ = question_values(Bm, "pass@2")
    lib = SequentialCompare(alpha=0.1, until="decided or equivalent within 0.05", names=("new", "base")).update(
        xa, xb, samples=6)
    got = r.json()
    assert {k: got[k] for k in ("decision", "stopped_at", "samples_at_stop", "lower", "upper", "questions")} == {
        "decision": lib.decision, "stopped_at": lib.stopped_at, "samples_at_stop": lib.samples_at_stop,
        "lower": lib.lower, "upper": lib.upper, "questions": 120}
    assert len(got["path"]["lower"]) == 120 and got["warnings"] == []
    ids = [f"q{i}" for i in range(len(A))]  # b in another order, paired by id: the same answer
    order = np.random.default_rng(2).permutation(len(A))
    shuffled = {**body, "a": {"matrix": A.tolist(), "ids": ids},
                "b": {"matrix": Bm[order].tolist(), "ids": [ids[i] for i in order]}}
    assert client.post("/v1/monitor", json=shuffled).json()["stopped_at"] == lib.stopped_at
    error_of(client.post("/v1/monitor", json={**body, "until": "width 0,05"}), 422, "until")
    error_of(client.post("/v1/monitor", json={**body, "until": "x" * 201}), 422, "until")
    error_of(client.post("/v1/monitor", json={**body, "metric": "pass@7"}), 422, "metric")


def test_compare_pairs_by_question_id(client, data):
    import pandas as pd

    A, Bm, _ = data
    ids = [f"q{i}" for i in range(len(A))]
    order = np.random.default_rng(1).permutation(len(A))
    body = {"a": {"matrix": A.tolist(), "ids": ids},
            "b": {"matrix": Bm[order].tolist(), "ids": [ids[i] for i in order]}, "seed": 5, "resamples": 1000}
    r = client.post("/v1/compare", json=body)
    assert r.status_code == 200, r.text
    lib = B.compare(pd.DataFrame(A, index=ids), pd.DataFrame(Bm[order], index=[ids[i] for i in order]), seed=5,
                    resamples=1000)
    assert r.json()["delta"] == jsonable(lib.to_dict())["delta"]
    plain = B.compare(A, Bm, seed=5, resamples=1000)  # the same pairing as rows in the same order
    assert r.json()["delta"]["mean"] == pytest.approx(plain.delta.mean, abs=1e-12)


def test_rank_equals_library(client, data):
    A, Bm, C = data
    models = {"a": A, "b": Bm, "c": C}
    body = {"models": {k: {"matrix": v.tolist()} for k, v in models.items()}, "metric": "avg", "seed": 1,
            "resamples": 1000, "draws": 2000}
    r = client.post("/v1/rank", json=body)
    assert r.status_code == 200, r.text
    lib = B.compare_all(models, metric="avg", seed=1, resamples=1000, draws=2000)
    assert r.json() == {**jsonable(lib.to_dict()), "warnings": []}
    assert [m["model"] for m in r.json()["models"]] == ["a", "b", "c"]
    S.RankResponse.model_validate(r.json())


def test_plan_equals_library(client, data):
    A, Bm, _ = data
    r = client.post("/v1/plan", json={"a": {"matrix": A.tolist()}, "b": {"matrix": Bm.tolist()}, "delta": 0.05,
                                      "power": 0.9})
    assert r.status_code == 200, r.text
    assert r.json() == {**jsonable(B.plan(A, Bm, delta=0.05, power=0.9).to_dict()), "warnings": []}
    S.PlanResponse.model_validate(r.json())
    r1 = client.post("/v1/plan", json={"a": {"counts": B.to_counts(A).table.tolist()}})
    assert r1.status_code == 200 and r1.json()["sigma_b2"] == B.plan(A).sigma_b2


# ----------------------------------------------------------------------------- AISBench upload
def zip_of(folder: Path, prefix: str = "") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, prefix + p.relative_to(folder).as_posix())
    return buf.getvalue()


def test_aisbench_zip_corrects_grouping_bug(client):
    r = client.post("/v1/aisbench", files={"file": ("run.zip", zip_of(WORK, "20260326_151326/"), "application/zip")},
                    params={"seed": 4})
    assert r.status_code == 200, r.text
    out = r.json()
    S.AISBenchResponse.model_validate(out)
    run = out["runs"][0]
    assert (run["dataset"], run["model"], run["M"], run["N"]) == ("demo_gsm8k", "vllm-api-general-chat", 4, 3)
    assert run["grouping"] == "regrouped"
    assert run["reported"]["cons@3"] == 75.0 and run["corrected"]["cons@3"] == 100.0
    assert run["reported"]["avg@3"] == run["corrected"]["avg@3"] == 75.0
    assert any("grouped the 3 replicas" in w and "cons@3: AISBench reported 75.00, corrected 100.00" in w
               for w in out["warnings"])
    ests = {e["metric"]: e for e in run["estimates"]}
    assert set(ests) == {"avg@n", "pass@3", "cons@3"} and ests["cons@3"]["value"] == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = read_aisbench(WORK)
    lib = B.estimate(s.counts("vllm-api-general-chat"), "cons@3", model="vllm-api-general-chat", seed=4)
    assert ests["cons@3"] == jsonable({**lib.to_dict(), "dataset": "demo_gsm8k"})
    assert "cons@3,gen,100.00" in out["summary_csv"] and out["summary_csv"].rstrip().endswith(",75.00")
    assert "/tmp" not in r.text  # no server paths leak


def test_aisbench_regroup_false_and_chosen_metrics(client):
    r = client.post("/v1/aisbench", files={"file": ("run.zip", zip_of(WORK), "application/zip")},
                    params={"regroup": "false", "metrics": "avg, pass@2", "scope": "benchmark", "interval": "normal"})
    assert r.status_code == 200, r.text
    run = r.json()["runs"][0]
    assert run["grouping"] == "aisbench" and run["corrected"]["cons@3"] == 75.0
    assert [e["metric"] for e in run["estimates"]] == ["avg", "pass@2"]


def _zip(entries) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info, payload in entries:
            z.writestr(info, payload)
    return buf.getvalue()


def test_aisbench_refuses_unsafe_archives(client):
    def post(payload):
        return client.post("/v1/aisbench", files={"file": ("x.zip", payload, "application/zip")})

    err = error_of(post(_zip([("../escape.json", "{}")])), 422, "file", "bad_archive")
    assert "outside the extraction folder" in err["message"]
    error_of(post(_zip([("a/../../escape.json", "{}")])), 422, "file", "bad_archive")
    error_of(post(_zip([("/etc/passwd", "x")])), 422, "file", "bad_archive")
    link = zipfile.ZipInfo("results/link")
    link.create_system = 3
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    err = error_of(post(_zip([(link, "/etc/passwd")])), 422, "file", "bad_archive")
    assert "symbolic link" in err["message"]
    error_of(post(b"this is not a zip"), 422, "file", "bad_archive")
    error_of(post(_zip([("readme.txt", "hello")])), 422, "file", "bad_archive")  # no work dir inside
    # zip bomb: 40 MiB of zeros compresses to 40 kB; refused from the declared size before unpacking
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("bomb.bin", "w") as f:
            chunk = b"\0" * (1 << 20)
            for _ in range(40):
                f.write(chunk)
    assert len(buf.getvalue()) < MAX_BODY
    err = error_of(post(buf.getvalue()), 422, "file", "bad_archive")
    assert "BAYESEVAL_MAX_UNZIPPED" in err["message"]


# ----------------------------------------------------------------------------- bad input: 4xx naming the field
def test_malformed_json_and_wrong_types(client):
    r = client.post("/v1/metrics", content=b'{"models": {"a": {"matrix": [[1, 0]]}', headers={"content-type": "application/json"})
    error_of(r, 400, "body", "invalid_json")
    r = client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, "x"]]}}})
    error_of(r, 422, "models.a.matrix[0][1]", "validation_error")
    error_of(client.post("/v1/metrics", json={"models": []}), 422, "models")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, 0]]}}, "metrics": [17]}), 422, "metrics[0]")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, 0]]}}, "levle": 0.9}), 422, "levle")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, 0]], "counts": [[1, 1]]}}}), 422,
             "models.a.counts")  # matrix or counts, not both
    error_of(client.post("/v1/metrics", json={"models": {"a": {"ids": [1]}}}), 422, "models.a.matrix")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, 0]], "ids": ["x", "y"]}}}), 422, "models.a")
    error_of(client.post("/v1/compare", json={"a": {"matrix": [[1]]}}), 422, "b")  # missing field
    error_of(client.post("/v1/metrics", content=b"[1, 2]", headers={"content-type": "application/json"}), 422)
    error_of(client.post("/v1/metrics", content=b'{"models": {}}', headers={"content-type": "text/plain"}), 415,
             "Content-Type", "unsupported_media_type")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"counts": [[60_000, 60_000]]}}}), 422, "models.a")
    lone_surrogate = b'{"models": {"\\ud800": {"matrix": [[1]]}}}'
    error_of(client.post("/v1/metrics", content=lone_surrogate, headers={"content-type": "application/json"}), 422,
             "models")
    error_of(client.get("/v1/nothing"), 404, None, "not_found")
    error_of(client.get("/v1/metrics"), 405, None, "method_not_allowed")


def test_impossible_parameters(client):
    R = {"matrix": [[1, 0, 1], [0, 0, 1], [1, 1, 0]]}
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "level": 1.5}), 422, "level")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "draws": 5}), 422, "draws")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": [{"name": "g-pass@k", "k": 2, "tau": 2}]}),
             422, "metrics[0].tau")
    err = error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["avg", "frobnicate@3"]}), 422,
                   "metrics[1]")
    assert "unknown metric" in err["message"]
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["pass@k"]}), 422, "metrics[0]")  # no k
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["bayes"], "prior": "jeffreys"}), 422,
             "metrics[0]")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[0, 1, 2]], "weights": [0, 1]}}}), 422,
             "models.a.weights")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[None, None]]}}}), 422, "models.a")
    error_of(client.post("/v1/compare", json={"a": R, "b": R, "names": ["x", "x"]}), 422, "names")
    error_of(client.post("/v1/compare", json={"a": R, "b": {"matrix": [[1]]}}), 422, "b")
    error_of(client.post("/v1/compare", json={"a": {"matrix": [[0, 2, 1]]}, "b": {"matrix": [[1, 1, 1]]}}), 422, "a")
    error_of(client.post("/v1/compare", json={"a": R, "b": R, "rope": [0.1, -0.1]}), 422, "rope")
    error_of(client.post("/v1/plan", json={"a": {"matrix": [[1], [0]]}}), 422, "a")  # needs >= 2 trials
    error_of(client.post("/v1/plan", json={"a": R, "delta": 0}), 422, "delta")
    error_of(client.post("/v1/rank", json={"models": {"only": R}}), 422, "models")
    error_of(client.post("/v1/aisbench", files={"file": ("x.zip", zip_of(WORK), "application/zip")},
                         params={"level": 2}), 422, "level")


def test_body_limit_413(client):
    big = b'{"models": {"a": {"matrix": [' + b"[1, 0, 1, 0]," * 100_000 + b"[1]]}}}"
    assert len(big) > MAX_BODY
    err = error_of(client.post("/v1/metrics", content=big, headers={"content-type": "application/json"}), 413, "body",
                   "payload_too_large")
    assert str(MAX_BODY) in err["message"]

    def chunks():  # no Content-Length: counted while streaming
        for i in range(0, len(big), 65536):
            yield big[i:i + 65536]

    error_of(client.post("/v1/metrics", content=chunks(), headers={"content-type": "application/json"}), 413, "body")
    error_of(client.post("/v1/aisbench", files={"file": ("x.zip", b"0" * (MAX_BODY + 1), "application/zip")}), 413)


def test_cell_cap_422_names_the_cap(client):
    rows = [[1, 0] * 26] * 1000  # 52,000 cells per model, 104,000 > 100,000 in all
    err = error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": rows}, "b": {"matrix": rows}}}), 422,
                   None, "too_many_cells")
    assert "100,000" in err["message"] and "104,000" in err["message"]
    assert err["field"] in ("models.a", "models.b")
    r = client.post("/v1/metrics", json={"models": {"a": {"matrix": rows}}, "scope": "benchmark", "prior": "uniform",
                                         "interval": "normal"})
    assert r.status_code == 200


def test_time_limit_422_and_the_service_recovers(client, data):
    # benchmark-scope pass@64 from 40 trials (extrapolated question by question through the pool) of 16 models x
    # 3000 questions in 41 count states: 100,000 draws take about 5-9 s per model, minutes in all
    s = np.random.default_rng(0).binomial(40, 0.5, 3000)
    A = np.column_stack([40 - s, s]).tolist()  # count table: 40 trials per question
    t = time.monotonic()
    r = client.post("/v1/rank", json={"models": {f"m{i}": {"counts": A} for i in range(16)}, "scope": "benchmark",
                                      "metric": "pass@64",
                                      "resamples": 100_000, "draws": 100_000, "pairs": "all", "test": "bootstrap"})
    elapsed = time.monotonic() - t
    err = error_of(r, 422, None, "time_limit")
    assert f"{TIMEOUT:g} s" in err["message"]
    assert elapsed < TIMEOUT + 10
    for _ in range(3):  # the killed worker is replaced; the service goes on answering
        assert client.post("/v1/plan", json={"a": {"matrix": [[1, 0], [0, 0], [1, 1]]}}).status_code == 200


def test_concurrent_requests_all_answered(url, data):
    import asyncio

    A = data[0].tolist()

    async def go():
        async with httpx.AsyncClient(base_url=url, timeout=120) as c:
            rs = await asyncio.gather(*(c.post("/v1/metrics", json={"models": {"a": {"matrix": A}}, "seed": i})
                                        for i in range(24)))
        return rs

    rs = asyncio.run(go())
    assert [r.status_code for r in rs] == [200] * 24
    assert rs[3].json()["estimates"][0] == jsonable(B.estimate(np.array(A), "avg", seed=3, model="a").to_dict())


# ----------------------------------------------------------------------------- API key
def test_api_key():
    with running(Settings(workers=0, api_key="s3cret")) as base, httpx.Client(base_url=base) as c:
        body = {"models": {"a": {"matrix": [[1, 0], [1, 1]]}}}
        error_of(c.post("/v1/metrics", json=body), 401, "X-API-Key", "unauthorized")
        error_of(c.post("/v1/metrics", json=body, headers={"X-API-Key": "guess"}), 401, "X-API-Key")
        error_of(c.get("/v1/catalog"), 401)
        assert c.post("/v1/metrics", json=body, headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/healthz").status_code == 200 and c.get("/openapi.json").status_code == 200
        schema = c.get("/openapi.json").json()
        assert "APIKeyHeader" in schema["components"]["securitySchemes"]


# ----------------------------------------------------------------------------- serving from the command line
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_python_m_service_serves_on_loopback(tmp_path):
    port = _free_port()
    env = {**os.environ, "BAYESEVAL_WORKERS": "1", "BAYESEVAL_MAX_CELLS": "1234"}
    proc = subprocess.Popen([sys.executable, "-m", "bayeseval.service", "--port", str(port), "--no-access-log",
                             "--log-level", "warning"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert r.json()["status"] == "ok"
        cat = httpx.get(f"http://127.0.0.1:{port}/v1/catalog").json()
        assert cat["limits"]["max_cells"] == 1234
        r = httpx.post(f"http://127.0.0.1:{port}/v1/metrics", json={"models": {"a": {"matrix": [[1, 0]]}}}, timeout=60)
        assert r.status_code == 200
    finally:
        proc.terminate()
        proc.wait(30)


# ----------------------------------------------------------------------------- review fixes
def _worker_pids() -> set:
    """Compute workers started by this test process (children running bayeseval.service.workers)."""
    out = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat_line = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat_line.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"bayeseval.service.workers" in cmd:
            out.add(int(d.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_runaway_requests_do_not_lock_the_pool():
    """Two slow requests at once (every worker killed) and a stream of small ones meanwhile: the slow
    ones get 422 time_limit, the small ones wait for the replacements (never 503), the old workers die."""
    import asyncio

    s = np.random.default_rng(0).binomial(40, 0.5, 3000)
    A = np.column_stack([40 - s, s]).tolist()  # count table: 40 trials per question
    slow = {"models": {f"m{i}": {"counts": A} for i in range(16)}, "resamples": 100_000, "draws": 100_000,
            "scope": "benchmark", "metric": "pass@64", "pairs": "all", "test": "bootstrap"}  # extrapolated: slow
    small = {"a": {"matrix": [[1, 0], [0, 0], [1, 1]]}}
    before = _worker_pids()
    with running(Settings(workers=2, timeout=2)) as base:
        mine = _worker_pids() - before
        assert len(mine) == 2

        async def go():
            async with httpx.AsyncClient(base_url=base, timeout=60) as c:
                async def stream():
                    rs = []
                    for _ in range(30):
                        rs.append(await c.post("/v1/plan", json=small))
                        await asyncio.sleep(0.15)
                    return rs
                slow_rs = asyncio.gather(c.post("/v1/rank", json=slow), c.post("/v1/rank", json=slow))
                return await slow_rs, await stream()

        slow_rs, small_rs = asyncio.run(go())
        for r in slow_rs:
            error_of(r, 422, None, "time_limit")
        assert [r.status_code for r in small_rs] == [200] * 30, [r.text for r in small_rs if r.status_code != 200]
        deadline = time.monotonic() + 10
        while mine & _worker_pids() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not mine & _worker_pids()  # the runaway workers were killed
        assert len(_worker_pids() - before) == 2  # and replaced


def test_k_and_magnitudes_are_bounded(client):
    R = {"matrix": [[1, 0, 1], [0, 0, 1], [1, 1, 1]]}
    for name in ("pass@100000", "auc@100000000", "geospectrum@1000000000", "mg-pass@1000000", "pass^5000",
                 "pass@1000000000000"):
        err = error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["avg", name]}), 422,
                       "metrics[1]", "validation_error")
        assert "1000" in err["message"]
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": [{"name": "pass@k", "k": 1001}]}), 422,
             "metrics[0].k")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": [{"name": "max@5000"}]}), 422,
             "metrics[0].name")
    error_of(client.post("/v1/compare", json={"a": R, "b": R, "metric": "pass@20000"}), 422, "metric")
    error_of(client.post("/v1/aisbench", files={"file": ("x.zip", zip_of(WORK), "application/zip")},
                         params={"metrics": "avg,pass@100000"}), 422, "metrics")
    assert client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["pass@1000", "avg@3"]}
                       ).status_code == 200  # avg@N's N is the number of replicas, not a k: bounded by the data
    err = error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": ["avg@100000"]}), 422)
    assert "names 100000 replicas per question, but no question has more than 3 trials" in err["message"]
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": [{"payoff": [1e308, 1e308, 1e308]}],
                                              "interval": "normal"}), 422, "metrics[0].payoff[0]")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "metrics": [
        {"name": "geospectrum@k", "k": 2, "weights": [1e308, 1e308]}]}), 422, "metrics[0].weights[0]")
    error_of(client.post("/v1/rank", json={"models": {"a": R, "b": R}, "metric": {"payoff": [0, 1e154]}}), 422,
             "metric.payoff[1]")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[0, 1, 2]],
                                                                "weights": [1e308, 1e-308, 1e308]}},
                                              "interval": "normal"}), 422, "models.a.weights[0]")
    for delta in (1e-300, 1e-160, 5e-324, 1e300, -2):
        error_of(client.post("/v1/plan", json={"a": R, "delta": delta}), 422, "delta")
    assert client.post("/v1/plan", json={"a": R, "delta": -0.05}).status_code == 200


def test_arithmetic_errors_are_422_not_500():
    from bayeseval.service import tasks
    from bayeseval.service.errors import ServiceError

    for exc in (ZeroDivisionError("float division by zero"), OverflowError("math range error"),
                FloatingPointError("overflow"), RecursionError("too deep"), MemoryError()):
        with pytest.raises(ServiceError) as info:
            with tasks._field("metrics[0]"):
                raise exc
        assert info.value.status == 422 and info.value.field == "metrics[0]"


def test_strict_numbers_and_id_types(client):
    R = {"matrix": [[1, 0], [0, 1]]}
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "level": "0.9"}), 422, "level")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "level": True}), 422, "level")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [["1", "0"]]}}}), 422,
             "models.a.matrix[0][0]")
    error_of(client.post("/v1/metrics", json={"models": {"a": R}, "draws": "4000"}), 422, "draws")
    assert client.post("/v1/metrics", json={"models": {"a": R}, "level": 0.9, "prior": [1, 1]}).status_code == 200
    M3 = [[1, 0], [0, 1], [1, 1]]
    error_of(client.post("/v1/compare", json={"a": {"matrix": M3, "ids": [1, "x", 3]},
                                              "b": {"matrix": M3, "ids": [1, 2, 3]}}), 422, "a.ids")
    error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": M3, "ids": [1, "1", 2]}}}), 422,
             "models.a.ids")
    error_of(client.post("/v1/rank", json={"models": {"a": {"matrix": M3[:2], "ids": [1, "x"]},
                                                      "b": {"matrix": M3[:2], "ids": ["1", "x"]}}}), 422,
             "models.a.ids")
    error_of(client.post("/v1/rank", json={"models": {"a": {"matrix": M3, "ids": [1, 2, 3]},
                                                      "b": {"matrix": M3, "ids": ["1", "2", "3"]}}}), 422,
             "models.b.ids")
    err = error_of(client.post("/v1/metrics", json={"models": {"a": {"matrix": [[1]], "ids": ["x" * 5000]}}}), 422,
                   "models.a.ids[0]")
    assert "200 characters" in err["message"]


def test_body_errors_name_the_body(client):
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"models": "\xff\xfe"}'):
        error_of(client.post("/v1/metrics", content=body, headers={"content-type": "application/json"}), 400, "body",
                 "invalid_json")
    error_of(client.post("/v1/metrics", content=b"\x1f\x8b...", headers={"content-type": "application/json",
                                                                         "content-encoding": "gzip"}),
             415, "Content-Encoding", "unsupported_media_type")


def test_healthz_head_and_trailing_slash():
    with running(Settings(workers=0, api_key="s3cret")) as base, httpx.Client(base_url=base) as c:
        assert c.head("/healthz").status_code == 200
        r = c.get("/healthz/", follow_redirects=True)
        assert r.status_code == 200 and r.json()["status"] == "ok"
        error_of(c.get("/v1/catalog/"), 401)


def _post_zip(client, entries, **params):
    return client.post("/v1/aisbench", files={"file": ("x.zip", _zip(entries), "application/zip")}, params=params)


def test_aisbench_writestr_zip_is_accepted(client):
    """zipfile.writestr(name, data) stores mode 0o600 without file-type bits: a regular file."""
    entries = [(p.relative_to(WORK).as_posix(), p.read_bytes()) for p in sorted(WORK.rglob("*")) if p.is_file()]
    r = _post_zip(client, entries)
    assert r.status_code == 200, r.text
    assert r.json()["runs"][0]["M"] == 4
    fifo = zipfile.ZipInfo("results/fifo")
    fifo.create_system = 3
    fifo.external_attr = (stat.S_IFIFO | 0o644) << 16
    error_of(_post_zip(client, [(fifo, "")]), 422, "file", "bad_archive")


def test_aisbench_unwritable_or_odd_entries_are_422(client):
    def refused(entries, type_="bad_archive"):
        err = error_of(_post_zip(client, entries), 422, "file", type_)
        assert "bayeseval-upload" not in err["message"] and "/tmp" not in err["message"]
        return err

    err = refused([("results", "x"), ("results/m/d.json", "{}")])
    assert "results/m/d.json" in err["message"]
    refused([("results/" + "x" * 300 + ".json", "{}")])
    refused([("/".join(["d"] * 2100) + "/f.json", "{}")])
    refused([("results/m/d.json", "[" * 100_000 + "]" * 100_000)], "validation_error")
    refused([("results/m/", ""), ("results/m/d.json/", "")], "validation_error")


def test_aisbench_cell_cap(client):
    """A small zip can describe a huge work dir: its M x N cells count against the cap."""
    M, N = 20_000, 10  # 200,000 cells > MAX_CELLS
    row = {"avg@10": 0.5, "pass@10": 1.0, "correct": [True, False] * (N // 2)}
    details = [{"example_abbr": f"demo_{i}", **row} for i in range(M)]
    body = json.dumps({"avg@10": 50.0, "pass@10": 100.0, "details": details})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("results/m/demo.json", body)
    if len(buf.getvalue()) > MAX_BODY:
        pytest.skip("the test zip is over the body limit")
    r = client.post("/v1/aisbench", files={"file": ("x.zip", buf.getvalue(), "application/zip")})
    err = error_of(r, 422, "file", "too_many_cells")
    assert f"{MAX_CELLS:,}" in err["message"] and "200,000" in err["message"]


# ----------------------------------------------------------------------------- /v1/pairwise
def _pandalm_labels(n=None):
    import pandas as pd

    d = pd.read_csv(Path(__file__).resolve().parents[1] / "examples" / "data" / "pandalm_testset_labels.csv", dtype=str)
    code = {"1": "model_a", "2": "model_b", "0": "tie"}
    rows = [{"item": int(r.idx), "model_a": r.model_1, "model_b": r.model_2, "winner": code[getattr(r, a)], "judge": a}
            for r in d.itertuples() for a in ("annotator1", "annotator2", "annotator3")]
    return rows[:n] if n else rows


def test_pairwise_equals_the_library(client):
    from bayeseval.pairwise import bradley_terry, from_long, win_rate

    labels = _pandalm_labels()
    prefs = from_long({k: [lab[k] for lab in labels] for k in ("item", "model_a", "model_b", "winner", "judge")},
                      judge="judge")
    r = client.post("/v1/pairwise", json={"labels": labels})
    assert r.status_code == 200, r.text
    assert r.json() == jsonable(bradley_terry(prefs).to_dict())
    r = client.post("/v1/pairwise", json={"labels": labels, "a": "llama-7b", "b": "opt-7b", "ties": "exclude"})
    assert r.status_code == 200, r.text
    assert r.json() == jsonable(win_rate(prefs, "llama-7b", "opt-7b", ties="exclude").to_dict())


@pytest.mark.parametrize("body, field, text", [
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": "x"},
                 {"item": 2, "model_a": "x", "model_b": "y", "winner": "nobody"}]}, "labels[1]", "winner in row 1"),
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "x", "winner": "x"}]}, "labels[0]", "with itself"),
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": "x"}], "a": "q", "b": "y"}, "a",
     "not one of the models"),
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": "x"},
                 {"item": 2, "model_a": "z", "model_b": "w", "winner": "z"}]}, "labels", "falls apart into 2 groups"),
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": 1}]}, "labels[0].winner", None),
    ({"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": "x", "first": "model_a"},
                 {"item": 2, "model_a": "x", "model_b": "y", "winner": "x"}]}, None, "every label or on none"),
    ({"labels": []}, "labels", None),
])
def test_pairwise_bad_input_is_422_naming_the_field(client, body, field, text):
    r = client.post("/v1/pairwise", json=body)
    error_of(r, 422, field)
    if text:
        assert text in r.json()["error"]["message"]


def test_pairwise_label_cap():
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    labels = [{"item": i, "model_a": "x", "model_b": "y", "winner": "x"} for i in range(11)]
    with TestClient(create_app(Settings(workers=0, max_cells=10))) as c:
        r = c.post("/v1/pairwise", json={"labels": labels})
        error_of(r, 422, "labels", "too_many_cells")
        assert "11 labels are over the cap of 10" in r.json()["error"]["message"]
        assert c.post("/v1/pairwise", json={"labels": labels[:10]}).status_code == 200


# ----------------------------------------------------------------------------- /v1/rubric
def _summeval_ratings(systems=("M22", "M23"), docs=30):
    import pandas as pd

    d = pd.read_csv(Path(__file__).resolve().parents[1] / "examples" / "data" / "summeval_annotations.csv")
    d = d[(d.annotator_type == "expert") & d.model_id.isin(systems)]
    d = d[d.doc_id.isin(sorted(set(d.doc_id))[:docs])]
    dims = ["coherence", "consistency", "fluency", "relevance"]
    return d, [{"item": r.doc_id, "system": r.model_id, "judge": r.annotator,
                "ratings": {k: int(getattr(r, k)) for k in dims}} for r in d.itertuples()]


def test_rubric_equals_the_library(client):
    from bayeseval.rubric import compare_rubric, rubric

    d, ratings = _summeval_ratings()
    cols = dict(item="doc_id", system="model_id", judge="annotator",
                dimensions=["coherence", "consistency", "fluency", "relevance"], scale=(1, 5))
    r = client.post("/v1/rubric", json={"ratings": ratings, "constraints": {"consistency": 4}})
    assert r.status_code == 200
    lib = rubric(d, constraints={"consistency": 4}, **cols)
    got = {(e["system"], e["dimension"]): e for e in r.json()["estimates"]}
    for (s, dim), e in lib.estimates.items():
        assert got[s, dim]["value"] == pytest.approx(e.value, rel=1e-12)
        assert (got[s, dim]["lo"], got[s, dim]["hi"]) == pytest.approx((e.lo, e.hi), rel=1e-12)
    assert r.json()["agreement"]["coherence"]["alpha"] == pytest.approx(lib.agreement["coherence"].alpha, rel=1e-12)
    text = client.post("/v1/rubric", json={"ratings": ratings, "constraints": "consistency>=4"})  # the text form too
    assert text.status_code == 200 and text.json()["passing"] == r.json()["passing"]
    r = client.post("/v1/rubric", json={"ratings": ratings, "a": "M22", "b": "M23"})
    assert r.status_code == 200
    want = compare_rubric(d, "M22", "M23", **cols)
    assert [x["p_holm"] for x in r.json()["dimensions"]] == pytest.approx([x["p_holm"] for x in want.rows])


@pytest.mark.parametrize("change, field, text", [
    (lambda b: {**b, "a": "M22"}, "b", "give both a and b"),
    (lambda b: {**b, "scale": [1, 3]}, "ratings[", "is outside scale [1, 3]"),
    (lambda b: {**b, "a": "M22", "b": "zz"}, "a", "no system 'zz'"),
    (lambda b: {**b, "constraints": {"length": 3}}, "constraints", "'length' is not a dimension"),
    (lambda b: {**b, "constraints": "coherence>=3,coherence>=4"}, "constraints", "'coherence' has two rules"),
    (lambda b: {**b, "ratings": b["ratings"][:1] + [{**b["ratings"][1], "ratings": {"coherence": 3}}]},
     "ratings[1]", "every rating must name the same dimensions"),
])
def test_rubric_bad_input_is_422_naming_the_field(client, change, field, text):
    _, ratings = _summeval_ratings(docs=5)
    r = client.post("/v1/rubric", json=change({"ratings": ratings}))
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert text in err["message"], err
    assert err["field"] is None if field is None else err["field"].startswith(field), err  # None: the body


# ----------------------------------------------------------------------------- /v1/classify
def test_classify_equals_the_library(client):
    from bayeseval.classification import classification, compare_classifiers

    rng = np.random.default_rng(3)
    true = rng.choice(["a", "b", "c"], 120).tolist()
    pa = [t if rng.random() < 0.8 else "a" for t in true]
    pb = [t if rng.random() < 0.6 else "b" for t in true]
    r = client.post("/v1/classify", json={"true": true, "models": {"x": pa, "y": pb}})
    assert r.status_code == 200
    got = r.json()
    want = classification(true, pa).to_dict()
    assert got["models"]["x"]["metrics"]["macro_f1"]["value"] == pytest.approx(want["metrics"]["macro_f1"]["value"])
    assert got["comparison"]["p_a_better"] == pytest.approx(compare_classifiers(true, pa, pb).p_a_better)
    C = [[40, 5], [10, 45]]
    r = client.post("/v1/classify", json={"confusion_matrix": C, "labels": ["neg", "pos"], "positive": "pos"})
    assert r.status_code == 200
    assert r.json()["models"]["confusion_matrix"]["metrics"]["accuracy"]["value"] == pytest.approx(0.85)


@pytest.mark.parametrize("body, text, field", [
    ({"true": ["a", "b"], "models": {"x": ["a"]}}, "models.x has 1 predictions but true has 2", "models.x"),
    ({"confusion_matrix": [[1, 2], [3, 4]]}, "needs labels", "labels"),
    ({"true": ["a"]}, "give true and models", "models"),
    ({"true": ["a", "b"], "models": {"x": ["a", "b"]}, "items": [1]}, "items has 1 entries", "items"),
])
def test_classify_bad_input_is_422(client, body, text, field):
    r = client.post("/v1/classify", json=body)
    assert r.status_code == 422 and text in r.json()["error"]["message"], r.text
    assert r.json()["error"]["field"] == field  # a check across fields names the field it is about
