r"""Sampling a model on a dataset: :func:`run`, resumable, with a stopping hook.

The work: for every question, ``n`` samples (completions), each scored against the gold answer and
appended to ``<out>/samples.jsonl`` the moment it finishes (see :mod:`bayeseval.runner.store`).
Questions are taken in a **random order fixed by** ``seed`` (a permutation of the dataset drawn with
``random.Random(seed)``), so the questions done at any moment are a random sample of the dataset --
what a sequential stopping rule needs to be valid -- and a rerun with the same seed takes them in
the same order.  Requests run concurrently (``concurrency`` at a time); a question asks for its
missing samples ``n_per_request`` at a time (the OpenAI ``n`` parameter), and when the server
returns fewer choices than asked, the rest are asked for in further requests.

**Resume.**  Run again with the same ``out`` folder: finished samples are read back and only the
missing (question, sample) pairs are requested; failed samples are kept as failures unless
``retry_failed=True``.  A different configuration (see :data:`~bayeseval.runner.store.CONFIG_KEYS`)
is an error naming the key.  A run holds an exclusive lock on its folder
(:class:`~bayeseval.runner.store.RunLock`) from start to finish: a second run on the same folder
fails at once instead of writing the same samples twice.

**Stopping.**  ``stop(matrix) -> (bool, reason)`` is called each time a question's ``n`` samples are
all in, with the score matrix of the questions done so far (read-only: a view of the run's rows), in the
random order drawn up front (a
question that finishes before an earlier one in that order waits for it: completion order would favour
the quick, often easy questions), columns the ``n`` samples, NaN for a failed sample; when a resumed run already holds complete
questions it is also called once before any request.  When it returns ``(True, reason)`` no new
question is started, the questions in flight are finished, and the reason goes in the summary.

**Failures.**  A request that fails for good (see :mod:`bayeseval.runner.client`) records each
of its samples as failed, with the error text; failures are counted in the summary, treated as
missing trials by bayeseval's estimate and, as AISBench does, as wrong answers in the AISBench
columns.  A scorer that raises stops the run with a ValueError naming the question id and sample;
every sample finished before it is already on disk.

>>> import numpy as np
>>> stop_after_3 = lambda m: (len(m) >= 3, "three questions are enough")
>>> stop_after_3(np.ones((3, 2)))
(True, 'three questions are enough')
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import validate as V
from .client import ChatClient, ClientOptions, RequestFailed, preflight, require_httpx
from ..sequential.monitor import GrowingRows
from .dataset import Dataset, Question, load_dataset
from .scoring import Scorer, ScorerError, make_scorer
from .store import RUN_FORMAT, RunLock, SampleStore, check_config, default_abbr, now, read_run, write_run

__all__ = ["run", "arun", "RunResult", "DEFAULT_BASE_URL", "drawn_order"]

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"


@dataclass
class RunResult:
    """What :func:`run` did.

    ``ids`` / ``matrix``: the complete questions in dataset order and their scores (questions x n,
    NaN for a failed sample); ``order``: the dataset positions in the order the run takes them (random, from the
    seed: :func:`drawn_order`; ``outcomes.json`` lists the questions so); ``failures``: failed samples among them;
    ``requested``: samples finished
    (answered or failed) in this call, ``resumed``: samples read back from disk; ``stopped`` / ``stop_reason``: the stopping
    hook's verdict; ``files``: the outputs written; ``summary``: the summary text.
    """

    folder: Path
    dataset: str
    model: str
    abbr: str
    n: int
    ids: list
    matrix: np.ndarray
    failures: int
    questions_total: int
    requested: int = 0
    resumed: int = 0
    stopped: bool = False
    stop_reason: str | None = None
    files: dict = field(default_factory=dict)
    summary: str = ""
    order: list = field(default_factory=list)


def drawn_order(total: int, seed: int) -> list[int]:
    """The order :func:`run` takes a dataset's questions in: a permutation of the positions ``0 .. total - 1`` drawn
    with ``random.Random(seed)`` (a rerun with the same seed draws the same one).

    >>> drawn_order(5, 0)
    [2, 1, 0, 4, 3]
    """
    order = list(range(total))
    random.Random(seed).shuffle(order)
    return order


def _check(value: Any, name: str, kind=int, lo: float = 1, allow_none: bool = False):
    if value is None and allow_none:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (kind is float or float(value).is_integer())
    if not ok or not math.isfinite(value) or value < lo:
        raise ValueError(f"--{name.replace('_', '-')} {value!r}: expected "
                         f"{'an integer' if kind is int else 'a finite number'} >= {lo:g}")
    return kind(value)


def _api_key(api_key_env: str | None) -> str | None:
    if api_key_env is None:
        return os.environ.get("OPENAI_API_KEY") or None
    key = os.environ.get(api_key_env)
    if not key:
        raise ValueError(f"--api-key-env {api_key_env}: that environment variable is not set")
    return key


def _parse_stop(value: Any) -> tuple[bool, str]:
    if isinstance(value, tuple) and len(value) == 2:
        return bool(value[0]), str(value[1])
    return bool(value), "the stopping rule said stop"


class _Progress:
    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="sampling", unit="sample", file=sys.stderr, leave=False,
                            disable=not sys.stderr.isatty())

    def update(self, failed: bool) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Session:
    """The state of one call: the store, what is missing, the stopping hook."""

    def __init__(self, ds: Dataset, order: list[int], n: int, scorer: Scorer, store: SampleStore, stop, progress):
        self.ds, self.order, self.n, self.scorer, self.store = ds, order, n, scorer, store
        self.stop, self.progress = stop, progress
        self.stopped, self.stop_reason = False, None
        self.rows = GrowingRows(n)  # the questions order[:next_pos], in that order (the stop hook's matrix)
        self.done: dict[int, np.ndarray] = {}  # finished questions not yet in rows (a question before them is open)
        self.next_pos = 0  # rows holds the questions order[:next_pos]
        self.started: set[int] = set()
        self.remaining: dict[int, int] = {}
        self.requested = 0
        self.rank = {q: r for r, q in enumerate(order)}  # dataset position -> place in the drawn order
        self.moved = asyncio.Event()  # set (and replaced) each time the complete prefix grows

    def row(self, q: Question) -> np.ndarray:
        key = str(q.id)
        return np.array([np.nan if (r := self.store.records[(key, j)]).get("error") is not None else r["score"]
                         for j in range(self.n)], dtype=float)

    def ask_stop(self) -> None:
        if self.stop is None or self.stopped or not self.rows.size:
            return
        verdict, reason = _parse_stop(self.stop(self.rows.view()))
        if verdict:
            self.stopped, self.stop_reason = True, reason

    def record(self, q: Question, j: int, *, text: str | None, error: str | None, finish_reason: str | None,
               attempts: int, latency: float) -> None:
        score = None
        if error is None:
            try:
                score = self.scorer(text, q.answer)
            except Exception as exc:  # noqa: BLE001 - any scorer failure stops the run, naming the sample
                raise ScorerError(f"scorer {self.scorer.spec!r} failed on question id {q.id!r} (dataset line {q.line}), "
                                  f"sample {j}: {type(exc).__name__}: {exc}; the {len(self.store.records)} samples "
                                  f"finished before it are in {self.store.path}") from exc
        self.store.append({"question": q.id, "index": q.index, "sample": j, "text": text, "score": score,
                           "error": error, "finish_reason": finish_reason, "attempts": attempts,
                           "latency": round(latency, 4), "finished": now()})
        self.requested += 1
        self.progress.update(error is not None)
        self.remaining[q.index] -= 1
        if self.remaining[q.index] == 0:
            self.finished(q.index, self.row(q))

    def finished(self, index: int, row: np.ndarray) -> None:
        """A question is complete: extend ``rows`` with the longest complete prefix of the drawn order.

        Rows reach the stopping rule in the random order drawn up front, never in completion order: with
        concurrent requests, questions that take longer (often the harder ones) finish later, and a rule fed
        in completion order would see the easy ones first and stop on a biased sample.
        """
        self.done[index] = row
        if self.advance():
            self.ask_stop()

    def advance(self) -> bool:
        """Move finished questions at the head of the drawn order into ``rows``; True if any moved."""
        start = self.next_pos
        while self.next_pos < len(self.order) and self.order[self.next_pos] in self.done:
            self.rows.append(self.done.pop(self.order[self.next_pos])[None, :])
            self.next_pos += 1
        if self.next_pos > start:
            moved, self.moved = self.moved, asyncio.Event()
            moved.set()
        return self.next_pos > start

    async def job(self, client: ChatClient, q: Question, samples: list[int]) -> None:
        pending = list(samples)
        while pending:
            t0 = time.monotonic()
            try:
                choices, attempts = await client.complete(q.messages, len(pending))
            except RequestFailed as exc:
                for j in pending:
                    self.record(q, j, text=None, error=str(exc), finish_reason=None, attempts=exc.attempts,
                                latency=time.monotonic() - t0)
                return
            took = choices[: len(pending)]
            for c, j in zip(took, pending):
                self.record(q, j, text=c.text, error=None, finish_reason=c.finish_reason, attempts=attempts,
                            latency=time.monotonic() - t0)
            pending = pending[len(took):]


async def _execute(session: _Session, client: ChatClient, jobs: deque, concurrency: int) -> None:
    # with a stopping rule, a new question starts at most `ahead` places beyond the questions the rule has seen: one
    # slow question (a retry's backoff) must not let the others run on far past the stop, and past its budgets
    ahead = 2 * concurrency if session.stop is not None else len(session.order)

    async def worker():
        while jobs:
            q, samples = jobs.popleft()
            while (not session.stopped and q.index not in session.started
                   and session.rank[q.index] >= session.next_pos + ahead):
                await session.moved.wait()
            if session.stopped and q.index not in session.started:
                continue
            session.started.add(q.index)
            await session.job(client, q, samples)

    tasks = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, len(jobs)))]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _check_file_name(arg: str, value: Any) -> None:
    """``dataset_name`` and ``model_abbr`` name files and folders inside the run folder: one name of
    ``[A-Za-z0-9._-]`` (not ``.`` or ``..``), so that no value writes outside it (``../../data`` replaced the
    user's dataset) or into a folder that does not exist (``org/model``)."""
    import re

    if value is None:
        return
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9._-]+", value) or value in (".", ".."):
        raise V.ArgumentError("{" + arg + "} must be one file name of letters, digits, '.', '_' and '-' (it names "
                              "files inside the run folder), got {value!r}", arg, value=value)


