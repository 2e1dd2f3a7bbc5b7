"""Load test of the HTTP service: many concurrent clients posting an outcome matrix to ``/v1/metrics``.

Starts ``python -m bayeseval.service`` on a free loopback port (a subprocess; only 127.0.0.1 is
ever contacted), waits for ``/healthz``, then runs ``--clients`` concurrent clients that each
send ``--requests`` requests one after another (each client has its own connection), every
request carrying one ``--questions`` x ``--trials`` 0/1 matrix.  Reports throughput, latency
percentiles and errors (any non-200 answer or transport error) as a Markdown table, checks that
one answer equals :func:`bayeseval.estimate` on the same matrix, and stops the server.  The run is
bounded: ``clients x requests`` requests, each with a 120 s client time-out, and ``--deadline``
seconds overall.

    python benchmarks/load_service.py                       # 100 clients x 20 requests, 1000 x 16
    python benchmarks/load_service.py --markdown-out benchmarks/results_service.md
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int, processes: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "bayeseval.service", "--port", str(port), "--workers", str(workers),
           "--processes", str(processes), "--no-access-log", "--log-level", "warning"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 90) -> float:
    import httpx

    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError("server exited: " + proc.stderr.read().decode()[-2000:])
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return time.monotonic() - t0
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("server did not become ready")


async def client_loop(url: str, body: bytes, n: int, latencies: list, errors: list) -> None:
    import httpx

    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
        for _ in range(n):
            t = time.perf_counter()
            try:
                r = await c.post("/v1/metrics", content=body, headers={"content-type": "application/json"})
                ok = r.status_code == 200
                if not ok:
                    errors.append(f"{r.status_code}: {r.text[:200]}")
            except Exception as exc:  # noqa: BLE001 - counted as an error
                errors.append(f"{type(exc).__name__}: {exc}")
                ok = False
            if ok:
                latencies.append(time.perf_counter() - t)


async def run_load(url: str, body: bytes, clients: int, requests: int, deadline: float):
    latencies: list = []
    errors: list = []
    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(client_loop(url, body, requests, latencies, errors)
                                            for _ in range(clients))), deadline)
    return time.perf_counter() - t0, latencies, errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--requests", type=int, default=20, help="requests per client")
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--metrics", default="avg", help="comma-separated metrics per request (default avg)")
    ap.add_argument("--workers", type=int, default=2, help="compute worker processes of the server")
    ap.add_argument("--processes", type=int, default=1, help="uvicorn server processes")
    ap.add_argument("--baseline", type=int, default=50, help="first, this many requests from one client alone")
    ap.add_argument("--deadline", type=float, default=900, help="stop each phase after this many seconds")
    ap.add_argument("--seed", type=int, default=20260326)
    ap.add_argument("--markdown-out")
    args = ap.parse_args(argv)

    import httpx

    import bayeseval as B

    rng = np.random.default_rng(args.seed)
    p = rng.beta(2, 2, args.questions)
    R = (rng.random((args.questions, args.trials)) < p[:, None]).astype(int)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    body = json.dumps({"models": {"model": {"matrix": R.tolist()}}, "metrics": metrics}).encode()

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    load_avg = os.getloadavg() if hasattr(os, "getloadavg") else None
    proc = start_server(port, args.workers, args.processes)
    try:
        startup = wait_ready(url, proc)
        first = httpx.post(url + "/v1/metrics", content=body, headers={"content-type": "application/json"}, timeout=120)
        first.raise_for_status()
        lib = [B.estimate(R, m, model="model").to_dict() for m in metrics]
        same = first.json()["estimates"] == json.loads(json.dumps(lib))
        runs = []
        if args.baseline:  # one client alone: the service time of a request without queueing
            runs.append((1, args.baseline, *asyncio.run(run_load(url, body, 1, args.baseline, args.deadline))))
        runs.append((args.clients, args.requests, *asyncio.run(run_load(url, body, args.clients, args.requests,
                                                                        args.deadline))))
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()

    def row(clients, per_client, wall, lat, errors):
        ms = np.sort(np.array(lat) * 1000) if lat else np.array([np.nan])
        q = lambda x: float(np.percentile(ms, x))  # noqa: E731
        return (f"| {clients} | {clients * per_client} | {wall:.1f} | {len(lat) / wall:.1f} | {q(50):.0f} | {q(90):.0f} "
                f"| {q(99):.0f} | {float(ms[-1]):.0f} | {len(errors)} |")

    errors = [e for r in runs for e in r[4]]
    load_end = os.getloadavg() if hasattr(os, "getloadavg") else None
    lines = [
        "# bayeseval HTTP service: load test",
        "",
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC",
        f"- python: {platform.python_version()} ({platform.python_implementation()}), {platform.platform()}",
        f"- CPUs: os.cpu_count() = {os.cpu_count()}, usable = {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}"
        + (f"; load average (1, 5, 15 min) at start: {', '.join(f'{x:.2f}' for x in load_avg)}, at the end: "
           f"{', '.join(f'{x:.2f}' for x in load_end)} (other work on the machine competes for the cores)"
           if load_avg and load_end else ""),
        f"- command: python benchmarks/load_service.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip(),
        f"- server: `python -m bayeseval.service` on 127.0.0.1 (the same machine as the clients), "
        f"{args.processes} uvicorn process(es), {args.workers} compute worker process(es) each; ready in {startup:.1f} s",
        f"- request: POST /v1/metrics, one {args.questions} x {args.trials} 0/1 matrix, metrics {metrics}, defaults "
        f"otherwise (population scope, hierarchical prior, exact 95% interval from 4000 draws); body {len(body):,} bytes",
        f"- answer equals bayeseval.estimate on the same matrix: {'yes' if same else 'NO'}",
        "",
        "| clients | requests | wall s | throughput req/s | p50 ms | p90 ms | p99 ms | max ms | errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *[row(*r) for r in runs],
        "",
        "Latency is measured by each client from sending a request to reading the whole answer. The first row is "
        "one client alone (the service time of one request); under load it is mostly queueing behind the other "
        "clients' requests, since every request needs about 25 ms of CPU in a compute worker (the library's "
        "estimate) plus a few ms of JSON parsing in the server, and clients, server and workers share the cores.",
    ]
    if errors:
        lines += ["", "first errors:", *[f"- {e}" for e in errors[:5]]]
    finish("\n".join(lines), args.markdown_out)
    return 0 if not errors and same else 1


if __name__ == "__main__":
    sys.exit(main())
