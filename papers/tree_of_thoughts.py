"""Tree of Thoughts (Yao et al., NeurIPS 2023, arXiv:2305.10601): Table 2, Fig. 5a and Table 3, IO and CoT.

Recomputes the IO and CoT numbers of three experiments from the bundled logs (MIT, (c) 2023
Shunyu Yao), prints them beside the published values, then with 95% credible intervals:

* Table 2, Game of 24 (``examples/data/tot_game24.json``): success rate of one sample and of the
  best of 100, GPT-4, 100 samples on tasks 900-999.
* Fig. 5a, creative writing (``examples/data/tot_text.json``): mean coherency score, 100 tasks x
  10 passages, each passage rated 5 times by GPT-4 on 1..10.  The ratings are categories with
  weights 1..10, and bayeseval's interval for categorical outcomes is that of Bayes@N: the
  Dirichlet(1, ..., 1) posterior of each task's grade distribution.  That prior adds one
  pseudo-rating at every grade 1..10 (mean 5.5) to the task's ~50 real ones, so each task's
  score moves 10/60 of the way to 5.5: Bayes@N is 6.08 (IO) and 6.69 (CoT) against the plain
  means 6.19 and 6.93, and for CoT even the population interval misses the plain mean (the
  pull, 0.24, exceeds the interval's half-width).  To put an interval around the paper's own
  number, the script also counts a rating g as g - 1 successes out of 9 binary points of its
  task and uses the hierarchical Beta prior, which pulls towards the pool of tasks rather than
  towards 5.5 (population scope only: within a task neither the points of a rating nor the 5
  ratings of a passage are independent, which would make a benchmark interval too narrow).
  ``mean +- 1.96 Miller SE`` is the frequentist reference; the two agree here.  In Table 3 the Miller interval
  is the plain normal one, so near 0 it can reach below it (CoT games: 1% of 20 puzzles, [-1.0, 3.0]), where the
  posterior intervals stay in the range.
* Table 3, mini crosswords (``examples/data/tot_crosswords.json``): % of letters (of 25), words
  (of 10) and games solved, 20 puzzles x 10 samples.  Intervals treat each letter (word, grid)
  as a binary trial of its puzzle -- 250 (100, 10) trials per puzzle -- under the hierarchical
  Beta prior; that is sound for the population scope (new puzzles: the spread between puzzles
  dominates) but would make a benchmark-scope interval far too narrow, since the letters of
  one sample are not independent, so the benchmark scope is shown for games only (one trial
  per sample).  Bayes@N on the counts as categories (26 or 11 of them against 10 samples per
  puzzle) is printed too: its uniform prior outweighs the data and drags letters and words
  towards 50%, which is why it is not the interval to quote here.  The CoT word score is
  exactly 15.65% (313 of 2000 words); the paper's 15.6 is the float 15.649999999999997 that
  summing the logged fractions gives, rounded.

    python papers/tree_of_thoughts.py
"""

from pathlib import Path

import numpy as np

import bayeseval as be
from bayeseval import Counts
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

ROOT = Path(__file__).resolve().parents[1] / "examples" / "data"
DATA = ROOT / "tot_game24.json"
TEXT = ROOT / "tot_text.json"
CROSSWORDS = ROOT / "tot_crosswords.json"
PUBLISHED = {("gpt-4 IO", 1): 7.3, ("gpt-4 CoT", 1): 4.0, ("gpt-4 IO", 100): 33.0, ("gpt-4 CoT", 100): 49.0}
FIG5A = {"gpt-4 IO": 6.19, "gpt-4 CoT": 6.93}
TABLE3 = {("gpt-4 IO", "letters"): 38.7, ("gpt-4 IO", "words"): 14.0, ("gpt-4 IO", "games"): 0.0,
          ("gpt-4 CoT", "letters"): 40.6, ("gpt-4 CoT", "words"): 15.6, ("gpt-4 CoT", "games"): 1.0}
CELLS = {"letters": 25, "words": 10, "games": 1}  # binary items behind one sample's count
RATINGS = 5  # GPT-4 ratings per passage


def rows():
    """(model, k, published %, recomputed %, population estimate) for Table 2's IO and CoT rows."""
    runs = read_outcomes(DATA)
    out = []
    for (model, k), pub in PUBLISHED.items():
        R = runs.counts(model)
        out.append((model, k, pub, 100 * be.pass_at_k(R, k), be.estimate(R, f"pass@{k}")))  # as bayeseval demo
    return out