async def arun(dataset: str | Path, **kwargs) -> RunResult:
    """:func:`run` for callers already inside an event loop (same arguments)."""
    prepared = _prepare(dataset, **kwargs)
    return await _go(prepared)


def run(dataset: str | Path, *, base_url: str = DEFAULT_BASE_URL, model: str | None = None,
        api_key_env: str | None = None, n: int = 1, n_per_request: int | None = None, temperature: float | None = 1.0,
        max_tokens: int | None = None, stream: bool = False, concurrency: int = 8, timeout: float = 600.0,
        connect_timeout: float = 10.0, request_timeout: float | None = None, retries: int = 5, backoff: float = 1.0,
        max_backoff: float = 60.0,
        scorer: str = "exact", out: str | Path = "bayeseval-run", seed: int = 0, limit: int | None = None,
        prompt_field: str = "prompt", answer_field: str = "answer", id_field: str = "id",
        dataset_name: str | None = None, model_abbr: str | None = None, stop: Callable | None = None,
        retry_failed: bool = False, scope: str = "population", level: float = 0.95,
        progress: bool = False) -> RunResult:
    """Sample ``n`` completions per question of a JSON-lines ``dataset`` from an OpenAI-compatible
    endpoint, score them, and write the run folder ``out`` (see the module docstring and docs/run.md).

    ``api_key_env``: the environment variable holding the API key (None: ``OPENAI_API_KEY`` when set,
    else no key).  ``model``: None takes the server's only model (``GET /models``).  ``timeout``:
    seconds per read; ``request_timeout``: total seconds per request attempt (None: ``3 * timeout``),
    a retryable failure when exceeded; ``retries``: retries per request after the first attempt;
    ``backoff`` / ``max_backoff``: the exponential backoff's first step and cap, in seconds.  ``scope`` /
    ``level``: of bayeseval's estimate in the summary.

    Example (a vLLM server on port 8000)::

        from bayeseval.runner import run
        res = run("gsm8k.jsonl", model="Qwen/Qwen2.5-7B-Instruct", n=5, scorer="numeric", out="runs/qwen")
        print(res.summary)
    """
    prepared = _prepare(dataset, base_url=base_url, model=model, api_key_env=api_key_env, n=n,
                        n_per_request=n_per_request, temperature=temperature, max_tokens=max_tokens, stream=stream,
                        concurrency=concurrency, timeout=timeout, connect_timeout=connect_timeout,
                        request_timeout=request_timeout, retries=retries,
                        backoff=backoff, max_backoff=max_backoff, scorer=scorer, out=out, seed=seed, limit=limit,
                        prompt_field=prompt_field, answer_field=answer_field, id_field=id_field,
                        dataset_name=dataset_name, model_abbr=model_abbr, stop=stop, retry_failed=retry_failed,
                        scope=scope, level=level, progress=progress)
    return asyncio.run(_go(prepared))


