"""OpenQA-eval (Kamalloo et al., ACL 2023): how well do automatic judges agree with humans on QA answers?

Recomputes, from ``examples/data/nq301_judgments.csv`` (MIT), the agreement of BEM, GPT-4 and InstructGPT with
the human verdict on 1,490 (question, answer) pairs -- 80.6 / 84.8 / 83.8 % -- and adds what a single number
hides: intervals, Cohen's kappa, each judge read as a classifier of "acceptable" (precision, recall, F1 with
exact posteriors), GPT-4 against InstructGPT on the same pairs (McNemar and the posterior of the difference),
and the share of acceptable answers estimated from the GPT-4 judge on every pair plus 150 human verdicts
(prediction-powered), against the human verdicts on all pairs.

    python papers/openqa_judges.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

from bayeseval.classification import classification, compare_classifiers
from bayeseval.pairwise import judge_agreement, ppi_mean
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "nq301_judgments.csv"
PUBLISHED = {"bem": 80.6, "gpt4": 84.8, "instructgpt": 83.8}


def table() -> pd.DataFrame:
    return pd.read_csv(DATA, keep_default_na=False, dtype=str)


def judged(d: pd.DataFrame, judge: str) -> pd.DataFrame:
    return d[d[judge].isin(["Yes", "No"])]


def rows(d: pd.DataFrame):
    """(judge, published %, agreement result, classification result) per judge."""
    out = []
    for j, pub in PUBLISHED.items():
        sub = judged(d, j)
        out.append((j, pub, judge_agreement(sub.human, sub[j]), classification(sub.human, sub[j], positive="Yes")))
    return out


def ppi_acceptable(d: pd.DataFrame, n_human: int = 150, seed: int = 0):
    sub = judged(d, "gpt4")
    y, f = (sub.human == "Yes").to_numpy(float), (sub.gpt4 == "Yes").to_numpy(float)
    pick = np.zeros(len(sub), bool)
    pick[np.random.default_rng(seed).choice(len(sub), n_human, replace=False)] = True
    return ppi_mean(y[pick], f[pick], f[~pick]), float(y.mean()), len(sub)


def main():
    d = table()
    res = rows(d)
    print(f"NQ301: automatic judges against the human verdict ({len(d)} answer pairs), 95% intervals")
    print(text_table(["judge", "pairs", "published %", "agreement %", "Cohen's kappa", "F1 of 'acceptable'"],
                     [(j, str(a.n), f"{p:.1f}", f"{100 * a.agreement:.2f} [{100 * a.agreement_interval[0]:.1f}, "
                       f"{100 * a.agreement_interval[1]:.1f}]", f"{a.kappa:.3f} [{a.kappa_interval[0]:.3f}, "
                       f"{a.kappa_interval[1]:.3f}]", f"{c.metrics['f1']['value']:.3f} [{c.metrics['f1']['lo']:.3f}, "
                       f"{c.metrics['f1']['hi']:.3f}]") for j, p, a, c in res], right=[1, 2]))
    both = d[d.gpt4.isin(["Yes", "No"])]
    print()
    print(compare_classifiers(both.human, both.gpt4, both.instructgpt, names=("gpt4", "instructgpt")).summary())
    r, full, m = ppi_acceptable(d)
    print(f"\nshare of acceptable answers ({m} pairs): GPT-4 judge on all + 150 human verdicts {r.estimate:.3f} "
          f"[{r.lo:.3f}, {r.hi:.3f}] (worth {r.effective_n:.0f} human verdicts); the 150 human verdicts alone "
          f"{r.classical['estimate']:.3f} [{r.classical['lo']:.3f}, {r.classical['hi']:.3f}]; GPT-4 alone "
          f"{r.judge_only:.3f}; humans on all {m}: {full:.3f}")


if __name__ == "__main__":
    main()
