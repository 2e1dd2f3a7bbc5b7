"""Posterior results for notebooks: estimates, a table, draws, and ArviZ.

Runs on the bundled Game of 24 outcomes (GPT-4, IO and CoT prompts, 100 tasks x
100 samples; Yao et al. 2023, MIT licence):

    python examples/posterior_exports.py [--plot posterior.png]

It prints one estimate, a models x metrics table in both scopes, the ArviZ
summary of the posterior draws, and (with --plot) saves az.plot_posterior.
"""

import argparse
import warnings
from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes

DATA = Path(__file__).with_name("data") / "tot_game24.json"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plot", help="save az.plot_posterior to this PNG file")
    args = ap.parse_args(argv)
    runs = read_outcomes(DATA)

    est = be.estimate(runs.counts("gpt-4 CoT"), "pass@10", model="gpt-4 CoT")
    print(est)
    print("90% interval:", est.confidence_interval(0.9), " hdi:", est.confidence_interval(method="hdi"), " Miller SE:", round(est.miller_se, 4))
    print()
    for scope in ("population", "benchmark"):
        print(f"scope={scope}")
        print(be.evaluate(runs, ["avg", "pass@10", "pass@100", "maj@5"], scope=scope))
        print()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # ArviZ 0.23 announces its 1.0 refactor on import
        import arviz as az

        idata = be.evaluate(runs, ["avg", "pass@10"]).to_inference_data(n=2000, seed=1)
        print(az.summary(idata, kind="stats"))
        if args.plot:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            az.plot_posterior(idata)
            plt.savefig(args.plot, dpi=80)
            print(f"saved {args.plot}")


if __name__ == "__main__":
    main()