def passage_means(matrix: np.ndarray) -> np.ndarray:
    """Tasks x passages: each passage's mean rating (trial 5j+t is rating t of passage j; NaN = missing)."""
    M, width = matrix.shape
    full = np.full((M, -(-width // RATINGS) * RATINGS), np.nan)
    full[:, :width] = matrix + 1.0  # category g-1 -> grade g
    return np.nanmean(full.reshape(M, -1, RATINGS), axis=2)


def as_binary(run, items: int) -> Counts:
    """Per question, category k of every trial counted as k successes out of ``items`` binary points
    (letters right of 25, words of 10; a rating g as g - 1 of 9)."""
    right = np.nansum(run.matrix, axis=1).astype(int)
    total = items * run.n
    return Counts.from_table(np.column_stack([total - right, right]), ids=list(run.ids))


def fig5a_rows():
    """Fig. 5a, one row per method:
    (model, published, recomputed = mean over passages of the mean rating (the paper's number),
    avg = bayeseval's categorical avg over ratings with weights 1..10 (an Estimate; its value),
    population Estimate of the mean score with ratings as binary points (hierarchical prior; in
    points: the score is 1 + 9 x), population and benchmark Estimates of Bayes@N (Dirichlet prior))."""
    runs = read_outcomes(TEXT)
    pop = be.evaluate(runs, ["bayes"], seed=1)  # evaluate passes each run's weights 1..10 as w
    bench = be.evaluate(runs, ["bayes"], scope="benchmark", seed=1)
    out = []
    for model, pub in FIG5A.items():
        run = runs.run(model)
        avg = be.estimate(run.counts(), "avg", w=run.weights, seed=1, model=model)
        points = be.estimate(as_binary(run, 9), "avg", seed=1, model=model)
        out.append((model, pub, float(np.mean(passage_means(run.matrix))), avg, points,
                    pop[model, "bayes"], bench[model, "bayes"]))
    return out


def table3_rows():
    """Table 3, one row per (method, measure):
    (model, measure, published %, recomputed %, population Estimate of the mean with letters / words /
    grids as binary trials of their puzzle (hierarchical prior), benchmark Estimate (games only, else
    None), Bayes@N Estimate with the counts as categories (Dirichlet prior; None for the binary games))."""
    runs = read_outcomes(CROSSWORDS)
    out = []
    for (model, measure), pub in TABLE3.items():
        run = runs.run(model, measure)
        recomputed = 100 * float(np.mean(np.nanmean(run.matrix, axis=1))) / CELLS[measure]  # over puzzles, samples
        cells = as_binary(run, CELLS[measure])
        pop = be.estimate(cells, "avg", seed=1, model=model)
        # benchmark scope only where a trial is a whole sample: letters of one sample are not independent
        bench = be.estimate(cells, "avg", scope="benchmark", seed=1, model=model) if measure == "games" else None
        bayes = None if run.weights is None else be.estimate(run.counts(), "bayes", w=run.weights, seed=1, model=model)
        out.append((model, measure, pub, recomputed, pop, bench, bayes))
    return out


def _ci(e, scale=100.0, digits=1):
    return f"[{scale * e.lo:.{digits}f}, {scale * e.hi:.{digits}f}]"


def main():
    table = rows()
    print("Tree of Thoughts, Table 2 (Game of 24): success rate in %")
    print(text_table(["method", "metric", "published", "recomputed", "population 95% (default model)"],
                     [(m, "pass@1" if k == 1 else "best of 100", f"{p:.1f}", f"{v:.1f}",
                       f"[{100 * e.lo:.1f}, {100 * e.hi:.1f}]") for m, k, p, v, e in table], right=[2, 3, 4]))
    print()

    fig = fig5a_rows()
    print("Tree of Thoughts, Fig. 5a (creative writing): mean coherency score (GPT-4 ratings, 1..10)")
    print(text_table(["method", "published", "recomputed"], [(m, f"{p:.2f}", f"{v:.2f}") for m, p, v, *_ in fig],
                     right=[1, 2]))
    print()
    print("with 95% credible intervals. Mean score: population scope, a rating g as g-1 of 9 binary points")
    print("(hierarchical prior). Bayes@N: ratings as categories 1..10 under Dirichlet(1) per task, which pulls")
    print("each task 10/60 of the way to 5.5, so Bayes@N < mean and its intervals sit around Bayes@N.")
    g = lambda x: 1 + 9 * x  # noqa: E731  points -> grade
    print(text_table(
        ["method", "mean", "population 95%", "+- 1.96 Miller SE", "Bayes@N", "population 95%", "benchmark 95%"],
        [(m, f"{a.value:.3f}", f"[{g(pt.lo):.2f}, {g(pt.hi):.2f}]",
          f"[{a.value - 1.96 * a.miller_se:.2f}, {a.value + 1.96 * a.miller_se:.2f}]",
          f"{pop.mean:.3f}", _ci(pop, 1, 2), _ci(bench, 1, 2)) for m, _, _, a, pt, pop, bench in fig],
        right=[1, 2, 3, 4, 5, 6]))
    print()

    t3 = table3_rows()
    print("Tree of Thoughts, Table 3 (mini crosswords): % correct")
    print(text_table(["method", "measure", "published", "recomputed"],
                     [(m, s, f"{p:.1f}", f"{v:.2f}") for m, s, p, v, *_ in t3], right=[2, 3]))
    print("(CoT words: exactly 15.65 = 313 of 2000 words; the published 15.6 is the float 15.649999999999997 rounded)")
    print()
    print("with 95% credible intervals: each letter / word / grid a binary trial of its puzzle (hierarchical prior);")
    print("Bayes@N: counts 0..25 / 0..10 as categories, whose uniform Dirichlet prior outweighs 10 samples per puzzle")
    print(text_table(
        ["method", "measure", "%", "population 95%", "+- 1.96 Miller SE", "benchmark 95%", "Bayes@N [population 95%]"],
        [(m, s, f"{v:.2f}", _ci(pop), f"[{v - 196 * pop.miller_se:.1f}, {v + 196 * pop.miller_se:.1f}]",
          "-" if bench is None else _ci(bench), "-" if b is None else f"{100 * b.mean:.1f} {_ci(b)}")
         for m, s, _, v, pop, bench, b in t3],
        right=[2, 3, 4, 5, 6]))
    print("(the Miller interval is the plain normal one: near 0 it reaches below it; the posterior intervals do not)")


if __name__ == "__main__":
    main()
