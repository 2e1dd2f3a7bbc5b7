"""pass@k over k with 95% credible bands: Game of 24, GPT-4 with IO and CoT prompts (Tree of Thoughts).

Yao et al. (2023, MIT licence) sampled 100 answers per task on 100 Game of 24 tasks. Table 2 reports
pass@1 (IO 7.3 %, CoT 4.0 %) and best of 100 (IO 33 %, CoT 49 %): the prompt that wins on one
sample loses on a hundred.  The whole curve shows where they cross, and the bands show how sure
we are of each point (population scope: a new task from the same pool).

    python examples/game24_pass_at_k.py --plot pass_at_k.png
"""

import argparse
from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

DATA = Path(__file__).with_name("data") / "tot_game24.json"
KS = (1, 2, 5, 10, 20, 50, 100)


def curves(ks=KS):
    """{model: [(k, Estimate), ...]} for the two prompts."""
    data = read_outcomes(DATA)
    return {m: [(k, be.estimate(data[m], "pass@k", k=k)) for k in ks] for m in data.models}


def crossing(ks=range(1, 101)):
    """The smallest k at which CoT's finite-sample pass@k exceeds IO's."""
    data = read_outcomes(DATA)
    for k in ks:
        if be.pass_at_k(data["gpt-4 CoT"], k) > be.pass_at_k(data["gpt-4 IO"], k):
            return k
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", help="save the pass@k curves with credible bands to this image file")
    args = parser.parse_args()
    res = curves()
    rows = [(str(k), *(f"{100 * e.value:.1f} [{100 * e.lo:.1f}, {100 * e.hi:.1f}]" for e in (dict(res[m])[k] for m in res)))
            for k in KS]
    print("Game of 24, GPT-4: pass@k in % (estimate [95% credible interval], population scope)")
    print(text_table(["k", *res], rows, right=[0, 1, 2]))
    print(f"\nCoT overtakes IO at k = {crossing()} (finite-sample estimates).")
    if args.plot:
        from bayeseval.report import pass_at_k_curve

        data = read_outcomes(DATA)
        pass_at_k_curve({m: data[m] for m in data.models}, save=args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
