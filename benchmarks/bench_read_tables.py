"""The pandas readers of outcome tables (long CSV, wide CSV, models in columns): old against new, side by side.

The old readers checked every cell with a Python function (``Series.map(lambda ...)`` per label and score cell,
a csv-module loop over the file's lines for its shape, a Python loop filling each model's matrix, one ``int()``
per trial of an outcome file); the new ones check each distinct label or score text once, scan the file's shape
with numpy and fill matrices by index.
Both are run here on the same files, each in a fresh Python process: the old code from another checkout
(``--old``, default ``/work/main``: its working tree, run with that folder as the current directory so it is the
``bayeseval`` imported), the new from this one.  Every figure is one process:

* ``s``: the reading call alone (``bayeseval.io.load(FILE)``; imports excluded), timed inside the process,
  best of ``--repeats`` processes (one at the largest size);
* ``peak MB``: the process's peak resident set size (``/usr/bin/time -f %M``), imports included;
* ``same``: the two readers gave the same runs (dataset, model, question ids, outcome matrix and category
  weights, compared through a SHA-256 of them).

Files (deterministic, written under /tmp/bench_read_tables/ and deleted at the end): long tables
``model,question,trial,score`` with 20 models (5 at 10^5 rows) x Q questions (ids ``q12345``) x 40 trials,
scores 0/1 with 1% of the cells empty (missing trials), rows in model, question, trial order; the same at 10^6
rows with ``true``/``false`` text scores and with grades 0..4; a wide table (20,000 questions x 40 trials) and
one with 20 models in columns (rows ``q``, ``q.1``, ``q.2``, ``q.3``: 80,000 rows); and a compact outcome
file (``bayeseval-outcomes/1``, :mod:`bayeseval.io.outcomes`: one digit string per question) of 20 models x
20,000 questions x 40 trials, 1% missing.  The CLI is timed end to end
(``bayeseval report FILE``: start-up, reading and the report) on the 10^6-row file.

    python benchmarks/bench_read_tables.py --out benchmarks/results_bench_read_tables.md   # ~6 min on 2 cores
    python benchmarks/bench_read_tables.py --quick                                          # no 1.6e7 rows
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import finish  # noqa: E402

DATA = Path("/tmp/bench_read_tables")

CHILD = """
import hashlib, json, sys, time
t0 = time.perf_counter()
import bayeseval
from bayeseval.io import load
t1 = time.perf_counter()
s = load(sys.argv[1])
t2 = time.perf_counter()
h = hashlib.sha256()
for r in s:
    h.update(repr((r.dataset, r.model, r.ids, r.scale)).encode())
    h.update(r.matrix.tobytes())
    h.update(b"-" if r.weights is None else r.weights.tobytes())
print(json.dumps({"seconds": t2 - t1, "hash": h.hexdigest()[:16], "runs": len(list(s)), "file": bayeseval.__file__}))
"""

CLI = "import sys; from bayeseval.cli import main; sys.argv = ['bayeseval'] + sys.argv[1:]; sys.exit(main())"


def long_table(path: Path, models: int, questions: int, trials: int, kind: str = "binary", seed: int = 0) -> None:
    """A long CSV table written in chunks of models (numpy + pandas ``to_csv``)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    p = rng.beta(1, 1, size=questions)
    with path.open("w", newline="") as fh:
        for m in range(models):
            q = np.repeat(np.arange(questions), trials)
            t = np.tile(np.arange(trials), questions)
            if kind == "grades":
                cells = rng.binomial(4, p[q]).astype(str).astype(object)
            else:
                ok = rng.random(q.size) < p[q]
                cells = (np.where(ok, "true", "false") if kind == "text" else ok.astype(np.int8).astype(str)).astype(
                    object)
            cells[rng.random(q.size) < 0.01] = ""
            frame = pd.DataFrame({"model": f"model-{m}", "question": pd.Categorical.from_codes(
                q, [f"q{i}" for i in range(questions)]), "trial": t, "score": cells})
            frame.to_csv(fh, index=False, header=m == 0)


