"""NQ-open (Kamalloo et al., ACL 2023 release): exact match and token F1 of 12 open-domain QA models, with intervals.

Recomputes, from ``examples/data/nqopen_predictions.csv`` and ``nqopen_questions.csv`` (predictions MIT;
NQ-open questions and gold answers CC BY-SA 3.0), every model's EM and token F1 with SQuAD's normalisation,
the maximum over the gold answers (:func:`bayeseval.metrics.scorers.score_answers`) -- DPR 40.91 / 47.78,
R2-D2 52.35 / 59.03, ... -- and adds what one number hides: the mean token F1 is a continuous score, so its
interval comes from the score model (:mod:`bayeseval.posterior.scores`), and the two best models are
compared on the same 3,610 questions by both metrics.  The EM / F1 values are those the release's own
SQuAD-style evaluation gives on these files (its README); they are not checked against the paper's table.
EM matches for all 12 models; token F1 is 0.028 points higher for 7 of them because SQuAD v2.0's rule
scores an answer that normalises to nothing (the band "The The") as a match of a gold answer that does
(F1 = 1), where the release's script gives 0 -- one question each.

    python papers/nqopen_f1.py
"""

import json
from pathlib import Path

import pandas as pd

import bayeseval as be
from bayeseval.metrics.scorers import score_answers
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"
# the release's SQuAD-style EM / F1 (%), per model: (n questions, EM, F1)
RELEASE = {
    "DPR": (3610, 40.91, 47.78), "FiD": (3610, 46.48, 53.69), "ANCE-plus_FiD": (3610, 47.29, 54.84),
    "Contriever_FiD": (3610, 47.87, 55.41), "Rocketv2_FiD": (3610, 47.70, 55.57), "FiD-KD": (3610, 49.56, 57.37),
    "GAR-plus_FiD": (3610, 49.78, 57.43), "EviGen": (3610, 49.83, 56.95), "EMDR2": (3610, 51.47, 59.46),
    "R2D2": (3610, 52.35, 59.03), "text-davinci-003_fewshot-n64": (301, 31.89, 48.97),
    "text-davinci-003_zeroshot": (301, 12.62, 27.54),
}


def scores(metric: str) -> dict[str, pd.Series]:
    """model -> per-question score (index: question id), EM or token F1 in [0, 1]."""
    q = pd.read_csv(DATA / "nqopen_questions.csv", keep_default_na=False).set_index("qid")
    gold = q["answers"].map(json.loads)
    p = pd.read_csv(DATA / "nqopen_predictions.csv", keep_default_na=False, dtype={"prediction": str})
    out = {}
    for model, d in p.groupby("model", sort=False):
        refs = [json.loads(a) if a else gold[i] for i, a in zip(d.qid, d.answers_if_different)]
        out[model] = pd.Series(score_answers(d.prediction.tolist(), refs, metric), index=d.qid.to_numpy())
    return out


def main() -> None:
    em, f1 = scores("em"), scores("f1")
    rows = []
    for model in em:
        e = be.estimate(f1[model].to_numpy()[:, None])  # token F1: a score in [0, 1], one trial per question
        rows.append([model, str(em[model].size), f"{100 * em[model].mean():.2f}", f"{100 * f1[model].mean():.2f}",
                     f"[{100 * e.lo:.2f}, {100 * e.hi:.2f}]", "/".join(f"{x:.2f}" for x in RELEASE[model][1:])])
    print(text_table(["model", "questions", "EM", "token F1", "F1 95% interval", "release EM/F1"], rows))
    a, b = "EMDR2", "R2D2"
    print(f"\n{a} vs {b} on the same 3,610 questions")
    print("token F1 (scores in [0, 1]; 'avg' is the mean score):")
    print(be.compare(f1[a].to_numpy()[:, None], f1[b].to_numpy()[:, None], names=(a, b))._headline())
    print("exact match (0/1):")
    print(be.compare(em[a].to_numpy()[:, None].astype(int), em[b].to_numpy()[:, None].astype(int),
                     names=(a, b))._headline())


if __name__ == "__main__":
    main()
