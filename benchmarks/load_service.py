"""Load test of the HTTP service: many concurrent clients, each on its own keep-alive connection.

Starts ``python -m bayeseval.service`` on a free loopback port (a subprocess; only 127.0.0.1 is
ever contacted), waits for ``/healthz``, then runs two scenarios, each with ``--clients``
concurrent closed-loop clients (a client sends its next request as soon as it has read the
answer to the previous one, no think time):

* ``metrics``: every request is ``POST /v1/metrics`` with one ``--questions`` x ``--trials`` 0/1
  matrix and the defaults (robust prior, population scope, exact 95% interval);
* ``mix`` (the hardening audit's mix): 60% ``/v1/metrics`` as above, 10% each ``/v1/compare`` (two
  models), ``/v1/plan`` (a pilot of two models), ``/v1/rank`` (four models), all on matrices of
  the same size with default options, and 10% invalid requests (broken JSON, an unknown metric, a
  k over the cap, an outcome of 2 in a 0/1 matrix, a missing field), which must be answered 400 or
  422 with the error body.

Requests carry different data (``--variants`` matrices per kind, drawn from Beta-shaped pools,
taken in turn); the service keeps nothing between requests, so each one is computed afresh.  An error is any answer whose status is not the expected one,
or a transport error.  The answers of one request of each valid kind are checked against the
library called directly (``bayeseval.estimate``, ``compare``, ``compare_all``, ``plan``).

The clients are a few lines of asyncio over raw sockets (HTTP/1.1, Content-Length), so that on a
2-core machine the load generator does not take the cores it is measuring: one request costs the
client about 0.1 ms, against several ms for a general-purpose async HTTP client.

    python benchmarks/load_service.py                                   # 100 clients, both scenarios
    python benchmarks/load_service.py --markdown-out benchmarks/results_service.md
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in the compute workers: CPU time per request is one thread's

import argparse
import asyncio
import json
import platform
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import finish  # noqa: E402

MIX = {"metrics": 6, "compare": 1, "plan": 1, "rank": 1, "invalid": 1}  # shares of the audit's mix, in tenths


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int | None, processes: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "bayeseval.service", "--port", str(port), "--processes", str(processes),
           "--no-access-log", "--log-level", "warning"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 90) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError("server exited: " + proc.stderr.read().decode()[-2000:])
        try:
            status, _ = asyncio.run(_once(port, "GET", "/healthz", b""))
            if status == 200:
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("server did not become ready")


# ----------------------------------------------------------------------------- a minimal HTTP/1.1 client
def _request_bytes(method: str, path: str, body: bytes) -> bytes:
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode("ascii") + body


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> tuple[int, bytes]:
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    return status, await reader.readexactly(length)


async def _once(port: int, method: str, path: str, body: bytes) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await _exchange(reader, writer, _request_bytes(method, path, body))
    finally:
        writer.close()


async def client_loop(port: int, plan: list, results: list, errors: list) -> None:
    """Send ``plan`` (a list of (kind, raw request, expected statuses)) one after another on one connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for kind, raw, expected in plan:
            t = time.perf_counter()
            try:
                status, body = await _exchange(reader, writer, raw)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            results.append((kind, time.perf_counter() - t))
            if status not in expected or (status >= 400 and b'"error"' not in body):
                errors.append(f"{kind}: {status} {body[:200]!r}")
    finally:
        writer.close()


async def run_load(port: int, plans: list[list], deadline: float):
    results: list = []
    errors: list = []
    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(client_loop(port, p, results, errors) for p in plans)), deadline)
    return time.perf_counter() - t0, results, errors


# ----------------------------------------------------------------------------- request bodies
def matrices(rng: np.random.Generator, M: int, N: int, k: int) -> list[np.ndarray]:
    """``k`` models on one pool of M questions (Beta(1.5, 1.5) difficulties), with small shifts between models."""
    p = rng.beta(1.5, 1.5, M)
    return [(rng.random((M, N)) < np.clip(p + 0.03 * j, 0, 1)[:, None]).astype(int) for j in range(k)]