def wide_table(path: Path, questions: int, trials: int, seed: int = 1) -> None:
    import pandas as pd

    rng = np.random.default_rng(seed)
    x = (rng.random((questions, trials)) < 0.5).astype(float)
    x[rng.random(x.shape) < 0.01] = np.nan
    frame = pd.DataFrame(x, columns=[f"t{j}" for j in range(trials)])
    frame.insert(0, "id", [f"q{i}" for i in range(questions)])
    frame.to_csv(path, index=False, float_format="%.0f")


def model_columns(path: Path, questions: int, runs: int, seed: int = 2) -> None:
    import pandas as pd

    names = ["gpt", "claude", "llama", "qwen", "gemma", "mistral", "phi", "yi", "grok", "olmo", "deepseek",
             "falcon", "jamba", "kimi", "glm", "minimax", "nova", "command", "dbrx", "reka"]
    rng = np.random.default_rng(seed)
    ids = [f"{q}" if r == 0 else f"{q}.{r}" for q in range(questions) for r in range(runs)]
    frame = pd.DataFrame((rng.random((len(ids), len(names))) < 0.5).astype(int), columns=names)
    frame.insert(0, "id", ids)
    frame.to_csv(path, index=False)


def outcome_file(path: Path, models: int, questions: int, trials: int, seed: int = 3) -> None:
    """A ``bayeseval-outcomes/1`` file: one digit string per question ('.' for 1% missing trials)."""
    rng = np.random.default_rng(seed)
    doc = {"format": "bayeseval-outcomes/1", "dataset": "bench", "models": {}}
    for m in range(models):
        x = np.where(rng.random((questions, trials)) < 0.01, 2, rng.random((questions, trials)) < 0.5)
        rows = np.array(list("01."))[x.astype(int)]
        doc["models"][f"model-{m}"] = {"questions": [f"q{i}" for i in range(questions)],
                                       "outcomes": ["".join(r) for r in rows]}
    path.write_text(json.dumps(doc))


def run(cwd: Path, args: list[str], code: str = CHILD) -> tuple[dict | str, float, int]:
    """One fresh process in ``cwd`` -> (its JSON line or stdout, wall seconds, peak RSS in MB)."""
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-c", code, *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cwd}: {args}: {proc.stderr[-2000:]}")
    peak = int(proc.stderr.strip().splitlines()[-1]) // 1024
    out = json.loads(proc.stdout.strip().splitlines()[-1]) if code is CHILD else proc.stdout
    return out, wall, peak


