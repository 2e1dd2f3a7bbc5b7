"""PandaLM (Wang et al., arXiv:2306.05087): the human-annotated pairwise test set, and what it says about 5 models.

Recomputes the published numbers of the PandaLM README from ``examples/data/pandalm_testset_labels.csv``
(Apache-2.0): the counts of the annotators' majority labels (tie / first / second: 105 / 422 / 472) and
Cohen's kappa between the three annotators (0.85 / 0.88 / 0.86).  Then what bayeseval adds: the
judges' agreement with the human majority with intervals, Davidson strengths of the five models from
the 2,997 human labels (item-clustered), llama-7b against each other model head to head, and the
share of items whose first-listed response is preferred, from the GPT-3.5 judge on all items and 100
human-labelled ones (prediction-powered), against the human labels on all of them.

    python papers/pandalm.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

from bayeseval.pairwise import bradley_terry, from_wide, judge_agreement, ppi_mean, win_rate
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "pandalm_testset_labels.csv"
PUBLISHED = {"majority": {"0": 105, "1": 422, "2": 472}, "kappa": {(1, 2): 0.85, (1, 3): 0.88, (2, 3): 0.86}}
ANNOTATORS = ["annotator1", "annotator2", "annotator3"]


def table() -> pd.DataFrame:
    return pd.read_csv(DATA, dtype=str)


def majority(d: pd.DataFrame) -> pd.Series:
    """The annotators' majority label (no item has three different labels)."""
    return d[ANNOTATORS].mode(axis=1)[0]


def published_rows(d: pd.DataFrame):
    """(quantity, published, recomputed) for the README's numbers."""
    counts = majority(d).value_counts()
    rows = [(f"majority label {k}", v, int(counts[k])) for k, v in PUBLISHED["majority"].items()]
    for (i, j), v in PUBLISHED["kappa"].items():
        rows.append((f"kappa annotator{i}-annotator{j}", v, judge_agreement(d[f"annotator{i}"], d[f"annotator{j}"]).kappa))
    return rows


def ppi_first_preferred(d: pd.DataFrame, n_human: int = 100, seed: int = 0):
    """Share of items whose first-listed response (``model_1``) is preferred, ties counted as 1/2: from the
    GPT-3.5 judge on every item it could judge and the human majority on a random ``n_human`` of them
    (prediction-powered), beside the human majority on all of them (the answer PPI should cover)."""
    ok = d[d.gpt35 != "garbage"]
    score = lambda lab: np.select([lab == "1", lab == "0"], [1.0, 0.5], 0.0)  # noqa: E731
    y, f = score(majority(ok).to_numpy()), score(ok.gpt35.to_numpy())
    pick = np.zeros(len(ok), bool)
    pick[np.random.default_rng(seed).choice(len(ok), n_human, replace=False)] = True
    return ppi_mean(y[pick], f[pick], f[~pick]), float(y.mean()), len(ok)


def main():
    d = table()
    print("PandaLM test set (999 items x 3 annotators): published and recomputed")
    print(text_table(["quantity", "published", "recomputed"],
                     [(q, f"{p:g}", f"{r:.4g}") for q, p, r in published_rows(d)], right=[1, 2]))
    maj = majority(d)
    print("\njudges against the human majority (95% intervals)")
    rows = []
    for judge in ("gpt35", "pandalm7b"):
        ok = d[judge] != "garbage"
        a = judge_agreement(maj[ok], d[judge][ok])
        rows.append((judge, str(a.n), f"{a.agreement:.4f} [{a.agreement_interval[0]:.4f}, {a.agreement_interval[1]:.4f}]",
                     f"{a.kappa:.3f} [{a.kappa_interval[0]:.3f}, {a.kappa_interval[1]:.3f}]"))
    print(text_table(["judge", "items", "agreement", "Cohen's kappa"], rows, right=[1]))
    prefs = from_wide(d, ANNOTATORS, item="idx", model_a="model_1", model_b="model_2")
    print()
    print(bradley_terry(prefs).summary())
    print("\nllama-7b head to head (human labels, ties split, population scope)")
    rows = []
    for other in ("pythia-6.9b", "bloom-7b", "opt-7b", "cerebras-gpt-6.7B"):
        r = win_rate(prefs, "llama-7b", other)
        rows.append((other, str(r.n_items), f"{r.value:.3f} [{r.lo:.3f}, {r.hi:.3f}]", f"{r.p_a_better:.4f}",
                     f"{r.design_effect:.2f}"))
    print(text_table(["against", "items", "win rate", "P(llama preferred)", "design effect"], rows, right=[1, 3, 4]))
    res, full, m = ppi_first_preferred(d)
    print(f"\nfirst-listed response preferred (ties 1/2), {m} items: GPT-3.5 judge on all + 100 human labels "
          f"{res.estimate:.3f} [{res.lo:.3f}, {res.hi:.3f}] (lambda {res.lam:.2f}, worth {res.effective_n:.0f} human "
          f"labels); the 100 human labels alone {res.classical['estimate']:.3f} [{res.classical['lo']:.3f}, "
          f"{res.classical['hi']:.3f}]; the judge alone {res.judge_only:.3f}; humans on all {m}: {full:.3f}")

if __name__ == "__main__":
    main()
