"""compare's paired bootstrap and sign-flip test with many distinct per-question differences: old code against new.

    python benchmarks/bench_compare_large.py [--sizes 10000,100000,300000] [--old-rev REV] [--markdown-out FILE]

Two correlated models (question difficulty p ~ Beta(1, 1), A's success probability p + 0.1 / sqrt(M), B's p: the
difference about the same number of standard errors at every M) on M questions:
pass@8 from 128 trials per question (thousands of distinct per-question differences) and avg from 1 trial (three).
The old code is this repository at ``--old-rev`` (default: the commit before the change), extracted with
``git archive``; the new code is this checkout.  Each runs in its own process on the same matrices, once
(the old runs take up to a minute): ``paired_bootstrap`` and ``sign_flip_test`` on compare's per-question
differences (10,000 resamples each, seeds 1 and 2) and the whole ``compare(A, B, metric=..., seed=3)`` after a warm-up
(imports).  The new and old results draw different random streams where the algorithm changed, so they agree within
Monte-Carlo error: the table gives the largest gap of the bootstrap's BCa and percentile ends in bootstrap SEs
(about 0.05 expected from 10,000 resamples) and both p-values of each test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

OLD_REV = "bd6bdc0"  # main before compare's bootstrap grouped and its sign-flip drew bits
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONFIGS = (("pass@8", 128), ("avg", 1))


def matrices(M: int, N: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(1, 1, M)
    A = (rng.random((M, N)) < np.clip(p + 0.1 / np.sqrt(M), 0, 1)[:, None]).astype(np.int8)
    B = (rng.random((M, N)) < p[:, None]).astype(np.int8)
    return A, B


def worker(path: str, metric: str, expect_root: str) -> dict:
    """Time the two tests and compare with whichever bayeseval is first on the path (checked: ``expect_root``)."""
    import bayeseval
    from bayeseval import compare
    from bayeseval.comparison.paired import as_counts, question_scores
    from bayeseval.comparison.paired_tests import paired_bootstrap, sign_flip_test, snap_ties
    from bayeseval.posterior import build

    where = os.path.realpath(bayeseval.__file__)
    assert where.startswith(os.path.realpath(expect_root) + os.sep), (where, expect_root)
    data = np.load(path)
    A, B = data["A"], data["B"]
    compare(A[:50], B[:50], metric=metric, seed=3, resamples=200)  # imports (statsmodels, pandas) off the clock
    xa, xb = (question_scores(build(as_counts(X, name), metric)) for X, name in ((A, "A"), (B, "B")))
    d = snap_ties(xa - xb)
    out = {"U": int(np.unique(d).size)}
    t0 = time.perf_counter()
    boot = paired_bootstrap(d, rng=np.random.default_rng(1))
    out["boot_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    flip = sign_flip_test(d, rng=np.random.default_rng(2))
    out["flip_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    compare(A, B, metric=metric, seed=3)
    out["compare_s"] = time.perf_counter() - t0
    out.update(bca=[boot.lo, boot.hi], pct=[boot["percentile"]["lo"], boot["percentile"]["hi"]], se=boot["se"],
               boot_p=boot.p_value, groups=boot.details.get("groups"), flip_p=flip.p_value, flip_mid=flip["mid_p"],
               flip_method=flip.method)
    return out


def run(root: str, path: str, metric: str) -> dict:
    env = {**os.environ, "PYTHONPATH": root}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", path, "--metric", metric, "--root", root]
    res = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,300000")
    ap.add_argument("--old-rev", default=OLD_REV)
    ap.add_argument("--markdown-out", default=None)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--metric", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.metric, args.root)))
        return 0
    sizes = [int(x) for x in args.sizes.split(",")]
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", args.old_rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "bayeseval"], capture_output=True, text=True,
                           check=True).stdout.strip()
    head += " with uncommitted changes" if dirty else ""
    lines = [
        "# compare at scale: paired bootstrap and sign-flip test, old against new",
        "",
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs (shared); "
        f"old = {rev}, new = {head}; 10,000 resamples; one run each (seconds).",
        "`python benchmarks/bench_compare_large.py --markdown-out benchmarks/results_bench_compare_large.md`",
        "",
        "| M | metric (trials) | distinct d | bootstrap old | new | sign-flip old | new | compare old | new "
        "| BCa/pct gap (SE) | bootstrap p old / new | sign-flip p old / new (method) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        old_root = os.path.join(tmp, "old")
        os.makedirs(old_root)
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.old_rev, "bayeseval"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", old_root], input=archive, check=True)
        for M in sizes:
            for metric, N in CONFIGS:
                A, B = matrices(M, N)
                path = os.path.join(tmp, "data.npz")
                np.savez(path, A=A, B=B)
                old = run(old_root, path, metric)
                new = run(ROOT, path, metric)
                gap = max(abs(a - b) for k in ("bca", "pct") for a, b in zip(old[k], new[k])) / old["se"]
                grouped = f" ({new['groups']:,} groups)" if new["groups"] else ""
                lines.append(
                    f"| {M:,} | {metric} ({N}) | {new['U']:,} | {old['boot_s']:.2f} | {new['boot_s']:.2f}{grouped} "
                    f"| {old['flip_s']:.2f} | {new['flip_s']:.2f} | {old['compare_s']:.2f} | {new['compare_s']:.2f} "
                    f"| {gap:.3f} | {old['boot_p']:.4g} / {new['boot_p']:.4g} "
                    f"| {old['flip_p']:.4g} / {new['flip_p']:.4g} ({new['flip_method']}) |")
                print(lines[-1], file=sys.stderr, flush=True)
    lines += ["", "Gaps are Monte-Carlo error (10,000 resamples: an end's sd is about 0.035 SE, a gap's 0.05 SE); "
              "p-values of 1/10,001 = 9.999e-05 are the Monte-Carlo floor (no resample as extreme). A test whose "
              "p-values old and new are equal ran the same code and draws in both: its time difference is the "
              "shared machine's noise."]
    report = "\n".join(lines)
    print(report)
    if args.markdown_out:
        with open(args.markdown_out, "w") as fh:
            fh.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