def measure(cwd: Path, path: Path, repeats: int) -> dict:
    best = None
    for _ in range(repeats):
        out, _, peak = run(cwd, [str(path)])
        if best is None or out["seconds"] < best["seconds"]:
            best = {**out, "peak": peak}
    if not Path(best["file"]).resolve().is_relative_to(cwd.resolve()):
        raise RuntimeError(f"{cwd}: imported bayeseval from {best['file']}")
    return best


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", default="/work/main", help="checkout holding the old readers (default /work/main)")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per reader below 1.6e7 rows")
    ap.add_argument("--quick", action="store_true", help="leave out the 1.6e7-row table")
    ap.add_argument("--out", default=None, help="write the markdown report here too")
    args = ap.parse_args()
    old, new = Path(args.old), ROOT
    start, load0 = time.time(), os.getloadavg()
    files = [("long, 0/1", 10 ** 5, lambda p: long_table(p, 5, 500, 40)),
             ("long, 0/1", 10 ** 6, lambda p: long_table(p, 20, 1250, 40)),
             ("long, true/false text", 10 ** 6, lambda p: long_table(p, 20, 1250, 40, "text")),
             ("long, grades 0..4", 10 ** 6, lambda p: long_table(p, 20, 1250, 40, "grades")),
             ("wide (20,000 x 40 cells)", 20000, lambda p: wide_table(p, 20000, 40)),
             ("20 models in columns (q, q.1, ...)", 80000, lambda p: model_columns(p, 20000, 4))]
    if not args.quick:
        files.append(("long, 0/1", 16 * 10 ** 6, lambda p: long_table(p, 20, 20000, 40)))
    files.append(("outcome file (JSON, one digit per trial)", 16 * 10 ** 6 if not args.quick else 10 ** 6,
                  lambda p: outcome_file(p, 20, 20000 if not args.quick else 1250, 40)))
    DATA.mkdir(parents=True, exist_ok=True)
    rows, cli = [], None
    try:
        for k, (what, n, make) in enumerate(files):
            path = DATA / (f"table{k}.json" if what.startswith("outcome") else f"table{k}.csv")
            make(path)
            reps = 1 if n > 5 * 10 ** 6 else args.repeats
            a, b = measure(old, path, reps), measure(new, path, reps)
            rows.append((what, n, path.stat().st_size, a, b, reps))
            print(f"{what} {n}: old {a['seconds']:.2f} s {a['peak']} MB, new {b['seconds']:.2f} s {b['peak']} MB, "
                  f"same {a['hash'] == b['hash']}", file=sys.stderr)
            if k == 1:  # the CLI end to end on the 10^6-row long table
                outs = [run(c, ["report", str(path), "--quiet"], CLI) for c in (old, new)]
                cli = (outs, outs[0][0] == outs[1][0])
            path.unlink()
    finally:
        shutil.rmtree(DATA, ignore_errors=True)
    load1 = os.getloadavg()
    import pandas as pd

    lines = ["# Reading outcome tables with pandas: old readers against new", "",
             f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; total run time "
             f"{(time.time() - start) / 60:.1f} min",
             f"- machine: {os.cpu_count()} cores, {platform.machine()}; load average (1, 5, 15 min) at start "
             f"{', '.join(f'{v:.2f}' for v in load0)}, at the end {', '.join(f'{v:.2f}' for v in load1)} (the "
             "machine is shared: wall times are inflated by other work, the ratios less so)",
             f"- python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}",
             f"- old: {old} at commit {git(old, 'rev-parse', '--short', 'HEAD')}; new: {new} at commit "
             f"{git(new, 'rev-parse', '--short', 'HEAD')}"
             + (" plus uncommitted edits" if git(new, "status", "--porcelain", "bayeseval") else ""),
             f"- command: `python benchmarks/bench_read_tables.py {' '.join(sys.argv[1:])}`".rstrip(),
             "- `s`: the `bayeseval.io.load(FILE)` call alone (imports excluded), best of the fresh processes "
             "(`runs`); `peak MB`: the process's peak resident set size (`/usr/bin/time -f %M`, imports "
             "included); `same`: both gave the same runs (ids, matrices, weights)", "",
             "| table | rows | file MB | runs | old s | new s | speed-up | old peak MB | new peak MB | same |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    for what, n, size, a, b, reps in rows:
        lines.append(f"| {what} | {n:,} | {size / 2 ** 20:,.0f} | {reps} | {a['seconds']:.2f} | {b['seconds']:.2f} | "
                     f"{a['seconds'] / b['seconds']:.1f}x | {a['peak']:,} | {b['peak']:,} | "
                     f"{'yes' if a['hash'] == b['hash'] else 'NO'} |")
    lines.append("")
    lines.append("`rows`: the table's rows (trials for the long tables and the outcome file, questions for the wide "
                 "table, question x run rows for the models in columns).")
    if cli is not None:
        (_, wa, pa), (_, wb, pb) = cli[0]
        lines += ["", "CLI end to end on the 10^6-row long table (`bayeseval report FILE --quiet`: start-up, reading, "
                  "the avg estimates of 20 models; one process each): "
                  f"old {wa:.1f} s and {pa:,} MB peak, new {wb:.1f} s and {pb:,} MB peak; the printed reports are "
                  f"{'identical' if cli[1] else 'DIFFERENT'}."]
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
