"""Where the statistics run: a small pool of worker processes with a hard per-request time limit.

The event loop only parses requests; each computation is sent to an idle
worker process (a fresh interpreter that imported the library at start-up,
talking over a pair of pipes).  A computation that runs past ``timeout``
seconds is stopped by killing its worker, which is replaced at once (other
workers keep serving meanwhile), and the client gets a 422
``time_limit`` error: the limit bounds the cost of one request, it is the
request that asked for more work than this service allows.  Time spent
queueing for a free worker does not count against the limit.

With ``workers=0`` computations run in threads of the server process
instead (for embedding and debugging): the limit then only stops the wait,
not the computation.

>>> import asyncio, operator
>>> async def demo():
...     pool = ComputePool(workers=0, timeout=5)
...     await pool.start()
...     try:
...         return await pool.run(operator.add, 2, 3)
...     finally:
...         await pool.close()
>>> asyncio.run(demo())
5
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import subprocess
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

from .errors import ServiceError

log = logging.getLogger("bayeseval.service")

__all__ = ["ComputePool", "time_limit_error"]


def time_limit_error(timeout: float) -> ServiceError:
    return ServiceError(422, "time_limit", None,
                        f"the computation exceeded the time limit of {timeout:g} s per request (BAYESEVAL_TIMEOUT); "
                        "ask for fewer draws, resamples, models or metrics, or send fewer questions")


def _call(fn: Callable, args: tuple) -> tuple:
    try:
        return ("ok", fn(*args))
    except ServiceError as exc:
        return ("error", exc)
    except MemoryError:
        return ("error", ServiceError(422, "too_large", None, "the computation ran out of memory; send less data"))
    except (ArithmeticError, RecursionError) as exc:  # overflow / division by zero from extreme inputs
        return ("error", ServiceError(422, "validation_error", None, f"the inputs are out of the computable range "
                                                                     f"({type(exc).__name__}: {exc})"))
    except BaseException:  # noqa: BLE001 - reported to the server as an internal error
        return ("crash", traceback.format_exc())


def _worker_main(conn) -> None:
    """Worker process: run ``(fn, args)`` messages until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        conn.send(_call(*task))


def _unpack(reply: tuple) -> Any:
    kind, value = reply
    if kind == "ok":
        return value
    if kind == "error":
        raise value
    raise RuntimeError(f"computation failed in a worker:\n{value}")


