"""compare_all(models, pairs="all"): the pairs' posterior draws made once for all pairs, old against new.

Before, every pair drew its own posterior (``paired_difference`` with the pair's seed: ``draws x M`` new weights, or
for k > n every question's posterior again); now the pairs read theirs from the joint draws behind the rank
probabilities (``bayeseval.comparison.ranking._PairDraws``) and distinct rows are found on integer codes.  The
pairs' tests are unchanged (each pair's own sign-flip resamples), so they are what is left of a pair's cost.

Old and new run in one go on the same data: the new code in this process, the old in a child process on a
checkout of the commit before (``git worktree add /tmp/rank-old 2313172``; ``--old``).  Where the old code would
take many minutes (k > n: every pair drew every question's posterior again) its time is extrapolated from one
pair and ``1 + SAMPLE`` pairs timed in one process (marked ``~``); a run under ``AGAIN`` seconds is timed twice,
the faster counted.  Beside the times: whether the rank probabilities, P(best), expected ranks, scores,
differences, p-values and decisions are identical, and the largest change of a pair's P(A > B) (new draws; the
Monte-Carlo sd of a difference of two estimates is at most ``sqrt(0.5 / draws)``, 0.011 at the default 4,000
draws).

Run: ``python benchmarks/bench_rank_pairs.py --old /tmp/rank-old --out benchmarks/results_bench_rank_pairs.md``
(``--quick``: the 20-model rows only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SAMPLE = 10  # pairs the old code is timed on where it is extrapolated
AGAIN = 15.0  # seconds: a run shorter than this is timed twice, the faster counted
CONFIGS = [  # (models, questions, trials, metric, scope, extrapolate the old code's time)
    (20, 500, 1, "avg", "population", False),
    (20, 500, 8, "avg", "population", False),
    (20, 500, 8, "pass@4", "population", False),
    (20, 500, 1, "pass@4", "population", True),  # k > n: a Bayesian bootstrap of every question's posterior
    (20, 500, 8, "avg", "benchmark", False),
    (20, 5000, 1, "avg", "population", False),
    (20, 5000, 8, "avg", "population", False),
    (50, 500, 1, "avg", "population", False),
    (50, 500, 8, "avg", "population", False),
    (50, 500, 8, "pass@4", "population", False),
    (50, 500, 1, "avg", "benchmark", False),
    (50, 5000, 1, "avg", "population", False),
    (50, 5000, 8, "avg", "population", False),
]


def models(K: int, M: int, N: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.6, M)  # U-shaped difficulty, as real benchmarks have
    shift = np.linspace(-0.1, 0.1, K)
    return {f"m{j:03d}": (rng.random((M, N)) < np.clip(p + shift[j], 0, 1)[:, None]).astype(np.int8)
            for j in range(K)}


def timed(K, M, N, metric, scope, pairs="all"):
    """``(seconds, compare_all(...).to_dict())`` with the bayeseval first on the path: the best of two runs where
    one takes less than ``AGAIN`` seconds (the machine is shared)."""
    import bayeseval as be

    data = models(K, M, N)
    if pairs != "all":  # the first n pairs of the (i < j) family
        names = list(data)
        pairs = [(names[i], names[j]) for i in range(K) for j in range(i + 1, K)][: int(pairs)]
    best = float("inf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        be.compare_all(models(2, 30, 2, seed=1), metric=metric, scope=scope)  # imports (statsmodels) out of the time
        for _ in range(2):
            t0 = time.perf_counter()
            out = be.compare_all(data, metric=metric, scope=scope, seed=1, pairs=pairs).to_dict()
            best = min(best, time.perf_counter() - t0)
            if best >= AGAIN:
                break
    return best, out


def old(path: str, *config, pairs=("all",)):
    """:func:`timed` for each of ``pairs`` in one child process on the old checkout ``path``."""
    child = [sys.executable, __file__, "--child", path, json.dumps([config, pairs])]
    res = subprocess.run(child, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": path})
    return json.loads(res.stdout.strip().splitlines()[-1])


def agreement(new: dict, before: dict) -> tuple[bool, float]:
    """Whether every number but the pairs' interval and P(A > B) is the same, and the largest change of P(A > B)."""
    drawn = ("lo", "hi", "p_a_better")
    same = {k: v for k, v in new.items() if k != "pairs"} == {k: v for k, v in before.items() if k != "pairs"}
    same &= all({k: v for k, v in a.items() if k not in drawn} == {k: v for k, v in b.items() if k not in drawn}
                for a, b in zip(new["pairs"], before["pairs"]))
    return bool(same), max(abs(a["p_a_better"] - b["p_a_better"]) for a, b in zip(new["pairs"], before["pairs"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="a checkout of the commit before (git worktree add DIR 2313172)")
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    ap.add_argument("--quick", action="store_true", help="the 20-model rows only")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE.parent))  # the new code: this checkout
    sys.path.insert(0, str(HERE))
    import bayeseval as be
    from _common import finish

    if Path(be.__file__).resolve().parents[1] != HERE.parent:
        raise SystemExit(f"the new code should be this checkout's, got {be.__file__}")
    rows = []
    for K, M, N, metric, scope, extrapolate in CONFIGS:
        if args.quick and K > 20:
            continue
        P = K * (K - 1) // 2
        t_new, new = timed(K, M, N, metric, scope)
        if extrapolate:  # one pair, then 1 + SAMPLE pairs, in one process: their difference is SAMPLE pairs' cost
            (t1, _), (ts, _) = old(args.old, K, M, N, metric, scope, pairs=(1, 1 + SAMPLE))
            t_old, same, moved = t1 + (ts - t1) / SAMPLE * (P - 1), None, None
        else:
            ((t_old, before),) = old(args.old, K, M, N, metric, scope)
            same, moved = agreement(new, before)
        rows.append((K, M, N, metric, scope, P, t_old, t_new, extrapolate, same, moved))
        print(rows[-1], file=sys.stderr)
    out = [f"# compare_all(pairs=\"all\"): the pairs' posterior draws made once\n\n"
           f"`python benchmarks/bench_rank_pairs.py --old OLD`: seconds of one `compare_all(models, pairs=\"all\", "
           f"seed=1)` (defaults: 4,000 draws, 10,000 resamples, permutation tests), the old code (commit 2313172, "
           f"a git worktree) against the new, on the same data (U-shaped difficulty, models 0.2 apart from first to "
           f"last); python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs shared with "
           f"other work; the faster of two runs where one took under {AGAIN:.0f} s. `~`: the old time extrapolated "
           f"from 1 and {1 + SAMPLE} pairs. 'identical': the scores, rank probabilities, P(best), expected ranks, "
           f"shrink, every pair's difference, p-values and decision are the same numbers; 'max dP(A>B)': the "
           f"largest change of a pair's P(A > B), whose draws changed (Monte-Carlo sd of a difference of two "
           f"estimates at most 0.011; the largest of hundreds of pairs reaches 3-4 of them).\n",
           "| models | questions x trials | metric | scope | pairs | old s | new s | old / new | identical | "
           "max dP(A>B) |", "|---:|---:|---|---|---:|---:|---:|---:|---|---:|"]
    for K, M, N, metric, scope, P, t_old, t_new, extrapolate, same, moved in rows:
        old_s = f"~{t_old:.0f}" if extrapolate else f"{t_old:.2f}"
        out.append(f"| {K} | {M:,} x {N} | {metric} | {scope} | {P:,} | {old_s} | {t_new:.2f} | "
                   f"{t_old / t_new:.1f} | {'-' if same is None else 'yes' if same else 'NO'} | "
                   f"{'-' if moved is None else f'{moved:.4f}'} |")
    out.append("\nWhat is left of a pair is its test, unchanged (each pair's own sign-flip resamples or exact null, as "
               "compare draws them); k > n pairs have none, and the new time there is the rank probabilities' own "
               "draw.")
    return finish("\n".join(out), args.out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:  # the old code: its checkout first on the path (PYTHONPATH)
        sys.path.insert(0, sys.argv[2])
        config, pairs = json.loads(sys.argv[3])
        print(json.dumps([timed(*config, pairs=n) for n in pairs]))
        sys.exit(0)
    sys.exit(main())
