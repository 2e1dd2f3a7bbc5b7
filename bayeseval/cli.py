"""The ``bayeseval`` command (argument parsing and printing only; the statistics live in the library).

    bayeseval demo            metrics with intervals for the bundled Game of 24 runs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .io.outcomes import read_outcomes
from .metrics import reference as ref

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "data"
DEMO_FILE = EXAMPLES / "tot_game24.json"


def _demo_rows(path: Path, confidence: float):
    data = read_outcomes(path)
    rows = []
    for model in data.names():
        counts = data.counts(model)
        published = data.published.get(model, {})
        specs = [("pass@1", 1), ("pass@10", 10), ("pass@100", 100)]
        for label, k in specs:
            if k > counts.N:
                continue
            point = ref.pass_at_k(counts, k)
            mu, sd, lo, hi = ref.pass_at_k_ci(counts, k, confidence=confidence)
            rows.append((model, label, point, mu, sd, lo, hi, published.get(label)))
        for label, fn in (("pass^10", ref.pass_hat_k), ("maj@10", ref.maj_at_k)):
            point = fn(counts, 10)
            mu, sd, lo, hi = getattr(ref, fn.__name__ + "_ci")(counts, 10, confidence=confidence)
            rows.append((model, label, point, mu, sd, lo, hi, None))
        mu, sd, lo, hi = ref.bayes_ci(counts, confidence=confidence)
        rows.append((model, "Bayes@N", None, mu, sd, lo, hi, None))
    return data, rows


def _fmt(x, pct=True):
    if x is None:
        return "-"
    return f"{100 * x:.1f}" if pct else f"{x:.4f}"


def cmd_demo(args) -> int:
    path = Path(args.data) if args.data else DEMO_FILE
    if not path.exists():
        print(f"bayeseval: demo data not found at {path}; run from a clone of the repository or pass --data", file=sys.stderr)
        return 2
    data, rows = _demo_rows(path, args.level)
    if args.format == "json":
        keys = ("model", "metric", "estimate", "posterior_mean", "posterior_sd", "lo", "hi", "published")
        print(json.dumps({"dataset": data.dataset, "level": args.level, "scope": "benchmark",
                          "interval": "normal", "rows": [dict(zip(keys, r)) for r in rows]}, indent=1))
        return 0
    pct = int(round(args.level * 100))
    print(f"{data.dataset}\nsource: {data.source}\nlicence: {data.license}\n")
    print(f"All numbers in %. estimate = unbiased finite-sample value; mean, sd and the {pct}% interval are the")
    print("posterior of the latent metric (Beta(1,1) prior per task; scope=benchmark: the 100 tasks are fixed;")
    print("normal approximation, clipped to [0, 100]).\n")
    header = ("model", "metric", "estimate", "post. mean", "post. sd", f"{pct}% interval", "published")
    table = [header] + [
        (m, metric, _fmt(pt), _fmt(mu), _fmt(sd), f"[{_fmt(lo)}, {_fmt(hi)}]", _fmt(pub))
        for m, metric, pt, mu, sd, lo, hi, pub in rows
    ]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for j, r in enumerate(table):
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if j == 0:
            print("  ".join("-" * w for w in widths))
    print(
        "\nRead pass@100 with care: at k = N the latent metric is extrapolated, and for a task never solved in"
        "\n100 samples the uniform prior still gives about a 50% chance of a success in 100 more. The unbiased"
        "\nestimate is the number to compare with the paper; the posterior answers a different question."
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayeseval",
        description="Bayesian metrics with credible intervals for LLM evaluation outcomes.",
        epilog="example:\n  bayeseval demo\n  bayeseval demo --format json --level 0.9",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bayeseval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="metrics with intervals for the bundled Tree-of-Thoughts Game of 24 runs",
        description="Print pass@k, pass^k, maj@k and Bayes@N with intervals for GPT-4 IO and CoT "
        "on Game of 24 (100 tasks x 100 samples, Yao et al. 2023), beside the published numbers.",
        epilog="example:\n  bayeseval demo --level 0.9",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.add_argument("--data", help="a bayeseval-outcomes/1 file (default: the bundled Game of 24 runs)")
    demo.add_argument("--level", type=float, default=0.95, help="credibility level (default 0.95)")
    demo.add_argument("--format", choices=("table", "json"), default="table")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, KeyError) as exc:
        print(f"bayeseval: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