class _Worker:
    """One compute process: ``python -m bayeseval.service.workers FD_IN FD_OUT`` (a fresh interpreter, so
    nothing of the server process -- threads, event loop, its ``__main__`` -- is inherited)."""

    def __init__(self, preload: list[str]):
        down_r, down_w = os.pipe()  # server -> worker
        up_r, up_w = os.pipe()      # worker -> server
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONPATH": os.pathsep.join([_ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])}
        try:
            self.proc = subprocess.Popen([sys.executable, "-m", "bayeseval.service.workers", str(down_r), str(up_w),
                                          *preload], pass_fds=(down_r, up_w), env=env, stdin=subprocess.DEVNULL)
        finally:
            os.close(down_r)
            os.close(up_w)
        self.send_conn = Connection(down_w, readable=False)
        self.recv_conn = Connection(up_r, writable=False)
        if self.recv_conn.recv() != "ready":  # imports done
            raise RuntimeError("a compute worker failed to start")

    def roundtrip(self, task: tuple) -> tuple:
        self.send_conn.send(task)
        return self.recv_conn.recv()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)
        self._close()

    def stop(self) -> None:
        try:
            self.send_conn.send(None)
            self.proc.wait(2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(10)
        self._close()

    def _close(self) -> None:
        for c in (self.send_conn, self.recv_conn):
            try:
                c.close()
            except OSError:
                pass


_ROOT = str(Path(__file__).resolve().parents[2])


class ComputePool:
    """``workers`` processes (or threads when 0) running one computation each, with a time limit.

    Blocking round trips to the workers run on their own executor (one thread per worker), and
    killing / starting workers on another, so a replacement never queues behind a runaway
    computation.  A timed-out worker is killed straight from the event loop (``proc.kill()`` does
    not block), which also ends its round-trip thread.  While a replacement is starting, requests
    wait for it; 503 ``unavailable`` only when no worker is running and none is starting.
    """

    def __init__(self, workers: int = 2, timeout: float = 60.0, preload: tuple = ("bayeseval.service.tasks",)):
        self.size, self.timeout, self.preload = workers, timeout, list(preload)
        self._threads = ThreadPoolExecutor(max_workers=max(2 * workers, 2), thread_name_prefix="bayeseval-wait")
        self._spawner = ThreadPoolExecutor(max_workers=max(workers, 1) + 1, thread_name_prefix="bayeseval-spawn")
        self._idle: asyncio.Queue | None = None
        self._all: set = set()
        self._starting = 0
        self._tasks: set = set()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._idle = asyncio.Queue()
        if self.size == 0:
            return
        workers = await asyncio.gather(*(loop.run_in_executor(self._spawner, _Worker, self.preload)
                                         for _ in range(self.size)))
        for w in workers:
            self._all.add(w)
            self._idle.put_nowait(w)

    def _available(self) -> bool:
        return bool(self._all) or self._starting > 0

    async def _replace(self, dead: _Worker, done=None) -> None:
        loop = asyncio.get_running_loop()
        self._starting += 1  # counted before the dead one leaves, so waiting requests never see "no worker"
        self._all.discard(dead)
        try:
            try:
                dead.proc.kill()  # non-blocking; ends a round trip stuck in recv()
            except OSError:
                pass
            if done is not None:  # let the round-trip thread see EOF before the pipes close
                try:
                    await asyncio.wait_for(asyncio.shield(done), 10)
                except BaseException:  # noqa: BLE001 - its outcome no longer matters
                    pass
            await loop.run_in_executor(self._spawner, dead.kill)
            for attempt in range(3):
                try:
                    fresh = await loop.run_in_executor(self._spawner, _Worker, self.preload)
                except Exception:  # noqa: BLE001 - logged; retried
                    log.exception("could not start a compute worker (attempt %d of 3)", attempt + 1)
                    await asyncio.sleep(1)
                    continue
                self._all.add(fresh)
                self._idle.put_nowait(fresh)
                return
        finally:
            self._starting -= 1

    def _spawn_replace(self, dead: _Worker, done=None) -> None:
        task = asyncio.ensure_future(self._replace(dead, done))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _get_worker(self) -> _Worker:
        """The next idle worker, first come first served: one queued ``get`` per request is kept (not
        cancelled and re-queued, which would let newcomers overtake), checking twice a second that a
        worker is running or starting."""
        getter = asyncio.ensure_future(self._idle.get())
        try:
            while True:
                done, _ = await asyncio.wait({getter}, timeout=0.5)
                if done:
                    return getter.result()
                if not self._available():
                    raise ServiceError(503, "unavailable", None, "no compute worker is running; see the server log")
        except BaseException:
            if getter.done() and not getter.cancelled():
                self._idle.put_nowait(getter.result())  # got a worker just as we gave up: hand it back
            else:
                getter.cancel()
            raise

    async def run(self, fn: Callable, *args) -> Any:
        """``fn(*args)`` in a worker; its :class:`ServiceError` is re-raised, a time-out raises a 422 one."""
        loop = asyncio.get_running_loop()
        if self.size == 0:
            try:
                reply = await asyncio.wait_for(loop.run_in_executor(self._threads, _call, fn, args), self.timeout)
            except asyncio.TimeoutError:
                raise time_limit_error(self.timeout) from None
            return _unpack(reply)
        worker = await self._get_worker()
        fut = loop.run_in_executor(self._threads, worker.roundtrip, (fn, args))
        try:
            reply = await asyncio.wait_for(asyncio.shield(fut), self.timeout)
        except asyncio.TimeoutError:
            self._spawn_replace(worker, fut)
            raise time_limit_error(self.timeout) from None
        except (EOFError, OSError) as exc:  # the worker process ended mid-request (the OOM killer, a signal)
            self._spawn_replace(worker, fut)
            raise ServiceError(503, "worker_lost", None,
                               f"the compute worker ended during this request ({type(exc).__name__}); a replacement "
                               "is starting: retry, or send a smaller request if it happens again") from None
        except BaseException:  # this request was cancelled mid-computation
            self._spawn_replace(worker, fut)
            raise
        self._idle.put_nowait(worker)
        return _unpack(reply)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(loop.run_in_executor(self._spawner, w.stop) for w in list(self._all)),
                             return_exceptions=True)
        self._all.clear()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._spawner.shutdown(wait=False, cancel_futures=True)


def _main(argv: list[str]) -> None:
    """Entry point of a worker process: ``FD_IN FD_OUT [MODULE ...]`` (modules to import before "ready")."""
    conn_in = Connection(int(argv[0]), writable=False)
    conn_out = Connection(int(argv[1]), readable=False)
    for module in argv[2:]:
        importlib.import_module(module)
    conn_out.send("ready")

    class _Duplex:
        recv = conn_in.recv
        send = conn_out.send

    _worker_main(_Duplex())


if __name__ == "__main__":
    _main(sys.argv[1:])