def _prepare(dataset, *, base_url=DEFAULT_BASE_URL, model=None, api_key_env=None, n=1, n_per_request=None,
             temperature=1.0, max_tokens=None, stream=False, concurrency=8, timeout=600.0, connect_timeout=10.0,
             request_timeout=None, retries=5, backoff=1.0, max_backoff=60.0, scorer="exact", out="bayeseval-run",
             seed=0, limit=None,
             prompt_field="prompt", answer_field="answer", id_field="id", dataset_name=None, model_abbr=None,
             stop=None, retry_failed=False, scope="population", level=0.95, progress=False) -> dict:
    """Every check that needs no request, then the one quick request to the server; no sample yet."""
    require_httpx()
    n = _check(n, "n")
    n_per_request = _check(n_per_request, "n_per_request", allow_none=True) or n
    concurrency = _check(concurrency, "concurrency")
    retries = _check(retries, "retries", lo=0)
    timeout = _check(timeout, "timeout", float, lo=1e-3)
    connect_timeout = _check(connect_timeout, "connect_timeout", float, lo=1e-3)
    request_timeout = _check(request_timeout, "request_timeout", float, lo=1e-3, allow_none=True)
    backoff = _check(backoff, "backoff", float, lo=0)
    max_backoff = _check(max_backoff, "max_backoff", float, lo=0)
    max_tokens = _check(max_tokens, "max_tokens", allow_none=True)
    temperature = _check(temperature, "temperature", float, lo=0, allow_none=True)
    seed = _check(seed, "seed", lo=0)
    if scope not in ("population", "benchmark"):
        raise ValueError(f"--scope {scope!r}: expected population or benchmark")
    if not (isinstance(level, float) and 0 < level < 1):
        raise ValueError(f"--level {level!r}: expected a number between 0 and 1")
    if stop is not None and not callable(stop):
        raise TypeError(f"stop must be a callable matrix -> (bool, reason), got {type(stop).__name__}")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"--base-url {base_url!r}: expected an http:// or https:// URL, e.g. {DEFAULT_BASE_URL}")
    for arg, value in (("dataset_name", dataset_name), ("model_abbr", model_abbr)):
        _check_file_name(arg, value)
    sc = make_scorer(scorer)
    ds = load_dataset(dataset, prompt_field=prompt_field, answer_field=answer_field, id_field=id_field,
                      name=dataset_name, limit=limit)
    for q in ds.questions:
        sc.check_gold(q.answer, f"{ds.path}: line {q.line}")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {out}: exists and is not a folder")
    if folder.is_dir():       # in use by another run: say so before any request (_go holds the lock for real)
        RunLock(folder).acquire().release()
    stored = read_run(folder) if folder.is_dir() else None
    options = ClientOptions(base_url=base_url.rstrip("/"), model=model, api_key=_api_key(api_key_env),
                            temperature=temperature, max_tokens=max_tokens, stream=bool(stream), timeout=timeout,
                            connect_timeout=connect_timeout, request_timeout=request_timeout, retries=retries,
                            backoff=backoff, max_backoff=max_backoff)
    served = preflight(options)
    if model is None:
        if stored is not None:
            model = stored["config"].get("model")
        elif served and len(served) == 1:
            model = served[0]
        elif served:
            raise ValueError(f"--model: the server at {base_url} serves {', '.join(served)}; choose one")
        else:
            raise ValueError(f"--model: required (the server at {base_url} does not list its models)")
    elif served is not None and model not in served:
        raise ValueError(f"--model {model}: not served at {base_url} (it serves {', '.join(served) or 'nothing'})")
    options.model = model
    config = {"base_url": options.base_url, "model": model, "dataset": str(Path(dataset).resolve()),
              "dataset_sha256": ds.sha256, "prompt_field": prompt_field, "answer_field": answer_field,
              "id_field": id_field, "n": n, "temperature": temperature, "max_tokens": max_tokens, "scorer": sc.spec,
              "seed": seed, "model_abbr": model_abbr or default_abbr(model), "dataset_name": ds.name}
    if stored is not None:
        check_config(stored["config"], config, str(folder / "run.json"))
        doc = stored
    else:
        doc = {"format": RUN_FORMAT, "created": now(), "config": config}
    doc["settings"] = {"stream": bool(stream), "n_per_request": n_per_request, "concurrency": concurrency,
                       "timeout": timeout, "request_timeout": options.deadline, "retries": retries, "limit": limit,
                       "dataset_name": ds.name}
    return {"ds": ds, "scorer": sc, "folder": folder, "doc": doc, "options": options, "n": n,
            "n_per_request": n_per_request, "concurrency": concurrency, "seed": seed, "stop": stop,
            "retry_failed": retry_failed, "scope": scope, "level": level, "progress": progress,
            "abbr": model_abbr or default_abbr(model), "config": config}