def bodies(rng: np.random.Generator, M: int, N: int, variants: int) -> dict[str, list]:
    """Per kind, ``variants`` (path, body bytes, expected statuses, the matrices used)."""
    out: dict[str, list] = {k: [] for k in MIX}
    for v in range(variants):
        a, b, c, d = matrices(rng, M, N, 4)
        mat = lambda x: {"matrix": x.tolist()}  # noqa: E731
        out["metrics"].append(("/v1/metrics", {"models": {"model": mat(a)}, "metrics": ["avg"]}, (200,), [a]))
        out["compare"].append(("/v1/compare", {"a": mat(a), "b": mat(b)}, (200,), [a, b]))
        out["plan"].append(("/v1/plan", {"a": mat(a), "b": mat(b)}, (200,), [a, b]))
        out["rank"].append(("/v1/rank", {"models": {f"m{j}": mat(x) for j, x in enumerate((a, b, c, d))}}, (200,),
                            [a, b, c, d]))
        bad = a.copy()
        bad[v % M, 0] = 2
        invalid = [
            ("/v1/metrics", b'{"models": {"m": {"matrix": [[1, 0]]}', (400,)),              # broken JSON
            ("/v1/metrics", {"models": {"m": mat(a)}, "metrics": ["accuracy@2"]}, (422,)),  # unknown metric
            ("/v1/metrics", {"models": {"m": mat(a)}, "metrics": ["pass@100000"]}, (422,)),  # k over the cap
            ("/v1/compare", {"a": {"matrix": bad.tolist()}, "b": mat(b)}, (422,)),          # 2 in a 0/1 matrix
            ("/v1/plan", {"b": mat(b)}, (422,)),                                            # a missing
        ][v % 5]
        out["invalid"].append((*invalid, []))
    return {k: [(p, b if isinstance(b, bytes) else json.dumps(b).encode(), e, m) for p, b, e, m in v]
            for k, v in out.items()}


