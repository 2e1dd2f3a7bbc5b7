"""Replay the bundled paired runs as if sampled live: samples a sequential study needs for the full data's decision.

For every bundled pair of models on the same questions (Game of 24 IO vs CoT, 100 tasks x 100 samples;
creative writing IO vs CoT, 100 tasks x 50 ratings; mini crosswords IO vs CoT, letters, 20 puzzles x 10;
CRUXEval input vs output prediction, 800 problems x 10 samples) and a few metrics, `bayeseval.sequential.replay`
draws questions at random (with replacement) with fresh trials, stops when 0 leaves the 95% confidence sequence,
and compares the samples spent with (a) the full data and (b) the fixed design (same trials per draw, paired test
at 5%) with the sequential study's rate of the full data's decision as its power (at most 99.5%), sized from the
exact mean and variance of a draw -- an oracle design sized knowing the effect -- whose t-test power is checked by
subsampling.  The same study on replays with A and B swapped at random per draw gives its type-I error on these data.

Run: ``python benchmarks/replay_sequential.py [--replays 200] --out benchmarks/results_replay.md`` (about 6 min).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.simplefilter("ignore")
import bayeseval as be  # noqa: E402
from _common import finish  # noqa: E402
from bayeseval.sequential import replay  # noqa: E402

DATA = ROOT / "examples" / "data"


def cases():
    g24 = be.load(str(DATA / "tot_game24.json"))
    a, b = g24.matrix("gpt-4 CoT"), g24.matrix("gpt-4 IO")
    yield "Game of 24: CoT vs IO", a, b, "avg", 1, {}
    yield "Game of 24: CoT vs IO", a, b, "avg", 4, {}
    yield "Game of 24: CoT vs IO", a, b, "pass@10", 10, {}
    text = be.load(str(DATA / "tot_text.json"))
    ra, rb = text.run("gpt-4 CoT"), text.run("gpt-4 IO")
    w = ra.weights
    yield "Creative writing (ratings 1-10): CoT vs IO", ra.values(), rb.values(), "avg", 1, {"score_range": (w.min(), w.max())}
    cw = be.load(str(DATA / "tot_crosswords.json"))
    letters = [d for d in cw.datasets if "letter" in d][0]
    ra, rb = cw.run("gpt-4 CoT", letters), cw.run("gpt-4 IO", letters)
    yield "Crosswords letters: CoT vs IO", ra.values(), rb.values(), "avg", 1, {"score_range": (0.0, 1.0)}
    cx = be.load(str(DATA / "cruxeval.json"))
    model = cx.models[0]
    yield "CRUXEval: input vs output prediction", cx.matrix(model, "CRUXEval-I"), cx.matrix(model, "CRUXEval-O"), "avg", 1, {}
    yield "CRUXEval: input vs output prediction", cx.matrix(model, "CRUXEval-I"), cx.matrix(model, "CRUXEval-O"), "pass@5", 5, {}


def _clear_summary(clear) -> str:
    """Savings where the full data names a winner: against the full data, and against the power-matched fixed
    design (geometric means: ratios)."""
    if not clear:
        return "No pair has a clear full-data decision."
    full = np.array([c[0] for c in clear])
    fixed = np.array([c[1] for c in clear if c[1] is not None])
    text = (f"Where the full data name a winner ({len(clear)} rows), the sequential study needs {full.min():.1f}x to "
            f"{full.max():.1f}x fewer samples than the full data (geometric mean {np.exp(np.log(full).mean()):.1f}x)")
    if fixed.size:
        text += (f", and {fixed.min():.2f}x to {fixed.max():.2f}x fewer than the power-matched fixed design "
                 f"(mean {fixed.mean():.2f}x, geometric mean {np.exp(np.log(fixed).mean()):.2f}x, {fixed.size} rows "
                 "where it exists).")
    return text + (" Near the best possible, an anytime-valid test needs about 2 sigma^2 log(2/alpha) / delta^2 draws "
                   "against (z_a/2 + z_b)^2 sigma^2 / delta^2 for a fixed test sized knowing delta (a ratio of about "
                   "2.8 at 99.5% power); the bets still learning the effect cost the rest.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replays", type=int, default=200)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    t0 = time.time()
    rows = []
    clear = []
    nulls = []
    for label, A, B, metric, trials, kw in cases():
        r = replay(A, B, metric=metric, trials=trials, replays=args.replays, seed=0, names=("A", "B"), **kw)
        full = {"A better": "A better", "B better": "B better"}.get(r.full_decision, "no clear difference")
        fixed = (f"{r.fixed_samples:,} ({r.full_samples / r.fixed_samples:.1f}x); t-test power {100 * r.fixed_agree:.2f}%"
                 if r.fixed_samples else "none")
        fixed_ratio = f"{r.fixed_samples / r.mean_samples:.2f}" if r.fixed_samples else "-"
        outcome = (f"{100 * r.agree:.1f}% / {100 * r.other:.1f}% / {100 * r.undecided:.1f}%" if r.full_decision
                   else f"undecided {100 * r.undecided:.1f}% / decided {100 * r.other:.1f}%")
        rows.append(f"| {label} | {metric} | {trials} | {r.M} x {r.N[0]} | {full} (P(A>B) = {r.full_p_a_better:.3f}) | "
                    f"{r.full_samples:,} | {r.mean_samples:,.0f} / {r.median_samples:,.0f} | **{r.savings:.1f}x** | "
                    f"{outcome} | {fixed} | {fixed_ratio} | {100 * r.null_decided:.1f}% |")
        nulls.append(r.null_decided)
        if r.full_decision is not None:
            clear.append((r.savings, r.fixed_samples / r.mean_samples if r.fixed_samples else None, r.agree))
        print(rows[-1], f"{time.time() - t0:.0f}s", flush=True)
    lines = [
        "# Replay of the bundled paired runs as sequential studies",
        "",
        f"Each row: {args.replays} replays; questions drawn at random with replacement, fresh trials per draw, stop when 0",
        "leaves the 95% betting confidence sequence (aGRAPA bets, `until='decided'`). A is the first model named. Generated by",
        f"`python benchmarks/replay_sequential.py --replays {args.replays}` in {time.time() - t0:.0f} s.",
        "",
        "| pair | metric | trials per draw | data | full-data decision (compare, population scope) | full samples | "
        "sequential samples mean / median | full / sequential | outcome (see below) | fixed design, same rate "
        "(full / fixed); its t-test power | fixed / sequential | type-I error, null replays |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        _clear_summary(clear),
        f"On the null replays the sequential study named a winner in {100 * min(nulls):.1f}% to {100 * max(nulls):.1f}% "
        f"of {args.replays} replays per row (alpha 5%, checked after every draw).",
        "A replay draws questions with replacement and a fresh random subset of a question's recorded trials per draw,",
        "so it never runs out of data; it is stopped, undecided, when it has spent as many samples as the full data.",
        "A decision the full data reaches only by a small margin (P(A>B) near 0.975) is where the sequential study",
        "saves least: it pays for the spread between randomly drawn questions, and for being valid at every look.",
        "Outcomes: where the full data name a winner, the share of replays reaching the same decision / the opposite",
        "one / none by the budget; where they do not, the share undecided / decided (the sequence targets the mean",
        "over these questions, which the full data may well tell apart in benchmark scope: P(A>B) is population",
        "scope). The fixed design is the paired test's textbook size m = (z_0.975 + z_power)^2 sigma^2 / delta^2 draws,",
        "power = the sequential study's rate of the full data's decision (at most 99.5%: replays that all agree say",
        "the rate is high, not that it is 100%), from the exact mean delta and variance sigma^2 of one draw's",
        f"difference; the t-test's power at m, on {max(args.replays, 400)} fresh replays, is shown beside it. It is an oracle, sized",
        "on the data it is judged on; a real fixed design must guess the effect in advance. Type-I error: the same",
        "sequential study on replays in which each draw's A and B are swapped at random (mean difference exactly 0,",
        "the data's own spread), run to the full data's sample count; the share that named a winner.",
    ]
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
