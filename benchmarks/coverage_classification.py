"""Coverage study for classification metrics: accuracy, macro F1, one class's F1 and balanced accuracy.

Simulates confusion matrices of n items drawn from a population with K classes: class shares pi (``uniform``,
or ``skewed``: pi_k proportional to 1/k, Zipf), each class recalled with probability ``acc`` and its errors
spread evenly over the other K - 1 classes, so the population cell shares are

    theta_ij = pi_i * (acc if i == j else (1 - acc) / (K - 1)).

Every interval of :func:`bayeseval.classification.classification` (run on the counts, ``labels`` naming all K
classes) is scored against its estimand, a function of theta (the population scope):

* accuracy: ``sum_k theta_kk`` (= acc);
* macro F1: the mean over all K classes of ``2 theta_kk / (theta_k. + theta_.k)`` -- the macro F1 of the
  population confusion probabilities, not the expected macro F1 of a benchmark of n items;
* macro F1 (unseen = 0): the same mean with 0 for each class the sample shows neither as a true nor as a
  predicted label -- the quantity macro F1's value and draws describe, which count such a class as 0 (as
  scikit-learn does); it differs from the macro F1 above only when a class is unseen;
* F1[mid]: that F1 of class K // 2 (a middle class by size when skewed; for K = 2 the smaller class);
* balanced accuracy: the mean recall ``theta_kk / theta_k.`` (= acc).

``accuracy (exact)`` is accuracy's coverage computed exactly rather than simulated: its interval depends on the
counts only through the number x of right predictions, so the coverage is the sum over x of Binomial(x; n, acc)
for the x whose interval (from classification on a matrix with x right) holds acc.  ``warned`` is the share of
replicates whose classes hold few examples for their number -- the sum over classes with examples of
1 / examples is at least 1 (a harmonic mean of examples per class below the number of classes), the rule by
which classification warns that macro F1 and balanced accuracy cover less often than their level -- and
``macro F1 (not warned)`` macro F1's coverage over the other replicates ("-" when there are none).

    python benchmarks/coverage_classification.py --workers 1                 # the table (about 10 min, 1 core)
    python benchmarks/coverage_classification.py --reps 50                   # quicker, noisier
    python benchmarks/coverage_classification.py --ks 4,20,50 --ns 300 --accs 0.9   # some cells only
    python benchmarks/coverage_classification.py --out benchmarks/results_coverage_classification.md

Monte-Carlo standard error of one cell's coverage is sqrt(0.95 * 0.05 / reps) (1.5 points at 200 replicates).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import bench_parser, finish, pool_map  # noqa: E402
from bayeseval.classification import classification  # noqa: E402

LEVEL = 0.95
KS = (2, 4, 20, 50)
NS = (50, 300)
SHAPES = ("uniform", "skewed")
ACCS = (0.9, 0.6)
METRICS = ("accuracy", "macro F1", "macro F1 (unseen = 0)", "F1[mid]", "balanced acc.")  # simulated coverage


def population(K: int, shape: str, acc: float) -> np.ndarray:
    """The population cell shares theta (rows true, columns predicted)."""
    pi = np.ones(K) if shape == "uniform" else 1.0 / np.arange(1, K + 1)
    pi = pi / pi.sum()
    return pi[:, None] * np.where(np.eye(K, dtype=bool), acc, (1 - acc) / (K - 1))


def truths(theta: np.ndarray) -> dict:
    d = np.diag(theta)
    f1 = 2 * d / (theta.sum(axis=1) + theta.sum(axis=0))
    K = theta.shape[0]
    return {"accuracy": d.sum(), "macro F1": f1.mean(), "F1[mid]": f1[K // 2],
            "balanced acc.": (d / theta.sum(axis=1)).mean(), "F1": f1}


def run_cell(args):
    K, n, shape, acc, reps, draws, seed = args
    rng = np.random.default_rng(seed)
    theta = population(K, shape, acc)
    truth = truths(theta)
    labels = [f"c{k}" for k in range(K)]
    hits = dict.fromkeys(METRICS, 0)
    width = dict.fromkeys(METRICS, 0.0)
    warned = macro_quiet = quiet = 0
    for _ in range(reps):  # a loop over simulated benchmarks
        C = rng.multinomial(n, theta.ravel()).reshape(K, K)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = classification(confusion_matrix=C, labels=labels, draws=draws, level=LEVEL,
                               seed=int(rng.integers(2**31)))
        got = {"accuracy": r.metrics["accuracy"], "macro F1": r.metrics["macro_f1"],
               "macro F1 (unseen = 0)": r.metrics["macro_f1"], "F1[mid]": r.per_class[labels[K // 2]]["f1"],
               "balanced acc.": r.metrics["balanced_accuracy"]}
        seen = (C.sum(axis=0) + C.sum(axis=1)) > 0
        truth["macro F1 (unseen = 0)"] = float(np.where(seen, truth["F1"], 0.0).mean())
        for m, s in got.items():
            hits[m] += s["lo"] <= truth[m] <= s["hi"]
            width[m] += (s["hi"] - s["lo"]) / reps
        support = C.sum(axis=1)
        if (1.0 / support[support > 0]).sum() >= 1:
            warned += 1
        else:
            quiet += 1
            macro_quiet += got["macro F1"]["lo"] <= truth["macro F1"] <= got["macro F1"]["hi"]
    cover = {m: hits[m] / reps for m in METRICS}
    cover["accuracy (exact)"] = exact_accuracy_coverage(K, n, acc, labels)
    return (K, n, shape, acc), cover, width, warned / reps, (macro_quiet / quiet if quiet else None), truth


def exact_accuracy_coverage(K: int, n: int, acc: float, labels: list) -> float:
    """Sum over x of Binomial(x; n, acc) for the x right out of n whose accuracy interval holds acc."""
    held = np.zeros(n + 1, dtype=bool)
    for x in range(n + 1):  # a loop over the possible numbers right
        C = np.zeros((K, K), dtype=np.int64)
        C[0, 0], C[0, 1] = x, n - x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = classification(confusion_matrix=C, labels=labels, draws=100).metrics["accuracy"]
        held[x] = a["lo"] <= acc <= a["hi"]
    return float(stats.binom.pmf(np.arange(n + 1), n, acc)[held].sum())


def main() -> int:
    ap = bench_parser(__doc__, 200)
    ap.add_argument("--draws", type=int, default=1000, help="Dirichlet draws per interval (default 1000)")
    ap.add_argument("--title", default="", help="a note after the title (which code ran)")
    ap.add_argument("--ks", default=",".join(map(str, KS)), help="numbers of classes (default 2,4,20,50)")
    ap.add_argument("--ns", default=",".join(map(str, NS)), help="numbers of items (default 50,300)")
    ap.add_argument("--accs", default=",".join(map(str, ACCS)), help="population accuracies (default 0.9,0.6)")
    args = ap.parse_args()
    grid = [[conv(v) for v in text.split(",")] for text, conv in ((args.ks, int), (args.ns, int), (args.accs, float))]
    cells = list(itertools.product(grid[0], grid[1], SHAPES, grid[2]))
    tasks = [(K, n, s, a, args.reps, args.draws, 1000 + i) for i, (K, n, s, a) in enumerate(cells)]
    if args.workers > 1:
        results, seconds = pool_map(run_cell, tasks, args.workers)
    else:  # in this process, each cell reported on stderr as it ends
        t0, results = time.time(), []
        for task in tasks:
            results.append(run_cell(task))
            print(f"cell {results[-1][0]} done, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        seconds = time.time() - t0
    head = (["K", "n", "classes", "acc", "true macro F1", "accuracy (exact)"] + list(METRICS)
            + ["warned", "macro F1 (not warned)"])
    lines = [f"# Coverage of classification intervals ({int(LEVEL * 100)}%){args.title}", "",
             f"{args.reps} replicates per cell, {args.draws} Dirichlet draws, {seconds:.0f} s; Monte-Carlo se of a "
             f"coverage near 0.95: {np.sqrt(0.95 * 0.05 / args.reps):.3f}.  Estimands: functions of the population "
             "cell shares; `accuracy (exact)` is not simulated; `warned`: share of replicates with few examples "
             "per class for their number (see the script's docstring).", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (K, n, shape, acc), cover, width, warned, macro_quiet, truth in results:
        row = [str(K), str(n), shape, f"{acc:g}", f"{truth['macro F1']:.3f}", f"{cover['accuracy (exact)']:.3f}"]
        row += [f"{cover[m]:.2f}" for m in METRICS]
        row += [f"{warned:.2f}", "-" if macro_quiet is None else f"{macro_quiet:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Mean interval widths (accuracy / macro F1):", "",
              "| K | n | classes | acc | accuracy | macro F1 |", "|---|---|---|---|---|---|"]
    for (K, n, shape, acc), _, width, *_ in results:
        lines.append(f"| {K} | {n} | {shape} | {acc:g} | {width['accuracy']:.3f} | {width['macro F1']:.3f} |")
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
