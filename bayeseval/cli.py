"""The ``bayeseval`` command (argument parsing and printing only; the statistics live in the library).

    bayeseval demo            metrics with intervals, in both scopes, for the bundled Game of 24 runs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .io.outcomes import read_outcomes
from .report import text_table
from .results import estimate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "data"
DEMO_FILE = EXAMPLES / "tot_game24.json"


DEMO_METRICS = ("avg", "pass@10", "pass@100", "pass^10", "maj@10")


def _demo_rows(path: Path, level: float):
    data = read_outcomes(path)
    rows = []
    for model in data.names():
        counts = data.counts(model)
        published = data.published.get(model, {})
        for metric in DEMO_METRICS:
            pop = estimate(counts, metric, scope="population", level=level, model=model)
            bench = estimate(counts, metric, scope="benchmark", level=level, model=model)
            key = "pass@1" if metric == "avg" else metric
            rows.append((model, pop.metric, pop.value, published.get(key), pop, bench))
    return data, rows


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}"


def cmd_demo(args) -> int:
    path = Path(args.data) if args.data else DEMO_FILE
    if not path.exists():
        print(f"bayeseval: demo data not found at {path}; run from a clone of the repository or pass --data", file=sys.stderr)
        return 2
    data, rows = _demo_rows(path, args.level)
    if args.format == "json":
        print(json.dumps({
            "dataset": data.dataset,
            "rows": [{"model": m, "metric": name, "value": value, "published": pub,
                      "population": pop.to_dict(), "benchmark": bench.to_dict()}
                     for m, name, value, pub, pop, bench in rows],
        }, indent=1))
        return 0
    pct = f"{args.level:.0%}"
    print(f"{data.dataset}\nsource: {data.source}\nlicence: {data.license}\n")
    print("All numbers in %. estimate = the finite-sample value (what papers report); the intervals are")
    print(f"{pct} exact posterior intervals (hierarchical prior) in two scopes: population = a new task from")
    print("the same pool, benchmark = these 100 tasks held fixed (only sampling noise).\n")
    header = ("model", "metric", "estimate", "published", f"population {pct}", f"benchmark {pct}")
    table = [header] + [
        (m, name, _pct(value), _pct(pub), f"[{_pct(pop.lo)}, {_pct(pop.hi)}]", f"[{_pct(bench.lo)}, {_pct(bench.hi)}]")
        for m, name, value, pub, pop, bench in rows
    ]
    print(text_table(table[0], table[1:], right=list(range(2, len(header)))))
    print(
        "\nThe intervals are for the latent metric g(p) of each task. For pass@100 with 100 samples per task,"
        "\nthe estimate counts tasks solved at least once in these samples, while the latent pass@100 of a"
        "\ntask never solved is small but not zero: the two answer different questions."
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
        description="Print avg (pass@1), pass@10, pass@100, pass^10 and maj@10 with population- and "
        "benchmark-scope intervals for GPT-4 IO and CoT on Game of 24 (100 tasks x 100 samples, "
        "Yao et al. 2023), beside the published numbers.",
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
