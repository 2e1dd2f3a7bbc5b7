"""count_shards with a progress callback (each shard counted, then added to the ones before it) against the one-query
path, old code against new.

    python benchmarks/bench_shards_progress.py [--models 20] [--questions 50000] [--trials 16] [--shards 200]
        [--kinds binary,scores] [--layouts spread,blocks] [--old-rev REV] [--old-timeout 900] [--repeats 2]
        [--markdown-out benchmarks/results_bench_shards_progress.md]

Data (written once under /tmp/bench_shards_progress/, the same files on every run): ``models`` x ``questions`` x
``trials`` rows (20 x 50,000 x 16 = 16M) of a long table ``model, question, trial, score`` with text question ids
(``q000017``) and the scores of each shard drawn from a generator seeded by the shard's number (a question's
difficulty ~ Beta(1, 1), the models from weaker to stronger), in ``shards`` Parquet files laid out two ways:

* ``spread``: every shard holds every model, a block of the questions and two of the trials (25 blocks x 8 pairs of
  trials for the defaults): a question is in 8 shards, and adding a shard adds to every model (the costly case for
  adding counts);
* ``blocks``: the rows in (model, question, trial) order, cut into ``shards`` equal parts (one model's 5,000
  questions per shard).

Scores: ``binary`` (0/1 integers) or ``scores`` (numbers in [0, 1] with three decimals, counted with
``score_range=(0, 1)``: sums and sums of squares).

Each (code, path, data) is timed in a fresh process (best of ``--repeats``; the old progress path once, and stopped
after ``--old-timeout`` seconds), after a warm-up count of one shard (imports, the DuckDB database) off the clock:
``count_shards(folder)`` (the one query) and ``count_shards(folder, progress=lambda files: files)``.  The old code
is this repository at ``--old-rev`` (default: main before the change), extracted with ``git archive``; the new code
is this checkout.  The results are compared: the new progress path's and the new one query's OutcomeSets against the
old ones, bit for bit (labels, ids and their types, counts, sums of squares, trial summaries, warnings), and the
progress path's counts against the one query's (exact for 0/1 counts; scores' sums of squares differ in the last
bits: the one query sums (value - mean)^2, adding shards pools raw second moments).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

OLD_REV = "2313172"  # main before count_shards(progress=...) pooled the shards on integer codes
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path("/tmp/bench_shards_progress")
sys.path.insert(0, str(HERE))

from _common import finish  # noqa: E402


# ----------------------------------------------------------------------------- data
def write_data(folder: Path, layout: str, kind: str, models: int, questions: int, trials: int, shards: int) -> Path:
    """The shards of one data set (kept when already written with the same sizes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = json.dumps([layout, kind, models, questions, trials, shards])
    if (folder / "spec.txt").exists() and (folder / "spec.txt").read_text() == spec:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.glob("*.parquet"):
        f.unlink()
    ids = np.array([f"q{i:06d}" for i in range(questions)], dtype=object)
    names = np.array([f"model_{m:02d}" for m in range(models)], dtype=object)
    difficulty = np.random.default_rng(0).beta(1, 1, questions)
    skill = np.linspace(0.6, 1.6, models)
    if layout == "spread":
        groups = trials // 2
        if shards % groups:
            raise SystemExit(f"--shards must be a multiple of trials / 2 = {groups} for the spread layout")
        blocks = shards // groups
    for k in range(shards):
        if layout == "spread":  # every model, question block k % blocks, trials 2 (k // blocks), + 1
            qs = np.arange(questions)[np.arange(questions) * blocks // questions == k % blocks]
            m, q, t = (a.ravel() for a in np.meshgrid(np.arange(models), qs, 2 * (k // blocks) + np.arange(2),
                                                      indexing="ij"))
        else:  # consecutive rows in (model, question, trial) order
            total = models * questions * trials
            row = np.arange(k * total // shards, (k + 1) * total // shards)
            m, q, t = row // (questions * trials), (row // trials) % questions, row % trials
        rng = np.random.default_rng(1000 + k)
        p = difficulty[q] ** skill[m]
        if kind == "binary":
            score = pa.array((rng.random(m.size) < p).astype(np.int32))
        else:
            score = pa.array(np.round(np.clip(p + 0.2 * (rng.random(m.size) - 0.5), 0, 1), 3))
        table = pa.table({"model": pa.array(names[m], pa.string()), "question": pa.array(ids[q], pa.string()),
                          "trial": pa.array(t.astype(np.int32)), "score": score})
        pq.write_table(table, folder / f"part-{k:03d}.parquet")
    (folder / "spec.txt").write_text(spec)
    return folder


# ----------------------------------------------------------------------------- one timed count (child process)
def digest(out) -> str:
    """A hash of everything an OutcomeSet holds: runs in order, labels, ids (values and types), counts, meta."""
    h = hashlib.sha256(repr((out.source, out.warnings)).encode())
    for r in out:
        c = r.counts()
        h.update(repr((r.dataset, r.model, type(c).__name__, c.ids.dtype.str,
                       sorted({type(v).__name__ for v in c.ids[:1000]}),
                       None if r.weights is None else r.weights.tolist(),
                       sorted((k, repr(v)) for k, v in r.meta.items() if k != "trials"))).encode())
        h.update("\x1f".join(map(str, c.ids.tolist())).encode())
        for a in ([c.table] if hasattr(c, "table") else [c.n, c.total, c.sq]):
            h.update(np.ascontiguousarray(a).tobytes())
        summ = r.meta.get("trials")
        if summ is not None:
            h.update(repr(summ["ids"] is c.ids).encode())
            for k in ("rows", "max", "sum"):
                h.update(np.ascontiguousarray(summ[k]).tobytes())
    return h.hexdigest()


def canonical(out, path: str) -> None:
    """Each run's counts by (dataset, model) and question id, for comparing two paths that order them differently."""
    arrays = {}
    for i, r in enumerate(sorted(out, key=lambda r: (r.dataset, r.model))):
        c = r.counts()
        order = np.argsort(np.array([str(v) for v in c.ids]))
        arrays[f"{i}_ids"] = np.array([str(v) for v in c.ids])[order]
        if hasattr(c, "table"):
            arrays[f"{i}_table"] = c.table[order]
        else:
            for k in ("n", "total", "sq"):
                arrays[f"{i}_{k}"] = getattr(c, k)[order]
    np.savez(path, **arrays)


def child(code: str, folder: str, path: str, kind: str, save: str | None) -> dict:
    import bayeseval
    from bayeseval.io.scale import count_shards, count_table

    where = os.path.realpath(bayeseval.__file__)
    assert where.startswith(os.path.realpath(code) + os.sep), (where, code)
    kw = {"score_range": (0, 1)} if kind == "scores" else {}
    files = sorted(Path(folder).glob("*.parquet"))
    count_table(str(files[0]), **kw)  # imports, the DuckDB database: off the clock
    t0 = time.perf_counter()
    out = count_shards(folder, progress=(lambda fs: fs) if path == "progress" else None, **kw)
    seconds = time.perf_counter() - t0
    if save:
        canonical(out, save)
    return {"seconds": seconds, "digest": digest(out), "runs": len(out)}


def timed(code: Path, folder: Path, path: str, kind: str, save: str | None, timeout: float | None) -> dict | None:
    env = {**os.environ, "PYTHONPATH": str(code)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(code), str(folder), path, kind, save or "-"]
    try:
        res = subprocess.run(cmd, env=env, cwd=str(code), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if res.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def agree(a: str, b: str, kind: str) -> str:
    """How the counts saved at ``a`` and ``b`` agree (the same questions, the same counts)."""
    x, y = np.load(a), np.load(b)
    if sorted(x.files) != sorted(y.files) or any(not np.array_equal(x[k], y[k]) for k in x.files
                                                 if k.endswith(("_ids", "_table", "_n"))):
        return "DIFFERENT"
    if kind == "binary":
        return "equal"
    gap = max(float(np.max(np.abs(x[k] - y[k])) / max(float(np.max(np.abs(y[k]))), 1e-300)) for k in x.files
              if k.endswith(("_total", "_sq")))
    return f"equal n; total, sq within {gap:.1e} of their largest"


# ----------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=20)
    ap.add_argument("--questions", type=int, default=50_000)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--shards", type=int, default=200)
    ap.add_argument("--kinds", default="binary,scores")
    ap.add_argument("--layouts", default="spread,blocks")
    ap.add_argument("--old-rev", default=OLD_REV)
    ap.add_argument("--old-timeout", type=float, default=900.0, help="stop an old progress run after this many s")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--markdown-out", default=None)
    ap.add_argument("--child", nargs=5, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        code, folder, path, kind, save = args.child
        print(json.dumps(child(code, folder, path, kind, None if save == "-" else save)))
        return 0

    def git(*a):
        return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True, check=True).stdout.strip()

    old_rev, head = git("rev-parse", "--short", args.old_rev), git("rev-parse", "--short", "HEAD")
    head += " with uncommitted changes" if git("status", "--porcelain", "bayeseval") else ""
    import duckdb
    import pandas as pd
    import pyarrow

    size = f"{args.models} models x {args.questions:,} questions x {args.trials} trials"
    lines = [
        "# count_shards with a progress callback: old against new, beside the one query",
        "",
        f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, pyarrow "
        f"{pyarrow.__version__}, duckdb {duckdb.__version__}, {os.cpu_count()} CPUs (shared with other jobs); "
        f"old = {old_rev}, new = {head}.  {size} ({args.models * args.questions * args.trials:,} rows, text question "
        f"ids) in {args.shards} Parquet shards; seconds, best of {args.repeats} fresh processes (the old progress "
        f"path: one run, stopped after {args.old_timeout:g} s).",
        "`python benchmarks/bench_shards_progress.py --markdown-out benchmarks/results_bench_shards_progress.md`",
        "",
        "| layout | scores | one query old | one query new | progress old | progress new | progress new / one query "
        "new | new = old (progress, one query) | progress = one query (new) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        old_code = Path(tmp) / "old"
        old_code.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old_rev, "bayeseval"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_code)], input=archive, check=True)
        for layout in args.layouts.split(","):
            for kind in args.kinds.split(","):
                folder = write_data(DATA / f"{layout}-{kind}", layout, kind, args.models, args.questions, args.trials,
                                    args.shards)
                got, saved = {}, {}
                for code, name in ((old_code, "old"), (ROOT, "new")):
                    for path in ("one", "progress"):
                        save = saved[(name, path)] = os.path.join(tmp, f"{name}-{path}.npz")
                        slow = name == "old" and path == "progress"
                        runs = []
                        for rep in range(1 if slow else args.repeats):
                            r = timed(code, folder, path, kind, save if rep == 0 else None,
                                      args.old_timeout if slow else None)
                            runs.append(r)
                            if r is None or r["seconds"] > 60:
                                break
                        got[(name, path)] = None if runs[0] is None else {**runs[0], "seconds": min(
                            r["seconds"] for r in runs)}
                        print(f"{layout} {kind} {name} {path}: "
                              f"{'stopped' if runs[0] is None else round(got[(name, path)]['seconds'], 2)}",
                              file=sys.stderr, flush=True)

                def sec(key):
                    return f"> {args.old_timeout:g} (stopped)" if got[key] is None else f"{got[key]['seconds']:.2f}"

                same = [("n/a" if got[("old", p)] is None else
                         "yes" if got[("old", p)]["digest"] == got[("new", p)]["digest"] else "NO")
                        for p in ("progress", "one")]
                ratio = got[("new", "progress")]["seconds"] / got[("new", "one")]["seconds"]
                paths = agree(saved[("new", "progress")], saved[("new", "one")], kind)
                lines.append(f"| {layout} | {kind} | {sec(('old', 'one'))} | {sec(('new', 'one'))} "
                             f"| {sec(('old', 'progress'))} | {sec(('new', 'progress'))} | {ratio:.2f} "
                             f"| {same[0]}, {same[1]} | {paths} |")
                print(lines[-1], file=sys.stderr, flush=True)
    lines += ["", "spread: every shard holds every model, a block of the questions and two of the trials (a question "
              "in several shards); blocks: consecutive rows (one model's questions per shard). \"new = old\": the "
              "OutcomeSets are the same bit for bit (runs in order, ids and their types, counts, sums of squares, "
              "trial summaries, warnings). The machine is shared: differences of a few tenths of a second are noise."]
    return finish("\n".join(lines), args.markdown_out)


if __name__ == "__main__":
    sys.exit(main())
