"""Type-I error under continuous monitoring: the confidence sequence against fixed-sample tests peeked at.

A and B answer questions drawn one at a time from a pool, with the *same* success probability p_i per
question (a true null), ``trials`` trials each.  After every question (the t-test from the 10th, the sequence from the 1st) the
analyst looks; a procedure commits a type-I error if it *ever* declares a winner.  Compared:

* ``sequence``: bayeseval.sequential's betting confidence sequence (0 left the 95% sequence), with the aGRAPA
  bets ``Sequential`` uses and with the plug-in bets of ``BettingCS``'s default;
* ``t-test peeked``: the paired t-test at 5%, after every question;
* ``compare peeked``: bayeseval.compare's headline verdict (P(A > B) outside [0.025, 0.975]),
  looked at every ``--compare-every`` questions (it is too slow to run after each one);
* ``t-test once``: the paired t-test only at T (no peeking), for reference.

Pools: two clusters (40% at p = 0.05, 60% at p = 0.9: with one trial most paired differences are 0, sparse
disagreement), Beta(0.5, 0.5), logit-normal(0, 2), and per-question rates resampled from the bundled
CRUXEval-O run (real).

Run: ``python benchmarks/sequential_typei.py [--reps 2000] [--T 1000] [--compare-reps 100] --out
benchmarks/results_sequential.md`` (about 4 min on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.simplefilter("ignore")
import bayeseval as be  # noqa: E402
from _common import finish  # noqa: E402
from bayeseval.sequential import capital_at  # noqa: E402


def real_rates() -> np.ndarray:
    s = be.load(str(ROOT / "examples" / "data" / "cruxeval.json"))
    X = s.matrix(s.models[0], "CRUXEval-O")
    return np.nanmean(X, axis=1)


def pool_p(name: str, size, rng, real) -> np.ndarray:
    if name == "two-cluster":
        return np.where(rng.random(size) < 0.4, 0.05, 0.9)
    if name == "beta(.5,.5)":
        return rng.beta(0.5, 0.5, size)
    if name == "logitnormal(0,2)":
        return 1 / (1 + np.exp(-rng.normal(0, 2, size)))
    if name == "cruxeval-O (real)":
        return rng.choice(real, size=size)
    raise ValueError(name)


def differences(name, reps, T, trials, rng, real):
    p = pool_p(name, (reps, T), rng, real)
    a = rng.binomial(trials, p) / trials
    b = rng.binomial(trials, p) / trials
    return a - b


def t_peeked(d: np.ndarray, alpha: float, start: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(ever rejected by t, rejected at T) per replicate."""
    R, T = d.shape
    m = np.arange(1, T + 1, dtype=np.float64)
    mean = np.cumsum(d, axis=1) / m
    var = np.maximum(np.cumsum(d * d, axis=1) - m * mean**2, 0.0) / np.maximum(m - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.sqrt(var / m)
    crit = stats.t.ppf(1 - alpha / 2, np.maximum(m - 1, 1))
    rej = (m >= start) & (var > 0) & (t > crit)
    return rej.any(axis=1), rej[:, -1]


def compare_peeked(name, reps, T, trials, every, rng, real) -> float:
    hits = 0
    for r in range(reps):
        p = pool_p(name, T, rng, real)
        A = rng.binomial(1, p[:, None], size=(T, trials))
        B = rng.binomial(1, p[:, None], size=(T, trials))
        for t in range(every, T + 1, every):
            if be.compare(A[:t], B[:t], seed=r, resamples=200, draws=2000).decision in ("A", "B"):
                hits += 1
                break
    return hits / reps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--T", type=int, default=1000)
    ap.add_argument("--compare-reps", type=int, default=100)
    ap.add_argument("--compare-every", type=int, default=25)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    real = real_rates()
    t0 = time.time()
    rows = []
    for name, trials in [("two-cluster", 1), ("two-cluster", 4), ("beta(.5,.5)", 1), ("beta(.5,.5)", 4),
                         ("logitnormal(0,2)", 1), ("cruxeval-O (real)", 1), ("cruxeval-O (real)", 4)]:
        d = differences(name, args.reps, args.T, trials, rng, real)
        seq, seq_plugin = (float((capital_at((d + 1) / 2, 0.5, args.alpha, bets=b)[:, -1] >= np.log(1 / args.alpha)).mean())
                           for b in ("agrapa", "plugin"))
        ever_t, last_t = t_peeked(d, args.alpha)
        cmp_rate = (compare_peeked(name, args.compare_reps, args.T, trials, args.compare_every, rng, real)
                    if args.compare_reps else float("nan"))
        rows.append((name, trials, seq, seq_plugin, float(ever_t.mean()), cmp_rate, float(last_t.mean())))
        print(rows[-1], f"{time.time() - t0:.0f}s", flush=True)
    se = np.sqrt(args.alpha * (1 - args.alpha) / args.reps)
    lines = [
        "# Type-I error under continuous monitoring",
        "",
        f"A and B share every question's success rate (a true null); questions arrive one at a time, up to T = {args.T};",
        "a procedure errs if it *ever* declares a winner. Generated by `python benchmarks/sequential_typei.py "
        f"--reps {args.reps} --T {args.T} --compare-reps {args.compare_reps} --compare-every {args.compare_every}` "
        f"in {time.time() - t0:.0f} s.",
        "",
        f"| pool | trials per question | sequence, aGRAPA bets (the default; every question) | sequence, plug-in bets | "
        f"t-test peeked (every question) | compare peeked (every {args.compare_every}) | t-test once, at T |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, trials, seq, seq_plugin, ever_t, cmp_rate, last_t in rows:
        lines.append(f"| {name} | {trials} | {100 * seq:.1f}% | {100 * seq_plugin:.1f}% | {100 * ever_t:.1f}% | "
                     f"{100 * cmp_rate:.0f}% | {100 * last_t:.1f}% |")
    lines += ["", f"Nominal level {100 * args.alpha:g}%. Monte-Carlo s.e. {100 * se:.1f} points at {args.reps} "
              f"replicates (the compare column: {args.compare_reps} replicates, s.e. up to "
              f"{100 * np.sqrt(0.25 / max(args.compare_reps, 1)):.0f} points). The t-test is looked at from the 10th "
              "question on, the sequence from the 1st. The sequence keeps its level however often it is looked at; "
              "the fixed-sample tests do not."]
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