def client_plans(rng: np.random.Generator, pool: dict, kinds: dict, clients: int, per_client: int) -> list[list]:
    """Per client, ``per_client`` requests whose kinds follow the shares ``kinds`` (shuffled per client)."""
    total = sum(kinds.values())
    plans = []
    for c in range(clients):
        seq = [k for k, share in kinds.items() for _ in range(share)]
        seq = (seq * (per_client // total + 1))[:per_client]
        rng.shuffle(seq)
        plans.append([(k, _request_bytes("POST", pool[k][(c + i) % len(pool[k])][0],
                                         pool[k][(c + i) % len(pool[k])][1]),
                       pool[k][(c + i) % len(pool[k])][2]) for i, k in enumerate(seq)])
    return plans


def check_answers(port: int, pool: dict) -> list[str]:
    """One request of each valid kind against the library called directly; returns the mismatches."""
    import bayeseval as B

    bad = []
    for kind in ("metrics", "compare", "plan", "rank"):
        path, body, _, mats = pool[kind][0]
        status, raw = asyncio.run(_once(port, "POST", path, body))
        if status != 200:
            bad.append(f"{kind}: status {status}")
            continue
        got = json.loads(raw)
        if kind == "metrics":
            want = json.loads(json.dumps([B.estimate(mats[0], "avg", model="model").to_dict()]))
            ok = got["estimates"] == want
        elif kind == "compare":
            res = B.compare(mats[0], mats[1], names=("A", "B"))
            ok = got["p_a_better"] == res.p_a_better and got["delta"]["mean"] == res.delta.mean
        elif kind == "plan":
            res = B.plan(mats[0], mats[1]).to_dict()
            ok = all(got[k] == res[k] for k in ("sigma_b2", "sigma_w2"))
        else:
            res = B.compare_all({f"m{j}": x for j, x in enumerate(mats)})
            ok = ([m["model"] for m in got["models"]] == list(res.models)
                  and all(m["p_best"] == float(res.p_best[m["model"]]) for m in got["models"]))
        if not ok:
            bad.append(f"{kind}: the answer differs from the library's")
    return bad


def library_ms(pool: dict) -> dict:
    """Per valid kind, the median CPU time (ms) of the service's own task function on each variant, called in
    this process: the statistics a worker computes per request, without HTTP, parsing or queueing."""
    from bayeseval.service import schemas as S
    from bayeseval.service import tasks

    kinds = {"metrics": (tasks.metrics, S.MetricsRequest), "compare": (tasks.compare, S.CompareRequest),
             "plan": (tasks.plan, S.PlanRequest), "rank": (tasks.rank, S.RankRequest)}
    out = {}
    for kind, (fn, model) in kinds.items():
        reqs = [model.model_validate_json(body) for _, body, _, _ in pool[kind]]
        fn(reqs[0])  # warm
        times = []
        for r in reqs:
            t = time.process_time()
            fn(r)
            times.append(time.process_time() - t)
        out[kind] = 1000 * float(np.median(times))
    return out


def summary_rows(label: str, wall: float, results: list, errors: list, kinds: list[str]) -> list[str]:
    rows = []
    for kind in ["all", *kinds]:
        lat = np.array([t for k, t in results if kind in ("all", k)]) * 1000
        err = sum(1 for e in errors if kind == "all" or e.startswith(kind + ":"))
        if lat.size == 0:
            continue
        q = lambda x: float(np.percentile(lat, x))  # noqa: E731
        rows.append(f"| {label} | {kind} | {lat.size} | {lat.size / wall:.1f} | {q(50):.0f} | {q(90):.0f} | {q(99):.0f} "
                    f"| {lat.max():.0f} | {err} |")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--requests", type=int, default=30, help="requests per client in each scenario")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--variants", type=int, default=20, help="different matrices per request kind")
    ap.add_argument("--workers", type=int, default=None, help="compute worker processes per server process "
                                                              "(default: the server's own default)")
    ap.add_argument("--processes", type=int, default=1, help="uvicorn server processes")
    ap.add_argument("--scenarios", default="metrics,mix")
    ap.add_argument("--deadline", type=float, default=900, help="stop each scenario after this many seconds")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--markdown-out")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    pool = bodies(rng, args.questions, args.trials, args.variants)
    scenarios = {"metrics": {"metrics": 1}, "mix": MIX}
    chosen = [s.strip() for s in args.scenarios.split(",") if s.strip()]

    port = free_port()
    load_avg = os.getloadavg()
    proc = start_server(port, args.workers, args.processes)
    table, errors, mismatches = [], [], []
    try:
        startup = wait_ready(port, proc)
        mismatches = check_answers(port, pool)
        # warm-up: every worker has imported and run each kind once
        asyncio.run(run_load(port, client_plans(rng, pool, MIX, 4, 10), args.deadline))
        for name in chosen:
            plans = client_plans(rng, pool, scenarios[name], args.clients, args.requests)
            wall, results, errs = asyncio.run(run_load(port, plans, args.deadline))
            table += summary_rows(name, wall, results, errs, list(scenarios[name]) if name == "mix" else [])
            errors += errs
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    load_end = os.getloadavg()
    lib = library_ms(pool)
    sizes = {k: len(v[0][1]) for k, v in pool.items()}
    lines = [
        "# bayeseval HTTP service: load test",
        "",
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC",
        f"- python: {platform.python_version()} ({platform.python_implementation()}), {platform.platform()}",
        f"- CPUs: os.cpu_count() = {os.cpu_count()}, usable = {len(os.sched_getaffinity(0))}; load average "
        f"(1, 5, 15 min) at start: {', '.join(f'{x:.2f}' for x in load_avg)}, at the end: "
        f"{', '.join(f'{x:.2f}' for x in load_end)}",
        f"- command: python benchmarks/load_service.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip(),
        f"- server: `python -m bayeseval.service` on 127.0.0.1, {args.processes} uvicorn process(es), "
        f"{'default' if args.workers is None else args.workers} compute worker process(es) each; ready in "
        f"{startup:.1f} s; the clients run on the same 2 cores",
        f"- load: {args.clients} closed-loop clients x {args.requests} requests per scenario, each on one keep-alive "
        f"connection; {args.questions} x {args.trials} 0/1 matrices, {args.variants} different ones per kind; "
        f"bodies {', '.join(f'{k} {v:,} B' for k, v in sizes.items())}",
        f"- answers equal the library's (metrics, compare, plan, rank): {'yes' if not mismatches else 'NO: ' + '; '.join(mismatches)}",
        "",
        "| scenario | requests | n | throughput req/s | p50 ms | p90 ms | p99 ms | max ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        *table,
        "",
        "Library CPU per request (median over the variants, the service's task function called in-process, one "
        "BLAS thread): " + ", ".join(f"{k} {v:.1f} ms" for k, v in lib.items()) + "; the rest of a request's cost "
        "is HTTP, JSON and the hand-off to a worker.",
        "",
        "Latency is measured by each client from writing a request to reading the whole answer, so it includes "
        "queueing behind the other clients: with closed-loop clients, mean latency = clients / throughput. The "
        "`mix` rows per kind share one wall time (their throughput is that kind's share).",
    ]
    if errors:
        lines += ["", "first errors:", *[f"- {e}" for e in errors[:5]]]
    finish("\n".join(lines), args.markdown_out)
    return 0 if not errors and not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