async def _go(p: dict) -> RunResult:
    """The run itself, holding the folder's lock throughout (a second run on it fails at once)."""
    lock = RunLock(p["folder"]).acquire()
    try:
        return await _go_locked(p)
    finally:
        lock.release()


async def _go_locked(p: dict) -> RunResult:
    ds, n, folder = p["ds"], p["n"], p["folder"]
    stored = read_run(folder)   # again, under the lock: another run may have written it since _prepare
    if stored is not None:
        check_config(stored["config"], p["config"], str(folder / "run.json"))
        p["doc"] = {**stored, "settings": p["doc"]["settings"]}
    write_run(folder, p["doc"])
    store = SampleStore(folder)
    records = store.load(n)
    if p["retry_failed"]:
        for key in [k for k, r in records.items() if r.get("error") is not None]:
            del records[key]
    resumed = sum(1 for q in ds.questions for j in range(n) if (str(q.id), j) in records)
    order = drawn_order(len(ds.questions), p["seed"])
    jobs: deque = deque()
    missing_total = 0
    session = _Session(ds, order, n, p["scorer"], store, p["stop"], None)
    for i in order:
        q = ds.questions[i]
        missing = [j for j in range(n) if (str(q.id), j) not in records]
        if len(missing) < n:
            session.started.add(q.index)
        if not missing:
            session.done[q.index] = session.row(q)
            continue
        session.remaining[q.index] = len(missing)
        missing_total += len(missing)
        step = p["n_per_request"]
        for k in range(0, len(missing), step):
            jobs.append((q, missing[k:k + step]))
    session.advance()
    session.ask_stop()
    session.progress = _Progress(missing_total, p["progress"])
    # the outcome file is written when the session ends: an interrupted one must not leave the old file beside newer
    # samples, read as if it were the whole run; it goes with the first new sample (a session that records nothing,
    # the server down, keeps it)
    store.stale = [folder / "outcomes.json", folder / "outcomes.csv"]
    store.open()
    try:
        if jobs:
            async with ChatClient(p["options"], p["concurrency"]) as client:
                await _execute(session, client, jobs, p["concurrency"])
    finally:
        store.close()
        session.progress.close()
    from .outputs import write_outputs   # pandas, the estimators and the tables: loaded once the sampling is done

    complete = [q for q in ds.questions if all((str(q.id), j) in store.records for j in range(n))]
    matrix = np.array([session.row(q) for q in complete], dtype=float).reshape(len(complete), n)
    result = RunResult(folder=folder, dataset=ds.name, model=p["config"]["model"], abbr=p["abbr"], n=n,
                       ids=[q.id for q in complete], matrix=matrix, failures=int(np.isnan(matrix).sum()),
                       questions_total=len(ds.questions), requested=session.requested, resumed=resumed,
                       stopped=session.stopped, stop_reason=session.stop_reason, order=order)
    write_outputs(result, ds, complete, store.records, p["scorer"], p["config"], p["doc"], scope=p["scope"],
                  level=p["level"])
    return result
